import Foundation
import Testing

@Suite("The network's threads")
struct EventLoopTests {
    @Test("a session searches and plays on one event loop thread, not one per core")
    func oneEventLoop() async throws {
        // NIO's own default for its group, set to four here so that the scenario fails without chirper-play's
        // setting on a machine of any number of cores (a setting in the program wins over the variable).
        let session = try LiveChirper(
            ["--output", "null", "--no-mpris"], environment: ["NIO_SINGLETON_GROUP_LOOP_COUNT": "4"])
        defer { session.signal(SIGKILL) }
        try session.type("search en:trill")
        try await session.waitForLine("list: populated")
        try session.type("play 1")
        try await session.waitForLine("playback: playing")
        // NIO names its shared group's threads NIO-SGLTN-<group>-#<loop>.
        let loops = try session.threadNames().filter { $0.hasPrefix("NIO-SGLTN-") }
        #expect(loops.count == 1, "event loop threads: \(loops)")
    }
}
