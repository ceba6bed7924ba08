import ChirperCatalog
import ChirperCore
import Testing

@testable import ChirperREPL

private let sideA = ABMachine.Side(
    recording: Fixture.wren, item: .of(Fixture.wren), span: TimeSpan(start: 0, end: 12), band: nil)
private let sideB = ABMachine.Side(
    recording: Fixture.robin, item: .of(Fixture.robin), span: TimeSpan(start: 0, end: 30), band: nil)

/// A/B listening with a 0.7 s gap whose side A plays as request 1.
private func playingA() -> ABMachine {
    var machine = ABMachine()
    #expect(machine.start([sideA, sideB], gap: 0.7) == .play(sideA, index: 0))
    machine.started(PlaybackTicket(1))
    return machine
}

@Suite("A/B listening's gap, counted from when the side's sound stopped")
struct ABMachineTests {
    @Test("a side heard to its end 60 ms before its end was reported: the 0.7 s gap waits 0.64 s, then B")
    func lateEndShortensTheWait() {
        var machine = playingA()
        #expect(machine.ended(PlaybackTicket(1), finished: true, late: 0.06) == .wait(seconds: 0.64, round: 1))
        #expect(machine.state == .gap(next: 1, round: 1))
        #expect(machine.gapEnded(round: 1) == .play(sideB, index: 1))
        #expect(machine.state == .starting(side: 1))
    }

    @Test("a side whose end was reported as it was heard waits the whole gap")
    func punctualEndWaitsTheGap() {
        var machine = playingA()
        #expect(machine.ended(PlaybackTicket(1), finished: true, late: 0) == .wait(seconds: 0.7, round: 1))
    }

    @Test("a side whose end was reported later than the gap: the next side starts at once, with no wait")
    func endLaterThanTheGapStartsAtOnce() {
        var machine = playingA()
        #expect(machine.ended(PlaybackTicket(1), finished: true, late: 0.9) == .play(sideB, index: 1))
        #expect(machine.state == .starting(side: 1))
        machine.started(PlaybackTicket(2))
        #expect(machine.heard == 1)
        #expect(
            machine.ended(PlaybackTicket(2), finished: true, late: 0.7) == .play(sideA, index: 0), "exactly the gap")
        #expect(machine.gapEnded(round: 1) == .nothing, "no gap was waited, so none ends")
    }

    @Test("a stopped side ends A/B listening however late its end was reported")
    func stoppedSideEndsListening() {
        var machine = playingA()
        #expect(machine.ended(PlaybackTicket(1), finished: false, late: 0.06) == .nothing)
        #expect(!machine.isOn)
    }

    @Test("as events: a side's answered request plays only its section, and a late answer after stop plays nothing")
    func asEvents() {
        var machine = ABMachine()
        #expect(machine.handle(.start([sideA, sideB], gap: 0.7)) == .play(sideA, index: 0))
        #expect(machine.handle(.started(PlaybackTicket(1))) == .section(sideA))
        #expect(machine.handle(.ended(PlaybackTicket(1), finished: true, late: 0.2)) == .wait(seconds: 0.5, round: 1))
        #expect(machine.handle(.gapEnded(round: 1)) == .play(sideB, index: 1))
        #expect(machine.handle(.stop) == .nothing, "B was asked for: the player stops it")
        #expect(machine.handle(.started(PlaybackTicket(2))) == .nothing)
        #expect(!machine.isOn)
    }
}
