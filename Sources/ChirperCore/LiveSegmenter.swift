/// What `identify on` hears: one 3 s segment of what plays, on BirdNET's grid of the recording's time (segment
/// k is k·3 s to k·3 s + 3 s), and the species heard in it.
public struct LiveSegment: Sendable, Hashable {
    /// The play request whose audio it is.
    public var ticket: PlaybackTicket
    /// Its place on the grid: it starts at `index` · 3 s.
    public var index: Int
    /// Seconds of it that were audio (less than 3 when playback entered it by a seek, or it is the last).
    public var heard: Double
    /// Most confident first, at or above the minimum confidence.
    public var detections: [Detection]
    /// Whether its species are expected where and when the recording was made, as `identify` judges them.
    public var placeCheck: PlaceCheck

    public init(
        ticket: PlaybackTicket, index: Int, heard: Double, detections: [Detection], placeCheck: PlaceCheck = .noPlace
    ) {
        self.ticket = ticket
        self.index = index
        self.heard = heard
        self.detections = detections
        self.placeCheck = placeCheck
    }

    public var start: Double { Double(index) * BirdNET.segmentSeconds }
    public var end: Double { start + BirdNET.segmentSeconds }

    /// The segment that holds `seconds` of the recording.
    public static func index(at seconds: Double) -> Int {
        max(0, Int((seconds / BirdNET.segmentSeconds).rounded(.down)))
    }
}

/// What the live listener is handed, in order, through one channel.
public enum LiveWork: Sendable {
    /// Audio the player decoded.
    case heard(HeardAudio)
    /// Playback of `ticket` is in segment `index` (`last`: the recording's last): segments before it are not
    /// worth hearing any more, and the last is heard with what there is of it. `place`: where and when the
    /// recording was made, which judges the species heard in it (none: not judged).
    case played(PlaybackTicket, index: Int, last: Bool, place: RecordingPlace?)
}

/// Cuts 48 kHz mono audio that arrives in runs (a run ends at a seek, a loop's turn or a new track) into 3 s
/// segments on the recording's grid: a segment a run enters part way is silence up to where the run starts, so
/// that every sample stays at its own time in the segment. A segment with less than 1.5 s of audio is not cut
/// (BirdNET's minimum), as its tools leave such a last piece.
public struct LiveSegmenter: Sendable {
    public struct Cut: Sendable, Hashable {
        public var index: Int
        /// Samples of audio in it; the rest of its 3 s is silence.
        public var heard: Int
        public var samples: [Float]
    }

    /// A run being cut: the segment being filled, how many of its first samples are silence (the run started
    /// after them), and the audio taken since.
    private struct Run: Sendable {
        var index: Int
        var offset: Int
        var buffer: [Float] = []
    }

    /// None between runs: samples pushed then are not the recording's at any known time.
    private var run: Run?

    public init() {}

    /// Ends the run being cut (its segment cut with what it has, if enough) and starts one at 48 kHz sample
    /// `sample` of the recording.
    public mutating func start(at sample: Int) -> [Cut] {
        let cuts = finish()
        let sample = max(0, sample)
        let index = sample / BirdNET.segmentLength
        run = Run(index: index, offset: sample - index * BirdNET.segmentLength)
        return cuts
    }

    /// Takes the run's next samples; returns the segments they complete.
    public mutating func push(_ samples: [Float]) -> [Cut] {
        guard var current = run else { return [] }
        // Taken out while it grows, so that its buffer is not copied.
        run = nil
        current.buffer += samples
        var cuts: [Cut] = []
        while current.offset + current.buffer.count >= BirdNET.segmentLength {
            let taken = BirdNET.segmentLength - current.offset
            if let cut = Self.cut(current, taken) { cuts.append(cut) }
            current.buffer.removeFirst(taken)
            current.offset = 0
            current.index += 1
        }
        run = current
        return cuts
    }

    /// The run ends here: its segment, padded with silence, if it holds at least 1.5 s of audio.
    public mutating func finish() -> [Cut] {
        guard let current = run else { return [] }
        run = nil
        return Self.cut(current, current.buffer.count).map { [$0] } ?? []
    }

    private static func cut(_ run: Run, _ taken: Int) -> Cut? {
        guard Double(taken) >= BirdNET.minimumSeconds * Double(BirdNET.sampleRate) else { return nil }
        let samples =
            [Float](repeating: 0, count: run.offset) + run.buffer.prefix(taken)
            + [Float](repeating: 0, count: BirdNET.segmentLength - run.offset - taken)
        return Cut(index: run.index, heard: taken, samples: samples)
    }
}
