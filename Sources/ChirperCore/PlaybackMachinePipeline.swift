/// The playback machine's pipeline events: what the track's feed, the sink and the network report.
extension PlaybackMachine {
    // MARK: - Pipeline events

    /// `count` bytes of the recording arrived from the network or the file.
    public mutating func bytesArrived(_ count: Int, ticket: Ticket) -> Action {
        update(ticket) { session in session.bytesReceived += Int64(count) }
        return .nothing
    }

    /// The decoder learned the recording's length.
    public mutating func durationKnown(_ seconds: Double, ticket: Ticket) -> Action {
        update(ticket) { session in session.duration = seconds }
        return .nothing
    }

    /// The decoder skipped damaged frames of the recording.
    mutating func damaged(_ damage: FLACDamage, ticket: Ticket) -> Action {
        update(ticket) { session in session.damage = damage }
        return .nothing
    }

    /// `seconds` of decoded audio were handed to the sink; `ahead` more output seconds have arrived and wait
    /// to be decoded (estimated).
    /// The track's machine counts them as its driver writes them: this is its count taken on the track's behalf,
    /// for the scenario tests that run without a driver, and so not public.
    mutating func pcmQueued(seconds: Double, ticket: Ticket, segment: Int = 0, ahead: Double = 0) -> Action {
        update(ticket) { session in
            guard session.segment.number == segment else { return }
            session.track.track.queued += seconds
        }
        return queuedReported(ticket: ticket, segment: segment, ahead: ahead)
    }

    /// The track's machine counted audio handed to the sink (in `segment`); `ahead` more output seconds have
    /// arrived and wait to be decoded (estimated).
    mutating func queuedReported(ticket: Ticket, segment: Int, ahead: Double) -> Action {
        guard var session = session, session.ticket == ticket, session.segment.number == segment else {
            return .nothing
        }
        session.signsOfLife += 1
        session.arrivedAhead = max(0, ahead)
        switch state {
        case .buffering:
            if canStart(session) {
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
        return .nothing
    }

    /// The sink reports how much it has played (never more than was queued, never backwards).
    public mutating func progress(playedSeconds: Double, ticket: Ticket, segment: Int = 0) -> Action {
        update(ticket) { session in
            guard session.segment.number == segment else { return }
            let played = max(session.played, min(playedSeconds, session.queued))
            if played > session.played { session.signsOfLife += 1 }
            session.played = played
        }
        return .nothing
    }

    /// The pipeline started a segment's audio at recording time `seconds`, on the sample or (`estimated`) near
    /// it, and, after a new request, reads the network from body byte `networkOffset`.
    public mutating func seekLanded(
        at seconds: Double, landing: Landing = .exact, networkOffset: Int64?, rangeIgnored: Bool, ticket: Ticket,
        segment: Int
    ) -> Action {
        let factor = settings.speed.factor
        update(ticket) { session in
            guard session.segment.number == segment else { return }
            session.timeline.mark(atOutput: 0, recording: seconds, factor: factor)
            if let networkOffset { session.bytesReceived = networkOffset }
            session.rangeIgnored = rangeIgnored
            session.landing = landing
        }
        return .nothing
    }

    /// The loop wrapped: the audio queued from output second `output` of the segment is recording time
    /// `start` again.
    public mutating func loopWrapped(atOutput output: Double, to start: Double, ticket: Ticket, segment: Int)
        -> Action
    {
        let factor = settings.speed.factor
        update(ticket) { session in
            guard session.segment.number == segment else { return }
            session.timeline.mark(atOutput: output, recording: start, factor: factor)
        }
        return .nothing
    }

    /// The sink ran out of audio while playing: silence it and buffer again, until the (larger) rebuffer
    /// threshold is queued. The owner reports the sink's position (`progress`) first: if what was queued
    /// since already reaches the threshold, the gap was momentary and playback goes on. The end of the
    /// track running dry is not an underrun (the drain completes on its own).
    public mutating func underrun(ticket: Ticket, segment: Int = 0) -> Action {
        guard case .playing(var session) = state, session.ticket == ticket, session.segment.number == segment,
            !session.sourceFinished
        else {
            return .nothing
        }
        session.hadUnderrun = true
        if session.buffered >= policy.rebufferThreshold {
            state = .playing(session)
            return .nothing
        }
        // The wait for audio starts now.
        session.signsOfLife += 1
        state = .buffering(session)
        return .pauseOutput
    }

    /// The source and decoder are done: everything there is has been queued.
    public mutating func endOfStream(ticket: Ticket, segment: Int = 0) -> Action {
        guard var session = session, session.ticket == ticket, session.segment.number == segment,
            !session.sourceFinished
        else { return .nothing }
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

    /// The sink has played everything queued after `endOfStream` of `segment`, the last sample `late` seconds
    /// ago (the ending says so). If no seek came in between, the track is finishing: nothing can change it any
    /// more, and its pipeline may end.
    public mutating func drainFinished(ticket: Ticket, segment: Int = 0, late: Double = 0) -> Action {
        guard var session = session, session.ticket == ticket, session.segment.number == segment, session.sourceFinished
        else { return .nothing }
        session.played = session.queued
        session.late = max(0, late)
        session.finishing = true
        replace(session)
        return .finishPipeline(ticket)
    }

    /// The finished track's pipeline has ended and released everything: the track is over.
    public mutating func sinkDrained(ticket: Ticket) -> Action {
        guard var session = session, session.ticket == ticket, session.sourceFinished else { return .nothing }
        session.played = session.queued
        state = .idle(session.ending(.finished))
        return .nothing
    }

    /// The connection ended before the whole recording arrived (closed early, or a read error). Up to
    /// `maxReconnects` times the owner is told to fetch again from `bytesReceived`, the state staying as it
    /// is: the queue plays on while the connection is resumed (silencing it would hold a full sink's writes, and
    /// nothing would start it again); after that the owner is told to give up.
    public mutating func connectionDropped(ticket: Ticket, segment: Int = 0) -> Action {
        guard var session = session, session.ticket == ticket, session.segment.number == segment,
            !session.sourceFinished
        else { return .nothing }
        session.drops += 1
        if session.drops > maxReconnects {
            let times = session.drops == 1 ? "once" : "\(session.drops) times"
            return giveUp(&session, "the connection dropped \(times); play again to retry")
        }
        replace(session)
        return .reconnect(ticket, from: session.bytesReceived, attempt: session.drops)
    }

    /// The owner's stall clock says `watch` (a `stallWatch` taken earlier) has lasted `seconds` with no sign of
    /// life. If it is still the watch now, the track fails: waiting for audio that does not come, or (a sound
    /// server holding audio it does not play) playing nothing. A stale watch changes nothing.
    public mutating func stallTimedOut(_ watch: StallWatch, after seconds: Double) -> Action {
        guard var session, stallWatch == watch else { return .nothing }
        let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        if case .playing = state, realTimeOutput, session.buffered > 0 {
            return giveUp(
                &session,
                "the sound server stopped playing: nothing was heard for \(shown) s; check it (pactl info) and play again"
            )
        }
        return giveUp(&session, "network stalled: no audio for \(shown) s; check the connection and play again")
    }

    /// Something went wrong in the pipeline; `reason` is the user-facing line.
    public mutating func failed(_ reason: String, ticket: Ticket) -> Action {
        guard let session = session, session.ticket == ticket else { return .nothing }
        return fail(session, reason)
    }
}
