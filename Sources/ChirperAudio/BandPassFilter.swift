import ChirperCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Plays only a band (`ab` over a selection's band): a band-pass made of Butterworth biquads (Robert
/// Bristow-Johnson's cookbook): two high-pass sections at the band's bottom and two low-pass sections at its
/// top, 24 dB an octave outside the band. Biquads filter a stream sample by sample with no block and no
/// latency, so the section's timing at the sink is unchanged (an FFT filter would add a block of delay and
/// edge effects at every piece), and cost a few multiplications a sample. One state per channel, kept across
/// pieces of a segment.
struct BandPassFilter {
    private struct Biquad {
        var b0, b1, b2, a1, a2: Double
        // Transposed direct form II state, per channel.
        var z1: [Double]
        var z2: [Double]

        init(highPass: Bool, frequency: Double, sampleRate: Double, channels: Int) {
            let w0 = 2 * Double.pi * frequency / sampleRate
            let cosine = cos(w0)
            let q = 1 / 2.0.squareRoot()  // Butterworth
            let alpha = sin(w0) / (2 * q)
            let a0 = 1 + alpha
            if highPass {
                b0 = (1 + cosine) / 2 / a0
                b1 = -(1 + cosine) / a0
            } else {
                b0 = (1 - cosine) / 2 / a0
                b1 = (1 - cosine) / a0
            }
            b2 = b0
            a1 = -2 * cosine / a0
            a2 = (1 - alpha) / a0
            z1 = Array(repeating: 0, count: channels)
            z2 = Array(repeating: 0, count: channels)
        }

        mutating func process(_ x: Double, channel: Int) -> Double {
            let y = b0 * x + z1[channel]
            z1[channel] = b1 * x - a1 * y + z2[channel]
            z2[channel] = b2 * x - a2 * y
            return y
        }
    }

    private var stages: [Biquad]
    private let channels: Int

    /// A filter for `band` at `format`, or nil when the band is the whole range (nothing to filter).
    init?(band: FrequencyBand, format: PCMFormat) {
        let rate = Double(format.sampleRate)
        let nyquist = rate / 2
        channels = max(1, format.channels)
        var stages: [Biquad] = []
        if band.low > 1 {
            let low = min(band.low, nyquist * 0.95)
            stages += [Biquad](
                repeating: Biquad(highPass: true, frequency: low, sampleRate: rate, channels: channels), count: 2)
        }
        if let high = band.high, high < nyquist * 0.95 {
            stages += [Biquad](
                repeating: Biquad(highPass: false, frequency: high, sampleRate: rate, channels: channels), count: 2)
        }
        guard !stages.isEmpty else { return nil }
        self.stages = stages
    }

    /// Filters interleaved samples.
    mutating func process(_ samples: [Int16]) -> [Int16] {
        var out = [Int16](repeating: 0, count: samples.count)
        for index in samples.indices {
            let channel = index % channels
            var value = Double(samples[index])
            for stage in stages.indices { value = stages[stage].process(value, channel: channel) }
            out[index] = Int16(max(-32768, min(32767, value.rounded())))
        }
        return out
    }
}
