import ChirperCore

/// The decisions of one track's feed, as a pure machine: what to do next, what a command means where the
/// feed is, which decoded frames are played, when a loop wraps and replays its kept pass, when the speed
/// stage is flushed and the end reported. `TrackFeed` is its driver: it owns the reader, the decoder, the
/// speed stage and the output, feeds this machine what happened and carries out what it returns.
///
/// Positions are recording frames: `cursor` is the frame of the next decoded frame, whatever the speed.
struct FeedMachine {
    /// What the feed waits for when a command arrives.
    enum Waiting: Sendable, Hashable {
        /// Between steps (the mailbox is polled).
        case step
        /// The connection dropped: the machine's answer (reconnect, or give up).
        case reconnect
        /// Everything was decoded and reported: the drain, or a restart.
        case drain
    }

    /// What a command means where the feed is.
    enum CommandAction: Sendable, Hashable {
        /// Stopped, replaced or given up: the pipeline ends.
        case finish
        /// A seek, loop or speed change: a new segment from its start.
        case restart(PlaybackSegment)
        /// Wait the back-off, then fetch again from `from`.
        case reconnect(from: Int64, attempt: Int)
        /// Let the output play everything out, then report it.
        case drain
        /// Nothing to do (a stale command, or a loop change already taken); keep waiting for what was awaited.
        case none
    }

    /// The feed's next step.
    enum Step: Sendable, Hashable {
        /// Play the next piece of the loop's kept pass.
        case replay
        /// Decode the next piece of the held input.
        case decode
        /// Every byte arrived and was decoded.
        case endOfBody
        /// Read the next chunk from the connection.
        case read
        /// The connection is gone and bytes are missing: tell the playback machine, wait for its answer.
        case dropped
    }

    /// What a new format in the decoded stream asks for, in order.
    enum FormatAction: Sendable, Hashable {
        case reportDuration(Double)
        /// Play out the output of the old format first.
        case drainOutput
        /// A seek came before the format was known: carry it out now; the rest of this batch is not played.
        case restart(PlaybackSegment)
        /// A speed stage and an output for the format.
        case openOutput(PCMFormat)
    }

    /// Which decoded frames of a batch are played, and whether the loop wraps after them.
    struct Cut: Sendable, Hashable {
        /// Frames (from the batch's start) to play.
        var frames: Range<Int>
        /// The loop's end was reached: wrap to this recording time after playing them.
        var wrapTo: Double?
    }

    /// How a loop goes back to its start.
    enum Wrap: Sendable, Hashable {
        /// Replay the kept pass from memory: every seam is the same sample-exact join, with no decoding.
        case replay
        /// No whole pass was kept (the segment began inside the loop, or the loop is too long to keep): seek
        /// back to the loop's start; the next pass is kept if it can be.
        case seekBack(to: Double)
    }

    /// After a piece of the kept pass was played.
    enum AfterReplay: Sendable, Hashable {
        case goOn
        /// The pass ended and the loop is on: it starts again (report the seam at `atOutput`).
        case wrapped(atOutput: Double, to: Double)
        /// The pass ended and the loop was turned off: decoding goes on from the loop's end.
        case resume(atSeconds: Double)
    }

    /// Output seconds at a segment's start that are decoded and written in small pieces.
    static let finePiecesFor = 1.0
    /// A loop longer than this (in samples, 64 MiB) is replayed by seeking back instead of from memory.
    static let loopPassLimit = 32 << 20

    private(set) var plan: PlaybackSegment
    /// The decoded stream's format, once known.
    private(set) var format: PCMFormat?
    /// The recording frame of the next decoded frame.
    private(set) var cursor = 0
    /// Decoded frames below this are dropped: a seek that landed early (MP3) starts at its target.
    private(set) var skipUntil = 0
    /// Output seconds queued in this segment (the playback machine's timeline counts from the segment's start).
    private(set) var segmentQueued = 0.0
    /// A restart that came before the decoder knew its format; carried out when it does.
    private(set) var awaitingFormat: PlaybackSegment?
    /// Every byte of the body has arrived.
    private(set) var networkEnded = false
    /// A section played once (`LoopSection.once`) reached its end: the track ends there.
    private(set) var sectionEnded = false
    private var durationReported = false
    /// The loop's first pass as decoded (nil when there is no loop, or it is too long to keep).
    private(set) var loopPass: [Int16]?
    /// Replaying `loopPass`: the next sample to play.
    private(set) var replayAt: Int?
    /// The recording frame right after the kept pass (the loop's end).
    private var passEndFrame = 0
    /// The loop is too long to keep in memory: every pass seeks back.
    private var loopTooLong = false

