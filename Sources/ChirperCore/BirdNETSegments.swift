#if canImport(Glibc)
    import Glibc
#endif

/// BirdNET's view of a recording: 3 s segments of 48 kHz mono audio, and the confidence it gives each class.
///
/// Segmenting follows BirdNET's Python tools: a segment every `3 s − overlap`, the first one shorter than the
/// minimum length ends the list, and a shorter last one is padded with silence to 3 s. A segment's times are
/// its start and start + 3 s, as BirdNET-Analyzer writes them, padded or not.
public enum BirdNET {
    public static let sampleRate = 48_000
    public static let segmentSeconds = 3.0
    /// Samples in one segment: the model's input width.
    public static let segmentLength = 144_000
    /// A last piece shorter than this is not identified.
    public static let minimumSeconds = 1.5
    /// Below it, a detection is not reported (BirdNET-Analyzer's default `--min_conf`).
    public static let defaultMinimumConfidence = 0.1

    /// A logit as BirdNET's confidence: sigmoid(clip(logit, −15, 15)), sensitivity 1.
    public static func confidence(logit: Float) -> Double {
        let clipped = min(15, max(-15, Double(logit)))
        return 1 / (1 + exp(-clipped))
    }
}

/// One 3 s segment: where it starts in the 48 kHz samples, and how many of its samples are audio (the rest,
/// up to 3 s, is padding).
public struct BirdNETSegment: Sendable, Hashable {
    public var index: Int
    public var start: Int
    public var length: Int

    public init(index: Int, start: Int, length: Int) {
        self.index = index
        self.start = start
        self.length = length
    }

    public var startSeconds: Double { Double(start) / Double(BirdNET.sampleRate) }
    public var endSeconds: Double { startSeconds + BirdNET.segmentSeconds }
}
