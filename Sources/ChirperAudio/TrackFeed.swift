import ChirperCore
import ChirperSystem

/// One track's work, run by its pipeline task: fetch → hold → decode → seek and loop → speed → sink.
///
/// The driver of `FeedMachine`, which decides (the next step, what a command means, which frames play, loop
/// wraps and replays, the end); this class owns the reader, the held bytes, the decoder, the speed stage and
/// the output, and carries the decisions out. Every step is reported to the playback machine through `send`;
/// its decisions (reconnect, give up, drain, restart a segment for a seek, a loop or a speed change) arrive in
/// the pipeline's mailbox, polled between steps. The bytes that arrived are held (`HeldBytes`), so a seek or a
/// loop back inside them needs no request; beyond them a seek asks the source from the byte `mpg123_feedseek`
/// (or the WAV header) names.
final class TrackFeed {
    /// Feeds one event to the machine and runs what it decides; returns the action it named.
    typealias Send = (_ event: (inout PlaybackMachine) -> PlaybackMachine.Action) -> PlaybackMachine.Action
    /// Opens a sink output for `format` whose underruns are reported for segment `segment`; `continuing` when
    /// the track had an output before (a seek, a loop, a format change).
    typealias OpenOutput = (_ format: PCMFormat, _ segment: Int, _ continuing: Bool) async throws -> any AudioOutput

    /// Whether what was being delivered still stands, or the segment moved (a seek retired the output, a loop
    /// wrapped, or a seek waiting for the format was carried out): then the rest is not played.
    enum Flow {
        case goOn
        case repositioned
    }

    let ticket: PlaybackTicket
    let source: any ByteSource
    private let pipeline: Pipeline
    private let configuration: Player.Configuration
    private let backoffClock: any Clock<Duration>
    /// Where what is decoded is handed on, for those who listen (the live strip).
    private let hearing: HeardAudioRelay
    let send: Send
    private let openOutput: OpenOutput

    var machine: FeedMachine
    /// The last bytes that arrived: seeks and loops back inside them need no request, and memory stays flat
    /// however long the recording. From a source that keeps them on disk (the play cache, a local file) an
    /// earlier byte is a read of the disk, so a short window is held (`heldFromDisk`); otherwise an earlier
    /// byte is a Range request, and a minute of a 128 kbit/s MP3 is held (`heldFromNetwork`).
    var held: HeldBytes
    /// 16 s of a 128 kbit/s MP3: what a loop or a step back inside it refeeds without a system call.
    static let heldFromDisk = 256 << 10
    static let heldFromNetwork = 1 << 20
    /// The body's first bytes, for a WAV seek's header (kept even when `held` has moved on).
    var headerBytes: [UInt8] = []
    var reader: (any ByteReader)?
    private var total: Int64?
    var decoder: StreamDecoder
    /// The next body byte to feed the decoder.
    var decodeOffset: Int64 = 0
    var speed: SpeedProcessor?
    /// A section played for its band only (`ab` over a selection): the band-pass, per segment.
    var bandPass: BandPassFilter?
    /// An output was opened for this track already.
    private var openedOutput = false

    /// The smallest piece written while the segment is `starting` (for a policy whose start floor is 0).
    private static let smallestStartPiece = 0.05

    /// Input decoded per step while the segment is `starting` (steps repeat until the start floor is decoded,
    /// see `decodeNext`): the first sound waits for about a quarter of a second of a 128 kbit/s MP3, not for a
    /// whole `decodeChunkBytes`.
    private static let firstDecodeBytes = 4 * 1024

    init(
        ticket: PlaybackTicket,
        source: any ByteSource,
        pipeline: Pipeline,
        segment: PlaybackSegment,
        configuration: Player.Configuration,
        backoffClock: any Clock<Duration>,
        hearing: HeardAudioRelay,
        send: @escaping Send,
        openOutput: @escaping OpenOutput
    ) {
        self.ticket = ticket
        self.source = source
        self.pipeline = pipeline
        self.machine = FeedMachine(segment: segment)
        self.held = HeldBytes(limit: source.keepsArrivedBytes ? Self.heldFromDisk : Self.heldFromNetwork)
        self.configuration = configuration
        self.backoffClock = backoffClock
        self.hearing = hearing
        self.send = send
        self.openOutput = openOutput
        self.decoder = StreamDecoder()
    }

