/// `identify`'s word on where and when: which place, week or species list judged what is expected, and which
/// species heard were not.
extension Presenter {
    /// The fields of the pipe's `identify: place` line.
    func placeFields(_ placeCheck: PlaceCheck) -> String {
        switch placeCheck {
        case .noPlace:
            return "source=none"
        case .unavailable(let reason):
            return "source=unavailable reason=\(quote(reason))"
        case .judged(let expected):
            switch expected.source {
            case .place(let place):
                return "source=meta-model lat=\(fixed(place.latitude, 4)) lon=\(fixed(place.longitude, 4))"
                    + " week=\(place.week.map(String.init) ?? "all") threshold=\(ExpectedSpecies.threshold)"
                    + " expected=\(expected.names.count)"
            case .list(let path, let unknown):
                return "source=list file=\(quote(path)) expected=\(expected.names.count) not_birdnet=\(unknown.count)"
            }
        }
    }

    /// On a terminal: what judged the species, and those heard that it did not expect.
    func placeSaid(_ placeCheck: PlaceCheck, unexpected: [Species], all: Bool) -> [String] {
        // Names stay whole when the line wraps: a species is one word of it.
        var judge: [String]
        switch placeCheck {
        case .noPlace:
            return wrapped(
                "  no place or date for this recording: species not checked against where and when"
                    + " (identify --species-list FILE checks them against a list)")
        case .unavailable(let reason):
            return wrapped("  where and when not checked: \(reason)")
        case .judged(let expected):
            switch expected.source {
            case .place(let place):
                let week = place.week.map { "in week \($0) of 48" } ?? "in any week (no date)"
                judge =
                    words("at \(fixed(place.latitude, 2)), \(fixed(place.longitude, 2)) \(week), BirdNET expects")
                    + words("\(expected.names.count) species")
            case .list(let path, let unknown):
                judge = words("the list") + [clean(path)] + words("names \(expected.names.count) species")
                if !unknown.isEmpty {
                    judge +=
                        words("(\(unknown.count) of its names are not BirdNET's:")
                        + Self.listed(unknown.prefix(3).map(clean), more: unknown.count > 3, closing: ")")
                }
            }
        }
        judge[judge.count - 1] += ";"
        guard !unexpected.isEmpty else {
            return wrapped(words: [" "] + judge + words("every species heard is among them"))
        }
        let shown = all ? "dimmed above" : "dimmed, and left out of the summary; --all lists them"
        return wrapped(
            words: [" "] + judge
                + words("\(unexpected.count) heard are not (\(shown)):")
                + Self.listed(unexpected.prefix(5).map { clean($0.english) }, more: unexpected.count > 5, closing: ""))
    }

    private func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    /// Names as words of a sentence: commas between, an ellipsis for those left out, `closing` after the last.
    private static func listed(_ names: [String], more: Bool, closing: String) -> [String] {
        names.enumerated().map { index, name in
            index < names.count - 1 ? name + "," : name + (more ? ", …" : "") + closing
        }
    }
}
