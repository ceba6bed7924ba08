/// A finished sonogram picture: `rows × columns` levels, linear in frequency from `minFrequency` (the lower
/// edge of row 0) to `maxFrequency` (the top edge of the last row), columns in time order from `startTime`
/// over `duration` seconds.
///
/// Pure data, the size of the picture, whatever the recording's length.
public struct Sonogram: Sendable, Hashable {
    /// Rows of the picture (frequency bands, row 0 the lowest).
    public var rows: Int
    /// Columns of the picture (time slices, column 0 the earliest).
    public var columns: Int
    /// Row-major levels in 0…1: 0 the floor (silence), 1 the ceiling (full scale). `levels[row * columns + column]`.
    public var levels: [Float]
    /// The frequency at the top edge of the top row, in Hz.
    public var maxFrequency: Double
    /// The frequency at the lower edge of row 0, in Hz.
    public var minFrequency: Double
    /// Seconds of audio the columns cover.
    public var duration: Double
    /// Recording time of the left edge of column 0, in seconds.
    public var startTime: Double
    /// The recording's sample rate.
    public var sampleRate: Int
    /// The dB levels drawn as 0 and as 1 (relative to a full-scale sine).
    public var floorDB: Float
    public var ceilingDB: Float
    /// Samples in the analysis window and between windows; points of the (zero-padded) transform.
    public var fftSize: Int
    public var hop: Int
    public var dftSize: Int

    public init(
        rows: Int, columns: Int, levels: [Float], maxFrequency: Double, minFrequency: Double = 0,
        duration: Double, startTime: Double = 0, sampleRate: Int, floorDB: Float = -90, ceilingDB: Float = -10,
        fftSize: Int = 512, hop: Int = 256, dftSize: Int? = nil
    ) {
        precondition(levels.count == rows * columns, "levels must hold rows × columns values")
        self.rows = rows
        self.columns = columns
        self.levels = levels
        self.maxFrequency = maxFrequency
        self.minFrequency = minFrequency
        self.duration = duration
        self.startTime = startTime
        self.sampleRate = sampleRate
        self.floorDB = floorDB
        self.ceilingDB = ceilingDB
        self.fftSize = fftSize
        self.hop = hop
        self.dftSize = dftSize ?? fftSize
    }

    /// The recording time of the right edge of the last column.
    public var endTime: Double { startTime + duration }

    /// The level at `row` (0 = lowest frequency) and `column` (0 = earliest).
    public func level(row: Int, column: Int) -> Float {
        levels[row * columns + column]
    }

    /// The row holding `frequency` Hz (clamped to the picture).
    public func row(forFrequency frequency: Double) -> Int {
        guard maxFrequency > minFrequency else { return 0 }
        return min(rows - 1, max(0, Int((frequency - minFrequency) / (maxFrequency - minFrequency) * Double(rows))))
    }

    /// The same picture at another size: each new cell the loudest of the cells it covers (so a brief call
    /// is never averaged away), or a copy of the one it falls in when enlarged.
    public func resampled(columns newColumns: Int, rows newRows: Int) -> Sonogram {
        let newColumns = max(1, newColumns)
        let newRows = max(1, newRows)
        var resized = [Float](repeating: 0, count: newColumns * newRows)
        for row in 0..<newRows {
            let firstRow = row * rows / newRows
            let endRow = max(firstRow + 1, (row + 1) * rows / newRows)
            for column in 0..<newColumns {
                let firstColumn = column * columns / newColumns
                let endColumn = max(firstColumn + 1, (column + 1) * columns / newColumns)
                var peak: Float = 0
                for r in firstRow..<endRow {
                    for c in firstColumn..<endColumn { peak = max(peak, levels[r * columns + c]) }
                }
                resized[row * newColumns + column] = peak
            }
        }
        var copy = self
        copy.rows = newRows
        copy.columns = newColumns
        copy.levels = resized
        return copy
    }

    /// The same picture on another dB scale (`floor` to `ceiling`), so pictures can be compared level for
    /// level. A cell at this picture's floor stays at the new floor's side (what was below it is not known).
    public func rescaled(floor newFloor: Float, ceiling newCeiling: Float) -> Sonogram {
        let span = max(1e-6, newCeiling - newFloor)
        var copy = self
        copy.levels = levels.map { level in
            let db = floorDB + level * (ceilingDB - floorDB)
            return min(1, max(0, (db - newFloor) / span))
        }
        copy.floorDB = newFloor
        copy.ceilingDB = newCeiling
        return copy
    }

