/// What the status rows show of `identify on` for the segment that plays.
public enum LiveIdentifyStatus: Sendable, Hashable {
    /// Nothing heard yet where playback is.
    case listening
    case heard(LiveSegment)
}

/// `identify on`: the species heard in the segment that plays, in the status rows; a line per segment in a pipe.
extension Presenter {
    /// The status row of `identify on`; nil in a pipe (where each segment has its lines).
    public func liveStatus(_ status: LiveIdentifyStatus) -> String? {
        guard !isScript else { return nil }
        guard case .heard(let segment) = status else { return dim("♪ listening…") }
        guard !segment.detections.isEmpty else { return dim("♪ no species heard") }
        // As many species as fit the row, most confident first; a first too long for it is cut.
        let room = width - 1
        var line = "♪"
        // Columns taken: the line holds escape codes where a species is dimmed.
        var used = 1
        for (n, detection) in segment.detections.enumerated() {
            let figure = " " + RavenSelectionTable.fixed(detection.confidence, 2)
            let name = clean(detection.species.english)
            let separator = n == 0 ? " " : " · "
            // A species not expected where and when the recording was made is dimmed, as `identify` shows it.
            let shown = { (text: String) in segment.placeCheck.expects(detection.species) ? text : self.dim(text) }
            if used + separator.count + name.count + figure.count <= room {
                line += separator + shown(name + figure)
                used += separator.count + name.count + figure.count
            } else {
                if n == 0 {
                    let fits = max(1, room - used - separator.count - figure.count - 1)
                    line += separator + shown(String(name.prefix(fits)) + "…" + figure)
                }
                break
            }
        }
        return line
    }

    /// `identify on` heard its first: whose model it is, once.
    public func liveOn() -> [String] {
        if isScript {
            return ["identify: listening on model=\(quote("BirdNET 2.4")) credit=\(quote(Self.birdNETCredit))"]
        }
        return wrapped(
            "identify on: a row above the status line shows who sings in each 3 s segment as it plays (identify off stops) · "
                + Self.birdNETCredit
        ).map(dim)
    }

    public func liveOff() -> [String] {
        isScript ? ["identify: listening off"] : [dim("identify off")]
    }

    /// A segment `identify on` heard, in a pipe: a line per species (none on a terminal, whose status row shows
    /// it when it plays).
    public func liveHeard(_ segment: LiveSegment, id: String) -> [String] {
        guard isScript else { return [] }
        return segment.detections.map { detection in
            "identify: live \(clean(id)) start=\(RavenSelectionTable.fixed(segment.start, 1))"
                + " end=\(RavenSelectionTable.fixed(segment.end, 1))"
                + " sci=\(quote(detection.species.scientific)) en=\(quote(detection.species.english))"
                + " confidence=\(RavenSelectionTable.fixed(detection.confidence, 3))"
                + (segment.placeCheck.expects(detection.species) ? "" : " expected=no")
        }
    }
}
