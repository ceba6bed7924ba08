/// The classifier's detections beside a sonogram: `sono: detection` lines in a pipe, a line per species and
/// a legend under the picture on a terminal.
extension Presenter {
    /// The detections `heard` inside `sonogram`'s window.
    func detectionLines(_ sonogram: Sonogram, heard: [SegmentDetections]) -> [String] {
        if isScript {
            return heard.filter { $0.end > sonogram.startTime && $0.start < sonogram.endTime }.flatMap { segment in
                segment.detections.map { detection in
                    "sono: detection begin=\(RavenSelectionTable.fixed(segment.start, 3))"
                        + " end=\(RavenSelectionTable.fixed(segment.end, 3))"
                        + " sci=\(quote(detection.species.scientific)) en=\(quote(detection.species.english))"
                        + " confidence=\(RavenSelectionTable.fixed(detection.confidence, 3))"
                        + (detection.expected ? "" : " expected=no")
                }
            }
        }
        let (marks, legend) = SonogramRenderer.detectionLines(sonogram, heard: heard)
        return marks.map(dim) + legendLines(legend)
    }

    /// `heard: A Eurasian Wren 0.97, B European Robin 0.42`, wrapped between entries' words.
    private func legendLines(_ legend: [String]) -> [String] {
        guard !legend.isEmpty else { return [] }
        let entries = legend.enumerated().map { $0.offset < legend.count - 1 ? $0.element + "," : $0.element }
        return wrapped(words: ["heard:"] + entries, indent: SonogramRenderer.gutterWidth).map(dim)
    }
}
