import ChirperCore
import ChirperStore
import ChirperTestSupport
import Foundation
import Testing

private let apiKey = "quiz-test-KEY-7ab"

/// Four species in two genera, two recordings each (a song and a call), and a restricted one.
private let species = [
    ("Sylvia", "atricapilla", "Eurasian Blackcap"), ("Sylvia", "borin", "Garden Warbler"),
    ("Turdus", "merula", "Common Blackbird"), ("Turdus", "philomelos", "Song Thrush"),
]

private func records(base: String) -> [String] {
    var records: [String] = []
    for (index, (genus, name, english)) in species.enumerated() {
        for (offset, type) in ["song", "call"].enumerated() {
            let id = 810_000 + index * 10 + offset
            records.append(
                """
                {"id": "\(id)", "gen": "\(genus)", "sp": "\(name)", "en": "\(english)", "rec": "Recordist \(id)",
                 "cnt": "Spain", "type": "\(type)", "q": "A", "length": "0:04", "file": "\(base)/\(id)/download",
                 "url": "//xeno-canto.org/\(id)", "lic": "//creativecommons.org/licenses/by-sa/4.0/"}
                """)
        }
    }
    records.append(
        #"{"id": "819999", "gen": "Strix", "sp": "secreta", "en": "Secret Owl", "file": "", "length": "0:04"}"#)
    return records
}

/// A loopback xeno-canto serving the deck over two pages (5 and 4 rows), the demo MP3 as every recording's audio.
private func fakeXenoCanto(_ request: LoopbackRequest, base: String) -> LoopbackResponse {
    if request.path == "/api/3/recordings" {
        let all = records(base: base)
        let page = Int(request.query["page"] ?? "1") ?? 1
        let rows = page == 1 ? Array(all.prefix(5)) : Array(all.dropFirst(5))
        return .json(
            #"{"numRecordings": "\#(all.count)", "numSpecies": "5", "page": \#(page), "numPages": 2, "recordings": [\#(rows.joined(separator: ","))]}"#
        )
    }
    if request.path.hasSuffix("/download") {
        let file = ChirperBinary.packageRoot.appendingPathComponent("assets/demo/audio/demo-01.mp3")
        let bytes = (try? Data(contentsOf: file)).map { Array($0) } ?? []
        return .file(bytes, contentType: "audio/mpeg", for: request)
    }
    return .text("not found", status: 404)
}

/// A home of its own for a test (data and cache), removed at the end.
private struct QuizHome {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-quiz-\(UUID())").path
    var environment: [String: String] {
        ["XENO_CANTO_API_KEY": apiKey, "XDG_DATA_HOME": path + "/data", "XDG_CACHE_HOME": path + "/cache"]
    }
    var store: String { path + "/data/chirper-play/quiz.sqlite" }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

private func startServer() async throws -> LoopbackServer {
    let base = ServerBase()
    let server = try await LoopbackServer.start { fakeXenoCanto($0, base: base.value) }
    base.value = server.baseURL
    return server
}

/// Every secret of the recording each question played: its names, number and recordist.
private func secrets(forAnswer line: String) -> [String] {
    // `quiz: answer right id="XC810011" species="Sylvia borin" en="Garden Warbler" rec="Recordist 810011" …`
    let fields = ["species=\"", "en=\"", "id=\"", "rec=\""].compactMap { key -> String? in
        guard let range = line.range(of: key) else { return nil }
        let rest = line[range.upperBound...]
        return String(rest.prefix { $0 != "\"" && $0 != " " })
    }
    return fields
}

@Suite("The quiz in a pipe", .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"))
struct QuizPipeTests {
    @Test(
        "20 questions over a two-page deck, each after next or Enter: nothing names or times a recording before its answer"
    )
    func twentyQuestions() async throws {
        let home = QuizHome()
        defer { home.remove() }
        let server = try await startServer()
        defer { Task { await server.shutdown() } }
        // Each answer, then `next` or an empty line for the next question.
        let answers: [String] = (1...20).flatMap { number -> [String] in
            [String(number % 4 + 1), number % 2 == 0 ? "next" : ""]
        }
        let run = try await runChirper(
            ["--api-url", server.baseURL + "/api/3/recordings", "--output", "null"],
            input: ["quiz gen:sylvia --seed 4"] + answers + ["quiz stats", "quit"], environment: home.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines("quiz: deck ") == [#"quiz: deck name="gen:sylvia" species=4 recordings=8 cards=8"#])
        #expect(server.requests.filter { $0.path == "/api/3/recordings" }.count == 2, "both pages fetched")

        // Between each question and its answer, no line names the recording played.
        let lines = run.lines
        var question: Int?
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("quiz: question ") { question = index }
            guard line.hasPrefix("quiz: answer "), let open = question else { continue }
            let (species, english) = (secrets(forAnswer: line)[0], secrets(forAnswer: line)[1])
            for shown in lines[open..<index] {
                // Its length and place in its recording tell a recording apart too.
                let named =
                    [secrets(forAnswer: line)[2], secrets(forAnswer: line)[3], "duration=", "position="]
                    + (shown.hasPrefix("quiz: question ") ? [] : [species, english])
                for secret in named {
                    #expect(!shown.contains(secret), "'\(secret)' shown before the answer: \(shown)")
                }
            }
            question = nil
        }
        let verdicts = run.lines("quiz: answer ")
        #expect(verdicts.count == 20)
        #expect(run.lines("quiz: waiting ").count == 20)
        #expect(run.lines("playback: playing quiz-").allSatisfy { $0.contains(" elapsed=") }, "\(run.stdout)")
        let right = verdicts.filter { $0.hasPrefix("quiz: answer right") }.count
        #expect(run.lines("quiz: score ") == ["quiz: score right=\(right) asked=20"])
        #expect(run.lines("quiz: stats ").first?.hasPrefix("quiz: stats answered=20 right=\(right) due=") == true)

        // A new program: the progress is still there.
        let again = try await runChirper(["--output", "null"], input: ["quiz stats"], environment: home.environment)
        #expect(again.lines("quiz: stats ").first?.hasPrefix("quiz: stats answered=20 right=\(right) ") == true)
    }

    @Test("killed mid-session (SIGKILL), the store is intact and keeps every answer printed")
    func killed() async throws {
        let home = QuizHome()
        defer { home.remove() }
        let server = try await startServer()
        defer { Task { await server.shutdown() } }
        var environment = home.environment
        environment["XDG_CACHE_HOME"] = home.path + "/cache"
        let session = try ChirperSession(
            ["--api-url", server.baseURL + "/api/3/recordings", "--output", "null"], environment: environment)
        defer { session.kill() }
        try await session.run(["quiz gen:sylvia --questions 500 --seed 9 --auto"], marker: "kill-mark-0")
        for round in 1...6 {
            try await session.run((1...10).map { String(($0 + round) % 4 + 1) }, marker: "kill-mark-\(round)")
        }
        // Answers still flowing when the kill lands: 40 more written, the marker never awaited.
        let more = (1...40).map { String($0 % 4 + 1) + "\n" }.joined()
        try session.write(more)
        kill(session.pid, SIGKILL)
        _ = await session.waitForExitStatus()
        let printed = session.output.filter { $0.hasPrefix("quiz: answer ") }.count
        #expect(printed >= 60)

        let store = try QuizStore(path: home.store)
        #expect(try store.integrityCheck() == "ok")
        let stats = try store.stats(at: Date())
        #expect(stats.answered >= printed, "every answer printed was kept (\(stats.answered) of \(printed))")
        #expect(stats.answered <= printed + 1, "at most the answer being given when killed is extra")
    }

    @Test("quiz saved works with the network gone")
    func savedOffline() async throws {
        let home = QuizHome()
        defer { home.remove() }
        let server = try await startServer()
        let save = try await runChirper(
            ["--api-url", server.baseURL + "/api/3/recordings", "--output", "null"],
            input: ["search gen:sylvia", "save 1-4", "quit"], environment: home.environment)
        let url = server.baseURL
        await server.shutdown()
        #expect(save.lines("save: done").first?.hasPrefix("save: done saved=4") == true, "\(save.stdout)")
        let quiz = try await runChirper(
            ["--api-url", url + "/api/3/recordings", "--output", "null"],
            input: ["quiz saved --questions 3 --seed 1", "1", "", "2", "", "1", "quit"], environment: home.environment)
        #expect(quiz.lines("quiz: deck ") == [#"quiz: deck name="saved" species=2 recordings=4 cards=4"#])
        #expect(quiz.lines("quiz: answer ").count == 3)
        #expect(quiz.lines("playback: failed").isEmpty, "\(quiz.stdout)")
        #expect(quiz.lines("error: ").isEmpty, "\(quiz.stdout)")
    }
}