    init(segment: PlaybackSegment) {
        plan = segment
        if segment.start > 0 { awaitingFormat = segment }
    }

    /// The segment's first second is being queued: input is decoded and output written in small pieces.
    var starting: Bool { segmentQueued < Self.finePiecesFor }

    // MARK: - Commands and steps

    /// What `command` (nil: the mailbox was closed) means while the feed waits for `waiting`. `readerOpen`:
    /// a connection is open (a reconnect asked for before a seek made a new request is stale).
    mutating func command(_ command: PipelineCommand?, while waiting: Waiting, readerOpen: Bool) -> CommandAction {
        switch command {
        case nil, .stop:
            return .finish
        case .restart(let segment):
            return .restart(segment)
        case .setLoop(let loop):
            plan.loop = loop
            return .none
        case .reconnect(let from, let attempt):
            switch waiting {
            case .reconnect: return .reconnect(from: from, attempt: attempt)
            case .step: return !readerOpen && !networkEnded ? .reconnect(from: from, attempt: attempt) : .none
            case .drain: return .none  // every byte is here
            }
        case .drain:
            // Only the end of this segment is drained; a drain that answered an end a restart replaced is stale.
            return waiting == .drain ? .drain : .none
        }
    }

    /// The next step, given whether held input waits to be decoded and whether a connection is open.
    func nextStep(undecodedInput: Bool, readerOpen: Bool) -> Step {
        if replayAt != nil { return .replay }
        // A section played once ended: nothing after it is decoded; the track ends as at the body's end.
        if sectionEnded { return .endOfBody }
        if undecodedInput { return .decode }
        if networkEnded { return .endOfBody }
        return readerOpen ? .read : .dropped
    }

    /// The body ended after `received` of `total` bytes. Returns true when that end is a drop to resume from
    /// (the source can resume and bytes are missing); otherwise every byte has arrived.
    mutating func bodyEnded(received: Int64, total: Int64?, canResume: Bool) -> Bool {
        if canResume, let total, received < total { return true }
        networkEnded = true
        return false
    }

    /// A new request was made from a seek target beyond what was held: more bytes are to come.
    mutating func requested() {
        networkEnded = false
    }

    // MARK: - Decoded audio

    /// The decoder announced `newFormat`; `outputFormat` is the format of the open output, if any.
    mutating func formatArrived(_ newFormat: PCMFormat, duration: Double?, outputFormat: PCMFormat?) -> [FormatAction] {
        var actions: [FormatAction] = []
        if let duration, !durationReported {
            durationReported = true
            actions.append(.reportDuration(duration))
        }
        if outputFormat == newFormat, format == newFormat { return actions }
        if let outputFormat, outputFormat != newFormat { actions.append(.drainOutput) }
        format = newFormat
        if let waiting = awaitingFormat {
            awaitingFormat = nil
            return actions + [.restart(waiting)]
        }
        return actions + [.openOutput(newFormat)]
    }

    /// A batch of `frames` decoded frames: which of them are played, and whether the loop wraps after them.
    mutating func decoded(frames: Int) -> Cut {
        guard let format, !sectionEnded else {
            cursor += frames
            return Cut(frames: 0..<0, wrapTo: nil)
        }
        let first = min(frames, max(0, skipUntil - cursor))
        var end = frames
        var wrapTo: Double?
        if let loop = plan.loop {
            let (keep, wraps) = loop.cut(first: cursor, frames: frames, sampleRate: format.sampleRate)
            end = keep
            if wraps && loop.once {
                sectionEnded = true
            } else if wraps {
                wrapTo = loop.start
                passEndFrame = loop.frames(sampleRate: format.sampleRate).upperBound
            }
        }
        cursor += frames
        return Cut(frames: first..<max(first, end), wrapTo: wrapTo)
    }

