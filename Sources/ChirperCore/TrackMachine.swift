/// The decisions of one track's playback from its bytes to its sink, as a pure machine: what to do next, what
/// a command means where the track is, which decoded frames are played and in what pieces, when a loop wraps
/// and replays its kept pass, how a seek reaches its byte, what counts as a dropped connection, when the end
/// is reported. Its driver (the pipeline task's `TrackFeed`) owns the reader, the held bytes, the decoder,
/// the speed stage and the output; it feeds this machine what happened (`Event`) and performs every `Action`
/// it answers, deciding nothing.
///
/// Positions are recording frames: `track.cursor` is the frame of the next decoded frame, whatever the speed.
public struct TrackMachine: Sendable {
    /// What the machine needs to know of the player and the source, fixed for the track.
    public struct Limits: Sendable, Hashable {
        /// The least decoded audio a (re)start is queued on (the buffering policy's start floor).
        public var startFloor: Double
        /// Input decoded per step once a segment has started.
        public var decodeChunkBytes: Int
        /// The source can be asked again from a byte (a dropped connection is resumed, not the end).
        public var canResume: Bool

        public init(startFloor: Double, decodeChunkBytes: Int, canResume: Bool) {
            self.startFloor = startFloor
            self.decodeChunkBytes = max(1, decodeChunkBytes)
            self.canResume = canResume
        }
    }

    /// What the playback machine tells the track (posted in the pipeline's channel by its effect runner).
    public enum Command: Sendable, Hashable {
        /// Wait the back-off for reconnect number `attempt`, then fetch again from byte `from`.
        case reconnect(from: Int64, attempt: Int)
        /// Everything is queued: wait until the sink has played it, then report it.
        case drain
        /// Seek, loop or speed change: the sink was emptied; go on from the segment's start. Once the playback
        /// machine started the segment in this machine (`replan`), it is what wakes the driver for it.
        case restart(PlaybackSegment)
        /// The sink played the whole track: the pipeline ends (then the track is over).
        case finish
        /// Stopped, replaced or failed: end without a last event.
        case stop
    }

    /// How the track's pipeline ends.
    public enum Outcome: Sendable, Hashable {
        /// Everything was played.
        case drained
        /// Stopped or replaced, or the playback machine already decided.
        case ended
    }

    /// The facts of the track, whatever its phase.
    public struct Track: Sendable, Hashable {
        /// The segment playing: its number, start, speed and loop.
        public internal(set) var plan: PlaybackSegment
        /// The decoded stream's format, once known.
        public internal(set) var format: PCMFormat?
        /// The recording frame of the next decoded frame.
        public internal(set) var cursor = 0
        /// Decoded frames below this are dropped: a seek that landed early (MP3) starts at its target.
        public internal(set) var skipUntil = 0
        /// Output seconds queued in this segment.
        public internal(set) var queued = 0.0
        public internal(set) var body = Body.asked
        /// The plan's seek came before the decoder could be pointed; it is carried out when the format arrives.
        public internal(set) var seekPending = false
        var durationReported = false
        var openedOutput = false
    }

    /// Where the body's bytes stand.
    public enum Body: Sendable, Hashable {
        /// The source was asked for the track and has not answered: a failure now is the track's, as there is
        /// nothing to resume.
        case asked
        /// A connection is open and more bytes are to come.
        case arriving
        /// The connection is gone and bytes are missing.
        case cutOff
        /// Every byte has arrived.
        case complete
    }

    /// What a loop keeps of its pass while it is decoded.
    public enum LoopPass: Sendable, Hashable {
        /// Nothing: no loop, the segment began inside it, or the section plays once.
        case notKept
        /// The pass from the loop's start, as decoded so far.
        case keeping([Int16])
        /// The pass outgrew `loopPassLimit`: every pass seeks back to the loop's start.
        case tooLong

        /// Samples about to be played: a loop's first pass keeps them for its replays, up to `loopPassLimit`.
        /// In place: the pass grows without being copied.
        mutating func keep(_ samples: [Int16], loop: LoopSection?) {
            guard case .keeping(var kept) = self, let loop, !loop.once else { return }
            guard kept.count + samples.count <= TrackMachine.loopPassLimit else {
                self = .tooLong
                return
            }
            self = .notKept
            kept += samples
            self = .keeping(kept)
        }
    }

