import ChirperCatalog
import ChirperCore
import Testing

@testable import ChirperREPL

private let terminal = Presenter(style: .terminal(color: false), width: 80, sourceName: "the test catalog")
private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")

private let wren = Detection(
    species: Species(scientific: "Troglodytes troglodytes", english: "Eurasian Wren"), confidence: 0.91)
private let robin = Detection(
    species: Species(scientific: "Erithacus rubecula", english: "European Robin"), confidence: 0.42)
private let dunnock = Detection(
    species: Species(scientific: "Prunella modularis", english: "Dunnock"), confidence: 0.88)

private func playing(_ ticket: UInt64, at position: Double) -> PlaybackState {
    .playing(
        PlaybackProgress(
            item: Fixture.wren.playItem!, ticket: PlaybackTicket(ticket), position: position, duration: 12))
}

private func segment(_ ticket: UInt64, _ index: Int, heard: Double = 3, _ detections: [Detection])
    -> SessionMachine.Event
{
    .listened(.heard(LiveSegment(ticket: PlaybackTicket(ticket), index: index, heard: heard, detections: detections)))
}

/// The session's live-identify actions among `actions`.
private func liveActions(_ actions: [SessionMachine.Action]) -> [SessionMachine.Action] {
    actions.filter {
        switch $0 {
        case .listenLive, .stopLive, .livePlayed: true
        default: false
        }
    }
}

/// The row above the status line (the live row) of the last status shown, if any was.
private func liveRow(_ actions: [SessionMachine.Action]) -> String?? {
    for case .status(let rows, _) in actions.reversed() {
        return rows.count >= 2 ? rows[rows.count - 2] : .some(nil)
    }
    return nil
}

private func printed(_ actions: [SessionMachine.Action]) -> [String] {
    actions.flatMap { action -> [String] in
        if case .print(let lines) = action { lines } else { [] }
    }
}

@Suite("identify on in the session: the species of the segment that plays, in the status rows")
struct IdentifyLiveSessionTests {
    @Test("identify on listens, shows listening… until the segment that plays is heard, then its species, best first")
    func showsTheSegmentThatPlays() {
        var machine = listedSession(terminal)
        #expect(liveActions(machine.handle(.typed("identify on", columns: 80))) == [.listenLive(IdentifyOptions())])
        let on = printed(machine.handle(.listened(.ready)))
        #expect(on.joined(separator: " ").contains("Kahl, Wood, Eibl, Klinck"), "the model's credit, once: \(on)")
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        let first = machine.handle(.playback(playing(1, at: 0.5)))
        #expect(liveActions(first) == [.livePlayed(.init(ticket: PlaybackTicket(1), index: 0, last: false))])
        #expect(liveRow(first) == "♪ listening…")
        // The decoder runs ahead: segments 0 and 1 are heard while 0 plays; the row shows segment 0's.
        #expect(liveRow(machine.handle(segment(1, 0, [wren, robin]))) == "♪ Eurasian Wren 0.91 · European Robin 0.42")
        #expect(liveRow(machine.handle(segment(1, 1, [dunnock]))) == nil, "segment 1 does not play yet: no redraw")
        let next = machine.handle(.playback(playing(1, at: 3.2)))
        #expect(liveRow(next) == "♪ Dunnock 0.88")
        #expect(liveActions(next) == [.livePlayed(.init(ticket: PlaybackTicket(1), index: 1, last: false))])
        // Within a segment, the listener is not told again.
        #expect(liveActions(machine.handle(.playback(playing(1, at: 4.0)))) == [])
        let off = machine.handle(.typed("identify off", columns: 80))
        #expect(liveActions(off) == [.stopLive])
        #expect(liveRow(off) == .some(nil), "the row is gone")
    }

