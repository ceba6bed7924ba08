/// Cuts 48 kHz audio into BirdNET's segments as it comes, so a long recording is never held whole: a segment
/// every `3 s − overlap`; the first piece left shorter than 1.5 s ends the cutting, and a shorter last piece is
/// padded with silence to 3 s (BirdNET's Python tools' rule). A segment's times are its start and start + 3 s,
/// as BirdNET-Analyzer writes them, padded or not.
public struct SegmentCutter: Sendable {
    /// One segment: where it lies in the samples cut, and its 3 s of input for the model.
    public struct Cut: Sendable, Hashable {
        public var segment: BirdNETSegment
        public var samples: [Float]
    }

    private let step: Int
    private let minimum: Int
    /// Samples not yet wholly cut; the first is sample `bufferStart` of the audio.
    private var buffer: [Float] = []
    private var bufferStart = 0
    /// The next segment's first sample.
    private var next = 0
    private var count = 0
    private var ended = false

    /// `overlap`: seconds shared by consecutive segments (0 ≤ overlap < 3).
    public init(overlap: Double = 0) {
        precondition(overlap >= 0 && overlap < BirdNET.segmentSeconds, "overlap \(overlap) s is not in [0, 3)")
        // Whole samples, truncated, as the reference's int(rate * seconds).
        step = Int(Double(BirdNET.sampleRate) * (BirdNET.segmentSeconds - overlap))
        minimum = Int(Double(BirdNET.sampleRate) * BirdNET.minimumSeconds)
    }

    /// Takes the next samples; returns the whole segments they complete.
    public mutating func push(_ samples: [Float]) -> [Cut] {
        guard !ended else { return [] }
        buffer += samples
        var cuts: [Cut] = []
        while next + BirdNET.segmentLength <= bufferStart + buffer.count {
            let from = next - bufferStart
            cuts.append(cut(Array(buffer[from..<(from + BirdNET.segmentLength)])))
        }
        // Only what a later segment still needs is kept.
        let done = min(next, bufferStart + buffer.count) - bufferStart
        if done >= BirdNET.segmentLength {
            buffer.removeFirst(done)
            bufferStart += done
        }
        return cuts
    }

    /// The end of the audio: the pieces left that are at least 1.5 s long, each padded to 3 s.
    public mutating func finish() -> [Cut] {
        guard !ended else { return [] }
        ended = true
        var cuts: [Cut] = []
        while next < bufferStart + buffer.count {
            let piece = buffer[(next - bufferStart)...]
            guard piece.count >= minimum else { break }
            cuts.append(cut(Array(piece) + repeatElement(0, count: BirdNET.segmentLength - piece.count)))
        }
        buffer = []
        return cuts
    }

    private mutating func cut(_ samples: [Float]) -> Cut {
        let length = min(BirdNET.segmentLength, bufferStart + buffer.count - next)
        defer {
            next += step
            count += 1
        }
        return Cut(segment: BirdNETSegment(index: count, start: next, length: length), samples: samples)
    }
}
