/// The track machine's loops and seeks: the seam of a loop, its replay from memory, a new segment, and how the
/// decoder reaches the byte of a new position (from what is held, or with a new request).
extension TrackMachine {
    /// The loop reached its end: report the seam, then replay the kept pass from memory, or go back to the
    /// loop's start (the next pass is kept if it can be).
    mutating func wrap(to start: Double, pass: LoopPass, passEnd: Int) -> [Action] {
        let seam = Action.report(.loopWrapped(atOutput: track.queued, to: start, segment: track.plan.number))
        if case .keeping(let kept) = pass, !kept.isEmpty {
            state = .replaying(Replay(pass: kept, at: 0, passEnd: passEnd))
            return [seam]
        }
        return [seam] + reposition(.loopBack(pass: pass == .tooLong ? .tooLong : .keeping([])), to: start)
    }

    /// The next piece of the kept pass (a quarter of a second), played through the speed stage.
    mutating func replayNext(_ replay: Replay) -> [Action] {
        guard let format = track.format else {
            state = .feeding(.notKept)
            return []
        }
        var replay = replay
        let end = min(replay.pass.count, replay.at + max(format.channels, format.sampleRate / 4 * format.channels))
        let piece = Array(replay.pass[replay.at..<end])
        replay.at = end
        state = .replaying(replay)
        return [.play(piece, through: .speed, pieceSeconds: pieceSeconds, ahead: 0)]
    }

    /// A piece of the kept pass was played: at the pass's end the loop starts again (the seam at the output it
    /// is heard), or (loop off) decoding goes on from the loop's end.
    mutating func replayPiecePlayed(_ replay: Replay) -> [Action] {
        guard replay.at == replay.pass.count, let format = track.format else { return [] }
        if let loop = track.plan.loop {
            var again = replay
            again.at = 0
            state = .replaying(again)
            return [.report(.loopWrapped(atOutput: track.queued, to: loop.start, segment: track.plan.number))]
        }
        return reposition(.resume, to: Double(replay.passEnd) / Double(format.sampleRate))
    }

    /// The playback machine starts `segment` now, under its lock: from here the segment's number, its loop and
    /// the seconds queued in it are the new segment's, wherever the driver is. The driver's work in flight is
    /// of the old segment; its next step (or the restart command it finds) carries the restart out.
    public mutating func replan(_ segment: PlaybackSegment) {
        if case .ended = state { return }
        track.plan = segment
        track.queued = 0
        track.seekPending = false
        state = .restarting
    }

    /// Changes (or ends, nil) the repeated section at once, without disturbing what is queued.
    public mutating func setLoop(_ loop: LoopSection?) {
        track.plan.loop = loop
    }

    /// An event while a restart waits for the driver, or nil when it means what it means in any state. What
    /// the driver reports of the old segment's work is dropped (its output was retired); what it learned of
    /// the body and the format holds.
    mutating func whileRestarting(_ event: Event) -> [Action]? {
        switch event {
        case .ready, .command(.restart):
            return restart(track.plan)
        case .command, .arrived, .bodyEnded, .connectionFailed, .connected:
            return nil
        case .format(let format, let duration, _):
            track.format = format
            guard let duration, !track.durationReported else { return [] }
            track.durationReported = true
            return [.report(.durationKnown(duration))]
        case .decoderDamaged(let damage):
            return [.report(.damaged(damage))]
        case .samples, .decoderFinished, .speedFlushed, .queued, .played, .outputRetired, .decoderLanded,
            .decoderCannotSeek, .drained:
            return []
        }
    }

    /// A seek, loop or speed change: a new segment from `segment.start` on a new output (the playback machine's
    /// runner retired the old one). Before the format is known, it waits for it.
    mutating func restart(_ segment: PlaybackSegment) -> [Action] {
        track.plan = segment
        track.queued = 0
        let pass = Self.pass(for: segment)
        guard track.format != nil else {
            track.seekPending = true
            state = .feeding(pass)
            return []
        }
        track.seekPending = false
        return reposition(.restart(segment, pass: pass), to: segment.start)
    }

    /// Points the decoder at recording time `seconds`.
    mutating func reposition(_ purpose: Reposition, to seconds: Double) -> [Action] {
        guard let format = track.format else { return decoderCannotSeek() }
        let frame = SeekPlan(sampleRate: format.sampleRate).frame(atSeconds: seconds)
        state = .repositioning(purpose, target: frame, start: seconds, landing: .exact, request: nil)
        return [.seekDecoder(toFrame: frame)]
    }

    /// The decoder was pointed at `landed.frame`: frames before the target are decoded (they prime the
    /// decoder) and dropped. The byte it is fed from is held, a little ahead, or asked for anew.
    mutating func decoderLanded(_ landed: Landed) -> [Action] {
        guard case .repositioning(let purpose, let target, _, _, _) = state, let format = track.format else {
            return []
        }
        track.cursor = landed.frame
        track.skipUntil = target
        let start = Double(max(landed.frame, target)) / Double(format.sampleRate)
        let landing = landed.estimated ? Landing.estimated : .exact
        switch SeekPlan.fetch(target: landed.byteOffset, received: landed.received, heldFrom: landed.heldFrom) {
        case .continueFeeding, .refeedHeld, .discardForward:
            state = .repositioning(purpose, target: target, start: start, landing: landing, request: nil)
            return [.feed(from: landed.byteOffset)] + repositioned(rangeIgnored: false)
        case .request(let from):
            // More bytes are to come: the connection's answer settles the reposition.
            track.body = .arriving
            state = .repositioning(purpose, target: target, start: start, landing: landing, request: from)
            return [.request(from: from)]
        }
    }

    /// A connection was opened, or failed as a drop: a reposition waiting for it goes on.
    mutating func connectionSettled(rangeIgnored: Bool) -> [Action] {
        guard case .repositioning(_, _, _, _, .some) = state else { return [] }
        return repositioned(rangeIgnored: rangeIgnored)
    }

    /// The decoder is pointed and fed: a restart opens its output and reports where it landed.
    mutating func repositioned(rangeIgnored: Bool) -> [Action] {
        guard case .repositioning(let purpose, _, let start, let landing, let request) = state else { return [] }
        switch purpose {
        case .restart(let segment, let pass):
            state = .feeding(pass)
            guard let format = track.format else { return [] }
            return [
                .openOutput(outputSetup(format), drainingOld: false),
                .report(
                    .seekLanded(
                        at: start, landing: landing, networkOffset: request,
                        rangeIgnored: rangeIgnored && request != nil, segment: segment.number)),
            ]
        case .loopBack(let pass):
            state = .feeding(pass)
        case .resume:
            state = .feeding(.notKept)
        }
        return []
    }

    /// The decoder could not be pointed yet (its format or seek index is not ready): a restart waits for the
    /// format; a loop's seek back or a resume goes on decoding where it is.
    mutating func decoderCannotSeek() -> [Action] {
        switch state {
        case .repositioning(.restart(_, let pass), _, _, _, _):
            track.seekPending = true
            state = .feeding(pass)
        case .repositioning(.loopBack(let pass), _, _, _, _):
            state = .feeding(pass)
        case .repositioning(.resume, _, _, _, _):
            state = .feeding(.notKept)
        default:
            break
        }
        return []
    }
}