    @Test("the listener is told where and when the recording that plays was made, so it judges its species")
    func tellsThePlace() {
        var machine = listedSession(script)
        _ = machine.handle(.typed("identify on", columns: 100))
        _ = machine.handle(.listened(.ready))
        var placed = Fixture.wren
        (placed.latitude, placed.longitude, placed.date) = ("51.5", "-0.12", "2024-05-10")
        _ = machine.handle(.answered(.started(PlaybackTicket(1), placed, forQueue: false)))
        #expect(
            liveActions(machine.handle(.playback(playing(1, at: 0.5)))) == [
                .livePlayed(
                    .init(
                        ticket: PlaybackTicket(1), index: 0, last: false,
                        place: RecordingPlace(latitude: 51.5, longitude: -0.12, week: 18)))
            ])
    }

    @Test("after a seek the row shows the segment holding the new position: heard before if it was, else listening…")
    func seekRealigns() {
        var machine = listedSession(terminal)
        _ = machine.handle(.typed("identify on", columns: 80))
        _ = machine.handle(.listened(.ready))
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        _ = machine.handle(.playback(playing(1, at: 0.5)))
        _ = machine.handle(segment(1, 0, [wren]))
        _ = machine.handle(segment(1, 1, [dunnock]))
        // A seek to 7.4 s: segment 2 (6-9 s) was never heard: what segments 0 and 1 heard is not shown.
        let seeked = machine.handle(.playback(playing(1, at: 7.4)))
        #expect(liveRow(seeked) == "♪ listening…")
        #expect(liveActions(seeked) == [.livePlayed(.init(ticket: PlaybackTicket(1), index: 2, last: false))])
        // Heard from the seek on (1.6 s of it), it is shown; later heard whole, the whole one is kept.
        #expect(liveRow(machine.handle(segment(1, 2, heard: 1.6, [robin]))) == "♪ European Robin 0.42")
        #expect(liveRow(machine.handle(segment(1, 2, heard: 3, [wren]))) == "♪ Eurasian Wren 0.91")
        #expect(liveRow(machine.handle(segment(1, 2, heard: 1.6, [robin]))) == nil, "the shorter one is not kept")
        // Back to 4 s: segment 1, heard before the seek, holds the position and is shown.
        #expect(liveRow(machine.handle(.playback(playing(1, at: 4.0)))) == "♪ Dunnock 0.88")
        // The last segment (9-12 s of 12 s) is said to be the last: the listener hears it with what there is.
        #expect(
            liveActions(machine.handle(.playback(playing(1, at: 9.5))))
                == [.livePlayed(.init(ticket: PlaybackTicket(1), index: 3, last: true))])
    }

    @Test("a new track forgets the one before; a late segment of it is dropped, not shown")
    func newTrack() {
        var machine = listedSession(terminal)
        _ = machine.handle(.typed("identify on", columns: 80))
        _ = machine.handle(.listened(.ready))
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        _ = machine.handle(.playback(playing(1, at: 0.5)))
        _ = machine.handle(segment(1, 0, [wren]))
        _ = machine.handle(.answered(.started(PlaybackTicket(2), Fixture.wren, forQueue: false)))
        #expect(liveRow(machine.handle(.playback(playing(2, at: 0.5)))) == "♪ listening…")
        #expect(liveRow(machine.handle(segment(1, 0, [robin]))) == nil)
        #expect(liveRow(machine.handle(segment(2, 0, [dunnock]))) == "♪ Dunnock 0.88")
    }

    @Test("without a model, identify on says the model's line once and stays off; off then says it is not on")
    func noModel() {
        var machine = listedSession(terminal)
        _ = machine.handle(.typed("identify on", columns: 80))
        let missing = "no BirdNET model in /m: run `make model` (CC BY-NC-SA 4.0: non-commercial use only)"
        let failed = machine.handle(.listened(.failed(missing)))
        #expect(printed(failed) == [terminal.refusal(missing)])
        #expect(liveActions(failed) == [.stopLive])
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        #expect(liveRow(machine.handle(.playback(playing(1, at: 0.5)))) == .some(nil), "no live row")
        #expect(
            printed(machine.handle(.typed("identify off", columns: 80))) == [
                terminal.refusal("identify is not on: identify on shows who sings while a recording plays")
            ])
    }

    @Test("in a pipe, a line per species of each segment heard, named by the recording that plays")
    func pipeLines() {
        var machine = listedSession(script)
        _ = machine.handle(.typed("identify on --min-confidence 0.3", columns: 100))
        // The script's next line waits for the model, so that what it plays is heard from its start.
        #expect(machine.handle(.typed("play 1", columns: 100)) == [])
        let ready = machine.handle(.listened(.ready))
        #expect(
            printed(ready) == [#"identify: listening on model="BirdNET 2.4" credit="\#(Presenter.birdNETCredit)""#])
        #expect(ready.contains(.request(.play(Fixture.wren.playItem!, Fixture.wren, forQueue: false))), "play 1 ran")
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        _ = machine.handle(.playback(playing(1, at: 0.5)))
        #expect(
            printed(machine.handle(segment(1, 1, [wren, robin]))) == [
                #"identify: live XC254462 start=3.0 end=6.0 sci="Troglodytes troglodytes" en="Eurasian Wren" confidence=0.910"#,
                #"identify: live XC254462 start=3.0 end=6.0 sci="Erithacus rubecula" en="European Robin" confidence=0.420"#,
            ])
        #expect(printed(machine.handle(.typed("identify off", columns: 100))) == ["identify: listening off"])
    }

    @Test("identify on and off parse; flags that mean nothing to them are one line each")
    func parses() throws {
        #expect(try IdentifyRequest.parse("on").target == .live(true))
        #expect(try IdentifyRequest.parse("OFF").target == .live(false))
        #expect(try IdentifyRequest.parse("on --min-confidence 0.5").options.minConfidence == 0.5)
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("on --overlap 1") }
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("on 3") }
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("on --all") }
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("off --min-confidence 0.5") }
    }
}
