/// A species a classifier names (for BirdNET also a frog, an insect or a noise): as its labels file writes it,
/// `Scientific name_Common name`.
public struct Species: Sendable, Hashable {
    public var scientific: String
    public var english: String

    public init(scientific: String, english: String) {
        self.scientific = scientific
        self.english = english
    }
}

/// One species heard in one segment, with the classifier's confidence (0–1).
public struct Detection: Sendable, Hashable {
    public var species: Species
    public var confidence: Double
    /// Whether the species is expected where and when the recording was made, as the identification's place
    /// check judged it: the views beside `identify` (a sonogram's marks) mark it as `identify` does.
    public var expected: Bool

    public init(species: Species, confidence: Double, expected: Bool = true) {
        self.species = species
        self.confidence = confidence
        self.expected = expected
    }
}

/// One segment of the audio (seconds of the recording) and what was heard in it at or above the minimum
/// confidence, most confident first.
public struct SegmentDetections: Sendable, Hashable {
    public var start: Double
    public var end: Double
    public var detections: [Detection]

    public init(start: Double, end: Double, detections: [Detection]) {
        self.start = start
        self.end = end
        self.detections = detections
    }
}

/// What the classifier heard in a stretch of a recording, segment by segment.
public struct Identification: Sendable, Hashable {
    /// The model's name as lines show it (`BirdNET 2.4`).
    public var model: String
    public var segments: [SegmentDetections]
    /// Whether the species heard are expected where and when the recording was made.
    public var placeCheck: PlaceCheck

    public init(model: String, segments: [SegmentDetections], placeCheck: PlaceCheck = .noPlace) {
        self.model = model
        self.segments = segments
        self.placeCheck = placeCheck
    }

    /// Every detection, in every segment.
    public var detectionCount: Int { segments.reduce(0) { $0 + $1.detections.count } }

    /// One species over the whole stretch: its best confidence, in how many segments it was heard, and the start
    /// of the first and of the last of them.
    public struct Summary: Sendable, Hashable {
        public var species: Species
        public var best: Double
        public var segments: Int
        public var first: Double
        public var last: Double
    }

    /// Each species heard, the most confident first (ties: heard in more segments, then by name).
    public var summary: [Summary] {
        var bySpecies: [Species: Summary] = [:]
        for segment in segments {
            for detection in segment.detections {
                if var known = bySpecies[detection.species] {
                    known.best = max(known.best, detection.confidence)
                    known.segments += 1
                    known.first = min(known.first, segment.start)
                    known.last = max(known.last, segment.start)
                    bySpecies[detection.species] = known
                } else {
                    bySpecies[detection.species] = Summary(
                        species: detection.species, best: detection.confidence, segments: 1, first: segment.start,
                        last: segment.start)
                }
            }
        }
        return bySpecies.values.sorted {
            ($0.best, $0.segments, $1.species.scientific) > ($1.best, $1.segments, $0.species.scientific)
        }
    }
}

/// How `identify` listens and what it shows: the confidence a detection needs, how far consecutive 3 s segments
/// overlap, which species list judges what is expected, and whether the summary keeps the unexpected.
public struct IdentifyOptions: Sendable, Hashable {
    /// BirdNET-Analyzer's default minimum confidence.
    public static let defaultMinConfidence = 0.1

    public var minConfidence: Double
    /// Seconds each segment shares with the one before (0 to under 3).
    public var overlap: Double
    /// The summary lists species not expected where and when the recording was made too (`--all`).
    public var all: Bool
    /// A species list in BirdNET's format that says what is expected, in place of the meta-model
    /// (`--species-list FILE`, `~` expanded).
    public var speciesList: String?

    public init(
        minConfidence: Double = IdentifyOptions.defaultMinConfidence, overlap: Double = 0, all: Bool = false,
        speciesList: String? = nil
    ) {
        self.minConfidence = minConfidence
        self.overlap = overlap
        self.all = all
        self.speciesList = speciesList
    }
}

/// Names the species singing in a stretch of a recording: the classifier behind `identify`.
public protocol SpeciesIdentifying: Sendable {
    /// What is heard in `item` over `span` (nil: the whole recording), judged against what is expected at
    /// `place` (or on `options.speciesList`). Throws a `UserFacingError` that says in one line what went wrong
    /// and what to do (no model, a damaged model, no runtime, too short to identify, a bad species list).
    func identify(_ item: PlayItem, span: TimeSpan?, options: IdentifyOptions, place: RecordingPlace?) async throws
        -> Identification
}

/// A session without a classifier: `identify` says what is missing, and how to get it.
public struct NoSpeciesIdentifier: SpeciesIdentifying {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public func identify(_ item: PlayItem, span: TimeSpan?, options: IdentifyOptions, place: RecordingPlace?)
        async throws -> Identification
    {
        throw IdentifyUnavailable(reason: reason)
    }
}

/// Why `identify` cannot run at all.
public struct IdentifyUnavailable: UserFacingError, Hashable {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var userMessage: String { reason }
}
