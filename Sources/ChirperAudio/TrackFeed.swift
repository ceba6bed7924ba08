import ChirperCore
import ChirperSystem

/// One track's work, run by its pipeline task: fetch → hold → decode → seek and loop → speed → sink.
///
/// The driver of `TrackMachine`, which decides; the playback machine keeps it, under the player's lock
/// (`step`). This class owns the connection, the held bytes, the decoder, the speed stage and the output: it hands
/// the machine the commands of the pipeline's channel and what each step met, and performs every action the
/// machine answers (its reports are the playback machine's to map; its runner performs what they lead to).
/// The commands (reconnect, drain, finish, the restart of a segment the playback machine started for a seek,
/// a loop or a speed change, stop) arrive in the pipeline's one channel, polled between steps, beside the news
/// of the source's connection (`SourceConnection`, a task of its own): so whatever the track waits for, a
/// command is an event it meets in order, never an interruption. The bytes that arrived are held
/// (`HeldBytes`), so a seek or a loop back inside them needs no request.
final class TrackFeed {
    /// Hands an event to the track's machine; its actions for the driver come back.
    typealias Step = (TrackMachine.Event) -> [TrackMachine.Action]
    /// Opens a sink output for `format` whose underruns are reported for segment `segment`; `continuing` when
    /// the track had an output before (a seek, a loop, a format change).
    typealias OpenOutput =
        @Sendable (_ format: PCMFormat, _ segment: Int, _ continuing: Bool) async throws -> any AudioOutput

    /// Whether the actions that follow still stand: the decoder was pointed elsewhere, or the output was
    /// retired (the actions left were decided for a position that no longer plays), or the pipeline ends.
    enum Flow {
        case goOn
        case repositioned
        case end(PipelineOutcome)
    }

    let ticket: PlaybackTicket
    let source: any ByteSource
    private let pipeline: Pipeline
    private let configuration: Player.Configuration
    private let backoffClock: any Clock<Duration>
    /// Where what is decoded is handed on, for those who listen (the live strip).
    private let hearing: HeardAudioRelay
    private let step: Step
    /// The decoded stream's format as the track's machine knows it.
    private let format: () -> PCMFormat?
    private let openOutput: OpenOutput

    /// The last bytes that arrived: seeks and loops back inside them need no request, and memory stays flat
    /// however long the recording. From a source that keeps them on disk (the play cache, a local file) an
    /// earlier byte is a read of the disk, so a short window is held (`heldFromDisk`); otherwise an earlier
    /// byte is a Range request, and a minute of a 128 kbit/s MP3 is held (`heldFromNetwork`).
    private var held: HeldBytes
    /// 16 s of a 128 kbit/s MP3: what a loop or a step back inside it refeeds without a system call.
    static let heldFromDisk = 256 << 10
    static let heldFromNetwork = 1 << 20
    /// The body's first bytes, for a WAV seek's header (kept even when `held` has moved on).
    private var headerBytes: [UInt8] = []
    private var connections = SourceConnections()
    private var total: Int64?
    private var decoder: StreamDecoder
    /// The next body byte to feed the decoder.
    private var decodeOffset: Int64 = 0
    private var speed: SpeedProcessor?
    /// A section played for its band only (`ab` over a selection): the band-pass, per segment.
    private var bandPass: BandPassFilter?
    /// The failure met last: the machine decides whether it is a drop to resume from or the track's end.
    private var failure: (any Error)?

    init(
        ticket: PlaybackTicket,
        source: any ByteSource,
        channel: Int? = nil,
        pipeline: Pipeline,
        configuration: Player.Configuration,
        backoffClock: any Clock<Duration>,
        hearing: HeardAudioRelay,
        step: @escaping Step,
        format: @escaping () -> PCMFormat?,
        openOutput: @escaping OpenOutput
    ) {
        self.ticket = ticket
        self.source = source
        self.pipeline = pipeline
        self.held = HeldBytes(limit: source.keepsArrivedBytes ? Self.heldFromDisk : Self.heldFromNetwork)
        self.configuration = configuration
        self.backoffClock = backoffClock
        self.hearing = hearing
        self.step = step
        self.format = format
        self.openOutput = openOutput
        self.decoder = StreamDecoder(channel: channel)
    }

