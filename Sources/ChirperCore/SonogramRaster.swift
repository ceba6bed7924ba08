/// An RGBA picture, 8 bits a channel, rows top first.
public struct RasterImage: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var rgba: [UInt8]

    public init(width: Int, height: Int, fill: UInt8 = 255) {
        self.width = width
        self.height = height
        rgba = [UInt8](repeating: fill, count: width * height * 4)
    }

    public init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(rgba.count == width * height * 4, "rgba must hold width × height pixels")
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// The grey (red channel) at `x`, `y`.
    public func grey(x: Int, y: Int) -> UInt8 { rgba[(y * width + x) * 4] }

    mutating func set(x: Int, y: Int, _ colour: (UInt8, UInt8, UInt8)) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let index = (y * width + x) * 4
        rgba[index] = colour.0
        rgba[index + 1] = colour.1
        rgba[index + 2] = colour.2
        rgba[index + 3] = 255
    }
}

/// Draws a `Sonogram` at pixel resolution, as xeno-canto draws them (dark on light: loud is dark), with a kHz
/// axis on the left (ticks at round kHz), seconds below, the annotation boxes with their numbers and an
/// optional play-position marker. The picture area is exactly the sonogram's `columns × rows`, at
/// (`left`, `top`); the pixel of column c, row r (0 the lowest) is (`left + c`, `top + rows − 1 − r`).
public enum SonogramRaster {
    /// Margins around the picture area, in pixels.
    public static let left = 34
    public static let top = 6
    public static let right = 8
    public static let bottom = 18

    /// A box to draw over the picture, numbered as `loop ann` numbers it.
    public struct Box: Sendable, Hashable {
        public var number: Int
        public var span: TimeSpan
        public var band: FrequencyBand?

        public init(number: Int, span: TimeSpan, band: FrequencyBand?) {
            self.number = number
            self.span = span
            self.band = band
        }
    }

    /// The whole image's size for a picture area of `columns × rows`.
    public static func size(columns: Int, rows: Int) -> (width: Int, height: Int) {
        (left + columns + right, top + rows + bottom)
    }

    /// The picture area for an image about `width` pixels wide and `height` high.
    public static func area(width: Int, height: Int) -> (columns: Int, rows: Int) {
        (max(16, width - left - right), max(16, height - top - bottom))
    }

    /// The picture alone, a pixel a cell, low frequencies at the bottom: no axes, no frame (cover art).
    public static func plain(_ sonogram: Sonogram) -> RasterImage {
        var image = RasterImage(width: sonogram.columns, height: sonogram.rows)
        paint(sonogram, into: &image, left: 0, top: 0)
        return image
    }

    /// Each cell of `sonogram` as a grey pixel (dark is loud), its top left corner at `left`, `top`.
    private static func paint(_ sonogram: Sonogram, into image: inout RasterImage, left: Int, top: Int) {
        for row in 0..<sonogram.rows {
            let y = top + sonogram.rows - 1 - row
            for column in 0..<sonogram.columns {
                let grey = UInt8((255 * (1 - min(1, max(0, sonogram.level(row: row, column: column))))).rounded())
                image.set(x: left + column, y: y, (grey, grey, grey))
            }
        }
    }

    /// The picture with its axes, the detections `heard` (under the annotation boxes) and the annotation boxes.
    public static func image(
        _ sonogram: Sonogram, boxes: [Box] = [], heard: [SegmentDetections] = [], marker: Double? = nil
    ) -> RasterImage {
        let (width, height) = size(columns: sonogram.columns, rows: sonogram.rows)
        var image = RasterImage(width: width, height: height)
        paint(sonogram, into: &image, left: left, top: top)
        let axis: (UInt8, UInt8, UInt8) = (60, 60, 60)
        // The frame: left and bottom axes.
        for y in top..<(top + sonogram.rows + 1) { image.set(x: left - 1, y: y, axis) }
        for x in (left - 1)..<(left + sonogram.columns) { image.set(x: x, y: top + sonogram.rows, axis) }
        frequencyAxis(sonogram, into: &image, colour: axis)
        timeAxis(sonogram, into: &image, colour: axis)
        draw(heard, over: sonogram, into: &image)
        for box in boxes { draw(box, over: sonogram, into: &image) }
        if let marker, sonogram.duration > 0 {
            let column = Int((marker - sonogram.startTime) / sonogram.duration * Double(sonogram.columns))
            if (0..<sonogram.columns).contains(column) {
                for y in top..<(top + sonogram.rows) { image.set(x: left + column, y: y, (220, 30, 30)) }
            }
        }
        return image
    }

    /// Ticks at round kHz, at least 24 pixels apart, labelled `2k`, `2.5k`.
    private static func frequencyAxis(
        _ sonogram: Sonogram, into image: inout RasterImage, colour: (UInt8, UInt8, UInt8)
    ) {
        let span = sonogram.maxFrequency - sonogram.minFrequency
        guard span > 0 else { return }
        let perPixel = span / Double(sonogram.rows)
        let steps: [Double] = [100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000]
        let step = steps.first { $0 / perPixel >= 24 } ?? 100_000
        var hz = (sonogram.minFrequency / step).rounded(.up) * step
        while hz <= sonogram.maxFrequency + 1e-6 {
            let row = Int(((hz - sonogram.minFrequency) / perPixel).rounded())
            let y = top + sonogram.rows - min(sonogram.rows, row)
            for x in (left - 4)..<(left - 1) { image.set(x: x, y: y, colour) }
            let khz = hz / 1000
            let label = (khz == khz.rounded() ? String(Int(khz)) : String(format1: khz)) + "k"
            PixelFont.draw(label, rightEdge: left - 6, centreY: y, into: &image, colour: colour)
            hz += step
        }
    }

