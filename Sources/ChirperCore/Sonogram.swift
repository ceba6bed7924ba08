/// A finished sonogram picture: `rows × columns` levels, linear in frequency from 0 Hz (row 0) to
/// `maxFrequency` (the top edge of the last row), columns in time order from 0 to `duration` seconds.
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
    /// Seconds of audio the columns cover.
    public var duration: Double
    /// The recording's sample rate.
    public var sampleRate: Int

    public init(rows: Int, columns: Int, levels: [Float], maxFrequency: Double, duration: Double, sampleRate: Int) {
        precondition(levels.count == rows * columns, "levels must hold rows × columns values")
        self.rows = rows
        self.columns = columns
        self.levels = levels
        self.maxFrequency = maxFrequency
        self.duration = duration
        self.sampleRate = sampleRate
    }

    /// The level at `row` (0 = lowest frequency) and `column` (0 = earliest).
    public func level(row: Int, column: Int) -> Float {
        levels[row * columns + column]
    }

    /// The row holding `frequency` Hz (clamped to the picture).
    public func row(forFrequency frequency: Double) -> Int {
        guard maxFrequency > 0 else { return 0 }
        return min(rows - 1, max(0, Int(frequency / maxFrequency * Double(rows))))
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
/// `power` receives `size` samples and writes `size / 2 + 1` squared magnitudes (bin k is k·rate/size Hz).
public protocol PowerSpectrumTransform: AnyObject {
    /// Points of the transform.
    var size: Int { get }
    /// Writes the power of each bin of `input` into `output`.
    func power(of input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>)
}

/// The parameters of a sonogram that do not depend on the audio.
public struct SonogramShape: Sendable, Hashable {
    /// Columns wanted (the picture's width in characters).
    public var columns: Int
    /// Rows wanted (pixel rows: two per text line with half-blocks, one with shade characters).
    public var rows: Int
    /// The top of the frequency axis in Hz; nil for the recording's Nyquist frequency.
    public var maxFrequency: Double?
    /// Levels at or below this are drawn as silence (dB relative to a full-scale sine).
    public var floorDB: Float
    /// Levels at or above this are drawn as the loudest.
    public var ceilingDB: Float

    public init(columns: Int, rows: Int, maxFrequency: Double? = nil, floorDB: Float = -90, ceilingDB: Float = -10) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.maxFrequency = maxFrequency
        self.floorDB = floorDB
        self.ceilingDB = max(ceilingDB, floorDB + 1)
    }

    /// FFT points for a sample rate: 512 up to 24 kHz (about 21–46 ms windows for birds' fast notes),
    /// 1024 above, so 44.1–384 kHz recordings keep a window of 2.7–23 ms with bins ≤ 375 Hz wide.
    public static func fftSize(forSampleRate rate: Int) -> Int {
        rate <= 24_000 ? 512 : 1024
    }
}