    /// Replaying the kept pass from memory.
    public struct Replay: Sendable, Hashable {
        public var pass: [Int16]
        /// The next sample to play.
        public var at: Int
        /// The recording frame right after the pass (the loop's end).
        public var passEnd: Int
    }

    /// What the decoder is pointed for, and what follows its landing.
    public enum Reposition: Sendable, Hashable {
        /// A seek, loop or speed change: a new output, and the landing reported.
        case restart(PlaybackSegment, pass: LoopPass)
        /// A loop goes back to its start.
        case loopBack(pass: LoopPass)
        /// The loop was turned off during a replay: decoding goes on from the loop's end.
        case resume
    }

    public enum State: Sendable, Hashable {
        /// Reading and decoding.
        case feeding(LoopPass)
        /// Playing a loop's kept pass, piece after piece.
        case replaying(Replay)
        /// The decoded batch reached the loop's end: once its last kept piece is written, the loop wraps.
        case wrapping(to: Double, pass: LoopPass, passEnd: Int)
        /// The decoder is being pointed; `request` is the new connection's first byte once it was asked for.
        case repositioning(Reposition, target: Int, start: Double, landing: Landing, request: Int64?)
        /// A section played once reached its end: nothing after it is decoded.
        case sectionEnded
        /// Every byte was decoded: the decoder's and the speed stage's last samples are played out.
        case finishing
        /// The last samples are being written; then the end is reported.
        case writingTail
        /// The end was reported: the drain (or a restart) is awaited.
        case awaitingDrain
        /// The drop was reported: the playback machine's answer (reconnect, or give up) is awaited.
        case awaitingReconnect(LoopPass)
        /// The output was retired or closed under a write: the restart or stop is in the channel.
        case retired
        /// The playback machine started a new segment (`replan`) while the driver was busy with the last one:
        /// what it reports of its work in flight is stale (dropped), except what it learned of the body and
        /// the format; the driver's next step (or its next command) carries the restart out.
        case restarting
        case ended(Outcome)
    }

    /// Output seconds at a segment's start that are decoded and written in small pieces.
    public static let finePiecesFor = 1.0
    /// A loop longer than this (in samples, 64 MiB) is replayed by seeking back instead of from memory.
    public static let loopPassLimit = 32 << 20
    /// Input decoded per step while the segment is starting: the first sound waits for about a quarter of a
    /// second of a 128 kbit/s MP3, not for a whole chunk.
    public static let firstDecodeBytes = 4 * 1024
    /// The smallest piece written while the segment is starting (for a policy whose start floor is 0).
    public static let smallestStartPiece = 0.05
    /// A piece written once the segment has started: fewer steps per second of audio.
    public static let laterPiece = 0.5

    public internal(set) var limits: Limits
    public internal(set) var track: Track
    public internal(set) var state: State

    public init(segment: PlaybackSegment, limits: Limits) {
        self.limits = limits
        track = Track(plan: segment)
        track.seekPending = segment.start > 0
        state = .feeding(Self.pass(for: segment))
    }

    /// The segment's first second is being queued: input is decoded and output written in small pieces.
    public var starting: Bool { track.queued < Self.finePiecesFor }

    /// What a segment keeps of its loop: only a pass from the loop's start is whole (a speed change inside a
    /// loop restarts mid-pass), and a section played once is never replayed.
    static func pass(for segment: PlaybackSegment) -> LoopPass {
        guard let loop = segment.loop, !loop.once, loop.start == segment.start else { return .notKept }
        return .keeping([])
    }

