import Foundation
import Testing

/// Every line of `text` as a JSON object (a line that is not one fails the test).
private func objects(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return try #require(object, "not a JSON object: \(line)")
    }
}

/// A session on the demo catalog that makes the presenter write every kind of line a pipe sees.
private let everyKind = [
    "search cnt:demoland", "list", "info 1", "cite 1", "play 1", "wait", "speed 0.5 keep", "volume 50", "mute",
    "unmute", "speed 1", "play 1-2", "wait", "autoplay off", "stop", "sono 1", "graphics", "select 1 0.5-1.5",
    "measure", "measure list", "select clear", "compare 1 2", "ab 1 2", "stop", "save 1",
    "quiz gen:synthetica --questions 2 --seed 3", "1", "replay", "wait", "next", "skip", "",
    "quiz gen:synthetica --mode typed --questions 1 --seed 2", "Synthetic trill", "next",
    "quiz gen:synthetica --mode sono --questions 1 --seed 2 --auto", "1", "quiz stats", "bogus", "quit",
]

@Suite("--json on a whole session", .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"))
struct JSONSessionTests {
    @Test("every line kind the pipe shows is structured: no free text split into args; choices are {n, en, sci}")
    func noArgs() async throws {
        let text = try await runChirper(["--output", "null"], input: everyKind)
        let run = try await runChirper(["--output", "null", "--json"], input: everyKind)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try objects(run.stdout)
        let all = out + (try objects(run.stderr))
        for object in all {
            #expect(object["args"] == nil, "words left unnamed: \(object)")
        }
        // Every kind of line the same session writes in a pipe is there, as its type.
        let kinds = Set(
            text.lines.compactMap { line -> String? in
                guard let colon = line.firstIndex(of: ":"), !line[..<colon].contains(" ") else { return nil }
                return String(line[..<colon])
            })
        let types = Set(all.compactMap { $0["type"] as? String })
        #expect(kinds.isSuperset(of: ["list", "row", "info", "cite", "playback", "quiz", "sono", "measure", "ab"]))
        #expect(kinds.subtracting(types).isEmpty, "kinds without their JSON type: \(kinds.subtracting(types))")

        let questions = out.filter { $0["type"] as? String == "quiz" && $0["event"] as? String == "question" }
        #expect(questions.count == 4)
        let offered = try #require(questions.first?["choices"] as? [[String: Any]], "\(questions)")
        #expect(offered.count == 4)
        for (index, choice) in offered.enumerated() {
            #expect(choice["n"] as? Int == index + 1)
            #expect((choice["en"] as? String)?.hasPrefix("Synthetic ") == true)
            #expect((choice["sci"] as? String)?.hasPrefix("Synthetica ") == true)
        }
        let answer = try #require(out.first { $0["type"] as? String == "quiz" && $0["event"] as? String == "answer" })
        #expect((answer["id"] as? String)?.hasPrefix("DEMO-") == true && answer["verdict"] is String)
        // The demo catalog's ids are not xeno-canto numbers: no xc anywhere.
        #expect(all.allSatisfy { $0["xc"] == nil }, "\(all.filter { $0["xc"] != nil })")
    }

    @Test("sono mode: the three pictures of each question are drawn over the same span, as wide as each other")
    func sonoPicturesAlike() async throws {
        let run = try await runChirper(
            ["--output", "null"],
            input: ["quiz gen:synthetica --mode sono --questions 6 --seed 4 --auto"] + Array(repeating: "1", count: 6)
                + ["quit"])
        #expect(run.status == 0, "\(run.stderr)")
        // Each question's pictures: for each, the widths of its rows.
        var questions: [[[Int]]] = []
        for line in run.lines {
            if line.hasPrefix("quiz: question ") { questions.append([]) }
            if line.hasPrefix("quiz: picture "), !questions.isEmpty { questions[questions.count - 1].append([]) }
            if line.hasPrefix("sono: "), let last = questions.indices.last, !questions[last].isEmpty {
                questions[last][questions[last].count - 1].append(line.dropFirst(6).count)
            }
        }
        #expect(questions.count == 6)
        for (number, pictures) in questions.enumerated() {
            #expect(pictures.count == 3, "question \(number + 1)")
            #expect(Set(pictures.map(\.count)).count == 1, "question \(number + 1): \(pictures)")
            #expect(Set(pictures.flatMap { $0 }) == [72], "question \(number + 1): \(pictures)")
        }
    }
}
