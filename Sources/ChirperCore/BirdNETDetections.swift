/// A class BirdNET hears in one segment, above the minimum confidence.
public struct BirdNETDetection: Sendable, Hashable {
    public var segment: BirdNETSegment
    /// The class's index: its line in the labels file, from 0.
    public var label: Int
    public var confidence: Double

    public init(segment: BirdNETSegment, label: Int, confidence: Double) {
        self.segment = segment
        self.label = label
        self.confidence = confidence
    }
}

/// What BirdNET hears of one class over a recording: its best confidence, in how many segments, the first and
/// last segment's start.
public struct BirdNETSpeciesSummary: Sendable, Hashable {
    public var label: Int
    public var best: Double
    public var segments: Int
    public var first: Double
    public var last: Double

    public init(label: Int, best: Double, segments: Int, first: Double, last: Double) {
        self.label = label
        self.best = best
        self.segments = segments
        self.first = first
        self.last = last
    }
}

extension BirdNET {
    /// The classes heard in `segment`, from its logits: those whose confidence is above `minimum` (strictly, as
    /// BirdNET-Analyzer compares), the most confident first (ties in label order).
    public static func detections(
        logits: ArraySlice<Float>, segment: BirdNETSegment, minimum: Double = defaultMinimumConfidence
    ) -> [BirdNETDetection] {
        var found: [BirdNETDetection] = []
        for (label, logit) in logits.enumerated() {
            let confidence = confidence(logit: logit)
            if confidence > minimum {
                found.append(BirdNETDetection(segment: segment, label: label, confidence: confidence))
            }
        }
        return found.sorted { ($0.confidence, -$0.label) > ($1.confidence, -$1.label) }
    }

    /// One line per class heard: best confidence first (ties in label order).
    public static func summary(_ detections: [BirdNETDetection]) -> [BirdNETSpeciesSummary] {
        var byLabel: [Int: BirdNETSpeciesSummary] = [:]
        var segmentsSeen: [Int: Set<Int>] = [:]
        for detection in detections {
            let time = detection.segment.startSeconds
            segmentsSeen[detection.label, default: []].insert(detection.segment.index)
            if var known = byLabel[detection.label] {
                known.best = max(known.best, detection.confidence)
                known.first = min(known.first, time)
                known.last = max(known.last, time)
                byLabel[detection.label] = known
            } else {
                byLabel[detection.label] = BirdNETSpeciesSummary(
                    label: detection.label, best: detection.confidence, segments: 0, first: time, last: time)
            }
        }
        return byLabel.values.map { summary in
            var summary = summary
            summary.segments = segmentsSeen[summary.label]?.count ?? 0
            return summary
        }.sorted { ($0.best, -$0.label) > ($1.best, -$1.label) }
    }
}
