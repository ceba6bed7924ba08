import ChirperCatalog
import ChirperCore
import ChirperREPL
import Testing

private let wrenItem = PlayItem.of(Fixture.wren)

private func progress(_ ticket: UInt64, at position: Double = 0) -> PlaybackProgress {
    PlaybackProgress(item: wrenItem, ticket: PlaybackTicket(ticket), position: position, duration: 12, buffered: 1)
}

private func ended(_ ticket: UInt64, _ reason: PlaybackEnding.Reason, at position: Double) -> PlaybackState {
    .idle(PlaybackEnding(item: wrenItem, ticket: PlaybackTicket(ticket), position: position, reason: reason))
}

@Suite("The REPL, scripted", .timeLimit(.minutes(1)))
struct REPLTests {
    @Test("a script searches, lists, plays, waits for the end and quits; every line in order")
    func fullScript() async {
        let console = ScriptedConsole(["search wren", "play 1", "wait", "info 2", "quit"])
        let player = ScriptedPlayer([
            .init(
                call: .play("XC254462"), refusal: nil,
                emits: [.buffering(progress(1)), .playing(progress(1)), ended(1, .finished, at: 12)])
        ])
        #expect(await runREPL(console, player) == 0)
        let lines = console.printed
        let playback = lines.filter { $0.hasPrefix("playback:") }
        #expect(
            playback == [
                "playback: buffering XC254462", "playback: playing XC254462 position=0.0 duration=12.0",
                "playback: idle",
            ])
        // `wait` held `info 2` back until the track had ended.
        let idle = lines.firstIndex(of: "playback: idle")!
        let info = lines.firstIndex { $0.hasPrefix("info:") }!
        #expect(idle < info)
        // The attribution names the recording of this request, before it plays.
        let attribution = lines.firstIndex { $0.hasPrefix("attribution:") }!
        #expect(attribution < lines.firstIndex(of: "playback: buffering XC254462")!)
        #expect(lines[attribution].contains("XC254462"))
        #expect(lines.contains { $0.hasPrefix("row:") && $0.contains("XC5168") })
        #expect(player.calls == [.play("XC254462"), .shutdown])
        #expect(player.unmet.isEmpty)
        #expect(console.closeCount == 1)
    }

    @Test("a wait after a play is not ended by the end of an earlier track still in the queue")
    func waitIgnoresOlderEnding() async {
        let console = ScriptedConsole(["search wren", "play 1", "play 1", "wait", "info 1"])
        let player = ScriptedPlayer([
            // The first track's states, its stop ending included, arrive after the second play was made.
            .init(call: .play("XC254462"), refusal: nil, emits: []),
            .init(
                call: .play("XC254462"), refusal: nil,
                emits: [
                    .buffering(progress(1)), ended(1, .stopped, at: 0.4), .buffering(progress(2)),
                    .playing(progress(2)), ended(2, .finished, at: 12),
                ]),
        ])
        _ = await runREPL(console, player)
        let lines = console.printed
        let secondEnd = lines.lastIndex(of: "playback: idle")!
        let info = lines.firstIndex { $0.hasPrefix("info:") }!
        #expect(secondEnd < info)
        #expect(lines.filter { $0 == "playback: idle" }.count == 2)
    }

    @Test("stop, pause and resume pass the player's refusals on as one error line each")
    func refusalsFromTheMachine() async {
        let console = ScriptedConsole(["stop", "pause", "resume"])
        let player = ScriptedPlayer([
            .init(call: .stop, refusal: "nothing is playing", emits: []),
            .init(call: .pause, refusal: "nothing is playing", emits: []),
            .init(call: .resume, refusal: "nothing is paused", emits: []),
        ])
        _ = await runREPL(console, player)
        #expect(
            console.printed == [
                #"error: "nothing is playing""#, #"error: "nothing is playing""#, #"error: "nothing is paused""#,
            ])
        #expect(player.unmet.isEmpty)
    }

    @Test("accepted stop, pause and resume print nothing themselves; the states they cause are rendered")
    func acceptedCommands() async {
        let console = ScriptedConsole(["search wren", "play 1", "pause", "resume", "stop", "wait"])
        let player = ScriptedPlayer([
            .init(call: .play("XC254462"), refusal: nil, emits: [.playing(progress(1))]),
            .init(call: .pause, refusal: nil, emits: [.paused(progress(1, at: 2))]),
            .init(call: .resume, refusal: nil, emits: [.playing(progress(1, at: 2))]),
            .init(call: .stop, refusal: nil, emits: [ended(1, .stopped, at: 2.5)]),
        ])
        _ = await runREPL(console, player)
        let playback = console.printed.filter { $0.hasPrefix("playback:") || $0.hasPrefix("error:") }
        #expect(
            playback == [
                "playback: playing XC254462 position=0.0 duration=12.0",
                "playback: paused XC254462 position=2.0 duration=12.0",
                "playback: playing XC254462 position=2.0 duration=12.0", "playback: idle",
            ])
        #expect(player.unmet.isEmpty)
    }

    @Test("bad lines get one line each and never reach the player; the list survives them")
    func badInput() async {
        let console = ScriptedConsole(["play 1", "serch wren", "search wren", "play 9", "play 3", "play x", "list"])
        let player = ScriptedPlayer()
        _ = await runREPL(console, player)
        let errors = console.printed.filter { $0.hasPrefix("error:") }
        #expect(errors.count == 5)
        #expect(errors[0] == #"error: "no rows yet: search first, e.g. search en:wren""#)
        #expect(errors[1].contains("did you mean 'search'?"))
        #expect(errors[2] == #"error: "there is no row 9: rows 1-3 are listed""#)
        #expect(errors[3].contains("restricted"))
        #expect(player.calls == [.shutdown])
        // `list` still shows the three rows after all that.
        #expect(console.printed.suffix(4).filter { $0.hasPrefix("row:") }.count == 3)
    }

    @Test("Ctrl-C stops what plays and the session goes on; with nothing playing a script ends")
    func interrupt() async {
        let console = ScriptedConsole(["search wren", "play 1"], keepOpen: true)
        let player = ScriptedPlayer([
            .init(call: .play("XC254462"), refusal: nil, emits: [.playing(progress(1))]),
            .init(call: .stop, refusal: nil, emits: [ended(1, .stopped, at: 1)]),
            .init(call: .stop, refusal: "nothing is playing", emits: []),
        ])
        let presenter = Presenter(style: .script, width: 100, sourceName: "the test catalog")
        let repl = REPL(
            console: console, list: ListController(source: OnePageSource(recordings: Fixture.all)),
            player: player, sonograms: NoSonograms(), presenter: presenter)
        async let status = repl.run(banner: [])
        // The first interrupt stops playback; the second finds nothing playing and ends the script.
        await console.waitUntilPrinted { $0.contains { $0.hasPrefix("playback: playing") } }
        repl.send(.interrupt)
        await console.waitUntilPrinted { $0.contains("playback: idle") }
        repl.send(.interrupt)
        #expect(await status == 0)
        #expect(player.calls == [.play("XC254462"), .stop, .stop, .shutdown])
        #expect(console.printed.filter { $0 == "<interrupted>" }.count == 2)
    }

    @Test("on a terminal the ending line says finished or stopped, and the status line follows the track")
    func terminalEndings() async {
        let console = ScriptedConsole(["search wren"], interactive: true, keepOpen: true)
        let player = ScriptedPlayer([
            .init(
                call: .play("XC254462"), refusal: nil,
                emits: [.playing(progress(1, at: 3)), ended(1, .finished, at: 12)])
        ])
        async let status = runREPL(console, player)
        // On a terminal nothing waits for the list: the user types once the rows are there.
        await console.waitUntilPrinted { $0.contains { $0.contains("XC5168") } }
        console.type("play 1")
        console.type("wait")
        console.endInput()
        #expect(await status == 0)
        #expect(console.printed.contains("■ XC254462 finished (0:12)"))
        #expect(!console.printed.contains { $0.contains("stopped at") })
        #expect(console.statusLines.contains { $0?.contains("Eurasian Wren") == true })
        #expect(console.statusLines.last! == nil)
    }
}
