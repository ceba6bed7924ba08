/// The playback state machine: events in, effects out, no I/O.
///
/// The owner (the player) feeds it what happened (the user asked to play, bytes arrived, PCM was queued
/// in the sink, the sink underran or drained, something failed) and runs the `Action` each call returns.
/// Events from a pipeline carry the `Ticket` that `playRequested` handed out, so late events from a track
/// that was stopped or replaced are ignored.
public struct PlaybackMachine: Sendable {
    /// Names one play request; events of an older request are ignored.
    public typealias Ticket = PlaybackTicket

    /// The effect the owner must run after an event.
    public enum Action: Sendable, Hashable {
        /// Nothing to do.
        case none
        /// The user asked for something the state does not allow: tell them `reason` (one line); nothing
        /// changed.
        case refuse(String)
        /// Start fetching and decoding `item`; tag its events with `ticket`. The sink starts silent.
        case startPipeline(PlayItem, ticket: Ticket)
        /// Silence and tear down the pipeline `stopping` at once, then start `item` as `startPipeline` does.
        case replacePipeline(stopping: Ticket, item: PlayItem, ticket: Ticket)
        /// Silence the pipeline at once (flush the sink's queue), cancel its fetch and let it end.
        case stopPipeline(Ticket)
        /// Let the sink play (enough is queued, or the user resumed).
        case startOutput
        /// Silence the sink, keeping its queue (the user paused, or the queue ran dry).
        case pauseOutput
        /// All audio is queued: wait until the sink has played it, then report `sinkDrained`.
        case drainOutput
        /// As `drainOutput`, but the sink was still waiting for the start threshold: let it play first.
        case startOutputAndDrain
        /// The track ended normally: close the sink's stream for this track.
        case finishPipeline(Ticket)
        /// The connection dropped before the whole recording arrived: silence the sink (keeping its queue),
        /// wait the back-off for this `attempt` (1, 2, …), then fetch again from byte `offset` and go on
        /// feeding the same decoder.
        case reconnect(Ticket, from: Int64, attempt: Int)
        /// The connection dropped once too often: end the pipeline, then report `failed(reason)` (so whoever
        /// sees the failure finds nothing left running).
        case giveUp(Ticket, reason: String)
    }

    private struct Session: Sendable {
        var ticket: Ticket
        var item: PlayItem
        var bytesReceived: Int64 = 0
        /// Seconds handed to the sink.
        var queued: Double = 0
        /// Seconds the sink has played.
        var played: Double = 0
        var duration: Double?
        /// The source and decoder are done; what is queued is all there is.
        var sourceFinished = false
        /// The sink ran dry once, so a restart waits for the larger threshold.
        var hadUnderrun = false
        /// How many times the connection dropped during this track.
        var drops = 0

        var buffered: Double { max(0, queued - played) }

        var progress: PlaybackProgress {
            PlaybackProgress(
                item: item, ticket: ticket, position: played, duration: duration ?? item.expectedDuration,
                buffered: buffered)
        }

        func ending(_ reason: PlaybackEnding.Reason) -> PlaybackEnding {
            PlaybackEnding(item: item, ticket: ticket, position: played, reason: reason)
        }
    }

    private enum State: Sendable {
        /// Nothing loaded; how the last track ended, if one did. Next: `buffering` (play).
        case idle(PlaybackEnding?)
        /// Loading; the sink is silent until the threshold is queued. Next: `playing` (threshold reached or
        /// source finished), `paused`, `idle` (stop), `failed`, `buffering` of a new session (play).
        case buffering(Session)
        /// The sink plays; when `sourceFinished` it is draining. Next: `buffering` (underrun, or a dropped
        /// connection being resumed), `paused`, `idle` (drained or stop), `failed`, `buffering` of a new
        /// session (play).
        case playing(Session)
        /// Silenced by the user. Next: `playing`/`buffering` (resume), `idle` (stop), `failed`,
        /// `buffering` of a new session (play).
        case paused(Session)
        /// The last session failed; nothing runs. Next: `buffering` (play), `idle` (stop).
        case failed(PlaybackFailure)
    }