    /// The loudest row of `column` (the lowest on a tie).
    public func brightestRow(column: Int) -> Int {
        var best = 0
        for row in 0..<rows where level(row: row, column: column) > level(row: best, column: column) {
            best = row
        }
        return best
    }
}

/// The power spectrum of one windowed frame: a real FFT, injected so the model stays free of C.
///
/// `power` receives up to `size` samples and their window, and writes `size / 2 + 1` squared magnitudes (bin k is
/// k·rate/size Hz).
public protocol PowerSpectrumTransform: AnyObject {
    /// Points of the transform.
    var size: Int { get }
    /// Writes into `output` the power of each bin of `input` multiplied, sample by sample, by `window` (as many
    /// as `input`, at most `size`; the transform's remaining points are zero).
    func power(
        of input: UnsafeBufferPointer<Float>, windowedBy window: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>)
}

/// A section of a recording, in seconds.
public struct TimeSpan: Sendable, Hashable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    public var duration: Double { end - start }
}

/// How levels map to grey.
public enum SonogramContrast: Sendable, Hashable {
    /// Floor and ceiling from the picture itself: its 20th and 99.9th percentile dB, so the background is
    /// light and the calls dark whatever the recording's level (as on xeno-canto).
    case auto
    /// A fixed range in dB relative to a full-scale sine (`--contrast fixed`: −90 to −10).
    case fixed(floor: Float, ceiling: Float)

    public static let fixedDefault = SonogramContrast.fixed(floor: -90, ceiling: -10)
}

/// The parameters of a sonogram that do not depend on the audio.
public struct SonogramShape: Sendable, Hashable {
    /// Columns wanted (the picture's width: characters, or pixels).
    public var columns: Int
    /// Rows wanted (pixel rows: two per text line with half-blocks, one with shade characters).
    public var rows: Int
    /// The top of the frequency axis in Hz; nil for the recording's Nyquist frequency.
    public var maxFrequency: Double?
    /// The bottom of the frequency axis in Hz.
    public var minFrequency: Double
    /// The section of the recording to draw; nil for all of it.
    public var window: TimeSpan?
    public var contrast: SonogramContrast

    public init(
        columns: Int, rows: Int, maxFrequency: Double? = nil, minFrequency: Double = 0, window: TimeSpan? = nil,
        contrast: SonogramContrast = .auto
    ) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.maxFrequency = maxFrequency
        self.minFrequency = max(0, minFrequency)
        self.window = window
        self.contrast = contrast
    }

    /// FFT points and hop for a picture of this shape over `duration` seconds at `rate`. The window follows the
    /// time a column covers (the power of two nearest it), from Raven's default of about 11.6 ms (512 points
    /// at 44.1 kHz: short enough to separate a song's notes) up to 2048 points at 48 kHz (scaled with the
    /// rate). A zoomed view (a column shorter than the window) overlaps 75 %, as Raven does; a long view
    /// overlaps 50 % (every sample is still seen, and a column takes the loudest of its frames).
    ///
    /// The window is zero-padded (`dft`) until a bin is no wider than a row of the picture (at most 8 times),
    /// so a tone's darkest pixel lands on its own row even when a zoomed band has rows a few hertz tall.
    public func fftPlan(sampleRate rate: Int, duration: Double) -> (size: Int, hop: Int, dft: Int) {
        let rate = max(1, rate)
        let largest = Self.powerOfTwo(atLeast: Int(2048 * max(1, Double(rate) / 48_000)))
        let columnSamples = max(0, duration) / Double(columns) * Double(rate)
        let wanted = max(columnSamples, 0.0116 * Double(rate))
        var size = 64
        while size < largest && Double(size) * 1.414 < wanted { size *= 2 }
        let top = min(maxFrequency ?? Double(rate) / 2, Double(rate) / 2)
        let rowHz = max(1, (top - minFrequency) / Double(rows))
        var dft = size
        while dft < size * 8 && Double(rate) / Double(dft) > rowHz { dft *= 2 }
        return (size, columnSamples >= Double(size) ? size / 2 : size / 4, dft)
    }

    private static func powerOfTwo(atLeast value: Int) -> Int {
        var size = 1
        while size < value { size *= 2 }
        return size
    }
}
