import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Raven's robust measurements of one selection (a time section and a band of one recording), computed from
/// its spectrogram inside the band, energy being the squared magnitude (definitions as in the Raven Pro
/// manual, after Charif et al.). Frequencies are bin centres, times frame centres, in recording time.
public struct SelectionMeasurement: Sendable, Hashable {
    public var begin: Double
    public var end: Double
    public var low: Double
    public var high: Double
    /// The loudest cell of the spectrogram: its frequency and time.
    public var peakFrequency: Double
    public var peakTime: Double
    /// The frequencies below which 5, 25, 50 (centre), 75 and 95 % of the selection's energy lie.
    public var frequency5: Double
    public var frequency25: Double
    public var centerFrequency: Double
    public var frequency75: Double
    public var frequency95: Double
    /// The times before which 5 and 95 % of the selection's energy lie.
    public var time5: Double
    public var time95: Double
    /// The mean over frames of each frame's Shannon entropy (bits) of its power spectrum in the band.
    public var averageEntropy: Double
    /// The peak-frequency contour (the loudest bin of each frame, over the frames of the 90 % duration): its
    /// average slope in Hz/ms and the number of points where its slope changes sign.
    public var contourSlope: Double
    public var contourInflections: Int
    /// The analysis: Hann window of `fftSize` samples every `hop`, at `sampleRate`.
    public var fftSize: Int
    public var hop: Int
    public var sampleRate: Int

    public init(
        begin: Double, end: Double, low: Double, high: Double, peakFrequency: Double, peakTime: Double,
        frequency5: Double, frequency25: Double, centerFrequency: Double, frequency75: Double, frequency95: Double,
        time5: Double, time95: Double, averageEntropy: Double, contourSlope: Double, contourInflections: Int,
        fftSize: Int, hop: Int, sampleRate: Int
    ) {
        self.begin = begin
        self.end = end
        self.low = low
        self.high = high
        self.peakFrequency = peakFrequency
        self.peakTime = peakTime
        self.frequency5 = frequency5
        self.frequency25 = frequency25
        self.centerFrequency = centerFrequency
        self.frequency75 = frequency75
        self.frequency95 = frequency95
        self.time5 = time5
        self.time95 = time95
        self.averageEntropy = averageEntropy
        self.contourSlope = contourSlope
        self.contourInflections = contourInflections
        self.fftSize = fftSize
        self.hop = hop
        self.sampleRate = sampleRate
    }

    public var bandwidth90: Double { frequency95 - frequency5 }
    public var bandwidth50: Double { frequency75 - frequency25 }
    public var duration90: Double { time95 - time5 }
    /// Hz between bins and seconds between frames: the resolution of every figure.
    public var binWidth: Double { Double(sampleRate) / Double(fftSize) }
    public var hopSeconds: Double { Double(hop) / Double(sampleRate) }
}

/// Why a selection cannot be measured.
public enum MeasurementError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooShort(seconds: Double, window: Double)
    case bandNarrowerThanBin(binWidth: Double)
    case silent

    public var description: String {
        switch self {
        case .tooShort(let seconds, let window):
            "the selection is \(String(cFormat: "%.3f", seconds)) s, shorter than one FFT window (\(String(cFormat: "%.3f", window)) s); select more"
        case .bandNarrowerThanBin(let binWidth):
            "the band holds no FFT bin (bins are \(Int(binWidth.rounded())) Hz apart); select a wider band"
        case .silent:
            "the selection holds no energy in its band; select a call"
        }
    }
}

/// Measures mono samples with a short-time FFT: the transform is injected, so the model stays free of C.
public enum MeasurementAnalysis {
    /// Raven's default analysis: a Hann window of 512 samples at 44.1 kHz (11.6 ms; scaled with the rate to
    /// a power of two), 50 % overlap.
    public static func plan(sampleRate: Int) -> (size: Int, hop: Int) {
        var size = 64
        while Double(size) * 1.414 < 0.0116 * Double(sampleRate) { size *= 2 }
        return (size, size / 2)
    }

