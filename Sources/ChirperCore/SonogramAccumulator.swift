import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Builds a `Sonogram` from PCM chunks as they are decoded: a short-time FFT (Hann window, the hop of
/// `SonogramShape.fftPlan`), power reduced to the picture's rows (max over the bins of a row) and frames to its
/// columns (max over the frames of a column, so a brief call is never averaged away).
///
/// Memory is the picture's size plus a few windows, whatever the recording's length. With a time window, only
/// the frames centred inside it count and `isComplete` says when the rest need not be decoded. Without one,
/// columns are assigned by time from the expected duration; when it is unknown, or the audio runs past it,
/// the columns fill up and are then merged pairwise (each column covering twice the time), so the picture
/// always spans what was heard, never less than half its width. Not thread-safe: one task feeds it.
public final class SonogramAccumulator {
    public let shape: SonogramShape
    public let sampleRate: Int
    /// The top of the frequency axis in Hz (the requested maximum, or Nyquist).
    public let maxFrequency: Double
    /// The bottom of the frequency axis in Hz.
    public let minFrequency: Double
    /// Recording time of the picture's left edge.
    let startTime: Double
    /// Samples before this one are not analysed (half a window before the time window).
    private let firstSample: Int
    /// Once this many samples were fed, the time window is complete.
    private let lastSample: Int?

    private let transform: any PowerSpectrumTransform
    /// Samples in the analysis window.
    let size: Int
    /// Points of the transform (`size`, zero-padded).
    let dft: Int
    let hop: Int
    private let window: [Float]
    // Mono samples awaiting analysis: the next window is `pending[pendingStart ..< pendingStart + size]`, of which
    // `pendingCount` are in. The array holds three windows, so that what a window shares with the next is moved
    // to the front once every few windows (`compactPending`), not after each.
    private var pending: [Float]
    private var pendingStart = 0
    private var pendingCount = 0
    private var spectrum: [Float]
    // Which bins make each row: `rowBins[row]` is a half-open range of bins.
    private let rowBins: [Range<Int>]
    // The loudest power per cell relative to `referencePower`, column-major (`cells[column * rows + row]`); NaN
    // where no frame has landed yet. Kept as power, not dB, since the max is the same either way: the logarithm
    // is taken once per cell when the picture is drawn, not once per row of every frame.
    private(set) var cells: [Float]
    /// `cells` in dB, for the picture: the columns in `staleColumns` are yet to be brought up to date. A
    /// live strip's picture is drawn every second from the whole of it; only what changed is converted again.
    var decibelCells: [Float]
    var staleColumns: Range<Int>?
    /// The finite values of `decibelCells`, counted.
    var decibelCounts = DecibelHistogram()
    private(set) var secondsPerColumn: Double
    private var framesDone = 0
    /// The first sample of the next analysis frame's window.
    private var frameStart: Int
    /// The sample the next one fed is (it moves back or on where the audio jumps: `feed(_:channels:at:)`).
    private var samplesSeen = 0
    /// The furthest sample fed.
    private var samplesReached = 0
    /// The analysis frames a part makes (see `init(part:…)`; the last part's go to `Int.max`); nil for a whole
    /// picture.
    private var partFrames: Range<Int>?
    // dB of a full-scale sine's peak bin under a Hann window: (N/4)².
    private let referencePower: Float

    /// - Parameters:
    ///   - expectedDuration: the recording's length in seconds if known; columns are laid out over it.
    ///   - transform: a real FFT of at least `windowLength` points (more: the window is zero-padded, which
    ///     samples the spectrum more finely without changing its resolution, as Raven's "DFT size").
    ///   - windowLength: samples in the analysis (Hann) window; `hop`: samples between windows. Both from
    ///     `SonogramShape.fftPlan`; by default the transform's size and half of it.
    public init(
        shape: SonogramShape, sampleRate: Int, expectedDuration: Double?, transform: any PowerSpectrumTransform,
        windowLength: Int? = nil, hop: Int? = nil
    ) {
        self.shape = shape
        self.sampleRate = max(1, sampleRate)
        self.transform = transform
        let dft = transform.size
        let size = min(dft, windowLength ?? dft)
        self.size = size
        self.dft = dft
        self.hop = max(1, min(size, hop ?? size / 2))
        let nyquist = Double(self.sampleRate) / 2
        maxFrequency = min(nyquist, shape.maxFrequency.map { max(1, $0) } ?? nyquist)
        minFrequency = min(shape.minFrequency, maxFrequency - 1)
        startTime = shape.window?.start ?? 0
        firstSample = max(0, Int(startTime * Double(self.sampleRate)) - size / 2)
        frameStart = firstSample
        let rate = Double(self.sampleRate)
        lastSample = shape.window.map { Int($0.end * rate) + size / 2 }
        window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        pending = [Float](repeating: 0, count: 3 * size)
        spectrum = [Float](repeating: 0, count: dft / 2 + 1)
        let binWidth = Double(self.sampleRate) / Double(dft)
        let rows = shape.rows
        let (bottom, rowHz) = (minFrequency, (maxFrequency - minFrequency) / Double(rows))
        rowBins = (0..<rows).map { row in
            let low = bottom + Double(row) * rowHz
            let high = low + rowHz
            let first = Int((low / binWidth).rounded(.up))
            let end = Int((high / binWidth).rounded(.up))
            // A row narrower than a bin takes the bin nearest its centre.
            if end <= first {
                let nearest = min(dft / 2, Int(((low + high) / 2 / binWidth).rounded()))
                return nearest..<(nearest + 1)
            }
            return first..<min(end, dft / 2 + 1)
        }
        cells = [Float](repeating: .nan, count: shape.columns * rows)
        decibelCells = cells
        let hopSeconds = Double(self.hop) / Double(self.sampleRate)
        if let window = shape.window {
            secondsPerColumn = max(1e-6, window.duration / Double(shape.columns))
        } else if let expectedDuration, expectedDuration > 0 {
            secondsPerColumn = max(hopSeconds, expectedDuration / Double(shape.columns))
        } else {
            // Unknown length: start at one frame per column and merge as the audio goes on.
            secondsPerColumn = hopSeconds
        }
        referencePower = Float(size) * Float(size) / 16
    }

    /// One part of the picture of a long recording, decoded in parallel pieces: only the analysis frames
    /// `frames` (up to `Int.max`: to the end), fed from the sample where the first of them starts
    /// (`firstSample(ofFrame:)`). Merged (`merge`), the parts make the picture one accumulator fed the whole
    /// recording makes, value for value (a cell is the max over its frames, whichever part analysed them), as
    /// long as the audio does not run past the duration the columns are laid out over (`overflowed`).
    public convenience init(
        part frames: Range<Int>, shape: SonogramShape, sampleRate: Int, expectedDuration: Double,
        transform: any PowerSpectrumTransform, windowLength: Int, hop: Int
    ) {
        self.init(
            shape: shape, sampleRate: sampleRate, expectedDuration: expectedDuration, transform: transform,
            windowLength: windowLength, hop: hop)
        framesDone = frames.lowerBound
        samplesSeen = firstSample + frames.lowerBound * self.hop
        frameStart = samplesSeen
        partFrames = frames
    }

    /// The first sample of analysis frame `frame`'s window, and where the frames of a window (or of the whole
    /// recording) start: the first frame's window starts half a window before the time window.
    public func firstSample(ofFrame frame: Int) -> Int { firstSample + frame * hop }

    /// At most as many analysis frames as a recording of `samples` samples gives the picture (a frame or two
    /// fewer: where parts of it may begin).
    public func framesAtMost(samples: Int) -> Int {
        let end = lastSample.map { min($0, samples) } ?? samples
        return max(0, (end - firstSample - size) / hop - 1)
    }

    /// A part found audio past the duration its columns were laid out over: a single accumulator would have
    /// halved its columns, which parts cannot, so the parts do not make that picture (decode it in one piece).
    public private(set) var overflowed = false

    /// What a part computed, to hand to the accumulator that merges the parts.
    public var part: SonogramPart {
        SonogramPart(cells: cells, samplesSeen: max(samplesSeen, samplesReached), overflowed: overflowed)
    }

    /// Takes the analysis frames another part computed (max per cell), and counts the audio it was fed.
    public func merge(_ part: SonogramPart) {
        precondition(part.cells.count == cells.count, "a part of another picture")
        for index in cells.indices { cells[index] = Self.louder(cells[index], part.cells[index]) }
        staleColumns = 0..<shape.columns
        samplesReached = max(samplesReached, part.samplesSeen)
        overflowed = overflowed || part.overflowed
    }

    /// Floats held, all told: constant for a given shape and FFT size (the memory bound the tests check).
    public var storageCount: Int { cells.count + decibelCells.count + pending.count + spectrum.count + window.count }

    /// Seconds of audio fed so far.
    public var secondsFed: Double { Double(max(samplesSeen, samplesReached)) / Double(sampleRate) }

    /// The time window is drawn (or a part's frames): what follows need not be decoded.
    public var isComplete: Bool {
        if let partFrames, framesDone >= partFrames.upperBound { return true }
        return lastSample.map { max(samplesSeen, samplesReached) >= $0 } ?? false
    }

    /// Seconds of the picture that hold audio.
    private var secondsDrawn: Double {
        let end = shape.window.map { min($0.end, secondsFed) } ?? secondsFed
        return max(0, end - startTime)
    }

    /// Feeds interleaved 16-bit samples (whole frames of `channels` samples), mixed to mono; `frame`: the
    /// recording frame of the first, when the audio does not follow on from what was fed (what a player decodes
    /// after a seek). Analysis then starts afresh there; the cells already drawn stay.
    public func feed(_ samples: [Int16], channels: Int, at frame: Int? = nil) {
        if let frame, frame != samplesSeen {
            samplesReached = max(samplesReached, samplesSeen)
            samplesSeen = max(0, frame)
            frameStart = max(samplesSeen, firstSample)
            (pendingStart, pendingCount) = (0, 0)
        }
        let channels = max(1, channels)
        let scale = 1 / (32768 * Float(channels))
        let frames = samples.count / channels
        var frame = 0
        if samplesSeen < firstSample {
            // Before the window: counted, not analysed.
            let skip = min(frames, firstSample - samplesSeen)
            samplesSeen += skip
            frame = skip
        }
        samples.withUnsafeBufferPointer { input in
            guard let input = input.baseAddress else { return }
            while frame < frames, !isComplete {
                if pendingStart + size > pending.count { compactPending() }
                // Fill the window as far as this chunk goes, then analyse it if it is full.
                let take = min(size - pendingCount, frames - frame)
                let (start, first) = (pendingStart + pendingCount, frame)
                pending.withUnsafeMutableBufferPointer { pending in
                    guard let output = pending.baseAddress.map({ $0 + start }) else { return }
                    if channels == 1 {
                        // Mono (what the decoder gives for analysis): a loop the compiler vectorises.
                        let input = input + first
                        for offset in 0..<take { output[offset] = Float(input[offset]) * scale }
                        return
                    }
                    for offset in 0..<take {
                        let frame = input + (first + offset) * channels
                        var sum: Int32 = 0
                        for channel in 0..<channels { sum += Int32(frame[channel]) }
                        output[offset] = Float(sum) * scale
                    }
                }
                pendingCount += take
                samplesSeen += take
                frame += take
                if pendingCount == size {
                    analyseFrame()
                    // The next window starts a hop on; it shares the rest with this one.
                    pendingStart += hop
                    pendingCount = size - hop
                }
            }
        }
    }

    /// Moves the next window's samples to the front of `pending`, to make room after them.
    private func compactPending() {
        let (start, count) = (pendingStart, pendingCount)
        pending.withUnsafeMutableBufferPointer { pending in
            guard let base = pending.baseAddress else { return }
            base.update(from: base + start, count: count)
        }
        pendingStart = 0
    }

    /// The picture of what was fed: the columns that hold audio (all of them when the duration was right).
    public func picture() -> Sonogram {
        let used = min(shape.columns, max(1, Int((secondsDrawn / secondsPerColumn).rounded(.up))))
        let duration = shape.window == nil ? secondsFed : min(secondsDrawn, Double(used) * secondsPerColumn)
        return picture(columns: used, duration: duration, blankUnheard: false)
    }

    /// The picture over all its columns, those no audio has reached blank: the live strip's, drawn while the
    /// audio is heard, whose pages are laid out over the whole recording from the start.
    public func picturePlanned() -> Sonogram {
        picture(columns: shape.columns, duration: Double(shape.columns) * secondsPerColumn, blankUnheard: true)
    }

    private func analyseFrame() {
        let (start, size) = (pendingStart, size)
        pending.withUnsafeBufferPointer { pending in
            window.withUnsafeBufferPointer { window in
                spectrum.withUnsafeMutableBufferPointer { output in
                    let input = UnsafeBufferPointer(rebasing: pending[start..<(start + size)])
                    transform.power(of: input, windowedBy: window, into: output)
                }
            }
        }
        // The frame's centre decides its column; a frame centred outside the window is left out.
        let centre = (Double(frameStart) + Double(size) / 2) / Double(sampleRate) - startTime
        framesDone += 1
        frameStart += hop
        if let window = shape.window, centre < 0 || centre >= window.duration { return }
        var column = Int(centre / secondsPerColumn)
        if partFrames != nil, column >= shape.columns {
            overflowed = true
            return
        }
        while column >= shape.columns {
            mergeColumnsPairwise()
            column = Int(centre / secondsPerColumn)
        }
        let (rows, rowBins, referencePower) = (shape.rows, rowBins, referencePower)
        spectrum.withUnsafeBufferPointer { spectrum in
            cells.withUnsafeMutableBufferPointer { cells in
                for row in 0..<rows {
                    var peak: Float = 0
                    for bin in rowBins[row] where spectrum[bin] > peak { peak = spectrum[bin] }
                    let cell = column * rows + row
                    cells[cell] = Self.louder(cells[cell], peak / referencePower)
                }
            }
        }
        staleColumns =
            staleColumns.map { min($0.lowerBound, column)..<max($0.upperBound, column + 1) } ?? column..<(column + 1)
    }

    /// The louder of two cells, where NaN is a cell no frame has landed in.
    private static func louder(_ a: Float, _ b: Float) -> Float {
        a.isNaN ? b : (b.isNaN ? a : max(a, b))
    }

    // Halves the time resolution: column i becomes the max of columns 2i and 2i+1.
    private func mergeColumnsPairwise() {
        let rows = shape.rows
        let columns = shape.columns
        for target in 0..<columns {
            for row in 0..<rows {
                let left = 2 * target < columns ? cells[2 * target * rows + row] : .nan
                let right = 2 * target + 1 < columns ? cells[(2 * target + 1) * rows + row] : .nan
                cells[target * rows + row] = Self.louder(left, right)
            }
        }
        secondsPerColumn *= 2
        staleColumns = 0..<columns
    }
}

/// The cells a part of a picture computed (`SonogramAccumulator.part`), handed from the task that decoded its
/// piece to the one that merges them.
public struct SonogramPart: Sendable {
    fileprivate var cells: [Float]
    fileprivate var samplesSeen: Int
    fileprivate var overflowed: Bool
}
