import ChirperCore

/// One track's work, run by its pipeline task: fetch → hold → decode → seek and loop → speed → sink.
///
/// Every step is reported to the playback machine through `send`; its decisions (reconnect, give up, drain,
/// restart a segment for a seek, a loop or a speed change) arrive in the pipeline's mailbox, which is polled
/// between steps. The bytes that arrived are held (`HeldBytes`), so a seek or a loop back inside them needs
/// no request; beyond them a seek asks the source from the byte `mpg123_feedseek` (or the WAV header) names.
/// Positions are recording time: `cursor` counts the recording frames decoded, whatever the speed.
final class TrackFeed {
    /// Feeds one event to the machine and runs what it decides; returns the action it named.
    typealias Send = (_ event: (inout PlaybackMachine) -> PlaybackMachine.Action) -> PlaybackMachine.Action
    /// Opens a sink output for `format` whose underruns are reported for segment `segment`; `continuing` when
    /// the track had an output before (a seek, a loop, a format change).
    typealias OpenOutput = (_ format: PCMFormat, _ segment: Int, _ continuing: Bool) async throws -> any AudioOutput

    /// The rest of a decoded batch is not to be played: the segment moved (a loop wrapped, or a seek waited
    /// for the format).
    private struct Repositioned: Error {}

    private let ticket: PlaybackTicket
    private let source: any ByteSource
    private let pipeline: Pipeline
    private let configuration: Player.Configuration
    private let backoffClock: any Clock<Duration>
    private let send: Send
    private let openOutput: OpenOutput

    private var plan: PlaybackSegment
    /// The last 1 MiB that arrived (a minute of a 128 kbit/s MP3): seeks and loops back inside them need
    /// no request, and memory stays flat however long the recording (an earlier part comes from the cache
    /// or a Range request).
    private var held = HeldBytes(limit: 1 << 20)
    /// The body's first bytes, for a WAV seek's header (kept even when `held` has moved on).
    private var headerBytes: [UInt8] = []
    private var reader: (any ByteReader)?
    private var total: Int64?
    /// Every byte of the body has arrived (up to `held.end`).
    private var networkEnded = false
    private var decoder: StreamDecoder
    /// The next body byte to feed the decoder.
    private var decodeOffset: Int64 = 0
    private var format: PCMFormat?
    private var speed: SpeedProcessor?
    /// The recording frame of the next decoded frame.
    private var cursor = 0
    /// Decoded frames below this are dropped: a seek that landed early (MP3) starts at its target.
    private var skipUntil = 0
    /// Output seconds queued in this segment (the machine's timeline counts from the segment's start).
    private var segmentQueued = 0.0
    /// A restart that came before the decoder knew its format; carried out when it does.
    private var awaitingFormat: PlaybackSegment?
    private var durationReported = false
    /// An output was opened for this track already.
    private var openedOutput = false
    /// The loop's first pass as decoded (nil when there is no loop or it is too long to keep): later
    /// passes replay it, so every seam is the same sample-exact join and costs no decoding.
    private var loopPass: [Int16]?
    /// Replaying `loopPass`: the next sample to play.
    private var replayAt: Int?
    /// The recording frame right after the kept pass (the loop's end).
    private var passEndFrame = 0
    /// The loop is too long to keep in memory: every pass seeks back.
    private var loopTooLong = false

    /// Output seconds at a segment's start that are decoded and written in small pieces (see `starting`).
    private static let finePiecesFor = 1.0

    /// The smallest piece written while the segment is `starting` (for a policy whose start floor is 0).
    private static let smallestStartPiece = 0.05

    /// Input decoded per step while the segment is `starting` (steps repeat until the start floor is decoded,
    /// see `decodeNext`): the first sound waits for about a quarter of a second of a 128 kbit/s MP3, not for a
    /// whole `decodeChunkBytes`.
    private static let firstDecodeBytes = 4 * 1024

