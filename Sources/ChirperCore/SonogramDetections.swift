/// The classifier's detections over a sonogram: in pixels a box over each segment heard, across the band the
/// classifier listens to, labelled with the species and the confidence; in text a line under the time axis per
/// species, marking the segments it was heard in, and a legend naming them.
extension SonogramRaster {
    /// The band BirdNET hears: its spectrograms stop at 15 kHz.
    public static let classifierBand = FrequencyBand(low: 0, high: 15_000)

    /// Detections are drawn in their own colour, apart from the annotation boxes' blue.
    static let detectionColour: (UInt8, UInt8, UInt8) = (215, 95, 0)
    /// The label of a species `identify` judged not expected there and then: grey, as the terminal dims it.
    static let unexpectedColour: (UInt8, UInt8, UInt8) = (128, 128, 128)

    /// Draws each segment of `heard` that has a detection as a box over its time and the classifier's band
    /// (clipped to the picture), its species stacked inside its top, one label a line as far as they fit. A
    /// label is left out where it would run over the previous one on its line, or where the segment before
    /// carries the same species on that line: a run of segments reads as one stretch, labelled once.
    static func draw(_ heard: [SegmentDetections], over sonogram: Sonogram, into image: inout RasterImage) {
        guard sonogram.duration > 0, sonogram.maxFrequency > sonogram.minFrequency else { return }
        let colour = detectionColour
        let band = classifierBand
        let rowOf = { (hz: Double) in
            Int((hz - sonogram.minFrequency) / (sonogram.maxFrequency - sonogram.minFrequency) * Double(sonogram.rows))
        }
        let low = max(0, rowOf(band.low))
        let high = min(sonogram.rows - 1, rowOf(band.high ?? sonogram.maxFrequency) - 1)
        guard high >= low else { return }
        let yTop = top + sonogram.rows - 1 - high
        let yBottom = top + sonogram.rows - 1 - low
        let lineHeight = PixelFont.height + 3
        let labelLines = max(1, (yBottom - yTop - 2) / lineHeight)
        var free = [Int](repeating: Int.min, count: labelLines)
        var previous: [Species?] = Array(repeating: nil, count: labelLines)
        for segment in heard.sorted(by: { $0.start < $1.start }) where !segment.detections.isEmpty {
            let x0 = Int((segment.start - sonogram.startTime) / sonogram.duration * Double(sonogram.columns))
            let x1 = Int((segment.end - sonogram.startTime) / sonogram.duration * Double(sonogram.columns))
            guard x1 >= 0, x0 < sonogram.columns else {
                previous = Array(repeating: nil, count: labelLines)
                continue
            }
            let (first, last) = (max(0, x0), min(sonogram.columns - 1, x1))
            for x in first...last {
                image.set(x: left + x, y: yTop, colour)
                image.set(x: left + x, y: yBottom, colour)
            }
            for y in yTop...yBottom {
                if x0 >= 0 { image.set(x: left + first, y: y, colour) }
                if x1 < sonogram.columns { image.set(x: left + last, y: y, colour) }
            }
            for line in 0..<labelLines {
                let species = line < segment.detections.count ? segment.detections[line].species : nil
                defer { previous[line] = species }
                guard let species, species != previous[line] else { continue }
                let x = left + first + 2
                guard x >= free[line] else { continue }
                let text = label(segment.detections[line])
                let y = yTop + 2 + line * lineHeight
                // A light ground under the letters: they stay legible over a loud sonogram.
                for dy in -1...PixelFont.height {
                    for dx in -1...PixelFont.width(text) { image.set(x: x + dx, y: y + dy, (250, 250, 250)) }
                }
                let ink = segment.detections[line].expected ? colour : unexpectedColour
                PixelFont.draw(text, left: x, top: y, into: &image, colour: ink)
                free[line] = x + PixelFont.width(text) + 6
            }
        }
    }

    /// `EURASIAN WREN 0.97`: the pixel font has capitals only.
    static func label(_ detection: Detection) -> String {
        let name = TerminalText.sanitize(detection.species.english).uppercased()
        return "\(name) \(RavenSelectionTable.fixed(detection.confidence, 2))"
    }
}

extension SonogramRenderer {
    /// At most this many species get a line of their own under a text sonogram; the legend counts the rest.
    public static let detectionLineLimit = 5

    /// The detections in the picture's window, under its time axis: a line per species (the most confident
    /// first), `━` over each segment it was heard in, its letter in the gutter; then the legend, one entry a
    /// species with its best confidence in the window. Empty when nothing heard falls in the window.
    public static func detectionLines(_ sonogram: Sonogram, heard: [SegmentDetections]) -> (
        marks: [String], legend: [String]
    ) {
        guard sonogram.duration > 0, sonogram.columns > 0 else { return ([], []) }
        let inWindow = heard.filter { $0.end > sonogram.startTime && $0.start < sonogram.endTime }
        let species = Identification(model: "", segments: inWindow).summary
        guard !species.isEmpty else { return ([], []) }
        let unexpected = Set(inWindow.flatMap { $0.detections.filter { !$0.expected }.map(\.species) })
        let perColumn = sonogram.duration / Double(sonogram.columns)
        let shown = species.prefix(detectionLineLimit)
        var marks: [String] = []
        var legend: [String] = []
        for (index, entry) in shown.enumerated() {
            let letter = String(Character(UnicodeScalar(UInt8(ascii: "A") + UInt8(index))))
            var line = [Character](repeating: " ", count: sonogram.columns)
            for segment in inWindow where segment.detections.contains(where: { $0.species == entry.species }) {
                let first = max(0, Int(((segment.start - sonogram.startTime) / perColumn).rounded(.down)))
                let last = min(
                    sonogram.columns - 1, Int(((segment.end - sonogram.startTime) / perColumn).rounded(.up)) - 1)
                guard first <= last else { continue }
                for column in first...last { line[column] = "━" }
            }
            let gutter = String(repeating: " ", count: gutterWidth - 2) + letter + " "
            marks.append(gutter + String(line).trimmingTrailingSpaces())
            legend.append(
                "\(letter) \(TerminalText.sanitize(entry.species.english)) \(RavenSelectionTable.fixed(entry.best, 2))"
                    + (unexpected.contains(entry.species) ? " (not expected there)" : ""))
        }
        if species.count > shown.count {
            legend.append("+\(species.count - shown.count) more (identify lists them)")
        }
        return (marks, legend)
    }
}
