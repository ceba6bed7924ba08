import ChirperCatalog
import ChirperCore
import ChirperREPL
import Testing

private let thrush = Recording(
    id: "3", genus: "Turdus", species: "philomelos", englishName: "Song Thrush", recordist: "C. Listener",
    pageURL: "https://xeno-canto.org/3", licenceURL: "https://creativecommons.org/licenses/by/4.0/", length: "0:08",
    background: ["Erithacus rubecula"], audio: .playable(.remote("https://xeno-canto.org/3/download")))

/// A track of `recording` under `ticket`, from buffering to its end.
private func wholeTrack(_ recording: Recording, ticket: UInt64) -> [PlaybackState] {
    let progress = PlaybackProgress(
        item: .of(recording), ticket: PlaybackTicket(ticket), position: 0, duration: 4, buffered: 1)
    return [
        .buffering(progress), .playing(progress),
        .idle(PlaybackEnding(item: .of(recording), ticket: PlaybackTicket(ticket), position: 4, reason: .finished)),
    ]
}

@Suite("The REPL's field kit, scripted")
struct REPLFieldKitTests {
    @Test("a queue of three plays in order, each start with its attribution, then says finished")
    func queueOfThree() async {
        let recordings = [Fixture.wren, Fixture.robin, thrush]
        let console = ScriptedConsole(["search wren", "play 1-3", "wait", "next", "quit"])
        let player = ScriptedPlayer(
            recordings.enumerated().map { index, recording in
                .init(call: .play(recording.label), emits: wholeTrack(recording, ticket: UInt64(index + 1)))
            })
        #expect(await runREPL(console, player, recordings: recordings) == 0)
        let lines = console.printed.filter {
            $0.hasPrefix("queue:") || $0.hasPrefix("attribution:") || $0.hasPrefix("playback: buffering")
                || $0 == "playback: idle" || $0.hasPrefix("error:")
        }
        let attribution = { (recording: Recording) in
            lines.first { $0.hasPrefix("attribution: \(recording.label) ") } ?? "missing"
        }
        #expect(
            lines == [
                "queue: queued XC254462,XC5168,XC3",
                "queue: 1/3 XC254462", attribution(Fixture.wren), "playback: buffering XC254462", "playback: idle",
                "queue: 2/3 XC5168", attribution(Fixture.robin), "playback: buffering XC5168", "playback: idle",
                "queue: 3/3 XC3", attribution(thrush), "playback: buffering XC3", "playback: idle",
                "queue: finished",
                #"error: "the queue is finished; prev goes back, play 3-7 starts a new one""#,
            ])
        #expect(attribution(thrush).contains(#"rec="C. Listener" licence="CC BY 4.0""#))
        #expect(player.unmet.isEmpty)
    }

    @Test("autoplay off holds after a row; stop holds the queue; next moves on; a new search clears it")
    func autoplayOffAndNext() async {
        let recordings = [Fixture.wren, Fixture.robin, thrush]
        let console = ScriptedConsole([
            "search wren", "autoplay off", "play all", "wait", "next", "stop", "next", "next", "search robin",
        ])
        let robin = PlaybackProgress(item: .of(Fixture.robin), ticket: PlaybackTicket(2), duration: 4)
        let player = ScriptedPlayer([
            .init(call: .play("XC254462"), emits: wholeTrack(Fixture.wren, ticket: 1)),
            .init(call: .play("XC5168"), emits: [.buffering(robin)]),
            .init(
                call: .stop,
                emits: [
                    .idle(
                        PlaybackEnding(
                            item: .of(Fixture.robin), ticket: PlaybackTicket(2), position: 1, reason: .stopped))
                ]),
            .init(call: .play("XC3"), emits: []),
        ])
        _ = await runREPL(console, player, recordings: recordings)
        let queue = console.printed.filter { $0.hasPrefix("queue:") || $0.hasPrefix("error:") }
        #expect(
            queue == [
                "queue: autoplay off", "queue: queued XC254462,XC5168,XC3", "queue: 1/3 XC254462",
                "queue: 2/3 XC5168", "queue: 3/3 XC3", #"error: "XC3 is the last in the queue; prev goes back""#,
                "queue: cleared",
            ])
        #expect(player.unmet.isEmpty)
    }

    @Test("save of two rows: progress, one line per outcome and a summary, the script waiting; cite after it")
    func saveThenCite() async {
        let console = ScriptedConsole(["search wren", "save 1-2 /tmp/kit", "cite 1", "cite 2"])
        let saver = ScriptedSaver([
            .init(
                label: "XC254462", directory: "/tmp/kit",
                progress: [
                    .fetching(label: "XC254462", offset: 0, attempt: 1), .received(label: "XC254462", percent: 50),
                ],
                outcome: .saved(label: "XC254462", file: "/tmp/kit/XC254462.mp3", bytes: 10)),
            .init(
                label: "XC5168", directory: "/tmp/kit", progress: [],
                outcome: .failed(label: "XC5168", reason: "the disk is full; free some space")),
        ])
        _ = await runREPL(
            console, ScriptedPlayer(), fieldKit: FieldKit(saver: saver, saveDirectory: "/unused"))
        let lines = console.printed.filter { $0.hasPrefix("save:") || $0.hasPrefix("cite:") }
        #expect(
            lines == [
                "save: fetching XC254462 item=1/2 offset=0 attempt=1",
                "save: progress XC254462 percent=50",
                #"save: saved XC254462 item=1/2 bytes=10 file="/tmp/kit/XC254462.mp3""#,
                #"save: failed XC5168 item=2/2 reason="the disk is full; free some space""#,
                #"save: done saved=1 existing=0 failed=1 dir="/tmp/kit""#,
                #"cite: XC254462 text="A. Recordist, XC254462, https://xeno-canto.org/254462, CC BY-NC-SA 4.0""#,
                #"cite: XC254462 warning="licence CC BY-NC-SA 4.0: no commercial use""#,
                #"cite: XC5168 text="B. Birder, XC5168, https://xeno-canto.org/5168, licence not given""#,
                #"cite: XC5168 warning="licence not given: check the recording's page before reusing it""#,
            ])
        #expect(saver.unmet.isEmpty)
    }

    @Test("also searches a row's background species; bad rows and selections get one line each")
    func alsoAndRefusals() async {
        let console = ScriptedConsole(["search wren", "also 3", "also 1", "save 9", "play 2-1"])
        let saver = ScriptedSaver([])
        _ = await runREPL(
            console, ScriptedPlayer(), recordings: [Fixture.wren, Fixture.robin, thrush],
            fieldKit: FieldKit(saver: saver, saveDirectory: "/unused"))
        let lines = console.printed.filter { $0.hasPrefix("list: loading") || $0.hasPrefix("error:") }
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[1].contains("erithacus rubecula"))
        #expect(lines[2] == #"error: "XC254462 lists no background species""#)
        #expect(lines[3] == #"error: "save: there is no row 9; the list has rows 1-3""#)
        #expect(lines[4].hasPrefix(#"error: "the range 2-1 runs backwards"#))
    }

    @Test("loop ann k loops annotation box k of the recording asked for; boxes it cannot loop get one line")
    func loopAnnotation() async {
        var boxed = thrush
        boxed.annotations = [
            Annotation(fields: ["start": "1.5", "end": "2.25", "species": "Turdus philomelos"]),
            Annotation(fields: ["species": "Erithacus rubecula"]),
        ]
        let console = ScriptedConsole([
            "loop ann 1", "search thrush", "play 1", "loop ann 1", "loop ann 2", "loop ann 3",
        ])
        let player = ScriptedPlayer([
            .init(call: .play("XC3"), emits: []),
            .init(call: .loop(.absolute(1.5), .absolute(2.25)), emits: []),
        ])
        _ = await runREPL(console, player, recordings: [boxed])
        #expect(
            console.printed.filter { $0.hasPrefix("error:") } == [
                #"error: "nothing is playing: play a row, then loop ann <k>""#,
                #"error: "annotation box 2 of XC3 has no start and end time to loop""#,
                #"error: "XC3 has 2 annotation boxes, not 3; info lists them""#,
            ])
        #expect(player.unmet.isEmpty)
    }
}
