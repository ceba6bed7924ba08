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
}