    /// Samples about to be played from a decoded batch: a loop's first pass keeps them for its replays.
    mutating func keepForLoop(_ samples: [Int16]) {
        guard let loop = plan.loop, !loop.once, var pass = loopPass, replayAt == nil else { return }
        loopPass = nil  // keeps the buffer unique while it grows
        guard pass.count + samples.count <= Self.loopPassLimit else {
            loopTooLong = true
            return
        }
        pass += samples
        loopPass = pass
    }

    /// Output seconds were queued at the sink.
    mutating func queued(seconds: Double) {
        segmentQueued += seconds
    }

    // MARK: - Loops

    /// What follows the last byte's decoding.
    enum EndOfBody: Sendable, Hashable {
        /// A loop reaches the recording's end: it wraps to its start.
        case wrap(to: Double)
        /// The track ends: play what the decoder and the speed stage still hold (keep speed: libsonic's last
        /// pitch periods), report the end, wait for the drain.
        case finish
    }

    /// Every byte was decoded.
    mutating func endOfBody() -> EndOfBody {
        if let loop = plan.loop, !loop.once, format != nil {
            passEndFrame = cursor
            return .wrap(to: loop.start)
        }
        loopPass = nil
        return .finish
    }

    /// The loop reached its end (report the seam first): replay the kept pass, or seek back.
    mutating func wrap(to start: Double) -> Wrap {
        if let pass = loopPass, !pass.isEmpty {
            replayAt = 0
            return .replay
        }
        loopPass = loopTooLong ? nil : []
        return .seekBack(to: start)
    }

    /// The next piece of the kept pass to play (a quarter of a second).
    mutating func nextReplayPiece() -> ArraySlice<Int16>? {
        guard let pass = loopPass, let at = replayAt, let format else {
            replayAt = nil
            return nil
        }
        let end = min(pass.count, at + max(format.channels, format.sampleRate / 4 * format.channels))
        replayAt = end
        return pass[at..<end]
    }

    /// A piece of the kept pass was played: at the pass's end the loop starts again, or (loop off) decoding
    /// goes on from the loop's end.
    mutating func replayPiecePlayed() -> AfterReplay {
        guard let pass = loopPass, replayAt == pass.count, let format else { return .goOn }
        if let loop = plan.loop {
            replayAt = 0
            return .wrapped(atOutput: segmentQueued, to: loop.start)
        }
        replayAt = nil
        loopPass = nil
        return .resume(atSeconds: Double(passEndFrame) / Double(format.sampleRate))
    }

    // MARK: - Segments

    /// A seek, loop or speed change: a new segment from `segment.start`. Returns false when it must wait for
    /// the decoder's format (it is carried out when `formatArrived` says so).
    mutating func restart(_ segment: PlaybackSegment) -> Bool {
        plan = segment
        sectionEnded = false
        segmentQueued = 0
        replayAt = nil
        loopTooLong = false
        // Only a pass from the loop's start is whole (a speed change inside a loop restarts mid-pass).
        loopPass = segment.loop.map { $0.start == segment.start ? [] : nil } ?? nil
        guard format != nil else {
            awaitingFormat = segment
            return false
        }
        return true
    }

    /// The decoder could not be pointed at the segment's start yet (its format or seek index is not ready).
    mutating func restartWaitsForFormat() {
        awaitingFormat = plan
    }

    /// The decoder was pointed at frame `landed` for a target of `target`: frames before the target are
    /// decoded (they prime the decoder) and dropped. Returns the recording time the audio starts at.
    mutating func landed(atFrame landed: Int, target: Int) -> Double {
        cursor = landed
        skipUntil = target
        return Double(max(landed, target)) / Double(format?.sampleRate ?? 1)
    }
}