    /// Measures `samples` (mono, the first at recording time `begin`) inside `band` (nil: 0 to Nyquist),
    /// with `transform` of the plan's size.
    public static func measure(
        _ samples: [Float], sampleRate: Int, begin: Double, band: FrequencyBand?, transform: any PowerSpectrumTransform,
        hop: Int
    ) throws(MeasurementError) -> SelectionMeasurement {
        let size = transform.size
        let rate = Double(sampleRate)
        guard samples.count >= size else {
            throw .tooShort(seconds: Double(samples.count) / rate, window: Double(size) / rate)
        }
        let binWidth = rate / Double(size)
        let nyquist = rate / 2
        let low = max(0, band?.low ?? 0)
        let high = min(nyquist, band?.high ?? nyquist)
        let first = Int((low / binWidth).rounded(.up))
        let last = min(size / 2, Int((high / binWidth).rounded(.down)))
        guard first <= last else { throw .bandNarrowerThanBin(binWidth: binWidth) }
        let bins = Array(first...last)
        let window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        var spectrum = [Float](repeating: 0, count: size / 2 + 1)
        var perBin = [Double](repeating: 0, count: bins.count)
        var perFrame: [Double] = []
        var contour: [Double] = []
        var entropies: [Double] = []
        var peak = (energy: -1.0, frequency: 0.0, time: 0.0)
        var start = 0
        while start + size <= samples.count {
            samples.withUnsafeBufferPointer { samples in
                window.withUnsafeBufferPointer { window in
                    spectrum.withUnsafeMutableBufferPointer { output in
                        let input = UnsafeBufferPointer(rebasing: samples[start..<(start + size)])
                        transform.power(of: input, windowedBy: window, into: output)
                    }
                }
            }
            let time = begin + (Double(start) + Double(size) / 2) / rate
            var total = 0.0
            var loudest = (energy: -1.0, bin: 0)
            for (index, bin) in bins.enumerated() {
                let energy = Double(spectrum[bin])
                perBin[index] += energy
                total += energy
                if energy > loudest.energy { loudest = (energy, bin) }
                if energy > peak.energy { peak = (energy, Double(bin) * binWidth, time) }
            }
            perFrame.append(total)
            contour.append(Double(loudest.bin) * binWidth)
            if total > 0 {
                var entropy = 0.0
                for bin in bins {
                    let p = Double(spectrum[bin]) / total
                    if p > 0 { entropy -= p * log2(p) }
                }
                entropies.append(entropy)
            }
            start += hop
        }
        let energy = perBin.reduce(0, +)
        guard energy > 0 else { throw .silent }
        func frequency(_ share: Double) -> Double {
            var sum = 0.0
            for (index, value) in perBin.enumerated() {
                sum += value
                if sum >= share * energy { return Double(bins[index]) * binWidth }
            }
            return Double(bins.last ?? 0) * binWidth
        }
        /// The frame by which `share` of the energy has come.
        func frameReaching(_ share: Double) -> Int {
            var sum = 0.0
            for (index, value) in perFrame.enumerated() {
                sum += value
                if sum >= share * energy { return index }
            }
            return perFrame.count - 1
        }
        func time(_ frame: Int) -> Double { begin + (Double(frame * hop) + Double(size) / 2) / rate }
        let (first5, last95) = (frameReaching(0.05), frameReaching(0.95))
        // The peak-frequency contour over the frames that hold the call (its 90 % duration): frames of noise
        // alone around it would add jumps that are not the call's.
        let call = Array(contour[first5...max(first5, last95)])
        let hopMilliseconds = Double(hop) / rate * 1000
        let slopes = zip(call, call.dropFirst()).map { ($1 - $0) / hopMilliseconds }
        var inflections = 0
        var lastSign = 0
        for slope in slopes where slope != 0 {
            let sign = slope > 0 ? 1 : -1
            if lastSign != 0, sign != lastSign { inflections += 1 }
            lastSign = sign
        }
        return SelectionMeasurement(
            begin: begin, end: begin + Double(samples.count) / rate, low: low, high: high,
            peakFrequency: peak.frequency, peakTime: peak.time,
            frequency5: frequency(0.05), frequency25: frequency(0.25), centerFrequency: frequency(0.5),
            frequency75: frequency(0.75), frequency95: frequency(0.95), time5: time(first5), time95: time(last95),
            averageEntropy: entropies.isEmpty ? 0 : entropies.reduce(0, +) / Double(entropies.count),
            contourSlope: slopes.isEmpty ? 0 : slopes.reduce(0, +) / Double(slopes.count),
            contourInflections: inflections, fftSize: size, hop: hop, sampleRate: sampleRate)
    }
}