    /// Ticks at round seconds, labels at least their own width apart.
    private static func timeAxis(_ sonogram: Sonogram, into image: inout RasterImage, colour: (UInt8, UInt8, UInt8)) {
        guard sonogram.duration > 0 else { return }
        let perPixel = sonogram.duration / Double(sonogram.columns)
        let steps: [Double] = [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600]
        let step = steps.first { $0 / perPixel >= 48 } ?? 3600
        var time = (sonogram.startTime / step).rounded(.up) * step
        let y = top + sonogram.rows
        while time <= sonogram.endTime + 1e-9 {
            let x = left + min(sonogram.columns - 1, Int(((time - sonogram.startTime) / perPixel).rounded()))
            for dy in 1...3 { image.set(x: x, y: y + dy, colour) }
            PixelFont.draw(
                SonogramRenderer.timeLabel(time, step: step), centreX: x, top: y + 6, into: &image, colour: colour)
            time += step
        }
    }

    private static func draw(_ box: Box, over sonogram: Sonogram, into image: inout RasterImage) {
        guard sonogram.duration > 0, sonogram.maxFrequency > sonogram.minFrequency else { return }
        let colour: (UInt8, UInt8, UInt8) = (30, 110, 230)
        let x0 = Int((box.span.start - sonogram.startTime) / sonogram.duration * Double(sonogram.columns))
        let x1 = Int((box.span.end - sonogram.startTime) / sonogram.duration * Double(sonogram.columns))
        guard x1 >= 0, x0 < sonogram.columns else { return }
        let row = { (hz: Double) in
            Int((hz - sonogram.minFrequency) / (sonogram.maxFrequency - sonogram.minFrequency) * Double(sonogram.rows))
        }
        let low = max(0, row(box.band?.low ?? sonogram.minFrequency))
        let high = min(sonogram.rows - 1, row(box.band?.high ?? sonogram.maxFrequency) - 1)
        guard high >= low else { return }
        let (left, right) = (max(0, x0), min(sonogram.columns - 1, x1))
        let yTop = top + sonogram.rows - 1 - high
        let yBottom = top + sonogram.rows - 1 - low
        for x in left...right {
            image.set(x: Self.left + x, y: yTop, colour)
            image.set(x: Self.left + x, y: yBottom, colour)
        }
        for y in yTop...yBottom {
            if x0 >= 0 { image.set(x: Self.left + left, y: y, colour) }
            if x1 < sonogram.columns { image.set(x: Self.left + right, y: y, colour) }
        }
        PixelFont.draw(String(box.number), left: Self.left + left + 2, top: yTop + 2, into: &image, colour: colour)
    }
}

/// A 3×5 pixel font, drawn at twice its size, for the axes' labels: digits and `.:-ks`.
enum PixelFont {
    static let scale = 2
    static let glyphs: [Character: [String]] = [
        "0": ["###", "#.#", "#.#", "#.#", "###"], "1": [".#.", "##.", ".#.", ".#.", "###"],
        "2": ["###", "..#", "###", "#..", "###"], "3": ["###", "..#", "###", "..#", "###"],
        "4": ["#.#", "#.#", "###", "..#", "..#"], "5": ["###", "#..", "###", "..#", "###"],
        "6": ["###", "#..", "###", "#.#", "###"], "7": ["###", "..#", ".#.", ".#.", ".#."],
        "8": ["###", "#.#", "###", "#.#", "###"], "9": ["###", "#.#", "###", "..#", "###"],
        ".": ["...", "...", "...", "...", ".#."], ":": ["...", ".#.", "...", ".#.", "..."],
        "-": ["...", "...", "###", "...", "..."], "k": ["#..", "#.#", "##.", "#.#", "#.#"],
        "s": ["...", ".##", ".#.", "..#", "##."],
    ]

    /// Width of `text` in pixels.
    static func width(_ text: String) -> Int { max(0, text.count * 4 * scale - scale) }
    static var height: Int { 5 * scale }

    static func draw(
        _ text: String, rightEdge: Int, centreY: Int, into image: inout RasterImage, colour: (UInt8, UInt8, UInt8)
    ) {
        draw(text, left: rightEdge - width(text), top: centreY - height / 2, into: &image, colour: colour)
    }

    static func draw(
        _ text: String, centreX: Int, top: Int, into image: inout RasterImage, colour: (UInt8, UInt8, UInt8)
    ) {
        let left = min(image.width - width(text), max(0, centreX - width(text) / 2))
        draw(text, left: left, top: top, into: &image, colour: colour)
    }

    static func draw(_ text: String, left: Int, top: Int, into image: inout RasterImage, colour: (UInt8, UInt8, UInt8))
    {
        var x = left
        for character in text {
            if let rows = glyph(character) {
                for (dy, row) in rows.enumerated() {
                    for (dx, bit) in row.enumerated() where bit == "#" {
                        for sy in 0..<scale {
                            for sx in 0..<scale { image.set(x: x + dx * scale + sx, y: top + dy * scale + sy, colour) }
                        }
                    }
                }
            }
            x += 4 * scale
        }
    }
}
