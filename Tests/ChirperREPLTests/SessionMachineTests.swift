import ChirperCatalog
import ChirperCore
import Testing

@testable import ChirperREPL

private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")
private let terminal = Presenter(style: .terminal(color: false), width: 100, sourceName: "the test catalog")

private func session(_ presenter: Presenter, terminal: TerminalGraphicsSupport = .none) -> SessionMachine {
    SessionMachine(
        .init(
            interactive: presenter.style != .script, presenter: presenter, saveDirectory: "/saves",
            homeDirectory: "/home/birder", terminal: terminal))
}

private func typed(_ line: String) -> SessionMachine.Event { .typed(line, columns: 100) }

private func progress(_ recording: Recording, _ ticket: UInt64, at position: Double = 0) -> PlaybackProgress {
    PlaybackProgress(item: .of(recording), ticket: PlaybackTicket(ticket), position: position, duration: 12)
}

/// `recording` played to its end, its last sample heard `late` seconds before that was reported.
private func ended(_ recording: Recording, _ ticket: UInt64, late: Double = 0) -> PlaybackState {
    .idle(
        PlaybackEnding(
            item: .of(recording), ticket: PlaybackTicket(ticket), position: 12, reason: .finished, late: late))
}

/// What `measure 2 0:01-0:02 2-8` answers in these scenarios (the figures are the player's; any will do).
private let measuredOneSecond = SelectionMeasurement(
    begin: 1, end: 2, low: 2000, high: 8000, peakFrequency: 4048, peakTime: 1.5, frequency5: 3962,
    frequency25: 4005, centerFrequency: 4048, frequency75: 4091, frequency95: 4134, time5: 1.1, time95: 1.9,
    averageEntropy: 2.5, contourSlope: 0, contourInflections: 0, fftSize: 512, hop: 256, sampleRate: 44_100)

@Suite("The REPL session, one event at a time")
struct SessionMachineTests {
    @Test(
        "the status line is redrawn when its clock changes or the buffer really moves, not at every tick of the figure")
    func statusBufferHeld() {
        var machine = session(terminal)
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        func redrawn(at position: Double, buffered: Double) -> String? {
            var playing = progress(Fixture.wren, 1, at: position)
            playing.buffered = buffered
            return machine.handle(.playback(.playing(playing))).compactMap { action -> String? in
                if case .status(let rows, _) = action { rows.last } else { nil }
            }.last
        }
        let first = redrawn(at: 1.0, buffered: 1.9)
        #expect(first?.contains("0:01 / 0:12") == true && first?.hasSuffix("buf 1.9 s") == true)
        // The chunks' sawtooth alone: the line stands.
        #expect(redrawn(at: 1.1, buffered: 1.7) == nil)
        #expect(redrawn(at: 1.2, buffered: 1.5) == nil)
        // The clock moves: the line is redrawn with the buffer as it is.
        let second = redrawn(at: 2.0, buffered: 1.6)
        #expect(second?.contains("0:02 / 0:12") == true && second?.hasSuffix("buf 1.6 s") == true)
        // The buffer moves by half a second, then falls under a second: every change is shown.
        #expect(redrawn(at: 2.1, buffered: 1.0)?.hasSuffix("buf 1.0 s") == true)
        #expect(redrawn(at: 2.2, buffered: 0.9)?.hasSuffix("buf 0.9 s") == true)
        #expect(redrawn(at: 2.3, buffered: 0.8)?.hasSuffix("buf 0.8 s") == true)
        #expect(redrawn(at: 2.4, buffered: 0.8) == nil)
        // Paused, the word changes at once.
        var paused = progress(Fixture.wren, 1, at: 2.4)
        paused.buffered = 1.1
        let lines = machine.handle(.playback(.paused(paused))).compactMap { action -> String? in
            if case .status(let rows, _) = action { rows.last } else { nil }
        }
        #expect(lines.last?.contains("paused") == true && lines.last?.hasSuffix("buf 1.1 s") == true)
    }

