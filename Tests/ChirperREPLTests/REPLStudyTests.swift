import ChirperCatalog
import ChirperCore
import ChirperREPL
import Synchronization
import Testing
import ChirperSystem

private let wrenItem = PlayItem.of(Fixture.wren)

private func playing(_ settings: PlaybackSettings = PlaybackSettings(), loop: LoopSection? = nil) -> PlaybackState {
    .playing(
        PlaybackProgress(
            item: wrenItem, ticket: PlaybackTicket(1), position: 12.4, duration: 31, buffered: 1, settings: settings,
            loop: loop))
}

/// Answers `sono` with a fixed picture (or a failure), counting the requests.
private final class FixedSonograms: SonogramSource {
    let failure: String?
    private let asked = Mutex<[String]>([])

    init(failure: String? = nil) {
        self.failure = failure
    }

    var requests: [String] { asked.withLock { $0 } }

    func sonogram(of item: PlayItem, shape: SonogramShape) async throws -> Sonogram {
        asked.withLock { $0.append("\(item.label) \(shape.columns)x\(shape.rows)") }
        if let failure {
            throw DrawingFailed(userMessage: "sono: \(item.label) failed after 3.0 s of audio: \(failure)")
        }
        let levels = (0..<(shape.rows * shape.columns)).map { Float($0 % 5) / 4 }
        return Sonogram(
            rows: shape.rows, columns: shape.columns, levels: levels, maxFrequency: 11025, duration: 12,
            sampleRate: 22050)
    }

    func drawStrip(
        _ work: Channel<StripWork, Never>,
        picture: @escaping @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void
    ) async {
        Issue.record("unexpected live strip")
    }
}

/// A sonogram that could not be drawn, as the audio side reports it: one line for the user.
private struct DrawingFailed: UserFacingError {
    var userMessage: String
}

/// The track's end, so that a script's `wait` returns.
private let finished = PlaybackState.idle(
    PlaybackEnding(item: wrenItem, ticket: PlaybackTicket(1), position: 31, reason: .finished))

private func run(_ lines: [String], _ player: ScriptedPlayer, sonograms: any SonogramSource = NoSonograms()) async
    -> ScriptedConsole
{
    let console = ScriptedConsole(lines)
    let repl = REPL(
        console: console, list: ListController(source: OnePageSource(recordings: Fixture.all)), player: player,
        sonograms: sonograms, presenter: Presenter(style: .script, width: 100, sourceName: "the test catalog"))
    _ = await repl.run(banner: [])
    return console
}

@Suite("The REPL, scripted: studying a recording")
struct REPLStudyTests {
    @Test("seek, loop and loop off reach the player as typed; its refusals come back as one line each")
    func seekAndLoop() async {
        let player = ScriptedPlayer([
            .init(call: .play("XC254462"), emits: [playing()]),
            .init(call: .seek(.absolute(65))),
            .init(call: .seek(.relative(-5))),
            .init(call: .loop(.absolute(12), .absolute(15)), emits: [playing(loop: LoopSection(start: 12, end: 15))]),
            .init(call: .loopOff),
            .init(
                call: .seek(.absolute(95)),
                refusal: "1:35.0 is past the end of the recording (0:31.0); pick an earlier time",
                emits: [finished]),
        ])
        let console = await run(
            ["search wren", "play 1", "seek 1:05", "seek -5", "loop 0:12 0:15", "loop off", "seek 1:35", "wait"],
            player)
        #expect(player.unmet.isEmpty)
        #expect(console.printed.contains("playback: playing XC254462 position=12.4 duration=31.0 loop=12.0-15.0"))
        #expect(
            console.printed.contains(
                #"error: "1:35.0 is past the end of the recording (0:31.0); pick an earlier time""#))
    }

    @Test("garbage times, a loop with one time and a missing seek time are one line each and reach no player")
    func badTimes() async {
        let player = ScriptedPlayer()
        let console = await run(["seek", "seek soon", "loop 0:12", "loop 0:12 x", "seek 1:75"], player)
        let errors = console.printed.filter { $0.hasPrefix("error:") }
        #expect(
            errors == [
                #"error: "seek needs a time: seek 1:05, seek 30 (seconds), seek +10 or seek -5""#,
                #"error: "'soon' is not a time: use m:ss, seconds (12.5), or +N/-N seconds from here""#,
                #"error: "loop takes two times, e.g. loop 0:12 0:15, or loop off""#,
                #"error: "'x' is not a time: use m:ss, seconds (12.5), or +N/-N seconds from here""#,
                #"error: "'1:75' is not a time: use m:ss, seconds (12.5), or +N/-N seconds from here""#,
            ])
        #expect(player.calls == [.shutdown])
    }

