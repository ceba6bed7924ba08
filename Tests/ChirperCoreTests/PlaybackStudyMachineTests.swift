@testable import ChirperCore
import Testing

private let bird = PlayItem(
    label: "XC254462", location: .remote("https://xeno-canto.org/254462/download"), expectedDuration: 31)

private typealias Ticket = PlaybackMachine.Ticket

/// A machine playing `bird` from the start with `queued` output seconds in the sink and `played` heard.
private func playing(queued: Double = 2, played: Double = 1) -> (PlaybackMachine, Ticket) {
    var machine = PlaybackMachine()
    _ = machine.playRequested(bird)
    let ticket = machine.activeTicket!
    _ = machine.durationKnown(31, ticket: ticket)
    _ = machine.pcmQueued(seconds: queued, ticket: ticket)
    _ = machine.progress(playedSeconds: played, ticket: ticket)
    return (machine, ticket)
}

private func seconds(_ value: Double) -> TimeInput { .absolute(value) }

@Suite("PlaybackMachine: seek, loop, speed and volume")
struct PlaybackStudyMachineTests {
    @Test("seek while playing: a new segment from the target, the sink emptied, buffering until refilled")
    func seekWhilePlaying() {
        var (machine, ticket) = playing()
        let action = machine.seekRequested(seconds(20))
        #expect(action == .restartSegment(ticket, PlaybackSegment(number: 1, start: 20, settings: PlaybackSettings())))
        guard case .buffering(let progress) = machine.playbackState else {
            Issue.record("expected buffering, got \(machine.playbackState)")
            return
        }
        #expect(progress.position == 20)
        #expect(progress.buffered == 0)
        // Audio of the old segment still arriving changes nothing.
        #expect(machine.pcmQueued(seconds: 1, ticket: ticket, segment: 0) == .nothing)
        #expect(machine.playbackState.progress?.buffered == 0)
        #expect(machine.pcmQueued(seconds: 0.5, ticket: ticket, segment: 1) == .startOutput)
        _ = machine.progress(playedSeconds: 0.25, ticket: ticket, segment: 1)
        #expect(machine.playbackState.progress?.position == 20.25)
    }

    @Test("a fuzzy MP3 seek reports where it landed; the position follows the landing")
    func seekLanding() {
        var (machine, ticket) = playing()
        _ = machine.seekRequested(seconds(20))
        _ = machine.seekLanded(at: 19.98, networkOffset: 320_000, rangeIgnored: true, ticket: ticket, segment: 1)
        #expect(machine.playbackState.progress?.position == 19.98)
        #expect(machine.playbackState.progress?.rangeIgnored == true)
        #expect(machine.bytesReceived == 320_000, "a reconnect resumes from the new request's bytes")
        #expect(machine.playbackState.progress?.landing == .exact)
    }