    private var state: State = .idle(nil)
    private var lastTicket: UInt64 = 0
    public let policy: BufferingPolicy
    /// How many dropped connections a track survives; the next drop fails it.
    public let maxReconnects: Int

    public init(policy: BufferingPolicy = .default, maxReconnects: Int = 3) {
        self.policy = policy
        self.maxReconnects = max(0, maxReconnects)
    }

    /// What the user must see now.
    public var playbackState: PlaybackState {
        switch state {
        case .idle(let ending): .idle(ending)
        case .buffering(let session): .buffering(session.progress)
        case .playing(let session): .playing(session.progress)
        case .paused(let session): .paused(session.progress)
        case .failed(let failure): .failed(failure)
        }
    }

    /// The ticket of the loaded track, if any.
    public var activeTicket: Ticket? { session?.ticket }

    /// Bytes of the loaded track received so far: where a resumed fetch (`Range: bytes=N-`) would start.
    public var bytesReceived: Int64? { session?.bytesReceived }

    private var session: Session? {
        switch state {
        case .buffering(let session), .playing(let session), .paused(let session): session
        case .idle, .failed: nil
        }
    }

    // MARK: - User events

    /// The user asked to play `item`; whatever is loaded is stopped first.
    public mutating func playRequested(_ item: PlayItem) -> Action {
        lastTicket += 1
        let ticket = Ticket(lastTicket)
        let old = session?.ticket
        state = .buffering(Session(ticket: ticket, item: item))
        if let old {
            return .replacePipeline(stopping: old, item: item, ticket: ticket)
        }
        return .startPipeline(item, ticket: ticket)
    }

    /// The user asked to stop: silence at once, back to `idle` (remembering where it stopped). Refused when
    /// nothing is loaded (a failure stays on show until the next play).
    public mutating func stopRequested() -> Action {
        switch state {
        case .idle, .failed:
            return .refuse("nothing is playing")
        case .buffering(let session), .playing(let session), .paused(let session):
            state = .idle(session.ending(.stopped))
            return .stopPipeline(session.ticket)
        }
    }

    /// The user asked to pause. Refused unless a track is loaded and not already paused.
    public mutating func pauseRequested() -> Action {
        switch state {
        case .idle, .failed:
            return .refuse("nothing is playing")
        case .paused:
            return .refuse("already paused; resume continues")
        case .buffering(let session):
            // The sink is already silent; nothing to cork.
            state = .paused(session)
            return .none
        case .playing(let session):
            state = .paused(session)
            return .pauseOutput
        }
    }

    /// The user asked to resume: play if enough is queued (or all of it is), else keep buffering. Refused
    /// unless paused.
    public mutating func resumeRequested() -> Action {
        switch state {
        case .idle, .failed:
            return .refuse("nothing is paused")
        case .buffering, .playing:
            return .refuse("not paused")
        case .paused(let session):
            if session.sourceFinished || session.buffered >= threshold(for: session) {
                state = .playing(session)
                return .startOutput
            }
            state = .buffering(session)
            return .none
        }
    }

    // MARK: - Pipeline events

    /// `count` bytes of the recording arrived from the network or the file.
    public mutating func bytesArrived(_ count: Int, ticket: Ticket) -> Action {
        update(ticket) { session in session.bytesReceived += Int64(count) }
        return .none
    }

    /// The decoder learned the recording's length.
    public mutating func durationKnown(_ seconds: Double, ticket: Ticket) -> Action {
        update(ticket) { session in session.duration = seconds }
        return .none
    }

    /// `seconds` of decoded audio were handed to the sink.
    public mutating func pcmQueued(seconds: Double, ticket: Ticket) -> Action {
        guard var session = session, session.ticket == ticket else { return .none }
        session.queued += seconds
        switch state {
        case .buffering:
            if session.buffered >= threshold(for: session) {
                state = .playing(session)
                return .startOutput
            }
            state = .buffering(session)
        case .playing:
            state = .playing(session)
        case .paused:
            state = .paused(session)
        case .idle, .failed:
            preconditionFailure("a session exists only while buffering, playing or paused")
        }
        return .none
    }

