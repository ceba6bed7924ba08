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
        case nothing
        /// The user asked for something the state does not allow: tell them `reason` (one line); nothing
        /// changed.
        case refuse(String)
        /// Start fetching and decoding `item` as `segment` says (speed, volume); tag its events with `ticket`.
        /// The sink starts silent.
        case startPipeline(PlayItem, ticket: Ticket, segment: PlaybackSegment)
        /// Silence and tear down the pipeline `stopping` at once, then start `item` as `startPipeline` does.
        case replacePipeline(stopping: Ticket, item: PlayItem, ticket: Ticket, segment: PlaybackSegment)
        /// Seek, loop or speed change: silence the sink at once, dropping what it holds, and wake the track's
        /// driver, whose machine already holds `segment` (from `segment.start`, recording time); later events
        /// carry its number. The sink stays silent until the start threshold is queued again (or until resume,
        /// when paused).
        case restartSegment(Ticket, PlaybackSegment)
        /// Set the sink's volume to `percent` (0 when muted) at once, for this and later outputs.
        case applyVolume(percent: Int)
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
        /// The sink has played the whole track: the pipeline may end (then it reports `sinkDrained`).
        case finishPipeline(Ticket)
        /// The connection dropped before the whole recording arrived: wait the back-off for this `attempt`
        /// (1, 2, …), then fetch again from byte `offset` and go on feeding the same decoder. The sink is left
        /// as it is: what it holds plays on meanwhile (if it runs dry, that is an underrun like any other).
        case reconnect(Ticket, from: Int64, attempt: Int)
        /// The connection dropped once too often, or the track stalled: end the pipeline at once, whatever it
        /// is waiting for, then report `failed(reason)` (so whoever sees the failure finds nothing left running).
        case giveUp(Ticket, reason: String)
    }

    struct Session: Sendable {
        var ticket: Ticket
        var item: PlayItem
        /// The track's own machine: the one keeper of the segment (its number, start, speed and loop) and of
        /// the seconds queued in it. Its driver feeds it through `trackEvent`; a seek or a loop starts a new
        /// segment in it at once (`replan`).
        var track: TrackMachine
        var bytesReceived: Int64 = 0
        /// Seconds the sink has played.
        var played: Double = 0
        /// Output seconds of audio that arrived and wait to be decoded (the pipeline's estimate): when they
        /// make up the threshold with what is queued (and the policy's floor is queued), the sound can start,
        /// since decoding runs far faster than real time. A slow network gets no credit here and fills the
        /// threshold from decoded audio.
        var arrivedAhead: Double = 0
        var duration: Double?
        /// The source and decoder are done; what is queued is all there is.
        var sourceFinished = false
        /// The sink ran dry once, so a restart waits for the larger threshold.
        var hadUnderrun = false
        /// How many times the connection dropped during this track.
        var drops = 0
        /// Output seconds of this segment → recording time.
        var timeline = PlaybackTimeline()
        /// The last seek's `Range` request was answered with the whole file.
        var rangeIgnored = false
        /// How the last seek landed.
        var landing = Landing.exact
        /// The damaged frames the decoder skipped, if any.
        var damage: FLACDamage?
        /// The sink has played everything and the pipeline is ending: nothing more can be changed.
        var finishing = false
        /// Counts signs of life for the stall watchdog: audio queued, the position moving, a new segment, a new
        /// wait for audio.
        var signsOfLife = 0
        /// The owner was told to give up (`giveUp`); the failure follows once the pipeline has ended.
        var givingUp = false
        /// Seconds the last sample had been heard when the sink reported its drain.
        var late: Double = 0

        /// The segment the sink's audio belongs to; `queued` and `played` count from its start.
        var segment: PlaybackSegment { track.track.plan }
        /// Seconds of this segment handed to the sink.
        var queued: Double { track.track.queued }
        var loop: LoopSection? { segment.loop }

        var buffered: Double { max(0, queued - played) }

        /// Recording time heard now.
        var position: Double { timeline.recordingTime(atOutput: played) }

        var knownDuration: Double? { duration ?? item.expectedDuration }

        func progress(_ settings: PlaybackSettings) -> PlaybackProgress {
            PlaybackProgress(
                item: item, ticket: ticket, position: position, duration: knownDuration, buffered: buffered,
                settings: settings, loop: loop, rangeIgnored: rangeIgnored, landing: landing,
                segment: segment.number, damage: damage)
        }

        func ending(_ reason: PlaybackEnding.Reason) -> PlaybackEnding {
            PlaybackEnding(item: item, ticket: ticket, position: position, reason: reason, late: late)
        }
    }

    enum State: Sendable {
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

    var state: State = .idle(nil)
    var lastTicket: UInt64 = 0
    /// Speed, volume and mute: they outlive a track.
    public internal(set) var settings = PlaybackSettings()
    public let policy: BufferingPolicy
    /// How many dropped connections a track survives; the next drop fails it.
    public let maxReconnects: Int
    /// Input a track decodes per step once a segment has started.
    public let decodeChunkBytes: Int

    /// The sink plays in real time (a sound server). A file or a null sink runs as fast as it decodes, where
    /// a loop would never end: loops are refused there.
    public let realTimeOutput: Bool

    public init(
        policy: BufferingPolicy = .default, maxReconnects: Int = 3, realTimeOutput: Bool = true,
        decodeChunkBytes: Int = 16 * 1024
    ) {
        self.policy = policy
        self.maxReconnects = max(0, maxReconnects)
        self.decodeChunkBytes = max(1, decodeChunkBytes)
        self.realTimeOutput = realTimeOutput
    }

    /// What the user must see now.
    public var playbackState: PlaybackState {
        switch state {
        case .idle(let ending): .idle(ending)
        case .buffering(let session): .buffering(session.progress(settings))
        case .playing(let session): .playing(session.progress(settings))
        case .paused(let session): .paused(session.progress(settings))
        case .failed(let failure): .failed(failure)
        }
    }

    /// The ticket of the loaded track, if any.
    public var activeTicket: Ticket? { session?.ticket }

    /// What the stall watchdog watches now: a track waiting for audio (`buffering`) or playing what is not all
    /// queued yet. Nil while paused, finishing or with nothing loaded. It changes with every sign of life, so
    /// the owner fails the track (`stallTimedOut`) once the same watch has lasted the stall limit on its clock,
    /// whatever the transport and whichever request is waiting.
    public var stallWatch: StallWatch? {
        switch state {
        case .buffering(let session) where !session.givingUp:
            StallWatch(ticket: session.ticket, signsOfLife: session.signsOfLife)
        case .playing(let session) where !session.sourceFinished && !session.givingUp:
            StallWatch(ticket: session.ticket, signsOfLife: session.signsOfLife)
        case .idle, .failed, .paused, .buffering, .playing:
            nil
        }
    }

    /// Bytes of the loaded track received so far: where a resumed fetch (`Range: bytes=N-`) would start.
    public var bytesReceived: Int64? { session?.bytesReceived }

    var session: Session? {
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
        let segment = PlaybackSegment(number: 0, start: 0, settings: settings)
        // The source says whether it can be asked again from a byte once it is open (`sourceOpened`).
        let limits = TrackMachine.Limits(
            startFloor: policy.startFloor, decodeChunkBytes: decodeChunkBytes, canResume: true)
        let session = Session(
            ticket: ticket, item: item, track: TrackMachine(segment: segment, limits: limits),
            timeline: PlaybackTimeline(factor: settings.speed.factor))
        state = .buffering(session)
        if let old {
            return .replacePipeline(stopping: old, item: item, ticket: ticket, segment: segment)
        }
        return .startPipeline(item, ticket: ticket, segment: segment)
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
            return .nothing
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
            if session.sourceFinished || canStart(session) {
                state = .playing(session)
                return .startOutput
            }
            state = .buffering(session)
            return .nothing
        }
    }

    // MARK: - Helpers

    /// The loaded session, unless there is none or it is finishing.
    var loadedSession: Session? {
        guard let session, !session.finishing else { return nil }
        return session
    }

    func refusal(for command: String) -> Action {
        if session?.finishing == true { return .refuse("the recording has just ended; play it again to \(command)") }
        return .refuse("nothing is playing; play a recording first, then \(command)")
    }

    /// Starts a new segment at `target`, repeating `loop`: the sink is emptied and refilled from there (paused
    /// stays paused).
    mutating func restart(_ session: inout Session, at target: Double, loop: LoopSection?) -> Action {
        let segment = PlaybackSegment(
            number: session.segment.number + 1, start: target, settings: settings, loop: loop)
        session.track.replan(segment)
        session.signsOfLife += 1
        session.timeline = PlaybackTimeline(recordingStart: target, factor: settings.speed.factor)
        session.played = 0
        session.arrivedAhead = 0
        session.sourceFinished = false
        session.hadUnderrun = false
        session.rangeIgnored = false
        if case .paused = state {
            state = .paused(session)
        } else {
            state = .buffering(session)
        }
        return .restartSegment(session.ticket, segment)
    }

    /// Puts `session` back in the state it is in.
    mutating func replace(_ session: Session) {
        switch state {
        case .buffering: state = .buffering(session)
        case .playing: state = .playing(session)
        case .paused: state = .paused(session)
        case .idle, .failed: preconditionFailure("a session exists only while buffering, playing or paused")
        }
    }

    /// The pipeline must end with `reason`; the state stays until its `failed` comes.
    mutating func giveUp(_ session: inout Session, _ reason: String) -> Action {
        session.givingUp = true
        replace(session)
        return .giveUp(session.ticket, reason: reason)
    }

    mutating func fail(_ session: Session, _ reason: String) -> Action {
        state = .failed(PlaybackFailure(item: session.item, ticket: session.ticket, reason: reason))
        return .stopPipeline(session.ticket)
    }

    /// Audio for the threshold is queued, or here and decoding with the policy's floor queued.
    func canStart(_ session: Session) -> Bool {
        let threshold = session.hadUnderrun ? policy.rebufferThreshold : policy.startThreshold
        return policy.reached(threshold, buffered: session.buffered, ahead: session.arrivedAhead)
    }

    mutating func update(_ ticket: Ticket, _ change: (inout Session) -> Void) {
        // Tolerated when nothing changes: an event of a stopped or replaced track (another ticket), or with
        // nothing loaded.
        _ = modify(ticket, change)
    }

    /// Changes the session of `ticket` in place, or returns nil when it is not loaded. The state lets go of the
    /// session while it changes, so what it holds (a loop's kept pass) grows without being copied.
    mutating func modify<Result>(_ ticket: Ticket, _ change: (inout Session) -> Result) -> Result? {
        var session: Session
        let rebuild: (Session) -> State
        switch state {
        case .buffering(let loaded) where loaded.ticket == ticket: (session, rebuild) = (loaded, State.buffering)
        case .playing(let loaded) where loaded.ticket == ticket: (session, rebuild) = (loaded, State.playing)
        case .paused(let loaded) where loaded.ticket == ticket: (session, rebuild) = (loaded, State.paused)
        case .idle, .failed, .buffering, .playing, .paused: return nil
        }
        state = .idle(nil)
        let result = change(&session)
        state = rebuild(session)
        return result
    }
}

/// One wait the stall watchdog times: the track, and how many signs of life it had shown when the wait began.
public struct StallWatch: Sendable, Hashable {
    public var ticket: PlaybackTicket
    public var signsOfLife: Int
}
