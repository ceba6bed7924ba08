/// The track machine's decoded audio: formats open outputs, samples are cut to the loop and played in pieces,
/// the loop's first pass is kept, and a written piece moves the loop, the replay or the end on.
extension TrackMachine {
    /// The decoder announced `newFormat`; `outputFormat` is the format of the open output, if any.
    mutating func formatArrived(_ newFormat: PCMFormat, duration: Double?, outputFormat: PCMFormat?) -> [Action] {
        guard decodes else { return [] }
        var actions: [Action] = []
        if let duration, !track.durationReported {
            track.durationReported = true
            actions.append(.report(.durationKnown(duration)))
        }
        if outputFormat == newFormat, track.format == newFormat { return actions }
        // A format change inside the track: play out the old stream, then open a new one.
        let drainingOld = outputFormat.map { $0 != newFormat } ?? false
        track.format = newFormat
        if track.seekPending {
            // A seek came before the format: carry it out now (it opens the output); the rest of the batch is
            // not played.
            track.seekPending = false
            return actions + (drainingOld ? [.drainOldOutput] : []) + restart(track.plan)
        }
        return actions + [.openOutput(outputSetup(newFormat), drainingOld: drainingOld)]
    }

    /// Decoded samples are handled while the track feeds or plays its last samples out.
    var decodes: Bool {
        switch state {
        case .feeding, .finishing, .sectionEnded: true
        default: false
        }
    }

    /// An output for `format` in the segment playing; later outputs of the track continue it.
    mutating func outputSetup(_ format: PCMFormat) -> OutputSetup {
        defer { track.openedOutput = true }
        return OutputSetup(
            format: format, speed: track.plan.settings.speed, band: track.plan.loop?.band,
            segment: track.plan.number, playedBefore: track.queued, continuing: track.openedOutput)
    }

    /// A batch of decoded samples: which of them are played, whether the loop's first pass keeps them, and
    /// whether the loop wraps or the section ends after them.
    mutating func samplesDecoded(_ samples: [Int16], undecodedBytes: Int64, decodedBytes: Int64) -> [Action] {
        var pass: LoopPass
        switch state {
        case .feeding(let feeding):
            pass = feeding
            // The state lets go of the kept pass, so that appending to it below does not copy it.
            state = .feeding(.notKept)
        case .finishing: pass = .notKept
        case .sectionEnded:
            track.cursor += samples.count / max(1, track.format?.channels ?? 1)
            return []
        default: return []
        }
        guard let format = track.format else {
            state = .feeding(pass)
            return [.fail("samples before a format")]
        }
        let channels = format.channels
        let frames = samples.count / channels
        let first = track.cursor
        let skip = min(frames, max(0, track.skipUntil - track.cursor))
        var end = frames
        var wrapTo: Double?
        var passEnd = 0
        var sectionEnds = false
        if let loop = track.plan.loop {
            let (keep, wraps) = loop.cut(first: track.cursor, frames: frames, sampleRate: format.sampleRate)
            end = keep
            if wraps && loop.once {
                sectionEnds = true
            } else if wraps {
                wrapTo = loop.start
                passEnd = loop.frames(sampleRate: format.sampleRate).upperBound
            }
        }
        track.cursor += frames
        let cut = skip..<max(skip, end)
        var actions: [Action] = []
        if !cut.isEmpty {
            // Whole batches (the usual case) go on as they are, without a copy.
            let heard =
                cut == 0..<frames ? samples : Array(samples[(cut.lowerBound * channels)..<(cut.upperBound * channels)])
            pass.keep(heard, loop: track.plan.loop)
            actions.append(.hear(format, frame: first + cut.lowerBound, samples: heard))
            let ahead = arrivedAhead(undecodedBytes: undecodedBytes, decodedBytes: decodedBytes)
            actions.append(.play(heard, through: .bandAndSpeed, pieceSeconds: pieceSeconds, ahead: ahead))
        }
        if sectionEnds {
            state = .sectionEnded
        } else if let wrapTo {
            guard actions.isEmpty else {
                // The loop wraps once its last piece is written.
                state = .wrapping(to: wrapTo, pass: pass, passEnd: passEnd)
                return actions
            }
            return wrap(to: wrapTo, pass: pass, passEnd: passEnd)
        } else if case .feeding = state {
            state = .feeding(pass)
        }
        return actions
    }

    /// Output seconds of the audio that arrived and is not decoded yet, at the bytes per second decoded so
    /// far (an ID3 tag in front only makes the estimate smaller). The playback machine may start the sound on
    /// it.
    func arrivedAhead(undecodedBytes: Int64, decodedBytes: Int64) -> Double {
        guard let format = track.format, track.cursor > 0, decodedBytes > 0 else { return 0 }
        let decodedSeconds = Double(track.cursor) / Double(format.sampleRate)
        let bytesPerSecond = Double(decodedBytes) / decodedSeconds
        return Double(undecodedBytes) / bytesPerSecond / track.plan.settings.speed.factor
    }

    /// Every piece of a `play` was queued: what was waiting for it goes on.
    mutating func written() -> [Action] {
        switch state {
        case .replaying(let replay): return replayPiecePlayed(replay)
        case .wrapping(let start, let pass, let passEnd):
            if track.plan.loop == nil, let format = track.format {
                // Loop off while the pass's last piece was written: the track goes on from the loop's end.
                return reposition(.resume, to: Double(passEnd) / Double(format.sampleRate))
            }
            return wrap(to: start, pass: pass, passEnd: passEnd)
        case .writingTail: return endOfStream()
        default: return []
        }
    }

    /// Every byte was decoded: a loop that reaches the end wraps to its start; otherwise the track ends, and
    /// what the decoder and the speed stage still hold is played out.
    mutating func endOfBody(_ pass: LoopPass) -> [Action] {
        if let loop = track.plan.loop, !loop.once, track.format != nil {
            return wrap(to: loop.start, pass: pass, passEnd: track.cursor)
        }
        state = .finishing
        return [.finishDecoding]
    }
}
