@testable import ChirperCore
import Testing

private let bird = PlayItem(
    label: "XC254462", location: .remote("https://xeno-canto.org/254462/download"), expectedDuration: 12)
private let other = PlayItem(label: "XC5168", location: .local(path: "/demo/5168.mp3"))

private typealias Action = PlaybackMachine.Action
private typealias Ticket = PlaybackMachine.Ticket

/// The first segment of a play at the default settings.
private let fresh = PlaybackSegment(number: 0, start: 0, settings: PlaybackSettings())

/// A machine that has been asked to play `bird` (its ticket is `activeTicket`).
private func started(policy: BufferingPolicy = .default) -> PlaybackMachine {
    var machine = PlaybackMachine(policy: policy)
    _ = machine.playRequested(bird)
    return machine
}

/// A machine playing `bird` with `queued` seconds handed to the sink.
private func playing(queued: Double = 1.0) -> PlaybackMachine {
    var machine = started()
    _ = machine.pcmQueued(seconds: queued, ticket: machine.activeTicket!)
    return machine
}

private func kind(_ state: PlaybackState) -> String {
    switch state {
    case .idle: "idle"
    case .buffering: "buffering"
    case .playing: "playing"
    case .paused: "paused"
    case .failed: "failed"
    }
}

@Suite("PlaybackMachine")
struct PlaybackMachineTests {
    // MARK: idle

    @Test("starts idle with nothing loaded")
    func startsIdle() {
        let machine = PlaybackMachine()
        #expect(machine.playbackState.isIdle)
        #expect(machine.activeTicket == nil)
        #expect(machine.bytesReceived == nil)
    }

    @Test("play from idle starts a pipeline and shows buffering with the catalogue duration")
    func playFromIdle() {
        var machine = PlaybackMachine()
        let action = machine.playRequested(bird)
        #expect(action == .startPipeline(bird, ticket: Ticket(1), segment: fresh))
        #expect(machine.playbackState == .buffering(PlaybackProgress(item: bird, ticket: Ticket(1), duration: 12)))
        #expect(machine.activeTicket == Ticket(1))
    }

    @Test("stop, pause and resume while idle are refused with the reason, and change nothing")
    func commandsWhileIdle() {
        var machine = PlaybackMachine()
        #expect(machine.stopRequested() == .refuse("nothing is playing"))
        #expect(machine.pauseRequested() == .refuse("nothing is playing"))
        #expect(machine.resumeRequested() == .refuse("nothing is paused"))
        #expect(machine.playbackState == .start)
    }

    // MARK: buffering

    @Test("bytes arriving are counted for a later resume, without changing what the user sees")
    func bytesArrived() {
        var machine = started()
        let ticket = machine.activeTicket!
        let before = machine.playbackState
        #expect(machine.bytesArrived(4096, ticket: ticket) == .nothing)
        #expect(machine.bytesArrived(100, ticket: ticket) == .nothing)
        #expect(machine.bytesReceived == 4196)
        #expect(machine.playbackState == before)
    }

