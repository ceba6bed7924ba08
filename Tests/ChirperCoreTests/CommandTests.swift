import Testing

@testable import ChirperCore

@Suite("Command lines")
struct CommandTests {
    @Test(
        "commands and their short forms parse",
        arguments: [
            ("next-page", Command.nextPage), ("n", .nextPage), ("list", .list), ("play 3", .play(row: 3)),
            ("p 12", .play(row: 12)), ("play #4", .play(row: 4)), ("stop", .stop), ("pause", .pause),
            ("resume", .resume), ("info 2", .info(row: 2)), ("wait", .wait), ("help", .help(topic: nil)),
            ("help tags", .help(topic: "tags")), ("quit", .quit), ("exit", .quit), ("", .nothing), ("   ", .nothing),
            ("PLAY 1", .play(row: 1)),
        ])
    func parses(line: String, command: Command) throws {
        #expect(try CommandParser.parse(line) == command)
    }

    @Test("search takes the rest of the line as the query")
    func search() throws {
        #expect(try CommandParser.parse("search wren cnt:spain") == .search(try SearchQuery.parse("wren cnt:spain")))
    }

    @Test(
        "bad lines give one clear line saying what to type",
        arguments: [
            ("plya 1", "did you mean 'play'?"),
            ("frobnicate", "type help for the commands"),
            ("play", "play needs a row number"),
            ("play x", "'x' is not a row number"),
            ("play 0", "'0' is not a row number"),
            ("play -3", "'-3' is not a row number"),
            ("play 99999999999999999999", "is not a row number"),
            ("stop now", "stop takes no arguments"),
            ("search", "search needs words or tags"),
            ("search colour:red", "unknown search tag 'colour:'"),
            ("\u{1B}[2Jzap", "unknown command 'zap'"),
        ])
    func refusals(line: String, message: String) {
        do {
            _ = try CommandParser.parse(line)
            Issue.record("\(line) should be refused")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    @Test("the parser survives random input")
    func fuzz() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("playsearchnext-page 0123456789:\"#\u{1B}[]\t\u{0}é😀en:cnt:q<>=")
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...40, using: &generator)
            let line = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            if case .failure(let error) = Result(catching: { () throws(CommandError) in try CommandParser.parse(line) })
            {
                #expect(!error.description.isEmpty)
            }
        }
    }
}

@Suite("Completion")
struct CompletionTests {
    @Test(
        "completes commands, tags and tag values",
        arguments: [
            ("sea", ["search"]), ("p", ["play", "pause"]), ("search cn", ["cnt:"]), ("search grp:bi", ["grp:birds"]),
            ("search wren q:", ["q:A", "q:B", "q:C", "q:D", "q:E", "q:\">C\"", "q:\"<C\""]), ("help ta", ["tags"]),
            ("play ", []),
        ])
    func completes(line: String, expected: [String]) {
        #expect(Completion.candidates(lineBeforeCursor: line) == expected)
    }
}