    @Test("a script's next line waits for the answer to a search, then for the list to settle")
    func scriptWaitsForTheList() {
        var machine = session(script)
        #expect(machine.handle(typed("search wren")) == [.request(.search(wrenQuery))])
        #expect(machine.handle(typed("play 1")) == [])
        // Answered: the search is under way, and the script now waits for the rows.
        #expect(machine.handle(.answered(.searched(.accepted))) == [])
        let loading = ListState.loading(query: wrenQuery, previous: nil, retry: nil)
        #expect(machine.handle(.list(loading)) == [.print(script.lines(list: loading, from: .idle))])
        #expect(
            machine.handle(.list(listed)) == [
                .print(script.lines(list: listed, from: loading)),
                .request(.play(.of(Fixture.wren), Fixture.wren, forQueue: false)),
            ])
        #expect(machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false))) == [])
        let buffering = PlaybackState.buffering(progress(Fixture.wren, 1))
        #expect(
            machine.handle(.playback(buffering)) == [
                .print(script.attribution(Fixture.wren)),
                .print([script.line(playback: buffering, from: .start)!]),
            ])
    }

    @Test("a refused next-page says why before the line after it runs")
    func refusalBeforeTheNextLine() {
        var machine = listedSession(script)
        #expect(machine.handle(typed("next-page")) == [.request(.nextPage)])
        #expect(machine.handle(typed("list")) == [])
        #expect(
            machine.handle(.answered(.nextPage(.refused("every page is loaded")))) == [
                .print([script.refusal("every page is loaded")]),
                .print(script.listing(listed)),
            ])
    }

    @Test("a search the list refuses says why, and the script does not wait for a list that will not settle")
    func refusedSearchSaysWhy() throws {
        var machine = listedSession(script)
        #expect(machine.handle(typed("search wren")) == [.request(.search(try SearchQuery.parse("wren")))])
        #expect(
            machine.handle(.answered(.searched(.refused("the archive is closed")))) == [
                .print([script.refusal("the archive is closed")])
            ])
    }

    @Test("a queue starts its items one after another as each rendered end arrives; an older end moves nothing")
    func queueAdvances() {
        var machine = listedSession(script)
        let first = PlayQueueMachine.Action.play(
            QueueItem(row: 1, recording: Fixture.wren), position: 1, count: 2, fresh: true)
        let queued = [QueueItem(row: 1, recording: Fixture.wren), QueueItem(row: 2, recording: Fixture.robin)]
        #expect(
            machine.handle(typed("play 1-3")) == [
                .print(script.queue(first, queued: queued)),
                .request(.play(.of(Fixture.wren), Fixture.wren, forQueue: true)),
            ])
        _ = machine.handle(.answered(.started(PlaybackTicket(7), Fixture.wren, forQueue: true)))
        _ = machine.handle(.playback(.playing(progress(Fixture.wren, 7))))
        // The end of an earlier request (a late update) is not the queue's.
        let late = machine.handle(.playback(ended(Fixture.robin, 6)))
        #expect(!late.contains { if case .request = $0 { true } else { false } })
        let second = PlayQueueMachine.Action.play(
            QueueItem(row: 2, recording: Fixture.robin), position: 2, count: 2)
        let atEnd = machine.handle(.playback(ended(Fixture.wren, 7)))
        #expect(
            Array(atEnd.suffix(2)) == [
                .print(script.queue(second, queued: queued)),
                .request(.play(.of(Fixture.robin), Fixture.robin, forQueue: true)),
            ])
    }

    @Test("wait holds the script until its own request ends, whatever older ends arrive")
    func waitForItsRequest() {
        var machine = listedSession(script)
        _ = machine.handle(typed("play 2"))
        _ = machine.handle(.answered(.started(PlaybackTicket(3), Fixture.robin, forQueue: false)))
        #expect(machine.handle(typed("wait")) == [])
        #expect(machine.handle(typed("cite 1")) == [])
        _ = machine.handle(.playback(ended(Fixture.wren, 2)))
        #expect(machine.gate.blocker == .playbackEnds(PlaybackTicket(3)))
        let actions = machine.handle(.playback(ended(Fixture.robin, 3)))
        #expect(actions.last == .print(script.cite(Citation(Fixture.wren), label: Fixture.wren.label)))
    }

    @Test("Ctrl-C stops a sonogram first; a sonogram replaced by a newer one ends quietly")
    func interruptStopsTheSonogram() {
        var machine = listedSession(terminal)
        let shape = terminal.sonogramRenderer.shape(
            terminalWidth: terminal.sonogramShape.width, lines: terminal.sonogramShape.lines, band: .birds)
        #expect(machine.handle(typed("sono 1")) == [.drawSonogram(id: 1, .of(Fixture.wren), shape)])
        #expect(machine.handle(typed("sono 2")) == [.drawSonogram(id: 2, .of(Fixture.robin), shape)])
        #expect(machine.handle(.sonogram(id: 1, .failure(.stopped))) == [])
        #expect(machine.handle(.interrupt) == [.markInterrupted, .cancelSonogram])
        #expect(machine.handle(.sonogram(id: 2, .failure(.stopped))) == [.print([terminal.refusal("sono 2 stopped")])])
        // Nothing left to stop but playback: the player is asked.
        #expect(machine.handle(.interrupt) == [.markInterrupted, .request(.stop(.interrupt))])
    }

    @Test(
        "Ctrl-C while a search loads stops the search, not what plays; the list before stays, and the next stops playback"
    )
    func interruptStopsASlowSearch() {
        var machine = listedSession(terminal)
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        _ = machine.handle(typed("search robin"))
        _ = machine.handle(.answered(.searched(.accepted)))
        let robin = try! SearchQuery.parse("robin")
        _ = machine.handle(.list(.loading(query: robin, previous: listed.listing, retry: nil)))
        #expect(machine.handle(.interrupt) == [.markInterrupted, .request(.stopList)])
        _ = machine.handle(.answered(.listStopped))
        let stopped = ListError(.stopped, "stopped before it came; search again to list it")
        let shown = machine.handle(.list(.error(query: robin, stopped, previous: listed.listing)))
        #expect(
            shown.contains(.print(["Search for en:robin stopped. The list for en:wren is still shown."])), "\(shown)")
        #expect(machine.handle(.interrupt) == [.markInterrupted, .request(.stop(.interrupt))])
    }

    @Test("Ctrl-C in a script with nothing playing ends it; on a terminal it says how to leave")
    func interruptWithNothingPlaying() {
        var piped = listedSession(script)
        _ = piped.handle(.interrupt)
        #expect(piped.handle(.answered(.stopped(.refused("nothing is playing"), .interrupt))) == [.quit(status: 0)])
        #expect(piped.handle(typed("list")) == [])

        var typedAt = listedSession(terminal)
        _ = typedAt.handle(.interrupt)
        #expect(
            typedAt.handle(.answered(.stopped(.refused("nothing is playing"), .interrupt))) == [
                .print([terminal.refusal("(Ctrl-D or quit leaves chirper-play)")])
            ])
    }

    @Test("Ctrl-C during a save stops the batch with its summary, and the script goes on")
    func interruptStopsTheSave() {
        var machine = listedSession(script)
        #expect(
            machine.handle(typed("save 1-2 ~/birds")) == [
                .save(Fixture.wren, directory: "/home/birder/birds", batch: 1)
            ])
        #expect(machine.handle(typed("list")) == [])
        #expect(
            machine.handle(.interrupt) == [
                .markInterrupted, .cancelSave,
                .print([
                    script.saveDone(saved: 0, existing: 0, failed: 0, directory: "/home/birder/birds", stopped: true)
                ]),
                .print(script.listing(listed)),
            ])
        // The stopped item's late outcome is not counted or shown.
        #expect(machine.handle(.saveEnded(batch: 1, .failed(label: "XC254462", reason: "stopped"))) == [])
    }

    @Test("a settings change says what is in force; a refused one says why; a signal leaves at once")
    func settingsAndSignals() {
        var machine = listedSession(script)
        #expect(machine.handle(typed("volume 40")) == [.request(.control(.volume(40)))])
        let settings = PlaybackSettings(volume: 40)
        #expect(
            machine.handle(.answered(.control(.volume(40), .accepted, settings: settings))) == [
                .print([script.settings(settings)])
            ])
        _ = machine.handle(typed("seek 9:00"))
        #expect(
            machine.handle(
                .answered(.control(.seek(.absolute(540)), .refused("nothing is playing"), settings: settings)))
                == [.print([script.refusal("nothing is playing")])])
        #expect(machine.handle(.terminate(status: 143)) == [.quit(status: 143)])
        #expect(machine.handle(typed("list")) == [])
    }

    @Test("on a sixel terminal sono draws pixels the width of the terminal; --png also writes the full picture")
    func pixelsAndPNG() {
        let sixel = TerminalGraphicsSupport(sixel: true, cellWidth: 10, cellHeight: 20, answered: true)
        var machine = listedSession(terminal, terminal: sixel)
        let actions = machine.handle(typed("sono 1 2-9 0:01-0:04 --png ~/wren.png"))
        guard case .drawSonogram(let id, let item, let shape) = actions.first, actions.count == 1 else {
            Issue.record("expected one sonogram to compute, got \(actions)")
            return
        }
        // 99 columns of 10 pixels; 240 pixels high (a quarter of the width, in whole 20-pixel cells).
        let area = SonogramRaster.area(width: 990, height: 240)
        #expect(item == .of(Fixture.wren))
        #expect(shape.columns == area.columns && shape.rows == area.rows)
        #expect(shape.minFrequency == 2000 && shape.maxFrequency == 9000)
        #expect(shape.window == TimeSpan(start: 1, end: 4))
        let picture = Sonogram(
            rows: area.rows, columns: area.columns, levels: [Float](repeating: 0, count: area.rows * area.columns),
            maxFrequency: 9000, minFrequency: 2000, duration: 3, startTime: 1, sampleRate: 44_100)
        let image = SonogramRaster.image(picture)
        #expect(
            machine.handle(.sonogram(id: id, .success(picture))) == [
                .showPicture(
                    [terminal.sonogramHeader(picture, label: "XC254462", title: "Eurasian Wren")], image,
                    PixelCanvas(.sixel, cellWidth: 10, cellHeight: 20)),
                .request(.writePNG(image, path: "/home/birder/wren.png")),
            ])
        #expect(
            machine.handle(.answered(.pngWritten(path: "/home/birder/wren.png", .accepted))) == [
                .print([terminal.pngWritten("/home/birder/wren.png")])
            ])
    }

    @Test("sono with no row draws what plays, its loop's section while a loop is set; with nothing playing, one line")
    func sonoOfThePlaying() {
        var machine = listedSession(script)
        #expect(
            machine.handle(typed("sono")) == [
                .print([script.refusal("nothing is playing: sono <n> draws row n, e.g. sono 1")])
            ])
        _ = machine.handle(typed("play 1"))
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        var progress = progress(Fixture.wren, 1, at: 3)
        progress.loop = LoopSection(start: 2, end: 5)
        _ = machine.handle(.playback(.playing(progress)))
        let actions = machine.handle(typed("sono"))
        guard case .drawSonogram(_, _, let shape) = actions.first else {
            Issue.record("expected a sonogram, got \(actions)")
            return
        }
        #expect(shape.window == TimeSpan(start: 2, end: 5))
    }

    @Test("graphics says what sono draws with; choosing blocks on a kitty terminal draws text")
    func graphicsCommand() {
        let kitty = TerminalGraphicsSupport(kitty: true, answered: true)
        var machine = listedSession(terminal, terminal: kitty)
        #expect(
            machine.handle(typed("graphics")) == [.print([terminal.graphics(.auto, drawing: .kitty, terminal: kitty)])])
        _ = machine.handle(typed("graphics blocks"))
        guard case .drawSonogram(_, _, let shape) = machine.handle(typed("sono 1")).first else {
            Issue.record("expected a sonogram")
            return
        }
        #expect(shape.rows == 16 && shape.columns == 100 - SonogramRenderer.gutterWidth - 1)
        #expect(shape.maxFrequency == 12_000, "the birds' band unless asked for another")
    }

    @Test("with the strip on, its marker moves at every tick and the status line under it stands while its figures do")
    func stripMarkerMovesStatusStands() throws {
        var machine = listedSession(terminal)
        _ = machine.handle(typed("play 1"))
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        _ = machine.handle(.playback(.playing(progress(Fixture.wren, 1, at: 1))))
        let shape = try #require(
            machine.handle(typed("sono on")).compactMap { action -> SonogramShape? in
                if case .computeStrip(_, _, let shape, _) = action { shape } else { nil }
            }.first)
        let picture = Sonogram(
            rows: shape.rows, columns: shape.columns,
            levels: [Float](repeating: 0.5, count: shape.rows * shape.columns), maxFrequency: 12_000, duration: 12,
            sampleRate: 44_100)
        _ = machine.handle(.stripPicture(PlaybackTicket(1), .success(picture)))
        func shown(at position: Double, buffered: Double) -> [String]? {
            var playing = progress(Fixture.wren, 1, at: position)
            playing.buffered = buffered
            return machine.handle(.playback(.playing(playing))).compactMap { action -> [String]? in
                if case .status(let rows, _) = action { rows } else { nil }
            }.last
        }
        let first = try #require(shown(at: 1.0, buffered: 1.9))
        #expect(first.last?.hasSuffix("buf 1.9 s") == true)
        // A page of 92 columns for 9.2 s: the marker moves every 0.1 s, while the chunks' sawtooth alone moves the
        // buffer figure and the progress bar's cell (0.43 s of the 12) holds.
        var marker = first.dropLast().last
        for (position, buffered) in [(1.14, 1.7), (1.28, 1.5)] {
            let rows = try #require(shown(at: position, buffered: buffered), "the marker moved at \(position)")
            #expect(rows.dropLast().last != marker, "the marker's row is redrawn")
            #expect(rows.last == first.last, "the status line stands at \(position): \(rows.last ?? "")")
            marker = rows.dropLast().last
        }
        // The progress bar moves on: the status line is redrawn, with the buffer as it is.
        let barMoved = try #require(shown(at: 1.42, buffered: 1.6))
        #expect(barMoved.last != first.last && barMoved.last?.hasSuffix("buf 1.6 s") == true)
        // The clock moves: the same.
        let second = try #require(shown(at: 2.0, buffered: 1.8))
        #expect(second.last?.contains("0:02 / 0:12") == true && second.last?.hasSuffix("buf 1.8 s") == true)
    }

    @Test("sono on with kitty: the strip in pixels; its image rides on the status, the same while its page holds")
    func pixelStrip() throws {
        let kitty = TerminalGraphicsSupport(kitty: true, cellWidth: 10, cellHeight: 20, answered: true)
        var machine = listedSession(terminal, terminal: kitty)
        _ = machine.handle(typed("play 1"))
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        _ = machine.handle(.playback(.playing(progress(Fixture.wren, 1, at: 1))))
        let computing = machine.handle(typed("sono on")).compactMap { action -> SonogramShape? in
            if case .computeStrip(.of(Fixture.wren), PlaybackTicket(1), let shape, _) = action { return shape }
            return nil
        }
        // 12 s: 120 text columns of 10 pixels; 8 lines of 20.
        #expect(computing.map { [$0.columns, $0.rows] } == [[1200, 160]])
        let picture = Sonogram(
            rows: 160, columns: 1200, levels: [Float](repeating: 0.5, count: 160 * 1200), maxFrequency: 12_000,
            duration: 12, sampleRate: 44_100)
        func images(_ actions: [SessionMachine.Action]) -> [StripImage?] {
            actions.compactMap { if case .status(_, let image) = $0 { return image } else { return nil } }
        }
        let shown = images(machine.handle(.stripPicture(PlaybackTicket(1), .success(picture))))
        let image = try #require(shown.first ?? nil)
        // 99 columns less the gutter: a page of 92 text columns.
        #expect(image.image.width == 920 && image.image.height == 160 && image.lines == 8)
        #expect(
            images(machine.handle(.playback(.playing(progress(Fixture.wren, 1, at: 2))))) == [image],
            "the marker moved; the image is the same page")
        let recomputed = machine.handle(typed("graphics blocks")).compactMap { action -> SonogramShape? in
            if case .computeStrip(_, _, let shape, _) = action { return shape }
            return nil
        }
        #expect(recomputed.map { [$0.columns, $0.rows] } == [[120, 8]], "half-blocks: 8 lines of 1 shade row")
    }

    @Test("measure: a script waits for the measurement, the table grows, and measure save writes it for Raven")
    func measureAndSave() {
        var machine = listedSession(script)
        let span = TimeSpan(start: 1, end: 2)
        let band = FrequencyBand(low: 2000, high: 8000)
        #expect(machine.handle(typed("measure 1 0:01-0:02 2-8")) == [.measure(id: 1, .of(Fixture.wren), span, band)])
        #expect(machine.handle(typed("measure list")) == [])
        let m = measuredOneSecond
        let row = MeasuredSelection(number: 1, recording: Fixture.wren, measurement: m)
        #expect(
            machine.handle(.measured(id: 1, .success(m))) == [
                .print(script.measurement(row, title: "Eurasian Wren")), .print(script.selectionTable([row])),
            ])
        // The selection measured is the current one: measure alone measures it again.
        #expect(machine.handle(typed("measure")) == [.measure(id: 2, .of(Fixture.wren), span, band)])
        #expect(machine.handle(.interrupt) == [.markInterrupted, .cancelMeasure])
        #expect(machine.handle(.measured(id: 2, .failure(.stopped))) == [.print([script.refusal("measure stopped")])])
        #expect(
            machine.handle(typed("measure save ~/calls.txt")) == [
                .request(.writeText(RavenSelectionTable.text([row]), path: "/home/birder/calls.txt"))
            ])
    }

    @Test("measure with nothing selected says how to select; a loop of what plays is a selection")
    func measureTheLoop() {
        var machine = listedSession(script)
        #expect(
            machine.handle(typed("measure")) == [
                .print([
                    script.refusal(
                        "nothing is selected: measure <n> <a-b> [lo-hi], select one, or loop a b while a recording plays"
                    )
                ])
            ])
        #expect(
            machine.handle(typed("measure save t.txt")) == [
                .print([script.refusal("the selection table is empty: measure a selection first")])
            ])
        #expect(
            machine.handle(typed("select 3 0:01-0:02")) == [
                .print([script.refusal("row 3 (XC9999) is restricted: the test catalog does not offer its audio")])
            ])
        _ = machine.handle(typed("play 1"))
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        var looping = progress(Fixture.wren, 1, at: 3)
        looping.loop = LoopSection(start: 2, end: 5)
        _ = machine.handle(.playback(.playing(looping)))
        #expect(
            machine.handle(typed("measure")) == [.measure(id: 1, .of(Fixture.wren), TimeSpan(start: 2, end: 5), nil)])
    }

    @Test(
        "compare measures a selection chosen without a band as it was measured, and only a whole row where its sound is"
    )
    func compareSelectionWithoutBand() {
        var machine = listedSession(script)
        #expect(
            machine.handle(typed("measure 2 0:01-0:02"))
                == [.measure(id: 1, .of(Fixture.robin), TimeSpan(start: 1, end: 2), nil)])
        _ = machine.handle(.measured(id: 1, .success(measuredOneSecond)))
        guard case .compare(_, let tasks) = machine.handle(typed("compare s1 1")).first else {
            Issue.record("expected a comparison")
            return
        }
        #expect(tasks.map(\.signalWithin) == [nil, FrequencyBand(low: 0, high: 12_000)])
    }

    @Test(
        "compare sets a row beside a measured selection: one time scale, one band, one dB scale, figures side by side")
    func compareRowAndSelection() {
        var machine = listedSession(script)
        _ = machine.handle(typed("measure 2 0:01-0:02 2-8"))
        let m = measuredOneSecond
        _ = machine.handle(.measured(id: 1, .success(m)))
        #expect(
            machine.handle(typed("compare 1 s9")) == [
                .print([script.refusal("there is no selection s9: the table has 1 (measure list shows them)")])
            ])
        let actions = machine.handle(typed("compare 1 s1"))
        guard case .compare(let id, let tasks) = actions.first, actions.count == 1 else {
            Issue.record("expected one comparison, got \(actions)")
            return
        }
        // The wren is 12 s (all of it, from its start); the selection 1 s: a twelfth of the width, on the birds'
        // band that holds both. The whole row is measured where its sound is, found within that band.
        #expect(tasks.map(\.section.span) == [TimeSpan(start: 0, end: 12), TimeSpan(start: 1, end: 2)])
        #expect(tasks.map(\.shape.columns) == [72, 6])
        #expect(tasks.allSatisfy { $0.shape.maxFrequency == 12_000 && $0.shape.minFrequency == 0 })
        #expect(tasks[1].section.band == FrequencyBand(low: 2000, high: 8000))
        #expect(tasks.map(\.signalWithin) == [FrequencyBand(low: 0, high: 12_000), nil])
        func picture(floor: Float, ceiling: Float) -> Sonogram {
            Sonogram(
                rows: 1, columns: 1, levels: [0.5], maxFrequency: 11_025, duration: 1, sampleRate: 22_050,
                floorDB: floor, ceilingDB: ceiling)
        }
        let (a, b) = (picture(floor: -80, ceiling: -20), picture(floor: -60, ceiling: -10))
        let shown = machine.handle(
            .compared(id: id, .success([.init(sonogram: a, measurement: m), .init(sonogram: b, measurement: m)])))
        let expected = script.comparison([
            .init(
                recording: Fixture.wren, sonogram: a.rescaled(floor: -80, ceiling: -10), measurement: m,
                bandFound: true),
            .init(recording: Fixture.robin, sonogram: b.rescaled(floor: -80, ceiling: -10), measurement: m),
        ])
        #expect(shown == [.print(expected)])
        #expect(expected.contains("compare: peak_freq A=4048 B=4048 diff=0"))
        // Levels on one scale: a's middle (-50 dB) and b's middle (-35 dB) are no longer both 0.5.
        #expect(a.rescaled(floor: -80, ceiling: -10).levels[0] < b.rescaled(floor: -80, ceiling: -10).levels[0])
    }

    @Test("ab plays A's section, the gap from its sound's end, B's, A's again; stop ends it; a late gap does nothing")
    func abInTurn() {
        var machine = listedSession(script)
        #expect(
            machine.handle(typed("ab 1 2 0.25")) == [
                .print([script.abSide(0, recording: Fixture.wren, span: TimeSpan(start: 0, end: 12))]),
                .request(.play(.of(Fixture.wren), Fixture.wren, forQueue: false)),
            ])
        // Answered: the side plays only its section.
        #expect(
            machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false))) == [
                .request(.control(.section(.absolute(0), .absolute(12), nil)))
            ])
        _ = machine.handle(
            .answered(.control(.section(.absolute(0), .absolute(12), nil), .accepted, settings: PlaybackSettings())))
        _ = machine.handle(.playback(.playing(progress(Fixture.wren, 1, at: 2))))
        let endOfA = machine.handle(.playback(ended(Fixture.wren, 1)))
        #expect(endOfA.last == .abWait(seconds: 0.25, round: 1))
        #expect(
            machine.handle(.abGapEnded(round: 1)) == [
                .print([script.abSide(1, recording: Fixture.robin, span: TimeSpan(start: 0, end: 30))]),
                .request(.play(.of(Fixture.robin), Fixture.robin, forQueue: false)),
            ])
        _ = machine.handle(.answered(.started(PlaybackTicket(2), Fixture.robin, forQueue: false)))
        _ = machine.handle(
            .answered(.control(.section(.absolute(0), .absolute(30), nil), .accepted, settings: PlaybackSettings())))
        // B's end was reported 0.1 s after its sound stopped: the gap counts from the sound.
        #expect(
            machine.handle(.playback(ended(Fixture.robin, 2, late: 0.1))).last == .abWait(seconds: 0.15, round: 2))
        #expect(machine.handle(.abGapEnded(round: 1)) == [], "an older gap's end is not this one's")
        let again = machine.handle(.abGapEnded(round: 2))
        #expect(again.last == .request(.play(.of(Fixture.wren), Fixture.wren, forQueue: false)), "A again")
        _ = machine.handle(.answered(.started(PlaybackTicket(3), Fixture.wren, forQueue: false)))
        _ = machine.handle(
            .answered(.control(.section(.absolute(0), .absolute(12), nil), .accepted, settings: PlaybackSettings())))
        #expect(machine.handle(typed("stop")) == [.request(.stop(.command))])
        _ = machine.handle(.answered(.stopped(.accepted, .command)))
        let stopped = PlaybackState.idle(
            PlaybackEnding(item: .of(Fixture.wren), ticket: PlaybackTicket(3), position: 4, reason: .stopped))
        #expect(!machine.handle(.playback(stopped)).contains { if case .abWait = $0 { true } else { false } })
        #expect(!machine.ab.isOn)
    }

    @Test("stop in the gap between two sides ends A/B in one line, and asks the player nothing (nothing plays)")
    func abStoppedInTheGap() {
        var machine = listedSession(script)
        _ = machine.handle(typed("ab 1 2 0.25"))
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        _ = machine.handle(
            .answered(.control(.section(.absolute(0), .absolute(12), nil), .accepted, settings: PlaybackSettings())))
        _ = machine.handle(.playback(.playing(progress(Fixture.wren, 1, at: 2))))
        #expect(machine.handle(.playback(ended(Fixture.wren, 1))).last == .abWait(seconds: 0.25, round: 1))
        #expect(machine.handle(typed("stop")) == [.print(["ab: stopped"])])
        #expect(!machine.ab.isOn)
        #expect(machine.handle(.abGapEnded(round: 1)) == [], "the gap's end plays no B")
    }

    @Test("ab where the player cannot play a section (no sound server) says why and stops")
    func abRefused() {
        var machine = listedSession(script)
        _ = machine.handle(typed("ab 1 2"))
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        let refusal = "playing a section needs a sound server: --output wav and null run faster than real time"
        #expect(
            machine.handle(
                .answered(
                    .control(
                        .section(.absolute(0), .absolute(12), nil), SessionMachine.Outcome(refusal: refusal),
                        settings: PlaybackSettings())
                ))
                == [.print([script.refusal(refusal)]), .request(.stop(.command))])
        #expect(!machine.ab.isOn)
    }

    @Test("ab over a measured selection plays its section and only its band")
    func abOverASelection() {
        var machine = listedSession(script)
        _ = machine.handle(typed("measure 2 0:01-0:02 2-8"))
        let m = measuredOneSecond
        _ = machine.handle(.measured(id: 1, .success(m)))
        _ = machine.handle(typed("ab s1 1"))
        #expect(
            machine.handle(.answered(.started(PlaybackTicket(1), Fixture.robin, forQueue: false))) == [
                .request(.control(.section(.absolute(1), .absolute(2), FrequencyBand(low: 2000, high: 8000))))
            ])
    }
}
