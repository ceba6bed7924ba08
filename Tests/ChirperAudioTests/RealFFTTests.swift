import ChirperAudio
import Foundation
import Testing

/// `RealFFT` makes a real transform from a complex one of half the size and a split of its result: each bin's
/// power is checked against the definition, a DFT summed in double precision.
struct RealFFTTests {
    /// |Σ x[n]·w[n]·e^(−2πikn/size)|² for k = 0 … size/2, the input zero-padded to `size`.
    static func directPower(_ samples: [Float], window: [Float], size: Int) -> [Double] {
        (0...(size / 2)).map { k in
            var (real, imaginary) = (0.0, 0.0)
            for n in samples.indices {
                let value = Double(samples[n]) * Double(window[n])
                let angle = -2 * Double.pi * Double(k) * Double(n) / Double(size)
                real += value * cos(angle)
                imaginary += value * sin(angle)
            }
            return real * real + imaginary * imaginary
        }
    }

    /// A fixed pseudo-random signal in −1…1 with a tone on top, so that every bin has something in it.
    static func signal(count: Int) -> [Float] {
        var state: UInt32 = 987_654_321
        return (0..<count).map { n in
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Float(state >> 8) / Float(1 << 24) - 0.5
            return noise + 0.5 * Float(sin(2 * Double.pi * 0.1 * Double(n)))
        }
    }

    @Test(
        "every bin's power is the direct DFT's, for the smallest size, small ones and the sonogram's",
        arguments: [2, 4, 6, 8, 64, 1024])
    func matchesDirectTransform(size: Int) throws {
        try expectDirectPower(size: size, windowLength: size)
    }

    @Test("a window shorter than the transform is zero-padded (Raven's DFT size)", arguments: [(1024, 700), (64, 1)])
    func zeroPadded(size: Int, windowLength: Int) throws {
        try expectDirectPower(size: size, windowLength: windowLength)
    }

    private func expectDirectPower(size: Int, windowLength: Int) throws {
        let fft = try RealFFT(size: size)
        var powers = [Float](repeating: .nan, count: size / 2 + 1)
        func transform(_ samples: [Float], _ window: [Float]) {
            samples.withUnsafeBufferPointer { input in
                window.withUnsafeBufferPointer { window in
                    powers.withUnsafeMutableBufferPointer { fft.power(of: input, windowedBy: window, into: $0) }
                }
            }
        }
        // A full-size transform first, so that a zero-padded one must clear what it left in the arrays.
        transform([Float](repeating: 1, count: size), [Float](repeating: 1, count: size))
        let samples = Self.signal(count: windowLength)
        let window = (0..<windowLength).map {
            Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(windowLength)))
        }
        transform(samples, window)
        let expected = Self.directPower(samples, window: window, size: size)
        // Single precision against double: within a hundred-thousandth of the spectrum's largest power, per bin.
        let scale = max(1e-12, expected.max() ?? 0)
        let worst = zip(powers, expected).map { abs(Double($0) - $1) / scale }.max() ?? .infinity
        #expect(worst < 1e-5, "a bin is off by \(worst) of the largest power")
    }
}
