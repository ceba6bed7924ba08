import ChirperCatalog
import ChirperCore
import Testing

@testable import ChirperREPL

private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")

private let oneSecond = SelectionMeasurement(
    begin: 1, end: 2, low: 2000, high: 8000, peakFrequency: 4048, peakTime: 1.5, frequency5: 3962,
    frequency25: 4005, centerFrequency: 4048, frequency75: 4091, frequency95: 4134, time5: 1.1, time95: 1.9,
    averageEntropy: 2.5, contourSlope: 0, contourInflections: 0, fftSize: 512, hop: 256, sampleRate: 44_100)

private func section(_ recording: Recording, _ start: Double, _ end: Double) -> SessionMachine.Selection {
    SessionMachine.Selection(
        recording: recording, item: .of(recording), span: TimeSpan(start: start, end: end), band: nil)
}

private func progress(_ recording: Recording, _ ticket: UInt64) -> PlaybackProgress {
    PlaybackProgress(item: .of(recording), ticket: PlaybackTicket(ticket), position: 1, duration: 12)
}

@Suite("The session's children, each a reducer of its own")
struct SessionChildrenTests {
    @Test("measure: a measurement replaced by a newer one ends quietly; the newer one enters the table")
    func measureReplaced() {
        var measure = SessionMachine.Measure(presenter: script, interactive: false)
        var ids = SessionMachine.WorkIDs()
        let first = section(Fixture.wren, 1, 2)
        let second = section(Fixture.robin, 2, 3)
        #expect(
            measure.handle(.measure(first), ids: &ids) == [.measure(id: 1, .of(Fixture.wren), first.span, nil), .hold])
        #expect(
            measure.handle(.measure(second), ids: &ids) == [
                .measure(id: 2, .of(Fixture.robin), second.span, nil), .hold,
            ])
        #expect(measure.handle(.measured(id: 1, .success(oneSecond)), ids: &ids).isEmpty, "the replaced one")
        let row = MeasuredSelection(number: 1, recording: Fixture.robin, measurement: oneSecond)
        #expect(
            measure.handle(.measured(id: 2, .success(oneSecond)), ids: &ids) == [
                .print(script.measurement(row, title: Fixture.robin.englishName)), .done,
            ])
        #expect(measure.table == [row] && measure.state == .idle)
        #expect(measure.handle(.interrupt, ids: &ids).isEmpty, "nothing to stop")
    }

    @Test("compare: Ctrl-C while comparing cancels it; the stopped result says so and lets the next line run")
    func compareStopped() {
        var compare = SessionMachine.Compare(presenter: script, interactive: true)
        var ids = SessionMachine.WorkIDs()
        let sections = [section(Fixture.wren, 0, 2), section(Fixture.robin, 0, 2)]
        let started = compare.handle(.compare([.row(1), .row(2)], sections), ids: &ids)
        guard case .compare(let id, let tasks)? = started.first, started.count == 1 else {
            Issue.record("compare asked for no work: \(started)")
            return
        }
        #expect(tasks.map(\.section) == sections)
        #expect(compare.handle(.interrupt, ids: &ids) == [.cancel])
        #expect(
            compare.handle(.compared(id: id, .failure(.stopped)), ids: &ids) == [.refuse("compare stopped"), .done])
        #expect(compare.state == .idle)
    }

    @Test("desktop: once there is no bus, the cover art on disk is removed and nothing more is published")
    func desktopMissing() {
        var desktop = SessionMachine.Desktop(
            presenter: script, interactive: true, on: true, coverArtFolder: "/run/art")
        let playing = PlaybackState.playing(progress(Fixture.wren, 1))
        let first = desktop.handle(.refresh(playing, recording: Fixture.wren, masked: false, queue: PlayQueueState()))
        #expect(first.count == 1 && desktop.shown != nil)
        #expect(
            desktop.handle(.playback(playing, masked: false)) == [
                .drawCoverArt(file: 1, .of(Fixture.wren), path: "/run/art/art-1.png")
            ])
        #expect(desktop.handle(.coverArt(file: 1, drawn: true)).isEmpty)
        #expect(
            desktop.handle(.missing("no D-Bus session bus"))
                == [.print(script.desktopNotice("no D-Bus session bus")), .removeCoverArt(path: "/run/art/art-1.png")])
        #expect(desktop.state == .off)
        #expect(
            desktop.handle(
                .refresh(.paused(progress(Fixture.wren, 1)), recording: nil, masked: false, queue: PlayQueueState())
            )
            .isEmpty)
    }

    @Test("quiz: quiz stop while its deck is fetched cancels the fetch and says the quiz stopped")
    func quizStoppedWhileBuilding() throws {
        var quiz = SessionMachine.Quiz(.init(presenter: script, interactive: false, seed: 1, contrast: .auto))
        var ids = SessionMachine.WorkIDs()
        let origin = QuizOrigin.query(try SearchQuery.parse("gen:sylvia"))
        #expect(
            quiz.handle(.command(.start(origin, QuizSettings())), ids: &ids) == [
                .takePlayback, .print([script.quizBuilding(origin)]), .hold, .buildDeck(id: 1, origin),
            ])
        #expect(quiz.handle(.stop, ids: &ids) == [.cancelDeck, .ready, .refuse("quiz stopped")])
        #expect(quiz.handle(.deck(id: 1, .failure(.stopped)), ids: &ids).isEmpty, "the stopped fetch ends quietly")
        #expect(!quiz.machine.isOn)
    }

    @Test("sono: a picture replaced by a newer sono ends quietly; Ctrl-C stops the newer one, which says so")
    func sonogramReplaced() {
        var sonograms = SessionMachine.Sonograms(
            .init(presenter: script, interactive: false, contrast: .auto, terminal: .none), graphics: .auto)
        var ids = SessionMachine.WorkIDs()
        for row in [1, 2] {
            let actions = sonograms.handle(
                .draw(SonogramDraw(row: row), Fixture.wren, .of(Fixture.wren), window: nil, masked: false), ids: &ids)
            guard case .draw(let id, let item, _)? = actions.first else {
                Issue.record("sono \(row) asked for no picture: \(actions)")
                return
            }
            #expect(id == row && item == .of(Fixture.wren) && actions.dropFirst() == [.hold])
        }
        #expect(sonograms.handle(.drawn(id: 1, .failure(.stopped)), ids: &ids).isEmpty, "the replaced one")
        #expect(sonograms.handle(.interrupt, ids: &ids) == [.cancel])
        #expect(sonograms.handle(.drawn(id: 2, .failure(.stopped)), ids: &ids) == [.refuse("sono 2 stopped"), .done])
        #expect(sonograms.state == .idle && sonograms.handle(.interrupt, ids: &ids).isEmpty)
    }

    @Test("save: Ctrl-C stops the batch after the item saving, with the summary; a late outcome of it is dropped")
    func saveStopped() {
        var saves = SessionMachine.Saves(presenter: script, interactive: false)
        let items = [QueueItem(row: 1, recording: Fixture.wren), QueueItem(row: 2, recording: Fixture.robin)]
        #expect(
            saves.handle(.start(items, directory: "/saves")) == [
                .save(Fixture.wren, directory: "/saves", batch: 1), .hold, .statusChanged,
            ])
        #expect(
            saves.handle(.interrupt) == [
                .cancel,
                .print([script.saveDone(saved: 0, existing: 0, failed: 0, directory: "/saves", stopped: true)]),
                .done, .statusChanged,
            ])
        #expect(saves.handle(.ended(batch: 1, .failed(label: "XC1", reason: "stopped"))).isEmpty)
        #expect(saves.handle(.interrupt).isEmpty, "nothing is saving")
    }
}