    /// Plays the track to its end (or until stopped, failed or given up).
    func run() async throws -> PipelineOutcome {
        reader = try await source.open(from: 0)
        total = reader?.totalLength
        decoder = StreamDecoder(expectedLength: total)
        while true {
            while let command = pipeline.mailbox.poll() {
                if let outcome = try await carryOut(command, while: .step) { return outcome }
            }
            do {
                switch machine.nextStep(undecodedInput: decodeOffset < held.end, readerOpen: reader != nil) {
                case .replay:
                    try await replayNext()
                case .decode:
                    try await decodeNext()
                case .endOfBody:
                    if let outcome = try await endOfBody() { return outcome }
                case .read:
                    try await readNext()
                case .dropped:
                    if let outcome = try await connectionDropped() { return outcome }
                }
            } catch is CancellationError where !pipeline.isStopped {
                // An output operation (a drain, a write) was cut short because a seek retired that output; the
                // seek's restart is in the mailbox.
                continue
            }
        }
    }

    /// Carries out what `command` means while the feed waits for `waiting`: an outcome ends the pipeline.
    private func carryOut(_ command: PipelineCommand?, while waiting: FeedMachine.Waiting) async throws
        -> PipelineOutcome?
    {
        try await act(machine.command(command, while: waiting, readerOpen: reader != nil))
    }

    /// Waits for commands while the feed waits for `waiting`, carrying each out, until one that `done` names
    /// (a stale command, or a loop change, leaves the wait as it was).
    private func waitForCommands(while waiting: FeedMachine.Waiting, until done: (FeedMachine.CommandAction) -> Bool)
        async throws -> PipelineOutcome?
    {
        while true {
            let meaning = machine.command(await pipeline.mailbox.next(), while: waiting, readerOpen: reader != nil)
            if let outcome = try await act(meaning) { return outcome }
            if done(meaning) { return nil }
        }
    }

    /// Carries out a command's meaning; an outcome ends the pipeline.
    private func act(_ meaning: FeedMachine.CommandAction) async throws -> PipelineOutcome? {
        switch meaning {
        case .finish:
            return .ended
        case .restart(let segment):
            try await restart(segment)
        case .reconnect(let from, let attempt):
            try await reconnect(from: from, attempt: attempt)
        case .drain:
            guard let output = pipeline.output.current else { return nil }
            let late = try await output.drain()
            let number = machine.plan.number
            if case .finishPipeline = send({ $0.drainFinished(ticket: ticket, segment: number, late: late) }) {
                return .drained
            }
        case .none:
            break
        }
        return nil
    }

    // MARK: - Reading

    /// Reads the next chunk from the network into `held`; a dropped connection is met at the next step.
    private func readNext() async throws {
        guard let current = reader else { return }
        let next: [UInt8]?
        do {
            next = try await current.read()
        } catch  where source.canResume && Self.isDrop(error) {
            reader = nil
            return
        }
        guard let chunk = next else {
            if machine.bodyEnded(received: held.end, total: total, canResume: source.canResume) { reader = nil }
            return
        }
        if held.end < 64 * 1024 && held.heldFrom == 0 {
            headerBytes += chunk.prefix(64 * 1024 - headerBytes.count)
        }
        held.append(chunk, keepingFrom: decodeOffset)
        _ = send { $0.bytesArrived(chunk.count, ticket: ticket) }
    }

    /// The connection dropped: the machine decides (reconnect after a back-off, or give up, which stops the
    /// pipeline); a restart may come first.
    private func connectionDropped() async throws -> PipelineOutcome? {
        let number = machine.plan.number
        _ = send { [ticket] in $0.connectionDropped(ticket: ticket, segment: number) }
        // A restart (a stale drop: the machine had moved on) or a reconnect ends the wait.
        return try await waitForCommands(while: .reconnect) { $0 != .none }
    }

