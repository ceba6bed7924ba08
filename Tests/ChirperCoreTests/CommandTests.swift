import ChirperTestSupport
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

    @Test("search alone is told apart from a query that cannot be read, for the session to name a search")
    func searchWithoutWords() {
        #expect(
            throws: CommandError(
                "search needs words or tags, e.g. search en:wren  or  search gen:turdus cnt:spain",
                kind: .searchWithoutWords)
        ) {
            try CommandParser.parse("search  ")
        }
        #expect(
            throws: CommandError(
                "unknown search tag 'colour:'; known tags: \(SearchQuery.knownTags.joined(separator: " "))")
        ) {
            try CommandParser.parse("search colour:red")
        }
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

    @Test("the parser survives random input", .heavyWork)
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
            ("sea", ["search"]), ("p", ["play", "prev", "pause"]), ("search cn", ["cnt:"]),
            ("search grp:bi", ["grp:birds"]),
            ("search wren q:", ["q:A", "q:B", "q:C", "q:D", "q:E", "q:\">C\"", "q:\"<C\""]), ("help ta", ["tags"]),
            ("play ", []),
        ])
    func completes(line: String, expected: [String]) {
        #expect(Completion.candidates(lineBeforeCursor: line) == expected)
    }
}

@Suite("Commands for studying a recording")
struct StudyCommandTests {
    @Test(
        "seek, loop, speed, volume, mute and sono parse to what they mean",
        arguments: [
            ("seek 1:05", Command.seek(.absolute(65))),
            ("jump -5", .seek(.relative(-5))),
            ("loop 0:12 0:15.5", .loop(from: .absolute(12), to: .absolute(15.5))),
            ("loop OFF", .loopOff),
            ("speed 0.1", .speed(PlaybackSpeed(factor: 0.1, mode: .tape))),
            ("speed 0.5 keep", .speed(PlaybackSpeed(factor: 0.5, mode: .keep))),
            ("volume 50%", .volume(50)),
            ("vol 0", .volume(0)),
            ("mute", .mute),
            ("unmute", .unmute),
            ("sono 2 10", .sono(.draw(SonogramDraw(row: 2, band: FrequencyBand(high: 10_000))))),
            ("sono off", .sono(.strip(on: false))),
            ("speed", .speed(nil)),
        ])
    func parses(line: String, expected: Command) throws {
        #expect(try CommandParser.parse(line) == expected)
    }

    @Test(
        "bad arguments are refused with one line",
        arguments: ["volume -1", "volume 1000", "volume half", "mute now", "speed fast", "loop a"])
    func refuses(line: String) {
        #expect(throws: CommandError.self) { try CommandParser.parse(line) }
    }

    @Test("Tab completes the modes, loop off and sono on/off")
    func completes() {
        #expect(Completion.candidates(lineBeforeCursor: "speed 0.5 k") == ["keep"])
        #expect(Completion.candidates(lineBeforeCursor: "loop o") == ["off"])
        #expect(Completion.candidates(lineBeforeCursor: "sono o") == ["on", "off"])
        #expect(Completion.candidates(lineBeforeCursor: "se").contains("seek"))
    }
}
