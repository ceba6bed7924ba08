import ChirperCatalog
import ChirperCore
import Testing

@testable import ChirperREPL

/// What a command answers at once: a save's lines, `speed` alone, `sono on` and `sono off`.
@Suite("Commands that say what they did", .timeLimit(.minutes(1)))
struct REPLAnswersTests {
    @Test("save on a terminal: its progress on the status line, rewritten in place; one printed line per file")
    func saveOnATerminal() async {
        let console = ScriptedConsole(["search wren"], interactive: true, keepOpen: true)
        let saver = ScriptedSaver([
            .init(
                label: "XC254462", directory: "/tmp/kit",
                progress: [
                    .fetching(label: "XC254462", offset: 0, attempt: 1), .received(label: "XC254462", percent: 25),
                    .received(label: "XC254462", percent: 50), .received(label: "XC254462", percent: 75),
                ],
                outcome: .saved(label: "XC254462", file: "/tmp/kit/XC254462.mp3", bytes: 10)),
            .init(
                label: "XC5168", directory: "/tmp/kit", progress: [.fetching(label: "XC5168", offset: 0, attempt: 1)],
                outcome: .failed(label: "XC5168", reason: "the disk is full; free some space")),
        ])
        async let status = runREPL(console, ScriptedPlayer(), fieldKit: FieldKit(saver: saver, saveDirectory: "/x"))
        await console.waitUntilPrinted { $0.contains { $0.contains("XC5168") } }
        console.type("save 1-2 /tmp/kit")
        await console.waitUntilPrinted { $0.contains { $0.hasPrefix("Save done") } }
        console.endInput()
        #expect(await status == 0)
        // What follows the list's last line.
        let printed = console.printed.drop { !$0.hasPrefix("page 1 of 1") }.dropFirst()
        #expect(
            Array(printed) == [
                "✓ 1/2 XC254462 saved: /tmp/kit/XC254462.mp3 (0 kB)",
                "2/2 XC5168 not saved: the disk is full; free some space",
                "Save done: 1 saved, 1 failed in /tmp/kit",
            ], "\(console.printed)")
        let statuses = console.statusLines.compactMap { $0 }
        #expect(
            statuses == [
                "↓ 1/2 XC254462 …", "↓ 1/2 XC254462 fetching …", "↓ 1/2 XC254462 25%", "↓ 1/2 XC254462 50%",
                "↓ 1/2 XC254462 75%", "↓ 2/2 XC5168 …", "↓ 2/2 XC5168 fetching …",
            ])
        #expect(console.statusLines.last == .some(nil), "the status line goes with the save")
        #expect(saver.unmet.isEmpty)
    }

    @Test("speed alone says the speed in force, before and after a change")
    func speedAlone() async {
        let half = PlaybackSpeed(factor: 0.5, mode: .keep)
        let console = ScriptedConsole(["speed", "speed 0.5 keep", "speed"])
        let player = ScriptedPlayer([.init(call: .speed(half), settings: PlaybackSettings(speed: half))])
        _ = await runREPL(console, player)
        #expect(
            console.printed == [
                "settings: speed=1 mode=tape volume=100 muted=no",
                "settings: speed=0.5 mode=keep volume=100 muted=no",
                "settings: speed=0.5 mode=keep volume=100 muted=no",
            ])
        #expect(player.unmet.isEmpty)
    }

    @Test("sono on says the lines, the band and how it is drawn; sono off says it is off")
    func stripSwitched() async {
        let console = ScriptedConsole(["sono on", "sono on 12 2-9", "sono off", "sono off"], interactive: true)
        _ = await runREPL(console, ScriptedPlayer(listens: true), sonograms: IdleStripPainter())
        // After the line saying the terminal did not answer which graphics it draws.
        #expect(
            console.printed.filter { !$0.contains("graphics query") } == [
                "Live strip on: 8 lines of 0-12 kHz in half-blocks, above the status line while a recording plays ·",
                "  sono off hides it",
                "Live strip on: 12 lines of 2-9 kHz in half-blocks, above the status line while a recording plays ·",
                "  sono off hides it",
                "Live strip off · sono on shows it again",
                "the live strip is not on; sono on shows it while playing",
            ])
    }
}