    private func reconnect(from offset: Int64, attempt: Int) async throws {
        try await backoffClock.sleep(for: configuration.backoff(attempt: attempt))
        do {
            reader = try await source.open(from: offset)
        } catch  where Self.isDrop(error) {
            reader = nil
        }
    }

    /// A failure of the connection (not of the server's answer, the audio or the task): worth a reconnect.
    static func isDrop(_ error: any Error) -> Bool {
        if case .network = error as? ByteSourceError { return true }
        return false
    }

    // MARK: - Decoding

    /// Decodes the next piece of the held input and hands it on. Until a segment's start floor is decoded,
    /// small pieces are decoded one after another (while input is there) and handed on together: the first
    /// sound is one write and one report away whatever the bitrate (4 KiB of a 128 kbit/s MP3 is just under
    /// the floor once the encoder's delay is skipped).
    private func decodeNext() async throws {
        var decoded: [DecodedAudio] = []
        var decodedFormat = machine.format
        var seconds = 0.0
        repeat {
            guard let bytes = held.bytes(from: decodeOffset) else {
                preconditionFailure("the decode offset stays inside the held bytes")
            }
            let piece = bytes.prefix(
                machine.starting
                    ? min(Self.firstDecodeBytes, configuration.decodeChunkBytes) : configuration.decodeChunkBytes)
            let more = try piece.withUnsafeBytes { try decoder.feed($0) }
            decodeOffset += Int64(piece.count)
            for item in more {
                switch item {
                case .format(let newFormat, _):
                    decodedFormat = newFormat
                    decoded.append(item)
                case .samples(let samples):
                    seconds += decodedFormat?.seconds(ofSamples: samples.count) ?? 0
                    // While the segment starts, samples after samples join them: the floor goes on in one write
                    // and one report. Later each batch goes on as the decoder made it, not copied into a longer one.
                    if machine.starting, case .samples(let earlier)? = decoded.last {
                        decoded[decoded.count - 1] = .samples(earlier + samples)
                    } else {
                        decoded.append(item)
                    }
                }
            }
        } while decodeOffset < held.end && machine.segmentQueued + seconds < configuration.policy.startFloor
        _ = try await deliver(decoded)
    }

    /// Every byte was decoded: wrap a loop that reaches the end, or play the rest out, report the end and
    /// wait for the machine (drain, or a restart).
    private func endOfBody() async throws -> PipelineOutcome? {
        if case .wrap(let start) = machine.endOfBody() {
            try await wrap(to: start)
            return nil
        }
        // A section played once ends before the body does: the rest is neither decoded nor checked for a cut.
        if !machine.sectionEnded {
            guard try await deliver(try decoder.finish()) == .goOn else { return nil }
        }
        // The speed stage holds the last few milliseconds (keep: libsonic's pitch periods): they end the track.
        if let tail = try speed?.flush(), !tail.isEmpty {
            guard try await play(tail, sped: true) == .goOn else { return nil }
        }
        let number = machine.plan.number
        _ = send { [ticket] in $0.endOfStream(ticket: ticket, segment: number) }
        // A drain that finishes the track, or a restart, ends the wait.
        return try await waitForCommands(while: .drain) { meaning in
            if case .restart = meaning { return true }
            return false
        }
    }

