import ChirperCore
import Foundation
import Testing

@testable import ChirperAudio

/// `seconds` of a tone at `frequency`, 44.1 kHz stereo, half scale.
private func tone(_ frequency: Double, seconds: Double = 0.5) -> [Int16] {
    (0..<Int(seconds * 44_100)).flatMap { frame -> [Int16] in
        let value = Int16((sin(2 * Double.pi * frequency * Double(frame) / 44_100) * 16_000).rounded())
        return [value, value]
    }
}

/// RMS level in dB relative to the input's, over the second half (after the filter settled).
private func gain(_ frequency: Double, through band: FrequencyBand) -> Double {
    let input = tone(frequency)
    var filter = BandPassFilter(band: band, format: PCMFormat(sampleRate: 44_100, channels: 2))!
    // In pieces, as the feed hands them over: the state carries across.
    let half = input.count / 2
    let output = filter.process(Array(input[..<half])) + filter.process(Array(input[half...]))
    func rms(_ samples: ArraySlice<Int16>) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
    return 20 * log10(rms(output[half...]) / rms(input[half...]))
}

@Suite("Playing only a band (ab over a selection)")
struct BandPassFilterTests {
    @Test("a 2-8 kHz band passes 4 kHz within 1 dB and takes 500 Hz and 16 kHz down by more than 20 dB")
    func band() {
        let band = FrequencyBand(low: 2000, high: 8000)
        #expect(abs(gain(4000, through: band)) < 1, "4 kHz: \(gain(4000, through: band)) dB")
        #expect(gain(500, through: band) < -20, "500 Hz: \(gain(500, through: band)) dB")
        #expect(gain(16_000, through: band) < -20, "16 kHz: \(gain(16_000, through: band)) dB")
    }

    @Test("the whole range needs no filter; a band from 0 is a low-pass only")
    func edges() {
        let format = PCMFormat(sampleRate: 44_100, channels: 2)
        #expect(BandPassFilter(band: FrequencyBand(low: 0, high: nil), format: format) == nil)
        #expect(abs(gain(200, through: FrequencyBand(low: 0, high: 4000))) < 1)
        #expect(gain(12_000, through: FrequencyBand(low: 0, high: 4000)) < -20)
    }
}