    /// A loop longer than this (in samples, 64 MiB) is replayed by seeking back instead of from memory.
    private static let loopPassLimit = 32 << 20

    init(
        ticket: PlaybackTicket,
        source: any ByteSource,
        pipeline: Pipeline,
        segment: PlaybackSegment,
        configuration: Player.Configuration,
        backoffClock: any Clock<Duration>,
        send: @escaping Send,
        openOutput: @escaping OpenOutput
    ) {
        self.ticket = ticket
        self.source = source
        self.pipeline = pipeline
        self.plan = segment
        self.configuration = configuration
        self.backoffClock = backoffClock
        self.send = send
        self.openOutput = openOutput
        self.decoder = StreamDecoder()
        if segment.start > 0 { awaitingFormat = segment }
    }

    /// Plays the track to its end (or until stopped, failed or given up).
    func run() async throws -> PipelineOutcome {
        reader = try await source.open(from: 0)
        total = reader?.totalLength
        decoder = StreamDecoder(expectedLength: total)
        while true {
            while let command = pipeline.mailbox.poll() {
                if let outcome = try await handle(command) { return outcome }
            }
            do {
                if replayAt != nil {
                    try await replayNext()
                } else if decodeOffset < held.end {
                    try await decodeNext()
                } else if networkEnded {
                    if let outcome = try await endSegment() { return outcome }
                } else if let outcome = try await readNext() {
                    return outcome
                }
            } catch let error where isInterruption(error) {
                // A seek retired the output (its command is in the mailbox), or a loop moved on.
                continue
            }
        }
    }

    /// A command that may come at any step.
    private func handle(_ command: PipelineCommand) async throws -> PipelineOutcome? {
        switch command {
        case .stop:
            return .ended
        case .restart(let segment):
            try await restart(segment)
        case .setLoop(let loop):
            plan.loop = loop
        case .reconnect(let from, let attempt):
            // A seek may have made a new request since the drop was reported.
            if reader == nil && !networkEnded { try await reconnect(from: from, attempt: attempt) }
        case .drain:
            // Stale: it answered the end of a segment a restart has replaced.
            break
        }
        return nil
    }

    private func isInterruption(_ error: any Error) -> Bool {
        if error is Repositioned { return true }
        return error is CancellationError && !pipeline.isStopped
    }

    // MARK: - Reading

    /// Reads the next chunk from the network into `held`; a dropped connection asks the machine.
    private func readNext() async throws -> PipelineOutcome? {
        guard let current = reader else { return try await connectionDropped() }
        let next: [UInt8]?
        do {
            next = try await current.read()
        } catch  where source.canResume && Self.isDrop(error) {
            reader = nil
            return nil
        }
        guard let chunk = next else {
            if source.canResume, let total, held.end < total {
                reader = nil
            } else {
                networkEnded = true
            }
            return nil
        }
        if held.end < 64 * 1024 && held.heldFrom == 0 {
            headerBytes += chunk.prefix(64 * 1024 - headerBytes.count)
        }
        held.append(chunk, keepingFrom: decodeOffset)
        _ = send { $0.bytesArrived(chunk.count, ticket: ticket) }
        return nil
    }