    @Test("speed, volume, mute and unmute answer with the settings in force; bad values reach no player")
    func settings() async {
        let half = PlaybackSpeed(factor: 0.5, mode: .keep)
        let player = ScriptedPlayer([
            .init(call: .speed(half), settings: PlaybackSettings(speed: half)),
            .init(call: .volume(50), settings: PlaybackSettings(speed: half, volume: 50)),
            .init(call: .mute(true), settings: PlaybackSettings(speed: half, volume: 50, muted: true)),
            .init(call: .mute(true), refusal: "already muted; unmute"),
        ])
        let console = await run(
            ["speed 0.5 keep", "volume 50", "mute", "mute", "speed 0", "speed 50", "speed 0.5 fast", "volume 101"],
            player)
        #expect(
            console.printed == [
                "settings: speed=0.5 mode=keep volume=100 muted=no",
                "settings: speed=0.5 mode=keep volume=50 muted=no",
                "settings: speed=0.5 mode=keep volume=50 muted=yes",
                #"error: "already muted; unmute""#,
                #"error: "speed 0.0 is out of range: give a number from 0.1 to 2.0""#,
                #"error: "speed 50.0 is out of range: give a number from 0.1 to 2.0""#,
                #"error: "'fast' is not a speed mode: use tape (pitch moves) or keep""#,
                #"error: "'101' is not a volume: give a whole number from 0 to 100, e.g. volume 50""#,
            ])
        #expect(player.unmet.isEmpty)
    }

    @Test("the pipe line shows speed, loop and volume while they differ from plain playback")
    func statusFields() async {
        let slow = PlaybackSettings(speed: PlaybackSpeed(factor: 0.5, mode: .tape), volume: 40)
        let player = ScriptedPlayer([
            .init(call: .play("XC254462"), emits: [playing(slow, loop: LoopSection(start: 12, end: 15)), finished])
        ])
        let console = await run(["search wren", "play 1", "wait"], player)
        #expect(
            console.printed.contains(
                "playback: playing XC254462 position=12.4 duration=31.0 speed=0.5 loop=12.0-15.0 volume=40"))
    }

    @Test("sono <n> prints the header and one sono: line per row; the next line waits for it")
    func sonogramLines() async {
        let sonograms = FixedSonograms()
        let console = await run(["search wren", "sono 1", "info 2"], ScriptedPlayer(), sonograms: sonograms)
        let lines = console.printed
        let header = lines.firstIndex { $0.hasPrefix("sono: XC254462 0-11.0kHz 0.0-12.0s cols=72 rows=16") }
        #expect(header != nil, "\(lines)")
        let rows = lines.filter { $0.hasPrefix("sono: ") }.dropFirst()
        #expect(rows.count == 16)
        #expect(rows.allSatisfy { $0.count == "sono: ".count + 72 })
        let info = lines.firstIndex { $0.hasPrefix("info:") }
        #expect(info.map { $0 > header! } == true, "info ran before the sonogram was printed")
        #expect(sonograms.requests == ["XC254462 72x16"])
    }

    @Test("sono of a restricted row, of no row, and a decode that fails: one line each, the session goes on")
    func sonogramRefusals() async {
        let sonograms = FixedSonograms(failure: "the MP3 data is damaged")
        let console = await run(
            ["sono 1", "search wren", "sono 3", "sono 9", "sono 1 0", "sono 2", "info 1"], ScriptedPlayer(),
            sonograms: sonograms)
        let errors = console.printed.filter { $0.hasPrefix("error:") }
        #expect(
            errors == [
                #"error: "no rows yet: search first, e.g. search en:wren""#,
                #"error: "row 3 (XC9999) is restricted: the test catalog does not offer its audio""#,
                #"error: "there is no row 9: rows 1-3 are listed""#,
                #"error: "'0' is not a band in kHz: lo-hi or a top (0-1000], e.g. 2-9 or 10; usage: sono [n] [lo-hi|top|max] [a-b] [--png FILE] [--contrast auto|fixed] | sono on [lines] [lo-hi] | sono off""#,
                #"error: "sono: XC5168 failed after 3.0 s of audio: the MP3 data is damaged""#,
            ])
        #expect(console.printed.contains { $0.hasPrefix("info:") })
        #expect(sonograms.requests == ["XC5168 72x16"])
    }
}
