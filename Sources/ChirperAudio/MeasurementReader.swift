import ChirperCore

/// Why a selection could not be measured: one line naming the recording and what to do.
public struct MeasurementReadError: UserFacingError, Hashable {
    public var label: String
    public var reason: String

    public var userMessage: String { "measure: \(TerminalText.sanitize(label)): \(reason)" }
}

/// Decodes a selection of a recording (without playing it) and measures it: the same `ByteSources` and
/// decoder the player uses, mixed to mono, kept from the selection's start to its end only.
public struct MeasurementReader: Sendable {
    /// The longest selection measured (its samples are held: 2 minutes at 48 kHz are 23 MB).
    public static let longest = 120.0

    private let sources: ByteSources
    private let makeTransform: @Sendable (Int) throws -> any PowerSpectrumTransform

    public init(
        sources: ByteSources = .live(),
        makeTransform: @escaping @Sendable (Int) throws -> any PowerSpectrumTransform = { try RealFFT(size: $0) }
    ) {
        self.sources = sources
        self.makeTransform = makeTransform
    }

    /// Raven's measurements of `span` × `band` of `item`; with no band and a `signalWithin` limit, in the band
    /// within it that holds the recording's sound (`SignalBand`). Throws `MeasurementReadError` (one line) or
    /// `CancellationError`.
    public func measure(
        _ item: PlayItem, span: TimeSpan, band: FrequencyBand?, signalWithin limit: FrequencyBand? = nil
    ) async throws -> SelectionMeasurement {
        guard span.duration <= Self.longest else {
            throw MeasurementReadError(
                label: item.label,
                reason:
                    "the selection is \(Int(span.duration.rounded())) s; measure at most \(Int(Self.longest)) s at a time"
            )
        }
        var samples: [Float] = []
        let rate: Int
        do {
            rate = try await MonoAudioReader(sources: sources).read(item, span: span) { piece, rate in
                if let band, band.low >= Double(rate) / 2 {
                    throw MeasurementReadError(
                        label: item.label,
                        reason:
                            "the band starts above the recording's top frequency (\(rate / 2) Hz); select a lower band")
                }
                samples += piece
            }
        } catch let error as MeasurementReadError {
            throw error
        } catch let error as MonoAudioReadError {
            let reason =
                error.reason == .startsAfterEnd
                ? "the selection starts after the recording ends; select an earlier one" : error.reason.text
            throw MeasurementReadError(label: item.label, reason: reason)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw MeasurementReadError(label: item.label, reason: userMessage(for: error))
        }
        guard !samples.isEmpty else {
            throw MeasurementReadError(
                label: item.label, reason: "no audio in the selection; select a section the recording has")
        }
        let first = Int((span.start * Double(rate)).rounded())
        let plan = MeasurementAnalysis.plan(sampleRate: rate)
        let transform = try makeTransform(plan.size)
        var measured = band
        if band == nil, let limit {
            guard
                let found = SignalBand.find(
                    in: samples, sampleRate: rate, within: limit, transform: transform, hop: plan.hop)
            else {
                throw MeasurementReadError(
                    label: item.label,
                    reason: "no sound stands above the noise here; select a call to measure (select <n> <a-b> <lo-hi>)")
            }
            measured = found
        }
        do throws(MeasurementError) {
            return try MeasurementAnalysis.measure(
                samples, sampleRate: rate, begin: Double(first) / Double(rate), band: measured,
                transform: transform, hop: plan.hop)
        } catch {
            throw MeasurementReadError(label: item.label, reason: error.description)
        }
    }
}