    @Test(
        "a seek that could only land near its target says so, in the status and in pipe lines, until one lands exactly")
    func estimatedLanding() throws {
        var (machine, ticket) = playing()
        _ = machine.seekRequested(seconds(20))
        _ = machine.seekLanded(
            at: 20, landing: .estimated, networkOffset: 320_000, rangeIgnored: false, ticket: ticket, segment: 1)
        _ = machine.pcmQueued(seconds: 0.5, ticket: ticket, segment: 1)
        let estimated = machine.playbackState
        #expect(estimated.progress?.landing == .estimated)
        let terminal = Presenter(style: .terminal(color: false), width: 100, sourceName: "x")
        #expect(try #require(terminal.status(estimated)).contains("≈0:20 / 0:31"))
        let script = Presenter(style: .script, sourceName: "x")
        #expect(
            try #require(script.line(playback: estimated, from: PlaybackState.idle(nil))).contains(" landing=estimated")
        )
        _ = machine.seekRequested(seconds(5))
        _ = machine.seekLanded(at: 5, networkOffset: nil, rangeIgnored: false, ticket: ticket, segment: 2)
        _ = machine.pcmQueued(seconds: 0.5, ticket: ticket, segment: 2)
        #expect(try #require(terminal.status(machine.playbackState)).contains(" 0:05 / 0:31"))
    }

    @Test(
        "without a sound server a loop and a section played once (ab, a quiz excerpt) are refused as what was asked for, and play on"
    )
    func sectionsNeedASoundServer() {
        var machine = PlaybackMachine(realTimeOutput: false)
        _ = machine.playRequested(bird)
        let before = machine.playbackState
        let tail = "a sound server: --output wav and null run faster than real time"
        #expect(machine.loopRequested(from: seconds(1), to: seconds(2)) == .refuse("loops need " + tail))
        #expect(
            machine.loopRequested(from: seconds(1), to: seconds(2), once: true)
                == .refuse("playing a section needs " + tail))
        #expect(machine.playbackState == before)
    }

    @Test("relative seeks step from the position heard; back past the start lands on the start")
    func relativeSeeks() {
        var (machine, ticket) = playing(queued: 2, played: 1)
        #expect(machine.seekRequested(.relative(10)) == .restartSegment(ticket, segment(1, at: 11)))
        #expect(machine.seekRequested(.relative(-30)) == .restartSegment(ticket, segment(2, at: 0)))
    }

    @Test("bad seeks are refused with one line and change nothing")
    func badSeeks() {
        var (machine, _) = playing()
        let before = machine.playbackState
        #expect(
            machine.seekRequested(seconds(31))
                == .refuse("0:31.0 is past the end of the recording (0:31.0); pick an earlier time"))
        #expect(machine.seekRequested(seconds(95)).isRefusal)
        #expect(machine.playbackState == before)
        var idle = PlaybackMachine()
        #expect(idle.seekRequested(seconds(1)) == .refuse("nothing is playing; play a recording first, then seek"))
    }

    @Test("seek while paused stays paused at the new place; resume plays once refilled")
    func seekWhilePaused() {
        var (machine, ticket) = playing()
        _ = machine.pauseRequested()
        _ = machine.seekRequested(seconds(5))
        guard case .paused(let progress) = machine.playbackState else {
            Issue.record("expected paused, got \(machine.playbackState)")
            return
        }
        #expect(progress.position == 5)
        _ = machine.pcmQueued(seconds: 2, ticket: ticket, segment: 1)
        #expect(machine.resumeRequested() == .startOutput)
    }

    @Test("seek while reconnecting: the stale drop is ignored, and the new segment reconnects on its own drop")
    func seekWhileReconnecting() {
        var (machine, ticket) = playing()
        _ = machine.bytesArrived(1000, ticket: ticket)
        #expect(machine.connectionDropped(ticket: ticket) == .reconnect(ticket, from: 1000, attempt: 1))
        _ = machine.seekRequested(seconds(3))
        #expect(machine.connectionDropped(ticket: ticket, segment: 0) == .nothing)
        #expect(machine.connectionDropped(ticket: ticket, segment: 1) == .reconnect(ticket, from: 1000, attempt: 2))
    }

    @Test("a loop jumps to its start and wraps; the position comes back to a at each seam")
    func loopWraps() {
        var (machine, ticket) = playing()
        let action = machine.loopRequested(from: seconds(12), to: seconds(15))
        let loop = LoopSection(start: 12, end: 15)
        #expect(action == .restartSegment(ticket, segment(1, at: 12, loop: loop)))
        #expect(machine.playbackState.progress?.loop == loop)
        _ = machine.pcmQueued(seconds: 4, ticket: ticket, segment: 1)
        _ = machine.loopWrapped(atOutput: 3, to: 12, ticket: ticket, segment: 1)
        _ = machine.progress(playedSeconds: 2.5, ticket: ticket, segment: 1)
        #expect(machine.playbackState.progress?.position == 14.5)
        _ = machine.progress(playedSeconds: 3.5, ticket: ticket, segment: 1)
        #expect(machine.playbackState.progress?.position == 12.5)
    }

    @Test("loop off ends the loop without a restart; seeking out of a loop ends it too")
    func loopOff() {
        var (machine, _) = playing()
        #expect(machine.loopOffRequested() == .refuse("no loop is set; loop <a> <b> sets one"))
        _ = machine.loopRequested(from: seconds(12), to: seconds(15))
        #expect(machine.loopOffRequested() == .nothing, "the track's machine keeps the loop: nothing to run")
        #expect(machine.playbackState.progress?.loop == nil)
        _ = machine.loopRequested(from: seconds(12), to: seconds(15))
        _ = machine.seekRequested(seconds(13))
        #expect(machine.playbackState.progress?.loop == LoopSection(start: 12, end: 15), "inside: kept")
        _ = machine.seekRequested(seconds(20))
        #expect(machine.playbackState.progress?.loop == nil, "outside: ended")
    }

    @Test("bad loops: b before a, past the end, nothing playing")
    func badLoops() {
        var (machine, _) = playing()
        #expect(
            machine.loopRequested(from: seconds(15), to: seconds(12))
                == .refuse("the loop end 0:12.0 is not after its start 0:15.0; give a then b, a < b"))
        #expect(machine.loopRequested(from: seconds(12), to: seconds(40)).isRefusal)
        #expect(machine.playbackState.progress?.loop == nil)
        var idle = PlaybackMachine()
        #expect(idle.loopRequested(from: seconds(1), to: seconds(2)).isRefusal)
        #expect(idle.loopOffRequested().isRefusal)
    }

    @Test("speed restarts at the position heard, and the position runs at the speed in recording time")
    func speedKeepsRecordingTime() {
        var (machine, ticket) = playing(queued: 2, played: 1)
        let half = PlaybackSpeed(factor: 0.5, mode: .tape)
        let action = machine.speedRequested(half)
        #expect(
            action
                == .restartSegment(
                    ticket, PlaybackSegment(number: 1, start: 1, settings: PlaybackSettings(speed: half))))
        _ = machine.pcmQueued(seconds: 2, ticket: ticket, segment: 1)
        _ = machine.progress(playedSeconds: 2, ticket: ticket, segment: 1)
        #expect(machine.playbackState.progress?.position == 2, "2 s heard at half speed = 1 s of the recording")
        #expect(machine.playbackState.progress?.settings.speed == half)
    }

    @Test("speed while idle holds for the next play")
    func speedWhileIdle() {
        var machine = PlaybackMachine()
        let bat = PlaybackSpeed(factor: 0.1, mode: .tape)
        #expect(machine.speedRequested(bat) == .nothing)
        let action = machine.playRequested(bird)
        #expect(
            action
                == .startPipeline(
                    bird, ticket: Ticket(1),
                    segment: PlaybackSegment(number: 0, start: 0, settings: PlaybackSettings(speed: bat))))
    }

    @Test("volume and mute apply at once and outlive the track; mute keeps the volume")
    func volume() {
        var machine = PlaybackMachine()
        #expect(machine.volumeRequested(50) == .applyVolume(percent: 50))
        #expect(machine.muteRequested(true) == .applyVolume(percent: 0))
        #expect(machine.muteRequested(true) == .refuse("already muted; unmute"))
        #expect(machine.muteRequested(false) == .applyVolume(percent: 50))
        #expect(machine.muteRequested(false) == .refuse("not muted"))
        #expect(machine.volumeRequested(101).isRefusal)
        #expect(machine.settings.volume == 50)
    }

    @Test("the end of a segment a seek replaced is ignored; the drain of the current one finishes the track")
    func staleEndAndDrain() {
        var (machine, ticket) = playing()
        #expect(machine.endOfStream(ticket: ticket) == .drainOutput)
        _ = machine.seekRequested(seconds(10))
        #expect(machine.drainFinished(ticket: ticket, segment: 0) == .nothing, "the seek came first: play on")
        _ = machine.pcmQueued(seconds: 0.2, ticket: ticket, segment: 1)
        #expect(machine.endOfStream(ticket: ticket, segment: 1) == .startOutputAndDrain)
        #expect(machine.drainFinished(ticket: ticket, segment: 1) == .finishPipeline(ticket))
        #expect(machine.seekRequested(seconds(2)) == .refuse("the recording has just ended; play it again to seek"))
        #expect(machine.sinkDrained(ticket: ticket) == .nothing)
        guard case .idle(let ending?) = machine.playbackState else {
            Issue.record("expected idle with an ending")
            return
        }
        #expect(ending.reason == .finished)
    }

    private func segment(_ number: Int, at start: Double, loop: LoopSection? = nil) -> PlaybackSegment {
        PlaybackSegment(number: number, start: start, settings: PlaybackSettings(), loop: loop)
    }
}

extension PlaybackMachine.Action {
    fileprivate var isRefusal: Bool {
        if case .refuse = self { return true }
        return false
    }
}
