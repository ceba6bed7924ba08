/// `compare`: the sections' pictures stacked, then their measurements side by side with the differences.
extension Presenter {
    /// One compared section: whose it is, its picture (on the comparison's dB scale) and its figures.
    public struct ComparedSection: Sendable, Hashable {
        public var recording: Recording
        public var sonogram: Sonogram
        public var measurement: SelectionMeasurement
        /// The band measured was found from the sound (a whole row), not chosen.
        public var bandFound: Bool

        public init(
            recording: Recording, sonogram: Sonogram, measurement: SelectionMeasurement, bandFound: Bool = false
        ) {
            self.recording = recording
            self.sonogram = sonogram
            self.measurement = measurement
            self.bandFound = bandFound
        }
    }

    /// The figures a comparison sets side by side: name, pipe key, value, in hertz or not.
    private static let comparedFigures: [(String, String, @Sendable (SelectionMeasurement) -> Double, Bool)] = [
        ("peak freq", "peak_freq", { $0.peakFrequency }, true),
        ("centre freq", "center_freq", { $0.centerFrequency }, true),
        ("freq 5 %", "freq5", { $0.frequency5 }, true),
        ("freq 95 %", "freq95", { $0.frequency95 }, true),
        ("BW 90 %", "bw90", { $0.bandwidth90 }, true),
        ("BW 50 %", "bw50", { $0.bandwidth50 }, true),
        ("dur 90 %", "dur90", { $0.duration90 }, false),
        ("entropy", "entropy", { $0.averageEntropy }, false),
        ("PFC slope", "pfc_slope", { $0.contourSlope }, false),
    ]

    /// A, B, C, D.
    public static func abName(_ index: Int) -> String { String(UnicodeScalar(UInt8(65 + min(25, max(0, index))))) }

    /// `ab`: the side about to be heard.
    public func abSide(_ index: Int, recording: Recording, span: TimeSpan) -> String {
        let name = Self.abName(index)
        if isScript {
            return "ab: side=\(name) id=\(quote(recording.label)) begin=\(RavenSelectionTable.fixed(span.start, 3))"
                + " end=\(RavenSelectionTable.fixed(span.end, 3))"
        }
        return dim("\(name): \(clean(recording.label)) \(clean(recording.englishName)), ")
            + dim("\(preciseClock(span.start))-\(preciseClock(span.end))")
    }

    /// `stop` between two sides of A/B.
    public var abStopped: String { isScript ? "ab: stopped" : "A/B listening stopped" }

    public func comparison(_ sections: [ComparedSection]) -> [String] {
        let names = sections.indices.map(Self.abName)
        var lines: [String] = []
        for (name, section) in zip(names, sections) {
            let m = section.measurement
            let recording = section.recording
            if isScript {
                lines.append(
                    "compare: \(name) id=\(quote(recording.label)) en=\(quote(recording.englishName))"
                        + " rec=\(quote(recording.recordist)) begin=\(RavenSelectionTable.fixed(m.begin, 3))"
                        + " end=\(RavenSelectionTable.fixed(m.end, 3)) low=\(Int(m.low.rounded()))"
                        + " high=\(Int(m.high.rounded())) band=\(section.bandFound ? "found" : "selected")")
                lines += SonogramRenderer.scriptLines(section.sonogram, label: recording.label).dropFirst()
            } else {
                lines.append(
                    bold("\(name)  \(clean(recording.label)) \(clean(recording.englishName))")
                        + dim("  \(clean(recording.recordist)) · \(preciseClock(m.begin))-\(preciseClock(m.end))")
                        + dim(
                            " · measured in \(kHz(m.low))-\(kHz(m.high)) kHz\(section.bandFound ? ", where its sound is" : "")"
                        ))
                lines += sonogramRenderer.terminalLines(section.sonogram)
            }
        }
        let diff = sections.count == 2
        for (title, key, value, isHz) in Self.comparedFigures {
            let values = sections.map { value($0.measurement) }
            let shown = values.map { isHz ? String(Int($0.rounded())) : RavenSelectionTable.fixed($0, 3) }
            let difference = diff ? values[1] - values[0] : 0
            let change = isHz ? String(Int(difference.rounded())) : RavenSelectionTable.fixed(difference, 3)
            let signed = difference > 0 ? "+" + change : change
            if isScript {
                let cells = zip(names, shown).map { "\($0)=\($1)" }.joined(separator: " ")
                lines.append("compare: \(key) \(cells)" + (diff ? " diff=\(signed)" : ""))
            } else {
                let cells = shown.map { $0.leftPadded(to: 10) }.joined()
                lines.append(
                    "  " + title.rightPadded(to: 12) + cells + (diff ? signed.leftPadded(to: 10) : "")
                        + (isHz ? " Hz" : ""))
            }
        }
        if !isScript {
            let head = "  " + "".rightPadded(to: 12) + names.map { $0.leftPadded(to: 10) }.joined()
            lines.insert(
                bold(head + (diff ? "B-A".leftPadded(to: 10) : "")), at: lines.count - Self.comparedFigures.count)
        }
        return lines
    }
}

/// `2.1`, `12`: a band's edge in kHz as a user would type it.
private func kHz(_ hertz: Double) -> String {
    let tenths = Int((hertz / 100).rounded())
    return tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    fileprivate func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
