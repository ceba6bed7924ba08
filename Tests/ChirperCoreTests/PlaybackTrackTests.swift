import ChirperCore
import Testing

private let bird = PlayItem(
    label: "XC254462", location: .remote("https://xeno-canto.org/254462/download"), expectedDuration: 10)
private let mono8k = PCMFormat(sampleRate: 8000, channels: 1)
private let section = LoopSection(start: 1, end: 2)

private func output(segment: Int, continuing: Bool) -> TrackMachine.OutputSetup {
    TrackMachine.OutputSetup(
        format: mono8k, speed: .normal, band: nil, segment: segment, playedBefore: 0, continuing: continuing)
}

/// A playback machine whose track replays the kept pass of the loop 0:01–0:02 (segment 1), driven as its
/// driver would: every step is a `trackEvent`, answered with the driver's actions and the effects.
private func replaying() -> (PlaybackMachine, PlaybackTicket) {
    var machine = PlaybackMachine()
    _ = machine.playRequested(bird)
    let ticket = machine.activeTicket!
    let opened = machine.trackEvent(.format(mono8k, duration: 10, outputFormat: nil), ticket: ticket)
    #expect(opened.driver == [.openOutput(output(segment: 0, continuing: false), drainingOld: false)])
    #expect(machine.loopRequested(from: .absolute(1), to: .absolute(2)) != .nothing)
    let restarted = machine.trackEvent(.command(.restart(machine.track(of: ticket)!.plan)), ticket: ticket)
    #expect(restarted.driver == [.seekDecoder(toFrame: 8000)])
    let landed = machine.trackEvent(
        .decoderLanded(
            TrackMachine.Landed(frame: 8000, byteOffset: 16_044, estimated: false, received: 160_044, heldFrom: 0)),
        ticket: ticket)
    #expect(
        landed.driver == [.feed(from: 16_044), .openOutput(output(segment: 1, continuing: true), drainingOld: false)])
    let pass = [Int16](repeating: 7, count: 8000)
    let decoded = machine.trackEvent(
        .samples(pass, undecodedBytes: 0, decodedBytes: 32_044), ticket: ticket)
    #expect(
        decoded.driver == [
            .hear(mono8k, frame: 8000, samples: pass), .play(pass, through: .bandAndSpeed, pieceSeconds: 0.2, ahead: 0),
        ])
    #expect(machine.trackEvent(.queued(seconds: 1, ahead: 0), ticket: ticket).actions == [.startOutput])
    #expect(machine.trackEvent(.played(nil), ticket: ticket) == PlaybackMachine.TrackStep(), "the seam: no work")
    let replay = machine.trackEvent(.ready(undecodedInput: false), ticket: ticket)
    #expect(replay.driver == [.play(Array(pass[0..<2000]), through: .speed, pieceSeconds: 0.5, ahead: 0)])
    return (machine, ticket)
}

@Suite("PlaybackMachine and its track's machine: one keeper of the segment, its loop and the seconds queued")
struct PlaybackTrackTests {
    @Test("a seek during a loop's replay: the status shows the new segment and no loop at once, from the track")
    func seekDuringReplay() {
        var (machine, ticket) = replaying()
        #expect(machine.playbackState.progress?.loop == section)
        #expect(machine.track(of: ticket)?.queued == 1)

        let seek = machine.seekRequested(.absolute(5))
        let segment = PlaybackSegment(number: 2, start: 5, settings: PlaybackSettings())
        #expect(seek == .restartSegment(ticket, segment))
        // The one keeper already holds the new segment: what the status shows is read from it.
        #expect(machine.track(of: ticket)?.plan == segment)
        #expect(machine.track(of: ticket)?.queued == 0)
        #expect(machine.playbackState.progress?.segment == 2)
        #expect(machine.playbackState.progress?.loop == nil)
        #expect(machine.playbackState.progress?.buffered == 0)

        // The replayed piece in flight lands in the retired output: it is dropped, not counted.
        #expect(machine.trackEvent(.queued(seconds: 0.25, ahead: 0), ticket: ticket) == PlaybackMachine.TrackStep())
        #expect(machine.trackEvent(.played(nil), ticket: ticket) == PlaybackMachine.TrackStep())
        #expect(machine.track(of: ticket)?.queued == 0)
        #expect(machine.playbackState.progress?.buffered == 0)

        // The driver comes back: the restart is carried out once, whatever order its step and the command come.
        let restart = machine.trackEvent(.ready(undecodedInput: true), ticket: ticket)
        #expect(restart.driver == [.seekDecoder(toFrame: 40_000)])
        #expect(machine.trackEvent(.command(.restart(segment)), ticket: ticket) == PlaybackMachine.TrackStep())
    }

    @Test("loop off during the replay: the track plays on past the loop's end, nothing posted to its driver")
    func loopOffDuringReplay() {
        var (machine, ticket) = replaying()
        #expect(machine.loopOffRequested() == .nothing)
        #expect(machine.track(of: ticket)?.plan.loop == nil)
        #expect(machine.playbackState.progress?.loop == nil)
        #expect(machine.playbackState.progress?.segment == 1, "the same segment plays on")
        // The replay's last piece is written; then decoding goes on from the loop's end (2 s).
        #expect(machine.trackEvent(.queued(seconds: 0.25, ahead: 0), ticket: ticket).driver.isEmpty)
        #expect(machine.track(of: ticket)?.queued == 1.25)
        #expect(machine.trackEvent(.played(nil), ticket: ticket).driver.isEmpty, "pieces of the pass remain")
    }

    @Test("a track no longer loaded: its driver is told to end")
    func replacedTrack() {
        var (machine, ticket) = replaying()
        _ = machine.playRequested(bird)
        #expect(machine.trackEvent(.ready(undecodedInput: true), ticket: ticket).driver == [.end(.ended)])
        #expect(machine.track(of: ticket) == nil)
    }
}