    /// Hands decoded audio on: formats open outputs, samples are cut to the loop, sped and written.
    private func deliver(_ decoded: [DecodedAudio]) async throws -> Flow {
        for piece in decoded {
            switch piece {
            case .format(let newFormat, let duration):
                let current = pipeline.output.current
                for action in machine.formatArrived(newFormat, duration: duration, outputFormat: current?.format) {
                    switch action {
                    case .reportDuration(let seconds):
                        _ = send { $0.durationKnown(seconds, ticket: ticket) }
                    case .drainOutput:
                        // A format change inside the track: play out the old stream, then open a new one.
                        try await current?.drain()
                    case .restart(let segment):
                        // A seek came before the format: carry it out now (it opens the output).
                        try await restart(segment)
                        return .repositioned
                    case .openOutput(let format):
                        speed = try SpeedProcessor(format: format, speed: machine.plan.settings.speed)
                        bandPass = machine.plan.loop?.band.flatMap { BandPassFilter(band: $0, format: format) }
                        try await install(format)
                    }
                }
            case .samples(let samples):
                guard let format = machine.format else {
                    throw MP3DecoderError(code: 0, message: "samples before a format")
                }
                let channels = format.channels
                let frames = samples.count / channels
                let first = machine.cursor
                let cut = machine.decoded(frames: frames)
                if !cut.frames.isEmpty {
                    // Whole batches (the usual case) go on as they are, without a copy.
                    let kept =
                        cut.frames == 0..<frames
                        ? samples
                        : Array(samples[(cut.frames.lowerBound * channels)..<(cut.frames.upperBound * channels)])
                    machine.keepForLoop(kept)
                    hearing.hand(
                        HeardAudio(
                            ticket: ticket, sampleRate: format.sampleRate, channels: channels,
                            frame: first + cut.frames.lowerBound, samples: kept))
                    let ahead = arrivedAhead(decodedFrames: machine.cursor)
                    let heard = bandPass != nil ? bandPass!.process(kept) : kept
                    guard try await play(heard, ahead: ahead) == .goOn else { return .repositioned }
                }
                if let start = cut.wrapTo {
                    try await wrap(to: start)
                    return .repositioned
                }
            }
        }
        return .goOn
    }

    /// Through the speed stage to the sink, in pieces each reported as queued: while a segment's first second
    /// is queued, pieces of the policy's start floor (the least the machine starts the sound on, so the piece
    /// that reaches it is written and reported at once, not in many small steps), then half a second (fewer
    /// steps per second of audio: decoding to a file or the null sink runs faster). `.repositioned` when a
    /// seek retired the output meanwhile (its restart is in the mailbox).
    func play(_ samples: [Int16], ahead: Double = 0, sped: Bool = false) async throws -> Flow {
        guard let format = machine.format else { return .goOn }
        let out = sped ? samples : try speed?.process(samples) ?? samples
        let seconds = machine.starting ? max(Self.smallestStartPiece, configuration.policy.startFloor) : 0.5
        let frames = (Double(format.sampleRate) * seconds).rounded(.up)
        let step = max(format.channels, Int(frames) * format.channels)
        let number = machine.plan.number
        var start = 0
        while start < out.count {
            guard let output = pipeline.output.current else { return .repositioned }
            let end = min(start + step, out.count)
            do {
                try await output.write(start == 0 && end == out.count ? out : Array(out[start..<end]))
            } catch is CancellationError where !pipeline.isStopped {
                return .repositioned  // the output was retired under the write
            }
            let seconds = format.seconds(ofSamples: end - start)
            machine.queued(seconds: seconds)
            _ = send { $0.pcmQueued(seconds: seconds, ticket: ticket, segment: number, ahead: ahead) }
            start = end
        }
        if let played = pipeline.output.played {
            _ = send { $0.progress(playedSeconds: played.seconds, ticket: ticket, segment: played.segment) }
        }
        return .goOn
    }

    /// Output seconds of the audio that arrived and is not decoded yet, at the bytes per second decoded so
    /// far (an ID3 tag in front only makes the estimate smaller). The machine may start the sound on it.
    private func arrivedAhead(decodedFrames: Int) -> Double {
        guard let format = machine.format, decodedFrames > 0, decodeOffset > 0 else { return 0 }
        let decodedSeconds = Double(decodedFrames) / Double(format.sampleRate)
        let bytesPerSecond = Double(decodeOffset) / decodedSeconds
        return Double(held.end - decodeOffset) / bytesPerSecond / machine.plan.settings.speed.factor
    }

    func install(_ format: PCMFormat) async throws {
        let output = try await openOutput(format, machine.plan.number, openedOutput)
        openedOutput = true
        try pipeline.output.install(output, segment: machine.plan.number, playedBefore: machine.segmentQueued)
    }
}
