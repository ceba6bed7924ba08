import ChirperAudio
import ChirperCore
import ChirperSystem
import Dispatch

/// `identify on`: BirdNET hears what the player decodes, with the model `identify` loaded (loaded once for both),
/// so what plays is fetched and decoded once.
extension BirdNETIdentifier {
    /// Hears `work` until it ends or the task is cancelled: `ready` once the model is loaded, then `heard` with
    /// each 3 s segment on the recording's grid. The decoder runs ahead of playback; a segment that playback
    /// passed before the model came to it is dropped rather than queued, so a slow machine stays with what plays.
    /// Throws what stops it (no model, a damaged one) as its one line.
    public func listen(
        _ work: Channel<LiveWork, Never>, options: IdentifyOptions, ready: @escaping @Sendable () -> Void,
        heard: @escaping @Sendable (LiveSegment) -> Void
    ) async throws {
        // Loading the model holds a thread for seconds, and each segment for tens of milliseconds, without
        // awaiting: on the cooperative pool (a thread per core) that would starve the player while it plays.
        try await withTaskExecutorPreference(ListenerExecutor()) {
            try await hear(work, options: options, ready: ready, heard: heard)
        }
    }

    private func hear(
        _ work: Channel<LiveWork, Never>, options: IdentifyOptions, ready: @escaping @Sendable () -> Void,
        heard: @escaping @Sendable (LiveSegment) -> Void
    ) async throws {
        let loaded = try await load()
        ready()
        var stream = LiveStream()
        var played: (ticket: PlaybackTicket, index: Int)?
        // Each play request's species are judged by where and when it was made, as `identify` judges them: when
        // playback first says where it is, which it does as it starts, and again if the place it says changes (a
        // quiz question's is hidden until it is answered, while it goes on playing).
        var judged: [PlaybackTicket: (place: RecordingPlace?, check: PlaceCheck)] = [:]
        while !Task.isCancelled {
            var items = work.pollAll()
            if items.isEmpty && !stream.pending.contains(where: { judged[$0.ticket] != nil }) {
                guard let item = await work.next() else { return }
                items = [item] + work.pollAll()
            }
            for item in items {
                switch item {
                case .heard(let piece):
                    try stream.take(piece)
                case .played(let ticket, let index, let last, let place):
                    played = (ticket, index)
                    // A place only becomes known: a state that says none (one of another request) keeps the judgement.
                    if judged[ticket] == nil || (place != nil && judged[ticket]?.place != place) {
                        judged = judged.filter { $0.key > ticket }
                        judged[ticket] = (place, try await placeCheck(at: place, options: options, loaded: loaded))
                    }
                    if last { try stream.endRun(of: ticket) }
                }
            }
            if let played {
                stream.pending.removeAll {
                    $0.ticket < played.ticket || ($0.ticket == played.ticket && $0.cut.index < played.index)
                }
            }
            // A segment waits for its play request's judgement (the player decodes ahead of what it plays).
            guard let first = stream.pending.firstIndex(where: { judged[$0.ticket] != nil }) else { continue }
            let next = stream.pending.remove(at: first)
            let logits = try loaded.model.run(
                FloatRows(rows: 1, columns: BirdNET.segmentLength, values: next.cut.samples))
            let segment = BirdNETSegment(
                index: next.cut.index, start: next.cut.index * BirdNET.segmentLength, length: next.cut.heard)
            heard(
                LiveSegment(
                    ticket: next.ticket, index: next.cut.index,
                    heard: Double(next.cut.heard) / Double(BirdNET.sampleRate),
                    detections: loaded.detections(
                        logits: logits[0], segment: segment, minimum: options.minConfidence),
                    placeCheck: judged[next.ticket]?.check ?? .noPlace))
        }
    }
}

/// The player's pieces as runs of 48 kHz mono audio (a run ends where the pieces jump: a seek, a loop's turn,
/// a new track), cut into segments on the recording's grid.
private struct LiveStream {
    struct Run {
        var ticket: PlaybackTicket
        var rate: Int
        var channels: Int
        /// The frame the next piece starts at if the run goes on.
        var next: Int
        var resampler: Resampler
    }

    private var run: Run?
    private var segmenter = LiveSegmenter()
    /// Segments cut and not yet heard, in order.
    var pending: [(ticket: PlaybackTicket, cut: LiveSegmenter.Cut)] = []

    mutating func take(_ piece: HeardAudio) throws {
        guard piece.channels > 0, piece.sampleRate > 0 else { return }
        let frames = piece.samples.count / piece.channels
        let goesOn = run.map {
            $0.ticket == piece.ticket && $0.rate == piece.sampleRate && $0.channels == piece.channels
                && $0.next == piece.frame
        }
        if goesOn != true {
            try endRun(of: run?.ticket)
            // A new track: what is left of the one before is not heard any more.
            pending.removeAll { $0.ticket != piece.ticket }
            let start = (Double(piece.frame) * Double(BirdNET.sampleRate) / Double(piece.sampleRate)).rounded()
            _ = segmenter.start(at: Int(start))
            run = Run(
                ticket: piece.ticket, rate: piece.sampleRate, channels: piece.channels, next: piece.frame,
                resampler: try Resampler(inputRate: piece.sampleRate))
        }
        guard var current = run else { return }
        let mono = MonoMix.mean(of: piece.samples, channels: piece.channels, frames: 0..<frames)
        current.next = piece.frame + frames
        run = current
        add(segmenter.push(try current.resampler.process(mono)), of: current.ticket)
    }

    /// The run of `ticket` ends here (its last segment cut with what it has); the next piece starts another.
    mutating func endRun(of ticket: PlaybackTicket?) throws {
        guard let current = run, current.ticket == ticket else { return }
        add(segmenter.push(try current.resampler.flush()), of: current.ticket)
        add(segmenter.finish(), of: current.ticket)
        run = nil
    }

    private mutating func add(_ cuts: [LiveSegmenter.Cut], of ticket: PlaybackTicket) {
        pending += cuts.map { (ticket, $0) }
    }
}

/// Runs the listener's tasks one at a time on a serial queue of its own, off Swift's cooperative pool.
private final class ListenerExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "chirper.identify-live")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
