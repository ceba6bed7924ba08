import ChirperCore
import NIOConcurrencyHelpers

/// Why a sonogram could not be computed: one line naming the recording and what to do.
public struct SonogramError: UserFacingError, Hashable {
    public var label: String
    /// Seconds decoded before the failure (0 if it never started).
    public var secondsDecoded: Double
    public var reason: String

    public init(label: String, secondsDecoded: Double, reason: String) {
        self.label = label
        self.secondsDecoded = secondsDecoded
        self.reason = reason
    }

    public var userMessage: String {
        let label = TerminalText.sanitize(label)
        if secondsDecoded > 0 {
            return "sono: \(label) failed after \(formatSeconds(secondsDecoded)) s of audio: \(reason)"
        }
        return "sono: cannot draw \(label): \(reason)"
    }

    private func formatSeconds(_ seconds: Double) -> String {
        String(Double((seconds * 10).rounded()) / 10)
    }
}

/// Decodes a recording without playing it and draws its sonogram: the same `ByteSources` and
/// `StreamDecoder` the player uses, feeding a `SonogramAccumulator` instead of a sink.
///
/// Memory is the picture's size plus one network chunk and one window. Cancelling the calling task stops it
/// at the next chunk (`CancellationError`).
public struct SonogramReader: Sendable {
    private let sources: ByteSources
    private let makeTransform: @Sendable (Int) throws -> any PowerSpectrumTransform

    public init(
        sources: ByteSources = .live(),
        makeTransform: @escaping @Sendable (Int) throws -> any PowerSpectrumTransform = { try RealFFT(size: $0) }
    ) {
        self.sources = sources
        self.makeTransform = makeTransform
    }

    /// The sonogram of `item`, `shape.columns` wide (fewer if the length was unknown), `shape.rows` high.
    /// Throws `SonogramError` (one line, for the user) or `CancellationError`.
    public func sonogram(of item: PlayItem, shape: SonogramShape) async throws -> Sonogram {
        var accumulator: SonogramAccumulator?
        do {
            let source = try sources.source(for: item.location)
            var channels = 1
            func take(_ outputs: [DecodedAudio]) throws {
                for output in outputs {
                    switch output {
                    case .format(let format, let duration):
                        channels = format.channels
                        if let accumulator {
                            // A stream that changes rate part-way would smear the frequency axis.
                            guard accumulator.sampleRate == format.sampleRate else {
                                throw SonogramStop.rateChanged(from: accumulator.sampleRate, to: format.sampleRate)
                            }
                        } else {
                            let transform = try makeTransform(SonogramShape.fftSize(forSampleRate: format.sampleRate))
                            accumulator = SonogramAccumulator(
                                shape: shape, sampleRate: format.sampleRate,
                                expectedDuration: duration ?? item.expectedDuration, transform: transform)
                        }
                    case .samples(let samples):
                        accumulator?.feed(samples, channels: channels)
                    }
                }
            }
            // Two stages on two cores: one task reads and decodes, this one analyses; a few batches between
            // them bound the memory.
            let batches = DecodedBatches(capacity: 8)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        let reader = try await source.open(from: 0)
                        // MP3 is decoded mixed to mono: the sonogram is of the sum, and it halves the synthesis.
                        let decoder = StreamDecoder(expectedLength: reader.totalLength, mixToMono: true)
                        while let chunk = try await reader.read() {
                            try Task.checkCancellation()
                            try await batches.put(try decoder.feed(chunk))
                        }
                        try await batches.put(try decoder.finish())
                        batches.finish(throwing: nil)
                    } catch {
                        batches.finish(throwing: error)
                        throw error
                    }
                }
                do {
                    while let batch = try await batches.next() {
                        try take(batch)
                    }
                } catch {
                    // The decoding task may be waiting for room: let it go before the group waits for it.
                    batches.abandon()
                    throw error
                }
                try await group.waitForAll()
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw SonogramError(
                label: item.label, secondsDecoded: accumulator?.secondsFed ?? 0, reason: Self.reason(error))
        }
        guard let accumulator, accumulator.secondsFed > 0 else {
            throw SonogramError(label: item.label, secondsDecoded: 0, reason: "no audio in the recording")
        }
        return accumulator.picture()
    }

    private static func reason(_ error: any Error) -> String {
        if let stop = error as? SonogramStop { return stop.description }
        return userMessage(for: error)
    }
}

/// Why the reader stopped on its own.
private enum SonogramStop: Error, CustomStringConvertible {
    case rateChanged(from: Int, to: Int)

    var description: String {
        switch self {
        case .rateChanged(let from, let to):
            "the sample rate changes part-way (\(from) Hz to \(to) Hz); a sonogram needs one rate"
        }
    }
}

/// Decoded audio handed from the decoding task to the analysing one: at most `capacity` batches wait, so a
/// fast decoder waits for the analysis instead of filling memory.
private final class DecodedBatches: Sendable {
    private struct State {
        var queue: [[DecodedAudio]] = []
        var ended = false
        var failure: (any Error)?
        var taker: CheckedContinuation<[DecodedAudio]?, any Error>?
        var putter: CheckedContinuation<Void, Never>?
        /// The analysis stopped: every `put` fails from now on.
        var abandoned = false
    }
    private let state = NIOLockedValueBox(State())
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Adds a batch, waiting while `capacity` batches are queued.
    func put(_ batch: [DecodedAudio]) async throws {
        guard !batch.isEmpty else { return }
        while true {
            try Task.checkCancellation()
            let (full, abandoned) = state.withLockedValue {
                ($0.queue.count >= capacity && $0.taker == nil, $0.abandoned)
            }
            if abandoned { throw CancellationError() }
            if !full { break }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wait = state.withLockedValue { state in
                    guard state.queue.count >= capacity, !state.abandoned else { return false }
                    state.putter = continuation
                    return true
                }
                if !wait { continuation.resume() }
            }
        }
        let taker = state.withLockedValue { state -> CheckedContinuation<[DecodedAudio]?, any Error>? in
            if let taker = state.taker {
                state.taker = nil
                return taker
            }
            state.queue.append(batch)
            return nil
        }
        taker?.resume(returning: batch)
    }

    /// The analysis stopped: a waiting `put` returns, and every later one fails.
    func abandon() {
        let putter = state.withLockedValue { state in
            state.abandoned = true
            state.queue.removeAll()
            defer { state.putter = nil }
            return state.putter
        }
        putter?.resume()
    }

    /// No more batches (after the queued ones); `error` ends the analysis with it.
    func finish(throwing error: (any Error)?) {
        let taker = state.withLockedValue { state in
            state.ended = true
            state.failure = error
            defer { state.taker = nil }
            return state.taker
        }
        if let error { taker?.resume(throwing: error) } else { taker?.resume(returning: nil) }
    }

    /// The next batch; nil at the end.
    func next() async throws -> [DecodedAudio]? {
        try await withCheckedThrowingContinuation { continuation in
            enum Now {
                case batch([DecodedAudio], CheckedContinuation<Void, Never>?)
                case end((any Error)?)
                case wait
            }
            let now = state.withLockedValue { state -> Now in
                if !state.queue.isEmpty {
                    let putter = state.putter
                    state.putter = nil
                    return .batch(state.queue.removeFirst(), putter)
                }
                if state.ended { return .end(state.failure) }
                state.taker = continuation
                return .wait
            }
            switch now {
            case .batch(let batch, let putter):
                putter?.resume()
                continuation.resume(returning: batch)
            case .end(let error?):
                continuation.resume(throwing: error)
            case .end(nil):
                continuation.resume(returning: nil)
            case .wait:
                break
            }
        }
    }
}
