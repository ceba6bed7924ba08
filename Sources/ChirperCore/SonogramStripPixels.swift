/// The live strip in real pixels: the same pages as the half-block strip (a text column is 0.1 s of sound, the
/// marker line below is the same), drawn as one image over the picture lines, whose text keeps only the gutter.
extension SonogramRenderer {
    /// Text columns of the live strip for a recording of `duration` seconds: ten a second (the marker moves in
    /// 0.1 s steps), at most 20 000 (memory stays bounded for long recordings).
    public static func stripCells(duration: Double?) -> Int {
        min(20_000, max(100, Int(((duration ?? 60) * 10).rounded(.up))))
    }

    /// Levels a pixel strip's picture may hold (4 bytes each): 8 MB, whatever the recording's length.
    public static let stripPixelBudget = 2_000_000

    /// The picture to compute for a pixel strip of `cells` text columns and `lines` lines: a cell's pixels for
    /// each text column (fewer for a long recording, within `stripPixelBudget`), a cell's pixels for each line.
    public static func stripPixelShape(cells: Int, lines: Int, canvas: PixelCanvas) -> (columns: Int, rows: Int) {
        let rows = max(1, lines) * canvas.cellHeight
        return (max(cells, min(cells * canvas.cellWidth, stripPixelBudget / rows)), rows)
    }

    /// The text columns of a pixel strip's picture: its time span in `stripCells` columns, with no rows. Pages
    /// and the marker line are laid out on it, as on a half-block strip's picture.
    public static func stripGrid(_ sonogram: Sonogram) -> Sonogram {
        Sonogram(
            rows: 0, columns: stripCells(duration: sonogram.duration), levels: [],
            maxFrequency: sonogram.maxFrequency, minFrequency: sonogram.minFrequency, duration: sonogram.duration,
            startTime: sonogram.startTime, sampleRate: sonogram.sampleRate)
    }

    /// The image of `page` (in text columns of a grid of `cells`): `visible × cellWidth` pixels wide and
    /// `lines × cellHeight` high, dark on light (loud is dark), as `SonogramRaster` draws.
    public static func stripImage(_ sonogram: Sonogram, page: StripPage, cells: Int, canvas: PixelCanvas)
        -> RasterImage
    {
        let width = page.visible * canvas.cellWidth
        let height = page.lines * canvas.cellHeight
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        guard sonogram.rows > 0, sonogram.columns > 0 else { return RasterImage(width: width, height: height) }
        let total = max(1, cells * canvas.cellWidth)
        let sourceRows = (0..<height).map { y in sonogram.rows - 1 - min(sonogram.rows - 1, y * sonogram.rows / height)
        }
        for x in 0..<width {
            let column = min(sonogram.columns - 1, (page.start * canvas.cellWidth + x) * sonogram.columns / total)
            for (y, row) in sourceRows.enumerated() {
                let level = min(1, max(0, sonogram.levels[row * sonogram.columns + column]))
                let grey = UInt8((255 * (1 - level)).rounded())
                let index = (y * width + x) * 4
                rgba[index] = grey
                rgba[index + 1] = grey
                rgba[index + 2] = grey
            }
        }
        return RasterImage(width: width, height: height, rgba: rgba)
    }
}

/// The live strip's rows above the status line, and its image in real pixels when it has one.
public struct StripView: Sendable, Hashable {
    public var rows: [String]
    public var picture: StripImage?

    public init(rows: [String] = [], picture: StripImage? = nil) {
        self.rows = rows
        self.picture = picture
    }
}

/// The live strip's picture in real pixels: one page of one play request, to be drawn over the strip's first
/// `lines` rows from screen column `column` on (the gutter is left of it).
public struct StripImage: Sendable, Hashable {
    /// The page, of which play request and band, on which canvas, and its lines.
    public var key: StripPictureLines.Key
    public var canvas: PixelCanvas
    public var image: RasterImage
    public var column: Int
    public var lines: Int { key.page.lines }

    /// Equal when they show the same page at the same place: the key holds the canvas and the lines, and the
    /// pixels follow from them, so they are not compared (the status is compared ten times a second).
    public static func == (a: StripImage, b: StripImage) -> Bool {
        a.key == b.key && a.column == b.column
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(column)
    }
}
