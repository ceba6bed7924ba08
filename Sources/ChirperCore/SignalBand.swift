import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The band a recording's sound occupies, for measuring a whole row that nobody selected: Raven's figures over
/// 0 Hz to Nyquist describe the noise floor spread over the whole band, not the bird, whose bandwidth then reads
/// as the band's. Each frequency bin's noise floor is its quiet level over time; what stands above it is the
/// sound, and the band holds the middle 95 % of that excess energy.
public enum SignalBand {
    /// A bin counts as sounding in a frame when its power is this many times its floor (10 dB): the power of a
    /// bin of steady noise is exponentially distributed, and passes ten times its median in a thousandth of frames.
    static let aboveFloor: Float = 10
    /// The floor of a bin: its median over time.
    static let floorRank = 0.5
    /// Less than this share of all the power standing above the floors is noise's own spread, not a sound.
    static let leastShare = 0.02
    /// The band's edges are rounded outward to this many hertz, so that it reads as a band a user would select.
    static let step = 100.0

    /// The band within `limit` (cut at Nyquist) that holds the sound of `samples`, analysed with `transform` every
    /// `hop` samples; nil when nothing stands above the floor (silence or steady noise).
    public static func find(
        in samples: [Float], sampleRate: Int, within limit: FrequencyBand, transform: any PowerSpectrumTransform,
        hop: Int
    ) -> FrequencyBand? {
        let size = transform.size
        guard samples.count >= size, hop > 0 else { return nil }
        let rate = Double(sampleRate)
        let binWidth = rate / Double(size)
        let top = min(rate / 2, limit.high ?? rate / 2)
        let first = Int((max(0, limit.low) / binWidth).rounded(.up))
        let last = min(size / 2, Int((top / binWidth).rounded(.down)))
        guard first < last else { return nil }
        let bins = last - first + 1
        let frames = (samples.count - size) / hop + 1
        // Frame-major power of the bins in the limit.
        var power = [Float](repeating: 0, count: frames * bins)
        let window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        var spectrum = [Float](repeating: 0, count: size / 2 + 1)
        for frame in 0..<frames {
            let start = frame * hop
            samples.withUnsafeBufferPointer { samples in
                window.withUnsafeBufferPointer { window in
                    spectrum.withUnsafeMutableBufferPointer { output in
                        transform.power(
                            of: UnsafeBufferPointer(rebasing: samples[start..<(start + size)]), windowedBy: window,
                            into: output)
                    }
                }
            }
            for bin in 0..<bins { power[frame * bins + bin] = spectrum[first + bin] }
        }
        let rank = min(frames - 1, Int(Double(frames) * floorRank))
        var excess = [Double](repeating: 0, count: bins)
        var column = [Float](repeating: 0, count: frames)
        var all = 0.0
        for bin in 0..<bins {
            for frame in 0..<frames { column[frame] = power[frame * bins + bin] }
            let floor = OrderStatistics.values(at: [rank], in: column)[0]
            let threshold = floor * aboveFloor
            for value in column {
                all += Double(value)
                if value > threshold { excess[bin] += Double(value - floor) }
            }
        }
        let total = excess.reduce(0, +)
        guard total > 0, total >= leastShare * all else { return nil }
        func bin(reaching share: Double) -> Int {
            var sum = 0.0
            for (index, value) in excess.enumerated() {
                sum += value
                if sum >= share * total { return index }
            }
            return bins - 1
        }
        let low = Double(first + bin(reaching: 0.025) - 1) * binWidth
        let high = Double(first + bin(reaching: 0.975) + 1) * binWidth
        let roundedLow = max(max(0, limit.low), (low / step).rounded(.down) * step)
        let roundedHigh = min(top, (high / step).rounded(.up) * step)
        guard roundedLow < roundedHigh else { return nil }
        return FrequencyBand(low: roundedLow, high: roundedHigh)
    }
}
