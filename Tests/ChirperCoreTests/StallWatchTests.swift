@testable import ChirperCore
import Testing

private let bird = PlayItem(label: "XC34430", location: .remote("https://xeno-canto.org/34430/download"))

@Suite("The stall watch")
struct StallWatchTests {
    @Test("it follows buffering and playing, moves with every sign of life, and is gone while paused or finishing")
    func followsTheTrack() throws {
        var machine = PlaybackMachine()
        #expect(machine.stallWatch == nil, "nothing loaded")
        _ = machine.playRequested(bird)
        let ticket = try #require(machine.activeTicket)
        let waiting = try #require(machine.stallWatch, "buffering waits for audio")
        _ = machine.bytesArrived(4000, ticket: ticket)
        #expect(machine.stallWatch == waiting, "bytes that decode to nothing are no sign of life")
        #expect(machine.pcmQueued(seconds: 1, ticket: ticket) == .startOutput)
        let playing = try #require(machine.stallWatch, "playing what is not all queued yet")
        #expect(playing != waiting, "audio queued")
        _ = machine.progress(playedSeconds: 0.5, ticket: ticket)
        let moved = try #require(machine.stallWatch)
        #expect(moved != playing, "the position moved")
        _ = machine.progress(playedSeconds: 0.5, ticket: ticket)
        #expect(machine.stallWatch == moved, "a position report that does not move is no sign of life")
        _ = machine.pauseRequested()
        #expect(machine.stallWatch == nil, "paused by the user: nothing is awaited")
        _ = machine.resumeRequested()
        #expect(machine.stallWatch == moved)
        _ = machine.endOfStream(ticket: ticket)
        #expect(machine.stallWatch == nil, "everything is queued: the sink drains on its own")
    }

    @Test("a stall fails a buffering track as network stalled, once its pipeline has ended; a stale watch is ignored")
    func bufferingStalls() throws {
        var machine = PlaybackMachine()
        _ = machine.playRequested(bird)
        let ticket = try #require(machine.activeTicket)
        let first = try #require(machine.stallWatch)
        _ = machine.pcmQueued(seconds: 0.1, ticket: ticket)
        #expect(machine.stallTimedOut(first, after: 20) == .nothing, "audio came since: the watch is stale")
        let now = try #require(machine.stallWatch)
        let reason = "network stalled: no audio for 20 s; check the connection and play again"
        #expect(machine.stallTimedOut(now, after: 20) == .giveUp(ticket, reason: reason))
        #expect(
            machine.playbackState == .buffering(PlaybackProgress(item: bird, ticket: ticket, buffered: 0.1)),
            "the failure is shown once the pipeline has ended")
        #expect(machine.stallWatch == nil, "given up: nothing more to time")
        #expect(machine.failed(reason, ticket: ticket) == .stopPipeline(ticket))
        #expect(machine.playbackState == .failed(PlaybackFailure(item: bird, ticket: ticket, reason: reason)))
    }

    @Test("a sound server that holds audio and plays none of it is named, not the network")
    func soundServerStalls() throws {
        var machine = PlaybackMachine()
        _ = machine.playRequested(bird)
        let ticket = try #require(machine.activeTicket)
        _ = machine.pcmQueued(seconds: 1, ticket: ticket)
        let watch = try #require(machine.stallWatch)
        #expect(
            machine.stallTimedOut(watch, after: 20)
                == .giveUp(
                    ticket,
                    reason:
                        "the sound server stopped playing: nothing was heard for 20 s; check it (pactl info) and play again"
                ))
    }

    @Test("the wait after an underrun, a seek or a drop is timed too; a seek starts a new wait")
    func everyWait() throws {
        var machine = PlaybackMachine()
        _ = machine.playRequested(bird)
        let ticket = try #require(machine.activeTicket)
        _ = machine.durationKnown(60, ticket: ticket)
        _ = machine.pcmQueued(seconds: 1, ticket: ticket)
        _ = machine.progress(playedSeconds: 1, ticket: ticket)
        let beforeUnderrun = try #require(machine.stallWatch)
        #expect(machine.underrun(ticket: ticket) == .pauseOutput)
        let afterUnderrun = try #require(machine.stallWatch)
        #expect(afterUnderrun != beforeUnderrun)
        #expect(machine.connectionDropped(ticket: ticket) == .reconnect(ticket, from: 0, attempt: 1))
        #expect(machine.stallWatch == afterUnderrun, "a reconnect is no sign of life: the same wait goes on")
        _ = machine.seekRequested(.absolute(30))
        #expect(machine.stallWatch != afterUnderrun, "a new segment waits afresh")
    }
}