    public mutating func handle(_ event: Event) -> [Action] {
        if case .ended = state { return [] }
        if case .restarting = state, let actions = whileRestarting(event) { return actions }
        switch event {
        case .command(let command): return handle(command)
        case .ready(let undecodedInput): return next(undecodedInput: undecodedInput)
        case .arrived(let bytes): return [.report(.bytesArrived(bytes))]
        case .bodyEnded(let received, let total):
            if limits.canResume, let total, received < total {
                track.body = .cutOff
            } else {
                track.body = .complete
            }
            return []
        case .connectionFailed(let network):
            guard network, limits.canResume, track.body != .asked else { return [.fail(nil)] }
            track.body = .cutOff
            return connectionSettled(rangeIgnored: false)
        case .connected(let rangeIgnored):
            track.body = .arriving
            return connectionSettled(rangeIgnored: rangeIgnored)
        case .format(let format, let duration, let outputFormat):
            return formatArrived(format, duration: duration, outputFormat: outputFormat)
        case .samples(let samples, let undecoded, let decoded):
            return samplesDecoded(samples, undecodedBytes: undecoded, decodedBytes: decoded)
        case .decoderDamaged(let damage):
            return [.report(.damaged(damage))]
        case .decoderFinished:
            guard case .finishing = state else { return [] }
            return [.flushSpeed]
        case .speedFlushed(let tail):
            guard case .finishing = state else { return [] }
            guard !tail.isEmpty else { return endOfStream() }
            state = .writingTail
            return [.play(tail, through: .none, pieceSeconds: pieceSeconds, ahead: 0)]
        case .queued(let seconds, let ahead):
            track.queued += seconds
            return [.report(.pcmQueued(seconds: seconds, segment: track.plan.number, ahead: ahead))]
        case .played(let position):
            return (position.map { [.report(.progress($0))] } ?? []) + written()
        case .outputRetired:
            state = .retired
            return []
        case .decoderLanded(let landed): return decoderLanded(landed)
        case .decoderCannotSeek: return decoderCannotSeek()
        case .drained(let late):
            return [.report(.drainFinished(segment: track.plan.number, late: late))]
        }
    }

    /// What a command means where the track is.
    mutating func handle(_ command: Command?) -> [Action] {
        switch command {
        case nil, .stop:
            state = .ended(.ended)
            return [.end(.ended)]
        case .finish:
            state = .ended(.drained)
            return [.end(.drained)]
        case .restart(let segment):
            // A segment the playback machine already started (`replan`) is not started twice, and an older one
            // whose command came late (two seeks from two threads) does not undo a newer.
            guard segment.number > track.plan.number else { return [] }
            return restart(segment)
        case .reconnect(let from, let attempt):
            switch state {
            case .awaitingReconnect(let pass):
                state = .feeding(pass)
                return [.reconnect(from: from, attempt: attempt)]
            case .awaitingDrain:
                return []  // every byte is here
            default:
                // A reconnect asked for before a seek made a new request is stale.
                return track.body == .cutOff ? [.reconnect(from: from, attempt: attempt)] : []
            }
        case .drain:
            // Only the end of this segment is drained; a drain that answered an end a restart replaced is stale.
            guard case .awaitingDrain = state else { return [] }
            return [.drainOutput]
        }
    }

    /// The next step.
    mutating func next(undecodedInput: Bool) -> [Action] {
        switch state {
        case .replaying(let replay):
            return replayNext(replay)
        case .sectionEnded:
            // A section played once ended: nothing after it is decoded; the track ends as at the body's end.
            state = .finishing
            return [.flushSpeed]
        case .feeding(let pass):
            if undecodedInput {
                let piece = starting ? min(Self.firstDecodeBytes, limits.decodeChunkBytes) : limits.decodeChunkBytes
                return [.decode(pieceBytes: piece, atLeast: limits.startFloor - track.queued, join: starting)]
            }
            switch track.body {
            case .asked: return [.awaitInput]
            case .complete: return endOfBody(pass)
            case .arriving: return [.read]
            case .cutOff:
                state = .awaitingReconnect(pass)
                return [.report(.connectionDropped(segment: track.plan.number)), .awaitInput]
            }
        case .restarting:
            return restart(track.plan)
        case .awaitingDrain, .awaitingReconnect, .retired, .wrapping, .repositioning, .finishing, .writingTail,
            .ended:
            return [.awaitInput]
        }
    }

    /// The size of the pieces written now: while a segment's first second is queued, pieces of the policy's
    /// start floor (the least the playback machine starts the sound on, so the piece that reaches it is written
    /// and reported at once, not in many small steps), then half a second (decoding to a file or the null
    /// sink runs faster).
    var pieceSeconds: Double {
        starting ? max(Self.smallestStartPiece, limits.startFloor) : Self.laterPiece
    }

    mutating func endOfStream() -> [Action] {
        state = .awaitingDrain
        return [.report(.endOfStream(segment: track.plan.number))]
    }
}
