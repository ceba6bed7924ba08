import ChirperTestSupport
import ChirperCore
import ChirperFuzzTargets
import ChirperStore
import Foundation
import Testing

/// What the fuzzer found stays found: every input kept in `Regressions/<target>/` (each one crashed a target
/// once, or is a seed that reaches deep into it) is replayed through its target without libFuzzer. A target
/// that crashes ends the test process: the crash names the file.
// Serialized: the quiz-store target keeps one file per process, which two tests at once would share.
@Suite("Fuzzing: the regression corpus replays without a crash", .heavyWork, .serialized)
struct RegressionCorpusTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Regressions")

    static func inputs(of target: String) throws -> [URL] {
        let directory = folder.appendingPathComponent(target)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }.sorted { $0.path < $1.path }
    }

    @Test("every folder of the corpus names a target")
    func foldersNameTargets() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { !$0.hasPrefix(".") }
        #expect(!names.isEmpty)
        for name in names { #expect(FuzzTarget.named(name) != nil, "Regressions/\(name) is no target") }
    }

    @Test("each target's kept inputs run to the end", arguments: FuzzTarget.all.map(\.name))
    func replay(target name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        for url in try Self.inputs(of: name) {
            print("replaying \(name)/\(url.lastPathComponent)")
            target(Array(try Data(contentsOf: url)))
        }
    }

    @Test("the quiz-store target reaches the store: a real store run through it keeps the answer it gives")
    func quizStoreTargetReachesTheStore() throws {
        let target = try #require(FuzzTarget.named("quiz-store"))
        target(Array(try Data(contentsOf: Self.folder.appendingPathComponent("quiz-store/seed-real-store"))))
        let stats = try QuizStore(path: FuzzTarget.quizStorePath).stats(at: Date(timeIntervalSince1970: 1.8e9))
        // The seed holds 3 answers (1 right); the target keeps one more, right.
        #expect(stats.answered == 4)
        #expect(stats.right == 2)
    }
}
