import ChirperAudio
import Foundation
import Testing

/// A tone of `frequency` Hz at `rate`, `seconds` long, at amplitude 0.5.
private func tone(_ frequency: Double, rate: Int, seconds: Double) -> [Float] {
    (0..<Int(seconds * Double(rate))).map { Float(0.5 * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

/// A 3 kHz burst under a Gaussian envelope centred at `centre` seconds: band-limited, so it can be written at
/// any rate, and the same sound at each.
private func burst(rate: Int, seconds: Double, centre: Double) -> [Float] {
    (0..<Int(seconds * Double(rate))).map {
        let t = Double($0) / Double(rate) - centre
        return Float(0.5 * exp(-t * t / (2 * 0.002 * 0.002)) * cos(2 * Double.pi * 3000 * t))
    }
}

/// Root mean square of the middle half (away from the edges' transients).
private func middleRMS(_ samples: [Float]) -> Double {
    let middle = samples[(samples.count / 4)..<(samples.count * 3 / 4)]
    return (middle.reduce(0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
}

private func resampled(_ samples: [Float], from rate: Int) throws -> [Float] {
    let resampler = try Resampler(inputRate: rate)
    return try resampler.process(samples) + resampler.flush()
}

/// Where `signal` lies against `reference`, in samples (sub-sample, from the cross-correlation's peak).
private func delay(of signal: [Float], against reference: [Float]) -> Double {
    func correlation(_ lag: Int) -> Double {
        var sum = 0.0
        for index in max(0, -lag)..<min(reference.count, signal.count - lag) {
            sum += Double(reference[index]) * Double(signal[index + lag])
        }
        return sum
    }
    let best = (-8...8).max { correlation($0) < correlation($1) }!
    let (left, centre, right) = (correlation(best - 1), correlation(best), correlation(best + 1))
    return Double(best) + 0.5 * (left - right) / (left - 2 * centre + right)
}

@Suite("Resampling to BirdNET's 48 kHz (libsoxr)")
struct ResamplerTests {
    @Test("a burst resampled from 44.1 kHz lands at the same time: no delay, and the same sound")
    func noDelay() throws {
        let output = try resampled(burst(rate: 44_100, seconds: 1, centre: 0.4321), from: 44_100)
        let reference = burst(rate: 48_000, seconds: 1, centre: 0.4321)
        #expect(output.count == 48_000)
        let lag = delay(of: output, against: reference)
        #expect(abs(lag) < 0.01, "the burst moved by \(lag) samples")
        let error = zip(output, reference).map { Double($0 - $1) * Double($0 - $1) }.reduce(0, +)
        let power = reference.map { Double($0) * Double($0) }.reduce(0, +)
        #expect(10 * log10(error / power) < -60, "the difference is \(10 * log10(error / power)) dB")
    }

    @Test("an impulse from 96 kHz lands at its time at 48 kHz, the output's peak there")
    func impulseLandsInPlace() throws {
        var impulse = [Float](repeating: 0, count: 96_000)
        impulse[30_000] = 1
        let output = try resampled(impulse, from: 96_000)
        #expect(output.count == 48_000)
        #expect(output.indices.max { abs(output[$0]) < abs(output[$1]) } == 15_000)
        #expect(abs(output[14_999] - output[15_001]) < 1e-4, "the filter is not symmetric about the impulse")
    }

    @Test(
        "tones above 24 kHz at 96 kHz do not fold back: attenuated by more than 80 dB",
        arguments: [25_000.0, 30_000, 40_000])
    func noAliasing(frequency: Double) throws {
        let input = tone(frequency, rate: 96_000, seconds: 1)
        let output = try resampled(input, from: 96_000)
        let attenuation = 20 * log10(middleRMS(output) / middleRMS(input))
        #expect(attenuation < -80, "\(frequency) Hz is attenuated by only \(-attenuation) dB")
    }

    @Test("a 1 kHz tone passes within 0.1 dB", arguments: [44_100, 22_050, 32_000, 96_000])
    func passband(rate: Int) throws {
        let input = tone(1_000, rate: rate, seconds: 1)
        let output = try resampled(input, from: rate)
        let change = 20 * log10(middleRMS(output) / middleRMS(input))
        #expect(abs(change) < 0.1, "1 kHz from \(rate) Hz changes by \(change) dB")
        #expect(output.count == 48_000)
    }

    @Test("48 kHz stays as it is, sample for sample")
    func identity() throws {
        let input = burst(rate: 48_000, seconds: 0.5, centre: 0.2) + tone(1234, rate: 48_000, seconds: 0.25)
        let resampler = try Resampler(inputRate: 48_000)
        #expect(try resampler.process(Array(input[0..<1000])) + resampler.process(Array(input[1000...])) == input)
        #expect(try resampler.flush() == [])
    }

    @Test("a stream fed in uneven pieces comes out as the same stream fed at once")
    func piecesEqualOneCall() throws {
        let input = tone(440, rate: 44_100, seconds: 0.5) + burst(rate: 44_100, seconds: 0.5, centre: 0.25)
        let whole = try resampled(input, from: 44_100)
        let resampler = try Resampler(inputRate: 44_100)
        var pieces: [Float] = []
        var start = 0
        for length in [1, 0, 7, 4096, 333, 10_000, 1] + Array(repeating: 5_000, count: 20) where start < input.count {
            let end = min(input.count, start + length)
            pieces += try resampler.process(Array(input[start..<end]))
            start = end
        }
        pieces += try resampler.process(Array(input[start...]))
        pieces += try resampler.flush()
        #expect(pieces.count == whole.count)
        #expect(pieces == whole)
    }

    @Test("a rate that is not a rate is refused in one line")
    func badRate() {
        #expect(throws: ResamplerError(message: "the sample rate 0 Hz is not a rate")) { try Resampler(inputRate: 0) }
    }
}
