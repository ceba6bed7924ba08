import ChirperCore

/// Why a recording's audio could not be read for an analysis: one line naming it and what to do.
public struct MonoAudioReadError: UserFacingError, Hashable {
    public enum Reason: Sendable, Hashable {
        /// The stretch asked for starts at or after the recording's end.
        case startsAfterEnd
        case rateChanges
        case noAudio
        /// The source or the decoder failed: its one line.
        case unreadable(String)

        public var text: String {
            switch self {
            case .startsAfterEnd: "the section starts after the recording ends"
            case .rateChanges: "the sample rate changes part-way; it cannot be analysed"
            case .noAudio: "it holds no audio"
            case .unreadable(let line): line
            }
        }
    }

    public var label: String
    public var reason: Reason

    public var userMessage: String { "\(TerminalText.sanitize(label)): \(reason.text)" }
}

/// Decodes a stretch of a recording (without playing it) to mono float samples at its own rate, piece by
/// piece, so a long recording is analysed in bounded memory: the same `ByteSources` and decoder the player
/// uses.
public struct MonoAudioReader: Sendable {
    private let sources: ByteSources

    public init(sources: ByteSources = .live()) {
        self.sources = sources
    }

    /// Hands `take` the samples of `span` of `item` (nil: all of it), mixed to mono in -1…1, in order, each piece
    /// with the recording's sample rate; returns the rate. Throws `MonoAudioReadError` (one line),
    /// `take`'s error, or `CancellationError`.
    @discardableResult
    public func read(
        _ item: PlayItem, span: TimeSpan?, take: (_ samples: [Float], _ sampleRate: Int) throws -> Void
    ) async throws -> Int {
        var rate = 0
        var channels = 1
        var position = 0
        var first = 0
        var last = Int.max
        do {
            try await AnalysisDecoding(sources: sources).decode(item) { batch in
                for output in batch {
                    switch output {
                    case .format(let format, let duration):
                        guard rate == 0 else {
                            guard rate == format.sampleRate else {
                                throw MonoAudioReadError(label: item.label, reason: .rateChanges)
                            }
                            continue
                        }
                        rate = format.sampleRate
                        channels = max(1, format.channels)
                        if let span {
                            if let duration = duration ?? item.expectedDuration, span.start >= duration {
                                throw MonoAudioReadError(label: item.label, reason: .startsAfterEnd)
                            }
                            first = Int((span.start * Double(rate)).rounded())
                            last = Int((span.end * Double(rate)).rounded())
                        }
                    case .samples(let block):
                        // MP3 comes mixed to mono; a WAV's channels are mixed here. Positions count frames.
                        let end = position + block.count / channels
                        let from = max(first, position)
                        let to = min(last, end)
                        if from < to {
                            try take(
                                MonoMix.mean(
                                    of: block, channels: channels, frames: (from - position)..<(to - position)),
                                rate)
                        }
                        position = end
                    }
                }
                return rate == 0 || position < last
            }
        } catch let error as MonoAudioReadError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as any UserFacingError {
            throw MonoAudioReadError(label: item.label, reason: .unreadable(error.userMessage))
        }
        guard rate > 0 else { throw MonoAudioReadError(label: item.label, reason: .noAudio) }
        return rate
    }
}