    @Test("buffering stays silent below the start threshold and shows the buffered amount")
    func belowThreshold() {
        var machine = started()
        let ticket = machine.activeTicket!
        #expect(machine.pcmQueued(seconds: 0.2, ticket: ticket) == .nothing)
        #expect(
            machine.playbackState
                == .buffering(PlaybackProgress(item: bird, ticket: Ticket(1), duration: 12, buffered: 0.2)))
    }

    @Test("reaching the start threshold (0.5 s) starts the output and shows playing")
    func reachThreshold() {
        var machine = started()
        let ticket = machine.activeTicket!
        _ = machine.pcmQueued(seconds: 0.3, ticket: ticket)
        #expect(machine.pcmQueued(seconds: 0.2, ticket: ticket) == .startOutput)
        #expect(kind(machine.playbackState) == "playing")
        #expect(machine.playbackState.progress?.buffered == 0.5)
    }

    @Test("audio that arrived and waits to be decoded counts toward the start once 0.2 s is decoded and queued")
    func arrivedAheadStarts() {
        var machine = started()
        let ticket = machine.activeTicket!
        #expect(machine.pcmQueued(seconds: 0.05, ticket: ticket, ahead: 2) == .nothing, "21 ms is no margin")
        #expect(machine.pcmQueued(seconds: 0.1, ticket: ticket, ahead: 1.9) == .nothing)
        #expect(machine.pcmQueued(seconds: 0.05, ticket: ticket, ahead: 1.8) == .startOutput)
        #expect(kind(machine.playbackState) == "playing")
        #expect(machine.playbackState.progress?.buffered == 0.2)
    }

    @Test("a slow source gets no credit: with little ahead, the start waits for 0.5 s of decoded audio")
    func littleAheadWaits() {
        var machine = started()
        let ticket = machine.activeTicket!
        #expect(machine.pcmQueued(seconds: 0.05, ticket: ticket, ahead: 0.1) == .nothing)
        #expect(machine.pcmQueued(seconds: 0.2, ticket: ticket, ahead: 0.1) == .nothing)
        #expect(kind(machine.playbackState) == "buffering")
        #expect(machine.pcmQueued(seconds: 0.25, ticket: ticket, ahead: 0) == .startOutput)
    }

    @Test("after an underrun the larger rebuffer threshold counts what is queued and what arrived")
    func rebufferCountsAhead() {
        var machine = playing(queued: 0.5)
        let ticket = machine.activeTicket!
        _ = machine.progress(playedSeconds: 0.5, ticket: ticket)
        #expect(machine.underrun(ticket: ticket) == .pauseOutput)
        #expect(machine.pcmQueued(seconds: 0.1, ticket: ticket, ahead: 0.5) == .nothing)
        #expect(machine.pcmQueued(seconds: 0.05, ticket: ticket, ahead: 2) == .nothing, "below the 0.2 s floor")
        #expect(machine.pcmQueued(seconds: 0.05, ticket: ticket, ahead: 0.8) == .startOutput)
    }

    @Test("an injected policy changes the start threshold")
    func customPolicy() {
        var machine = started(policy: BufferingPolicy(startThreshold: 0.1))
        let ticket = machine.activeTicket!
        #expect(machine.pcmQueued(seconds: 0.1, ticket: ticket) == .startOutput)
    }

    @Test("the policy keeps both thresholds below half the sink buffer so they can be reached")
    func policyClamps() {
        let policy = BufferingPolicy(startThreshold: 5, rebufferThreshold: -1, sinkBuffer: 2)
        #expect(policy.startThreshold == 1)
        #expect(policy.rebufferThreshold == 0)
        #expect(BufferingPolicy.default == BufferingPolicy(startThreshold: 0.5, rebufferThreshold: 1, sinkBuffer: 2))
    }

    @Test("the decoder's duration replaces the catalogue's")
    func durationKnown() {
        var machine = started()
        let ticket = machine.activeTicket!
        #expect(machine.durationKnown(12.76, ticket: ticket) == .nothing)
        #expect(machine.playbackState.progress?.duration == 12.76)
    }

    @Test("pausing while buffering needs no effect (the sink is silent) and shows paused")
    func pauseWhileBuffering() {
        var machine = started()
        let ticket = machine.activeTicket!
        _ = machine.pcmQueued(seconds: 0.1, ticket: ticket)
        #expect(machine.pauseRequested() == .nothing)
        #expect(kind(machine.playbackState) == "paused")
        // Audio keeps arriving while paused, without starting the sink.
        #expect(machine.pcmQueued(seconds: 1, ticket: ticket) == .nothing)
        #expect(kind(machine.playbackState) == "paused")
    }

    @Test("the end of a short recording while buffering starts the output and drains it")
    func endWhileBuffering() {
        var machine = started()
        let ticket = machine.activeTicket!
        _ = machine.pcmQueued(seconds: 0.2, ticket: ticket)
        #expect(machine.endOfStream(ticket: ticket) == .startOutputAndDrain)
        #expect(kind(machine.playbackState) == "playing")
    }

    @Test("the end of a body with no audio at all fails with a reason")
    func endWithoutAudio() {
        var machine = started()
        let ticket = machine.activeTicket!
        _ = machine.bytesArrived(4096, ticket: ticket)
        #expect(machine.endOfStream(ticket: ticket) == .stopPipeline(ticket))
        guard case .failed(let failure) = machine.playbackState else {
            Issue.record("expected failed, got \(machine.playbackState)")
            return
        }
        #expect(failure.item == bird)
        #expect(failure.reason.contains("no audio"))
    }

    @Test("an underrun while buffering changes nothing")
    func underrunWhileBuffering() {
        var machine = started()
        let ticket = machine.activeTicket!
        #expect(machine.underrun(ticket: ticket) == .nothing)
        #expect(kind(machine.playbackState) == "buffering")
    }

    // MARK: playing

    @Test("position follows the sink, never backwards and never past what was queued")
    func progressClamped() {
        var machine = playing(queued: 2)
        let ticket = machine.activeTicket!
        #expect(machine.progress(playedSeconds: 0.5, ticket: ticket) == .nothing)
        #expect(machine.playbackState.progress?.position == 0.5)
        #expect(machine.playbackState.progress?.buffered == 1.5)
        _ = machine.progress(playedSeconds: 0.4, ticket: ticket)
        #expect(machine.playbackState.progress?.position == 0.5)
        _ = machine.progress(playedSeconds: 9, ticket: ticket)
        #expect(machine.playbackState.progress?.position == 2)
        #expect(machine.playbackState.progress?.buffered == 0)
    }

    @Test("more audio queued while playing only raises the buffered amount")
    func queuedWhilePlaying() {
        var machine = playing(queued: 1)
        let ticket = machine.activeTicket!
        #expect(machine.pcmQueued(seconds: 0.5, ticket: ticket) == .nothing)
        #expect(machine.playbackState.progress?.buffered == 1.5)
        #expect(kind(machine.playbackState) == "playing")
    }

    @Test("an underrun silences the sink and buffers again until the larger rebuffer threshold")
    func underrunRebuffers() {
        var machine = playing(queued: 1)
        let ticket = machine.activeTicket!
        _ = machine.progress(playedSeconds: 1, ticket: ticket)
        #expect(machine.underrun(ticket: ticket) == .pauseOutput)
        #expect(kind(machine.playbackState) == "buffering")
        #expect(machine.playbackState.progress?.position == 1)
        #expect(machine.playbackState.progress?.buffered == 0)
        #expect(machine.pcmQueued(seconds: 0.6, ticket: ticket) == .nothing)
        #expect(machine.pcmQueued(seconds: 0.4, ticket: ticket) == .startOutput)
        #expect(kind(machine.playbackState) == "playing")
    }

    @Test("an underrun reported after enough was queued again is momentary: playback goes on")
    func momentaryUnderrun() {
        var machine = playing(queued: 1.5)
        let ticket = machine.activeTicket!
        _ = machine.progress(playedSeconds: 0.2, ticket: ticket)
        #expect(machine.underrun(ticket: ticket) == .nothing)
        #expect(kind(machine.playbackState) == "playing")
        // The larger threshold applies from now on: a second underrun with 0.5 s queued rebuffers.
        _ = machine.progress(playedSeconds: 1.0, ticket: ticket)
        #expect(machine.underrun(ticket: ticket) == .pauseOutput)
        #expect(machine.pcmQueued(seconds: 0.5, ticket: ticket) == .startOutput)
    }

    @Test("pause while playing silences the sink, resume restarts it")
    func pauseResume() {
        var machine = playing(queued: 1)
        let ticket = machine.activeTicket!
        _ = machine.progress(playedSeconds: 0.3, ticket: ticket)
        #expect(machine.pauseRequested() == .pauseOutput)
        #expect(
            machine.playbackState
                == .paused(PlaybackProgress(item: bird, ticket: Ticket(1), position: 0.3, duration: 12, buffered: 0.7)))
        #expect(machine.pauseRequested() == .refuse("already paused; resume continues"))
        #expect(machine.resumeRequested() == .startOutput)
        #expect(kind(machine.playbackState) == "playing")
        #expect(machine.resumeRequested() == .refuse("not paused"))
    }

    @Test("resume with too little queued goes back to buffering without starting the sink")
    func resumeIntoBuffering() {
        var machine = started()
        let ticket = machine.activeTicket!
        _ = machine.pcmQueued(seconds: 0.1, ticket: ticket)
        _ = machine.pauseRequested()
        #expect(machine.resumeRequested() == .nothing)
        #expect(kind(machine.playbackState) == "buffering")
        #expect(machine.pcmQueued(seconds: 0.4, ticket: ticket) == .startOutput)
    }

    @Test("the end of the stream while playing drains; the drain ends the track in idle")
    func drainToIdle() {
        var machine = playing(queued: 3)
        let ticket = machine.activeTicket!
        #expect(machine.sinkDrained(ticket: ticket) == .nothing)  // not before the end of the stream
        #expect(machine.endOfStream(ticket: ticket) == .drainOutput)
        #expect(kind(machine.playbackState) == "playing")
        #expect(machine.endOfStream(ticket: ticket) == .nothing)  // reported once
        #expect(machine.underrun(ticket: ticket) == .nothing)  // the queue running dry at the end is not a stall
        #expect(kind(machine.playbackState) == "playing")
        #expect(machine.drainFinished(ticket: ticket) == .finishPipeline(ticket))
        #expect(machine.sinkDrained(ticket: ticket) == .nothing)
        #expect(machine.playbackState.isIdle)
        #expect(machine.activeTicket == nil)
    }

    @Test("a drain reported 60 ms after the last sample was heard: the track's ending says so")
    func lateDrainInTheEnding() {
        var machine = playing(queued: 3)
        let ticket = machine.activeTicket!
        #expect(machine.endOfStream(ticket: ticket) == .drainOutput)
        #expect(machine.drainFinished(ticket: ticket, late: 0.06) == .finishPipeline(ticket))
        #expect(machine.sinkDrained(ticket: ticket) == .nothing)
        guard case .idle(let ending?) = machine.playbackState else {
            Issue.record("not idle with an ending: \(machine.playbackState)")
            return
        }
        #expect(ending.reason == .finished)
        #expect(ending.late == 0.06)
    }

    @Test("the end of the stream while paused drains (it completes after resume)")
    func endWhilePaused() {
        var machine = playing(queued: 1)
        let ticket = machine.activeTicket!
        _ = machine.pauseRequested()
        #expect(machine.endOfStream(ticket: ticket) == .drainOutput)
        #expect(kind(machine.playbackState) == "paused")
        #expect(machine.resumeRequested() == .startOutput)
        #expect(machine.drainFinished(ticket: ticket) == .finishPipeline(ticket))
        #expect(machine.sinkDrained(ticket: ticket) == .nothing)
        #expect(machine.playbackState.isIdle)
    }

    @Test("stop from buffering, playing or paused stops the pipeline and shows idle")
    func stopFromEachActiveState() {
        var buffering = started()
        let first = buffering.activeTicket!
        #expect(buffering.stopRequested() == .stopPipeline(first))
        #expect(buffering.playbackState.isIdle)

        var play = playing()
        let second = play.activeTicket!
        #expect(play.stopRequested() == .stopPipeline(second))
        #expect(play.playbackState.isIdle)

        var paused = playing()
        let third = paused.activeTicket!
        _ = paused.pauseRequested()
        #expect(paused.stopRequested() == .stopPipeline(third))
        #expect(paused.playbackState.isIdle)
    }

    @Test("a failure in any active state stops the pipeline and shows the reason")
    func failFromEachActiveState() {
        for setup in 0..<3 {
            var machine = playing()
            let ticket = machine.activeTicket!
            if setup == 0 { _ = machine.underrun(ticket: ticket) }
            if setup == 2 { _ = machine.pauseRequested() }
            #expect(machine.failed("network stalled", ticket: ticket) == .stopPipeline(ticket))
            #expect(
                machine.playbackState
                    == .failed(PlaybackFailure(item: bird, ticket: Ticket(1), reason: "network stalled")))
            #expect(machine.activeTicket == nil)
        }
    }

    // MARK: failed

    @Test("after a failure, events of the failed track are ignored and play tries again")
    func failedThenPlay() {
        var machine = playing()
        let ticket = machine.activeTicket!
        _ = machine.failed("no sound server", ticket: ticket)
        #expect(machine.pcmQueued(seconds: 1, ticket: ticket) == .nothing)
        #expect(machine.sinkDrained(ticket: ticket) == .nothing)
        #expect(machine.failed("again", ticket: ticket) == .nothing)
        #expect(machine.pauseRequested() == .refuse("nothing is playing"))
        #expect(machine.resumeRequested() == .refuse("nothing is paused"))
        let action = machine.playRequested(bird)
        #expect(action == .startPipeline(bird, ticket: Ticket(2), segment: fresh))
        #expect(kind(machine.playbackState) == "buffering")
    }

    @Test("stop after a failure is refused and the failure stays on show until the next play")
    func stopAfterFailure() {
        var machine = playing()
        let ticket = machine.activeTicket!
        _ = machine.failed("boom", ticket: ticket)
        #expect(machine.stopRequested() == .refuse("nothing is playing"))
        #expect(machine.playbackState == .failed(PlaybackFailure(item: bird, ticket: ticket, reason: "boom")))
    }

    @Test("a track played to its end leaves idle saying it finished, where, and which request it was")
    func finishedEnding() {
        var machine = playing(queued: 2)
        let ticket = machine.activeTicket!
        _ = machine.endOfStream(ticket: ticket)
        #expect(machine.drainFinished(ticket: ticket) == .finishPipeline(ticket))
        #expect(machine.sinkDrained(ticket: ticket) == .nothing)
        let ending = PlaybackEnding(item: bird, ticket: ticket, position: 2, reason: .finished)
        #expect(machine.playbackState == .idle(ending))
        #expect(machine.playbackState.ticket == ticket)
        #expect(!machine.playbackState.isActive)
    }

    @Test("stop leaves idle saying it was stopped and where; a later play has a larger ticket")
    func stoppedEnding() {
        var machine = playing(queued: 2)
        let ticket = machine.activeTicket!
        _ = machine.progress(playedSeconds: 0.7, ticket: ticket)
        #expect(machine.stopRequested() == .stopPipeline(ticket))
        #expect(
            machine.playbackState == .idle(PlaybackEnding(item: bird, ticket: ticket, position: 0.7, reason: .stopped)))
        _ = machine.playRequested(other)
        #expect(machine.playbackState.ticket! > ticket)
    }

    // MARK: replacing and stale events

    @Test("play while a track is loaded replaces its pipeline with a new ticket")
    func playReplaces() {
        var machine = playing()
        let ticket = machine.activeTicket!
        let action = machine.playRequested(other)
        #expect(action == .replacePipeline(stopping: ticket, item: other, ticket: Ticket(2), segment: fresh))
        #expect(machine.playbackState == .buffering(PlaybackProgress(item: other, ticket: Ticket(2))))
    }

    @Test("late events from a replaced or stopped track are ignored")
    func staleEventsIgnored() {
        var machine = playing()
        let old = machine.activeTicket!
        _ = machine.playRequested(other)
        let fresh = machine.playbackState
        #expect(machine.bytesArrived(10, ticket: old) == .nothing)
        #expect(machine.pcmQueued(seconds: 5, ticket: old) == .nothing)
        #expect(machine.progress(playedSeconds: 1, ticket: old) == .nothing)
        #expect(machine.durationKnown(99, ticket: old) == .nothing)
        #expect(machine.underrun(ticket: old) == .nothing)
        #expect(machine.endOfStream(ticket: old) == .nothing)
        #expect(machine.sinkDrained(ticket: old) == .nothing)
        #expect(machine.failed("late", ticket: old) == .nothing)
        #expect(machine.playbackState == fresh)

        _ = machine.stopRequested()
        #expect(machine.pcmQueued(seconds: 5, ticket: Ticket(2)) == .nothing)
        #expect(machine.playbackState.isIdle)
    }

    @Test("the state exposes the item and whether a track is active")
    func stateAccessors() {
        #expect(PlaybackState.start.item == nil)
        #expect(!PlaybackState.start.isActive)
        let failure = PlaybackFailure(item: bird, ticket: Ticket(1), reason: "x")
        #expect(PlaybackState.failed(failure).item == bird)
        #expect(!PlaybackState.failed(failure).isActive)
        #expect(failure.description == "XC254462: x")
        #expect(PlaybackState.paused(PlaybackProgress(item: other, ticket: Ticket(2))).isActive)
    }

    // MARK: dropped connections

    @Test("a dropped connection while playing keeps playing from the queue and asks to resume at the offset")
    func dropWhilePlaying() {
        var machine = playing()
        let ticket = machine.activeTicket!
        _ = machine.bytesArrived(4000, ticket: ticket)
        #expect(machine.connectionDropped(ticket: ticket) == .reconnect(ticket, from: 4000, attempt: 1))
        #expect(kind(machine.playbackState) == "playing")
        // Resumed bytes count on from the offset; if the queue runs dry first, it is an underrun like any other.
        _ = machine.bytesArrived(1000, ticket: ticket)
        #expect(machine.bytesReceived == 5000)
        _ = machine.progress(playedSeconds: 10, ticket: ticket)
        #expect(machine.underrun(ticket: ticket) == .pauseOutput)
        #expect(kind(machine.playbackState) == "buffering")
        #expect(machine.connectionDropped(ticket: ticket) == .reconnect(ticket, from: 5000, attempt: 2))
        #expect(kind(machine.playbackState) == "buffering")
        #expect(machine.pcmQueued(seconds: 1, ticket: ticket) == .startOutput)
    }

    @Test("a drop while paused keeps the track paused; a drop of an old or finished track is ignored")
    func dropWhilePausedOrStale() {
        var machine = playing()
        let ticket = machine.activeTicket!
        _ = machine.pauseRequested()
        #expect(machine.connectionDropped(ticket: ticket) == .reconnect(ticket, from: 0, attempt: 1))
        #expect(kind(machine.playbackState) == "paused")
        #expect(machine.connectionDropped(ticket: Ticket(99)) == .nothing)
        _ = machine.endOfStream(ticket: ticket)
        #expect(machine.connectionDropped(ticket: ticket) == .nothing)
    }

    @Test("after maxReconnects drops the next one gives up with the count; the failure follows; play works again")
    func dropsExhausted() {
        var machine = PlaybackMachine(maxReconnects: 2)
        _ = machine.playRequested(bird)
        let ticket = machine.activeTicket!
        #expect(machine.connectionDropped(ticket: ticket) == .reconnect(ticket, from: 0, attempt: 1))
        #expect(machine.connectionDropped(ticket: ticket) == .reconnect(ticket, from: 0, attempt: 2))
        let reason = "the connection dropped 3 times; play again to retry"
        #expect(machine.connectionDropped(ticket: ticket) == .giveUp(ticket, reason: reason))
        #expect(machine.failed(reason, ticket: ticket) == .stopPipeline(ticket))
        #expect(
            machine.playbackState
                == .failed(
                    PlaybackFailure(
                        item: bird, ticket: Ticket(1), reason: "the connection dropped 3 times; play again to retry")))
        #expect(machine.playRequested(bird) == .startPipeline(bird, ticket: Ticket(2), segment: fresh))
    }
}
