/// `identify`: the species heard per segment, the summary per species, and, for an archive row, how that
/// meets what the recordist listed.
extension Presenter {
    /// Whose model it is, and the licence that binds its use: said wherever the model is used.
    public static let birdNETCredit =
        "BirdNET: Kahl, Wood, Eibl, Klinck 2021, Cornell Lab of Ornithology and TU Chemnitz; CC BY-NC-SA 4.0"

    /// Everything `identify` says of `identification` of `recording`. Species not expected where and when it was
    /// recorded are marked in each segment and left out of the summary unless `all`, and how many is said.
    public func identification(
        _ identification: Identification, of recording: Recording, span: TimeSpan?, all: Bool = false
    ) -> [String] {
        let placeCheck = identification.placeCheck
        let everything = identification.summary
        let unexpected = everything.filter { !placeCheck.expects($0.species) }
        let summary = all ? everything : everything.filter { placeCheck.expects($0.species) }
        let heard = Set(everything.map { Self.binomial($0.species.scientific) })
        let own = Self.binomial("\(recording.genus) \(recording.species)")
        let also = recording.background.map(Self.binomial).filter { !$0.isEmpty }
        let listed = Set([own] + also)
        let unlisted = everything.filter { !listed.contains(Self.binomial($0.species.scientific)) }
        if isScript {
            let id = clean(recording.label)
            let marked = { (species: Species) in placeCheck.expects(species) ? "" : " expected=no" }
            var lines = identification.segments.flatMap { segment in
                segment.detections.map { detection in
                    "identify: \(id) start=\(tenths(segment.start)) end=\(tenths(segment.end))"
                        + " sci=\(quote(detection.species.scientific)) en=\(quote(detection.species.english))"
                        + " confidence=\(fixed(detection.confidence, 3))" + marked(detection.species)
                }
            }
            lines += summary.map { entry in
                "identify: species \(id) sci=\(quote(entry.species.scientific)) en=\(quote(entry.species.english))"
                    + " best=\(fixed(entry.best, 3)) segments=\(entry.segments) first=\(tenths(entry.first))"
                    + " last=\(tenths(entry.last))" + marked(entry.species)
            }
            if !own.isEmpty {
                lines.append(
                    "identify: listed \(id) own=\(quote("\(recording.genus) \(recording.species)")) own_heard=\(heard.contains(own) ? "yes" : "no")"
                        + " also_heard=\(also.filter { heard.contains($0) }.count)"
                        + " also_not_heard=\(also.filter { !heard.contains($0) }.count)"
                        + " unlisted=\(unlisted.count)")
            }
            lines.append("identify: place \(id) " + placeFields(placeCheck))
            lines.append(
                "identify: done \(id) segments=\(identification.segments.count)"
                    + " detections=\(identification.detectionCount) unexpected=\(unexpected.count)"
                    + " model=\(quote(identification.model)) credit=\(quote(Self.birdNETCredit))")
            return lines
        }
        let stretch = span.map { " \(clock($0.start))-\(clock($0.end))" } ?? ""
        var lines = [
            bold("identify \(clean(recording.label))") + " \(clean(recording.englishName))\(stretch)"
                + dim(" · \(identification.model)")
        ]
        for segment in identification.segments where !segment.detections.isEmpty {
            let names = segment.detections.map { detection in
                let name = "\(clean(detection.species.english)) \(fixed(detection.confidence, 2))"
                return placeCheck.expects(detection.species) ? name : dim(name)
            }
            lines += wrapped(words: ["  \(clock(segment.start))-\(clock(segment.end))"] + names, indent: 14)
        }
        let place = placeSaid(placeCheck, unexpected: unexpected.map(\.species), all: all)
        guard !summary.isEmpty else {
            lines.append(
                everything.isEmpty
                    ? "  nothing heard at or above the minimum confidence in \(identification.segments.count) segments"
                        + " (try --min-confidence 0.05)"
                    : "  only species not expected there and then were heard (identify --all lists them)")
            return lines + place + wrapped("  " + Self.birdNETCredit).map(dim)
        }
        lines.append(dim("  species, best confidence, segments heard, first-last:"))
        for entry in summary {
            let name = "\(clean(entry.species.english)) (\(clean(entry.species.scientific)))"
            let figures = "\(fixed(entry.best, 2)) ×\(entry.segments) \(clock(entry.first))-\(clock(entry.last))"
            let line = "  " + fitted(name, width - 4 - figures.count) + " " + figures
            lines.append(placeCheck.expects(entry.species) ? line : dim(line))
        }
        if !own.isEmpty {
            var said =
                heard.contains(own)
                ? "the recordist's species is heard"
                : "the recordist's species (\(clean(recording.genus)) \(clean(recording.species))) is not heard"
            let alsoHeard = also.filter { heard.contains($0) }
            if !also.isEmpty { said += "; of \(also.count) also listed, \(alsoHeard.count) heard" }
            if !unlisted.isEmpty {
                said += "; not listed: " + unlisted.prefix(5).map { clean($0.species.english) }.joined(separator: ", ")
            }
            lines += wrapped("  " + said)
        }
        return lines + place + wrapped("  " + Self.birdNETCredit).map(dim)
    }

    /// A scientific name as the classifier and the archive both write it: genus and species, lower case (a
    /// subspecies left out).
    static func binomial(_ name: String) -> String {
        name.lowercased().split(whereSeparator: \.isWhitespace).prefix(2).joined(separator: " ")
    }

    /// `text` cut to `columns` characters (with an ellipsis), or padded to them.
    private func fitted(_ text: String, _ columns: Int) -> String {
        let columns = max(8, columns)
        if text.count > columns { return String(text.prefix(columns - 1)) + "…" }
        return text + String(repeating: " ", count: columns - text.count)
    }

    func tenths(_ value: Double) -> String { RavenSelectionTable.fixed(value, 1) }
    func fixed(_ value: Double, _ places: Int) -> String { RavenSelectionTable.fixed(value, places) }
}

extension Presenter {
    /// On a terminal, while the classifier listens.
    public func identifying(_ recording: Recording, span: TimeSpan?) -> String {
        let stretch = span.map { " \(clock($0.start))-\(clock($0.end))" } ?? ""
        return dim("identifying \(clean(recording.label))\(stretch)… (Ctrl-C stops)")
    }
}
