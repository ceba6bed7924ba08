import ChirperCore
import NIOConcurrencyHelpers
import NIOCore

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
/// Memory is the picture's size plus one network chunk and one window (per piece, when a long recording in a
/// local file is decoded in parallel pieces: `SonogramPieces`). Cancelling the calling task stops it at the next
/// chunk (`CancellationError`).
public struct SonogramReader: Sendable {
    let sources: ByteSources
    let makeTransform: @Sendable (Int) throws -> any PowerSpectrumTransform
    private let pieces: Int

    /// - Parameter pieces: at most this many pieces of a long recording are decoded at once (1: never split).
    public init(
        sources: ByteSources = .live(),
        makeTransform: @escaping @Sendable (Int) throws -> any PowerSpectrumTransform = { try RealFFT(size: $0) },
        pieces: Int = SonogramReader.cores
    ) {
        self.sources = sources
        self.makeTransform = makeTransform
        self.pieces = max(1, pieces)
    }

    /// The cores this process may use (its CPU affinity and cgroup quota, as NIO counts them).
    public static var cores: Int { max(1, System.coreCount) }

    /// The sonogram of `item`, `shape.columns` wide (fewer if the length was unknown), `shape.rows` high.
    /// Throws `SonogramError` (one line, for the user) or `CancellationError`.
    public func sonogram(of item: PlayItem, shape: SonogramShape) async throws -> Sonogram {
        if pieces > 1, let path = (try? sources.source(for: item.location))?.wholeLocalFile {
            let split = SonogramPieces(
                path: path, shape: shape, pieces: pieces, makeTransform: makeTransform)
            do {
                if let picture = try await split.sonogram() { return picture }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw SonogramError(label: item.label, secondsDecoded: 0, reason: Self.reason(error))
            }
        }
        var accumulator: SonogramAccumulator?
        do {
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
                            let length = duration ?? item.expectedDuration
                            try Self.check(shape, sampleRate: format.sampleRate, duration: length)
                            let plan = shape.fftPlan(
                                sampleRate: format.sampleRate, duration: shape.window?.duration ?? length ?? 60)
                            accumulator = SonogramAccumulator(
                                shape: shape, sampleRate: format.sampleRate, expectedDuration: length,
                                transform: try makeTransform(plan.dft), windowLength: plan.size, hop: plan.hop)
                        }
                    case .samples(let samples):
                        accumulator?.feed(samples, channels: channels)
                    }
                }
            }
            try await AnalysisDecoding(sources: sources).decode(item) { batch in
                try take(batch)
                // Once the window is drawn, the rest of the recording is not needed.
                return accumulator?.isComplete != true
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

    /// A band or window the recording does not have stops here, with one line.
    static func check(_ shape: SonogramShape, sampleRate: Int, duration: Double?) throws {
        let nyquist = Double(sampleRate) / 2
        if shape.minFrequency >= nyquist {
            throw SonogramStop.bandAboveNyquist(low: shape.minFrequency, nyquist: nyquist)
        }
        if let window = shape.window, let duration, window.start >= duration {
            throw SonogramStop.windowPastEnd(start: window.start, duration: duration)
        }
    }

    static func reason(_ error: any Error) -> String {
        if let stop = error as? SonogramStop { return stop.description }
        if let error = error as? SonogramPiecesError { return error.description }
        return userMessage(for: error)
    }
}

/// Why the reader stopped on its own.
enum SonogramStop: Error, CustomStringConvertible {
    case rateChanged(from: Int, to: Int)
    case bandAboveNyquist(low: Double, nyquist: Double)
    case windowPastEnd(start: Double, duration: Double)

    var description: String {
        switch self {
        case .rateChanged(let from, let to):
            "the sample rate changes part-way (\(from) Hz to \(to) Hz); a sonogram needs one rate"
        case .bandAboveNyquist(let low, let nyquist):
            "the band starts at \(kHz(low)) kHz, but the recording goes up to \(kHz(nyquist)) kHz; ask for a lower band"
        case .windowPastEnd(let start, let duration):
            "the window starts at \(clock(start)), after the recording ends (\(clock(duration))); ask for an earlier one"
        }
    }

    private func kHz(_ hz: Double) -> String { String(Double((hz / 100).rounded()) / 10) }

    private func clock(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 600):" + (tenths / 10 % 60 < 10 ? "0" : "") + "\(tenths / 10 % 60).\(tenths % 10)"
    }
}