    /// The sink reports how much it has played (never more than was queued, never backwards).
    public mutating func progress(playedSeconds: Double, ticket: Ticket) -> Action {
        update(ticket) { session in
            session.played = max(session.played, min(playedSeconds, session.queued))
        }
        return .none
    }

    /// The sink ran out of audio while playing: silence it and buffer again, until the (larger) rebuffer
    /// threshold is queued. The owner reports the sink's position (`progress`) first: if what was queued
    /// since already reaches the threshold, the gap was momentary and playback goes on. The end of the
    /// track running dry is not an underrun (the drain completes on its own).
    public mutating func underrun(ticket: Ticket) -> Action {
        guard case .playing(var session) = state, session.ticket == ticket, !session.sourceFinished else {
            return .none
        }
        session.hadUnderrun = true
        if session.buffered >= policy.rebufferThreshold {
            state = .playing(session)
            return .none
        }
        state = .buffering(session)
        return .pauseOutput
    }

    /// The source and decoder are done: everything there is has been queued.
    public mutating func endOfStream(ticket: Ticket) -> Action {
        guard var session = session, session.ticket == ticket, !session.sourceFinished else { return .none }
        session.sourceFinished = true
        if session.queued <= 0 {
            return fail(session, "no audio in this recording (empty or cut short); try another recording")
        }
        switch state {
        case .buffering:
            state = .playing(session)
            return .startOutputAndDrain
        case .playing:
            state = .playing(session)
            return .drainOutput
        case .paused:
            // The drain waits while the sink is silenced; resuming lets it finish.
            state = .paused(session)
            return .drainOutput
        case .idle, .failed:
            preconditionFailure("a session exists only while buffering, playing or paused")
        }
    }

    /// The sink has played everything queued after `endOfStream`: the track is over.
    public mutating func sinkDrained(ticket: Ticket) -> Action {
        guard var session = session, session.ticket == ticket, session.sourceFinished else { return .none }
        session.played = session.queued
        state = .idle(session.ending(.finished))
        return .finishPipeline(ticket)
    }

    /// The connection ended before the whole recording arrived (closed early, or a read error). Up to
    /// `maxReconnects` times a track goes back to `buffering` (unless the user paused it) and the owner is
    /// told to fetch again from `bytesReceived`; after that the owner is told to give up.
    public mutating func connectionDropped(ticket: Ticket) -> Action {
        guard var session = session, session.ticket == ticket, !session.sourceFinished else { return .none }
        session.drops += 1
        if session.drops > maxReconnects {
            update(ticket) { $0.drops = session.drops }
            let times = session.drops == 1 ? "once" : "\(session.drops) times"
            return .giveUp(ticket, reason: "the connection dropped \(times); play again to retry")
        }
        switch state {
        case .paused:
            state = .paused(session)
        case .buffering, .playing:
            state = .buffering(session)
        case .idle, .failed:
            preconditionFailure("a session exists only while buffering, playing or paused")
        }
        return .reconnect(ticket, from: session.bytesReceived, attempt: session.drops)
    }

    /// Something went wrong in the pipeline; `reason` is the user-facing line.
    public mutating func failed(_ reason: String, ticket: Ticket) -> Action {
        guard let session = session, session.ticket == ticket else { return .none }
        return fail(session, reason)
    }

    // MARK: - Helpers

    private mutating func fail(_ session: Session, _ reason: String) -> Action {
        state = .failed(PlaybackFailure(item: session.item, ticket: session.ticket, reason: reason))
        return .stopPipeline(session.ticket)
    }

    private func threshold(for session: Session) -> Double {
        session.hadUnderrun ? policy.rebufferThreshold : policy.startThreshold
    }

    private mutating func update(_ ticket: Ticket, _ change: (inout Session) -> Void) {
        switch state {
        case .buffering(var session) where session.ticket == ticket:
            change(&session)
            state = .buffering(session)
        case .playing(var session) where session.ticket == ticket:
            change(&session)
            state = .playing(session)
        case .paused(var session) where session.ticket == ticket:
            change(&session)
            state = .paused(session)
        case .idle, .failed, .buffering, .playing, .paused:
            // Tolerated: an event of a stopped or replaced track (another ticket), or with nothing loaded.
            break
        }
    }
}