    /// Plays the track to its end (or until stopped, failed or given up); returns once its connections have
    /// let go of their readers.
    func run() async throws -> PipelineOutcome {
        do {
            let outcome = try await play()
            await hangUp()
            return outcome
        } catch {
            await hangUp()
            throw error
        }
    }

    private func play() async throws -> PipelineOutcome {
        connect(from: 0, after: nil)
        while true {
            let flow: Flow
            if let input = pipeline.inbox.poll() {
                flow = try await take(input)
            } else {
                flow = try await feed(.ready(undecodedInput: decodeOffset < held.end))
            }
            if case .end(let outcome) = flow { return outcome }
        }
    }

    /// Feeds `event` to the machine and performs what it answers.
    private func feed(_ event: TrackMachine.Event) async throws -> Flow {
        try await perform(step(event))
    }

    /// Performs `actions` in order, until one repositions or ends.
    private func perform(_ actions: [TrackMachine.Action]) async throws -> Flow {
        for action in actions {
            let flow = try await perform(action)
            guard case .goOn = flow else { return flow }
        }
        return .goOn
    }

    private func perform(_ action: TrackMachine.Action) async throws -> Flow {
        switch action {
        case .report:
            preconditionFailure("the playback machine maps the track's reports")
        case .read:
            return try await readNext()
        case .decode(let pieceBytes, let atLeast, let join):
            return try await decode(pieceBytes: pieceBytes, atLeast: atLeast, join: join)
        case .finishDecoding:
            let damageBefore = decoder.damage
            let tail = try decoder.finish()
            // The last frames are decoded only now, and damage among them is said as any other.
            let reported = try await reportDamage(since: damageBefore)
            guard case .goOn = reported else { return reported }
            let handed = try await hand(tail)
            guard case .goOn = handed else { return handed }
            return try await feed(.decoderFinished)
        case .flushSpeed:
            return try await feed(.speedFlushed(try speed?.flush() ?? []))
        case .openOutput(let setup, let drainingOld):
            if drainingOld, try await pipeline.output.drain() == .stopped { return try await retired() }
            speed = try SpeedProcessor(format: setup.format, speed: setup.speed)
            bandPass = setup.band.flatMap { BandPassFilter(band: $0, format: setup.format) }
            let open = openOutput
            guard
                let output = try await pipeline.output.open({
                    try await open(setup.format, setup.segment, setup.continuing)
                }),
                try pipeline.output.install(output, segment: setup.segment, playedBefore: setup.playedBefore)
            else {
                return try await retired()
            }
        case .drainOldOutput:
            if try await pipeline.output.drain() == .stopped { return try await retired() }
        case .hear(let format, let frame, let samples):
            hearing.hand(
                HeardAudio(
                    ticket: ticket, sampleRate: format.sampleRate, channels: format.channels, frame: frame,
                    samples: samples))
        case .play(let samples, let stages, let pieceSeconds, let ahead):
            return try await play(samples, through: stages, pieceSeconds: pieceSeconds, ahead: ahead)
        case .seekDecoder(let frame):
            let flow = try await feed(try pointDecoder(atFrame: frame).map { .decoderLanded($0) } ?? .decoderCannotSeek)
            guard case .end = flow else { return .repositioned }
            return flow
        case .feed(let offset):
            decodeOffset = offset
        case .request(let offset):
            held.restart(at: offset)
            decodeOffset = offset
            connect(from: offset, after: nil)
            return try await awaitInput()
        case .reconnect(let offset, let attempt):
            connect(from: offset, after: configuration.backoff(attempt: attempt))
            return try await awaitInput()
        case .awaitInput:
            return try await awaitInput()
        case .drainOutput:
            guard case .played(let late) = try await pipeline.output.drain() else { return try await retired() }
            return try await feed(.drained(late: late))
        case .fail(let reason):
            throw reason.map { MP3DecoderError(code: 0, message: $0) } ?? failure ?? CancellationError()
        case .end(let outcome):
            return .end(outcome == .drained ? .drained : .ended)
        }
        return .goOn
    }

