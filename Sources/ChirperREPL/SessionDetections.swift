import ChirperCore

/// What the other views take from the last identification: `sono` draws its detections, `measure heard`
/// measures them.
extension SessionMachine.Identify {
    /// The last identification shown, and what it identified (kept while a newer one runs or after one fails).
    var last: (identification: Identification, task: SessionMachine.IdentifyTask)? {
        lastShown.map { ($0.identification, $0.task) }
    }

    /// The segments of the last identification when it was of `recording` (none otherwise), each detection
    /// marked as the identification's place check judged it.
    func heard(in recording: Recording) -> [SegmentDetections] {
        guard let last, last.task.recording.id == recording.id else { return [] }
        let check = last.identification.placeCheck
        return last.identification.segments.filter { !$0.detections.isEmpty }.map { segment in
            var marked = segment
            marked.detections = segment.detections.map { detection in
                var judged = detection
                judged.expected = check.expects(detection.species)
                return judged
            }
            return marked
        }
    }
}

extension SessionMachine {
    /// `measure detections`: each species of the last identification becomes a row of the selection table,
    /// measured over its most confident segment, across the band the classifier hears, named by the species.
    /// One row a species, not one a detection: a bird singing through a recording would fill the table with
    /// near copies of one song, each 3 s box holding whatever else sang; the segment the classifier is surest
    /// of is the clearest example of the species to measure and compare.
    mutating func measureDetections() {
        guard let last = identification.last else {
            refuse("nothing identified yet: identify a row first (e.g. identify 1), then measure detections")
            return
        }
        let task = last.task
        let selections = Self.bestSegments(last.identification).map { best in
            let end = task.item.expectedDuration.map { min($0, best.end) } ?? best.end
            return Selection(
                recording: task.recording, item: task.item, span: TimeSpan(start: best.start, end: end),
                band: SonogramRaster.classifierBand, name: best.species.english)
        }
        guard !selections.isEmpty else {
            refuse(
                "the last identify heard nothing at or above its minimum confidence: nothing to measure"
                    + " (identify again with a lower --min-confidence)")
            return
        }
        run(measure: .measureAll(selections))
    }

    /// Each species heard, the most confident first, with the segment it was heard in most surely (the
    /// earliest of equals).
    static func bestSegments(_ identification: Identification) -> [(species: Species, start: Double, end: Double)] {
        identification.summary.compactMap { entry in
            var best: (confidence: Double, start: Double, end: Double)?
            for segment in identification.segments {
                for detection in segment.detections where detection.species == entry.species {
                    if best.map({ detection.confidence > $0.confidence }) ?? true {
                        best = (detection.confidence, segment.start, segment.end)
                    }
                }
            }
            return best.map { (entry.species, $0.start, $0.end) }
        }
    }
}