    /// The connection dropped: the machine decides (reconnect after a back-off, or give up, which stops the
    /// pipeline); a restart may come first.
    private func connectionDropped() async throws -> PipelineOutcome? {
        _ = send { [plan, ticket] in $0.connectionDropped(ticket: ticket, segment: plan.number) }
        switch await pipeline.mailbox.next() {
        case .reconnect(let from, let attempt):
            try await reconnect(from: from, attempt: attempt)
            return nil
        case .stop, nil:
            // Stopped, or given up (the pipeline carries the reason).
            return .ended
        case .restart(let segment):
            // A stale drop (the machine had moved on): the restart says where to go.
            try await restart(segment)
            return nil
        case .setLoop(let loop):
            plan.loop = loop
            return nil
        case .drain:
            // Drains answer `endOfStream`, which is not sent while bytes are missing.
            return nil
        }
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
    private static func isDrop(_ error: any Error) -> Bool {
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
        var decodedFormat = format
        var seconds = 0.0
        repeat {
            guard let bytes = held.bytes(from: decodeOffset) else {
                preconditionFailure("the decode offset stays inside the held bytes")
            }
            let piece = bytes.prefix(
                starting ? min(Self.firstDecodeBytes, configuration.decodeChunkBytes) : configuration.decodeChunkBytes)
            let more = try piece.withUnsafeBytes { try decoder.feed($0) }
            decodeOffset += Int64(piece.count)
            for item in more {
                switch item {
                case .format(let newFormat, _):
                    decodedFormat = newFormat
                    decoded.append(item)
                case .samples(let samples):
                    seconds += decodedFormat?.seconds(ofSamples: samples.count) ?? 0
                    // Samples after samples join them: the floor goes on in one write and one report.
                    if case .samples(let earlier)? = decoded.last {
                        decoded[decoded.count - 1] = .samples(earlier + samples)
                    } else {
                        decoded.append(item)
                    }
                }
            }
        } while decodeOffset < held.end && segmentQueued + seconds < configuration.policy.startFloor
        try await deliver(decoded)
    }

    /// Every byte was decoded: wrap a loop that reaches the end, or report the end and wait for the
    /// machine (drain, or a restart).
    private func endSegment() async throws -> PipelineOutcome? {
        if let loop = plan.loop, format != nil {
            passEndFrame = cursor
            try await wrap(to: loop.start)
            return nil
        }
        loopPass = nil
        try await deliver(try decoder.finish())
        // The speed stage holds the last few milliseconds (keep: libsonic's pitch periods): they end the track.
        if let tail = try speed?.flush(), !tail.isEmpty { try await play(tail, sped: true) }
        _ = send { [plan, ticket] in $0.endOfStream(ticket: ticket, segment: plan.number) }
        while true {
            switch await pipeline.mailbox.next() {
            case .drain:
                guard let output = pipeline.output.current else { continue }
                try await output.drain()
                let number = plan.number
                if case .finishPipeline = send({ $0.drainFinished(ticket: ticket, segment: number) }) {
                    return .drained
                }
            // Not finished: a restart came meanwhile, and is next in the mailbox.
            case .restart(let segment):
                try await restart(segment)
                return nil
            case .setLoop(let loop):
                plan.loop = loop
            case .reconnect:
                // Stale: every byte is here.
                break
            case .stop, nil:
                return .ended
            }
        }
    }

    /// Hands decoded audio on: formats open outputs, samples are cut to the loop, sped and written.
    private func deliver(_ decoded: [DecodedAudio]) async throws {
        for piece in decoded {
            switch piece {
            case .format(let newFormat, let duration):
                if let duration, !durationReported {
                    durationReported = true
                    _ = send { $0.durationKnown(duration, ticket: ticket) }
                }
                if let current = pipeline.output.current, current.format == newFormat, format == newFormat {
                    continue
                }
                if let current = pipeline.output.current, current.format != newFormat {
                    // A format change inside the track: play out the old stream, then open a new one.
                    try await current.drain()
                }
                format = newFormat
                if let waiting = awaitingFormat {
                    // A seek came before the format: carry it out now (it opens the output).
                    awaitingFormat = nil
                    try await restart(waiting)
                    throw Repositioned()
                }
                speed = try SpeedProcessor(format: newFormat, speed: plan.settings.speed)
                try await install(newFormat)
            case .samples(let samples):
                guard let format else { throw MP3DecoderError(code: 0, message: "samples before a format") }
                let channels = format.channels
                let frames = samples.count / channels
                let first = min(frames, max(0, skipUntil - cursor))
                var end = frames
                var wraps = false
                if let loop = plan.loop {
                    (end, wraps) = loop.cut(first: cursor, frames: frames, sampleRate: format.sampleRate)
                }
                if end > first {
                    // Whole batches (the usual case) go on as they are, without a copy.
                    let kept =
                        first == 0 && end == frames ? samples : Array(samples[(first * channels)..<(end * channels)])
                    if plan.loop != nil, loopPass != nil { keepForLoop(kept) }
                    try await play(kept, ahead: arrivedAhead(decodedFrames: cursor + frames))
                }
                cursor += frames
                if wraps, let loop = plan.loop {
                    passEndFrame = loop.frames(sampleRate: format.sampleRate).upperBound
                    try await wrap(to: loop.start)
                    throw Repositioned()
                }
            }
        }
    }

    /// Through the speed stage to the sink, in pieces each reported as queued: while a segment's first second
    /// is queued, pieces of the policy's start floor (the least the machine starts the sound on, so the piece
    /// that reaches it is written and reported at once, not in many small steps), then half a second (fewer
    /// steps per second of audio: decoding to a file or the null sink runs faster).
    private func play(_ samples: [Int16], ahead: Double = 0, sped: Bool = false) async throws {
        guard let format else { return }
        let out = sped ? samples : try speed?.process(samples) ?? samples
        let seconds = starting ? max(Self.smallestStartPiece, configuration.policy.startFloor) : 0.5
        let frames = (Double(format.sampleRate) * seconds).rounded(.up)
        let step = max(format.channels, Int(frames) * format.channels)
        let number = plan.number
        var start = 0
        while start < out.count {
            guard let output = pipeline.output.current else { throw CancellationError() }
            let end = min(start + step, out.count)
            try await output.write(start == 0 && end == out.count ? out : Array(out[start..<end]))
            let seconds = format.seconds(ofSamples: end - start)
            segmentQueued += seconds
            _ = send { $0.pcmQueued(seconds: seconds, ticket: ticket, segment: number, ahead: ahead) }
            start = end
        }
        if let played = pipeline.output.played {
            _ = send { $0.progress(playedSeconds: played.seconds, ticket: ticket, segment: played.segment) }
        }
    }

    /// The segment's first second is being queued: input is decoded 4 KiB at a time up to the start floor,
    /// and output written in pieces of the floor, so the machine can start the sound as soon as enough is
    /// there.
    private var starting: Bool { segmentQueued < Self.finePiecesFor }

    /// Output seconds of the audio that arrived and is not decoded yet, at the bytes per second decoded so
    /// far (an ID3 tag in front only makes the estimate smaller). The machine may start the sound on it.
    private func arrivedAhead(decodedFrames: Int) -> Double {
        guard let format, decodedFrames > 0, decodeOffset > 0 else { return 0 }
        let decodedSeconds = Double(decodedFrames) / Double(format.sampleRate)
        let bytesPerSecond = Double(decodeOffset) / decodedSeconds
        return Double(held.end - decodeOffset) / bytesPerSecond / plan.settings.speed.factor
    }

    private func install(_ format: PCMFormat) async throws {
        let output = try await openOutput(format, plan.number, openedOutput)
        openedOutput = true
        try pipeline.output.install(output, segment: plan.number, playedBefore: segmentQueued)
    }

    // MARK: - Seeking

    /// The loop reached its end: report the seam, then replay the first pass from memory (or, for a loop
    /// too long to keep, go back to its start in the held bytes).
    private func wrap(to start: Double) async throws {
        let output = segmentQueued
        let number = plan.number
        _ = send { $0.loopWrapped(atOutput: output, to: start, ticket: ticket, segment: number) }
        if let pass = loopPass, !pass.isEmpty {
            replayAt = 0
        } else {
            // No whole pass was kept (the segment began inside the loop, e.g. after a speed change): seek back
            // and keep the next pass, which is whole.
            _ = try await reposition(to: start)
            loopPass = loopTooLong ? nil : []
        }
    }

    private func keepForLoop(_ samples: [Int16]) {
        guard var pass = loopPass, replayAt == nil else { return }
        loopPass = nil  // keeps the buffer unique while it grows
        guard pass.count + samples.count <= Self.loopPassLimit else {
            loopTooLong = true
            return
        }
        pass += samples
        loopPass = pass
    }

    /// Plays the next piece of the kept pass; at its end, wraps again, or (loop off) goes on decoding from
    /// the loop's end.
    private func replayNext() async throws {
        guard let pass = loopPass, let at = replayAt, let format else {
            replayAt = nil
            return
        }
        let end = min(pass.count, at + max(format.channels, format.sampleRate / 4 * format.channels))
        replayAt = end
        try await play(Array(pass[at..<end]))
        guard end == pass.count else { return }
        if let loop = plan.loop {
            replayAt = 0
            let output = segmentQueued
            let number = plan.number
            _ = send { $0.loopWrapped(atOutput: output, to: loop.start, ticket: ticket, segment: number) }
        } else {
            // The loop was turned off: the audio goes on from where the pass ended.
            replayAt = nil
            let seconds = Double(passEndFrame) / Double(format.sampleRate)
            loopPass = nil
            _ = try await reposition(to: seconds)
        }
    }

    /// A seek, loop or speed change: a new segment from `segment.start` on a new output (the runner retired
    /// the old one). Before the format is known, it waits for it.
    private func restart(_ segment: PlaybackSegment) async throws {
        plan = segment
        segmentQueued = 0
        replayAt = nil
        loopTooLong = false
        // Only a pass from the loop's start is whole (a speed change inside a loop restarts mid-pass).
        loopPass = segment.loop.map { $0.start == segment.start ? [] : nil } ?? nil
        guard let format, let landing = try await reposition(to: segment.start) else {
            awaitingFormat = segment
            return
        }
        speed = try SpeedProcessor(format: format, speed: segment.settings.speed)
        try await install(format)
        let number = segment.number
        let ignored = reader?.rangeIgnored ?? false
        _ = send {
            $0.seekLanded(
                at: landing.seconds, networkOffset: landing.request, rangeIgnored: ignored && landing.request != nil,
                ticket: ticket, segment: number)
        }
    }

    /// Points the decoder at recording time `seconds`: from the held bytes, by reading on, or with a new
    /// request. Returns where the audio will start and the offset of a new request; nil before the decoder
    /// can seek (its format is not known yet).
    private func reposition(to seconds: Double) async throws -> (seconds: Double, request: Int64?)? {
        guard let format else { return nil }
        let frame = SeekPlan(sampleRate: format.sampleRate).frame(atSeconds: seconds)
        let offset: Int64
        let landed: Int
        // MP3: aim two frames early and drop up to the target, so a fuzzy landing (beyond what arrived) errs
        // early, where dropping corrects it, rather than late, where nothing can.
        if let point = try decoder.seekMP3(toFrame: max(0, frame - 2 * 1152)) {
            offset = point.bodyOffset
            landed = point.frame
        } else if decoder.isWAV, let location = WAVDataLocation(header: headerBytes) {
            let fresh = StreamDecoder()
            // The header only announces the format, which is the one playing.
            _ = try fresh.feed(location.resumeHeader(atFrame: frame))
            decoder = fresh
            offset = Int64(location.byteOffset(atFrame: frame))
            landed = frame
        } else {
            return nil
        }
        cursor = landed
        skipUntil = frame
        var request: Int64?
        switch SeekPlan.fetch(target: offset, received: held.end, heldFrom: held.heldFrom) {
        case .continueFeeding, .refeedHeld, .discardForward:
            decodeOffset = offset
        case .request(let from):
            reader = nil
            held.restart(at: from)
            decodeOffset = from
            networkEnded = false
            request = from
            do {
                reader = try await source.open(from: from)
            } catch  where source.canResume && Self.isDrop(error) {
                // Reported as a dropped connection at the next read.
                reader = nil
            }
        }
        let start = Double(max(landed, frame)) / Double(format.sampleRate)
        return (start, request)
    }
}