    /// The output was retired or closed under a write or a drain: the actions left are not performed.
    private func retired() async throws -> Flow {
        let flow = try await feed(.outputRetired)
        guard case .end = flow else { return .repositioned }
        return flow
    }

    // MARK: - The channel and the connection

    /// Waits for the next command or news, and takes it.
    private func awaitInput() async throws -> Flow {
        try await take(await pipeline.inbox.next())
    }

    /// A command goes to the machine; news of the current connection is taken in, of an earlier one dropped.
    private func take(_ input: PipelineInput?) async throws -> Flow {
        switch input {
        case nil:
            return try await feed(.command(nil))
        case .command(let command):
            return try await feed(.command(command))
        case .connection(let number, let news):
            guard connections.isCurrent(number) else { return .goOn }
            return try await take(news)
        }
    }

    private func take(_ news: ConnectionNews) async throws -> Flow {
        switch news {
        case .opened(let length, let rangeIgnored):
            if connections.currentIsFirst {
                // The recording's length, as its first answer says, is the decoder's to know.
                total = length
                decoder = StreamDecoder(expectedLength: length, channel: decoder.channel)
            }
            return try await feed(.connected(rangeIgnored: rangeIgnored))
        case .chunk(let chunk):
            connections.chunkArrived()
            if held.end < 64 * 1024 && held.heldFrom == 0 {
                headerBytes += chunk.prefix(64 * 1024 - headerBytes.count)
            }
            held.append(chunk, keepingFrom: decodeOffset)
            return try await feed(.arrived(bytes: chunk.count))
        case .ended:
            connections.hangUp()
            return try await feed(.bodyEnded(received: held.end, total: total))
        case .failed(let error):
            connections.hangUp()
            failure = error
            return try await feed(.connectionFailed(network: Self.isNetwork(error)))
        }
    }

    /// Asks for the next chunk (unless one is asked for already), and waits for it or for a command.
    private func readNext() async throws -> Flow {
        guard connections.askForChunk() else { return .goOn }
        return try await awaitInput()
    }

    private func connect(from offset: Int64, after wait: Duration?) {
        connections.open(source, from: offset, after: wait, clock: backoffClock, into: pipeline.inbox)
    }

    /// Hangs up, and waits until every connection's task has let go of its reader.
    private func hangUp() async {
        for connection in connections.hangUpAll() { await connection.released() }
    }

    /// A failure of the connection (not of the server's answer, the audio or the task).
    static func isNetwork(_ error: any Error) -> Bool {
        if case .network = error as? ByteSourceError { return true }
        return false
    }

    // MARK: - Decoding

    /// Decodes the held input in pieces of `pieceBytes` while input is held, until `atLeast` seconds are
    /// decoded, and hands it on; `join`: samples after samples go on as one batch (one write, one report).
    private func decode(pieceBytes: Int, atLeast: Double, join: Bool) async throws -> Flow {
        var decoded: [DecodedAudio] = []
        var decodedFormat = format()
        var seconds = 0.0
        let damageBefore = decoder.damage
        repeat {
            guard let bytes = held.bytes(from: decodeOffset) else {
                preconditionFailure("the decode offset stays inside the held bytes")
            }
            let piece = bytes.prefix(pieceBytes)
            let more = try piece.withUnsafeBytes { try decoder.feed($0) }
            decodeOffset += Int64(piece.count)
            for item in more {
                switch item {
                case .format(let newFormat, _):
                    decodedFormat = newFormat
                    decoded.append(item)
                case .samples(let samples):
                    seconds += decodedFormat?.seconds(ofSamples: samples.count) ?? 0
                    if join, case .samples(let earlier)? = decoded.last {
                        decoded[decoded.count - 1] = .samples(earlier + samples)
                    } else {
                        decoded.append(item)
                    }
                }
            }
        } while decodeOffset < held.end && seconds < atLeast
        let flow = try await reportDamage(since: damageBefore)
        guard case .goOn = flow else { return flow }
        return try await hand(decoded)
    }

    /// Tells the machine of damage the decoder met since `before`, if any.
    private func reportDamage(since before: FLACDamage?) async throws -> Flow {
        guard let damage = decoder.damage, damage != before else { return .goOn }
        return try await feed(.decoderDamaged(damage))
    }

    /// Hands decoded audio to the machine, item by item, performing what each asks.
    private func hand(_ decoded: [DecodedAudio]) async throws -> Flow {
        for item in decoded {
            let event: TrackMachine.Event
            switch item {
            case .format(let format, let duration):
                event = .format(format, duration: duration, outputFormat: pipeline.output.current?.format)
            case .samples(let samples):
                event = .samples(samples, undecodedBytes: held.end - decodeOffset, decodedBytes: decodeOffset)
            }
            let flow = try await feed(event)
            guard case .goOn = flow else { return flow }
        }
        return .goOn
    }

    /// Through `stages` to the sink, in pieces of `pieceSeconds`, each reported as queued.
    private func play(_ samples: [Int16], through stages: TrackMachine.Stages, pieceSeconds: Double, ahead: Double)
        async throws -> Flow
    {
        guard let format = format() else { return .goOn }
        var input = samples
        if stages == .bandAndSpeed, bandPass != nil { input = bandPass!.process(input) }
        let out = stages == .none ? input : try speed?.process(input) ?? input
        let frames = (Double(format.sampleRate) * pieceSeconds).rounded(.up)
        let step = max(format.channels, Int(frames) * format.channels)
        var start = 0
        while start < out.count {
            let end = min(start + step, out.count)
            let piece = start == 0 && end == out.count ? out : Array(out[start..<end])
            guard try await pipeline.output.write(piece) == .queued else { return try await retired() }
            let flow = try await feed(.queued(seconds: format.seconds(ofSamples: end - start), ahead: ahead))
            guard case .goOn = flow else { return flow }
            start = end
        }
        let position = pipeline.output.played.map {
            TrackMachine.SinkPosition(segment: $0.segment, seconds: $0.seconds)
        }
        return try await feed(.played(position))
    }

    /// Points the decoder at `frame`: where it landed, or nil before it can seek (its format is not known).
    private func pointDecoder(atFrame frame: Int) throws -> TrackMachine.Landed? {
        let offset: Int64
        let landed: Int
        var estimated = false
        // MP3: the decoder lands on the frame asked for (CBR, or inside what arrived), or near it (VBR beyond
        // what arrived, by the Xing TOC), and says which.
        if let point = try decoder.seekMP3(toFrame: frame) {
            offset = point.bodyOffset
            landed = point.frame
            estimated = !point.accurate
        } else if let point = try decoder.seekFLAC(toFrame: frame, localFile: source.wholeLocalFile) {
            // FLAC: libFLAC's seek in the file on disk (its seek table), or the stream again from its start.
            offset = point.bodyOffset
            landed = point.frame
        } else if decoder.isWAV, let location = WAVDataLocation(header: headerBytes) {
            let fresh = StreamDecoder(channel: decoder.channel)
            // The header only announces the format, which is the one playing.
            _ = try fresh.feed(location.resumeHeader(atFrame: frame))
            decoder = fresh
            offset = Int64(location.byteOffset(atFrame: frame))
            landed = frame
        } else {
            return nil
        }
        return TrackMachine.Landed(
            frame: landed, byteOffset: offset, estimated: estimated, received: held.end, heldFrom: held.heldFrom)
    }
}
