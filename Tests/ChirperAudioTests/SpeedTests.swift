import ChirperTestSupport
import ChirperAudio
import ChirperCore
import Testing

/// The speed stage: tape (libsyn123) moves pitch with speed, keep (libsonic) keeps it; both stretch time.
@Suite("Speed: tape and keep", .heavyWork)
struct SpeedTests {
    static let rate = 44100

    /// Runs `samples` through a processor at `speed` in 4096-frame pieces, then flushes.
    static func run(_ samples: [Int16], _ speed: PlaybackSpeed, channels: Int = 1) throws -> [Int16] {
        let processor = try SpeedProcessor(format: PCMFormat(sampleRate: rate, channels: channels), speed: speed)
        var output: [Int16] = []
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + 4096 * channels)
            output += try processor.process(Array(samples[start..<end]))
            start = end
        }
        return output + (try processor.flush())
    }

    /// The pitch of the middle 80 % (the ends hold the engines' ramps).
    static func middlePitch(_ samples: [Int16], channels: Int = 1) -> Double? {
        let mono = stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
        let trim = mono.count / 10
        return StudySignals.pitch(mono[trim..<(mono.count - trim)], sampleRate: rate)
    }

    @Test(
        "a 1 kHz tone at 0.5×: tape is 500 Hz, keep is 1 kHz (±1 %), both last 2.00× (±2 %)",
        arguments: [(PlaybackSpeed.Mode.tape, 500.0), (.keep, 1000.0)])
    func halfSpeed(mode: PlaybackSpeed.Mode, expectedPitch: Double) throws {
        let input = StudySignals.tone(1000, seconds: 2, sampleRate: Self.rate)
        let output = try Self.run(input, PlaybackSpeed(factor: 0.5, mode: mode))
        let pitch = try #require(Self.middlePitch(output))
        #expect(abs(pitch - expectedPitch) / expectedPitch < 0.01, "\(mode): \(pitch) Hz")
        let ratio = Double(output.count) / Double(input.count)
        #expect(abs(ratio - 2) / 2 < 0.02, "\(mode): \(ratio)×")
    }

    @Test(
        "the ends of the range run, in stereo too: 0.1× lasts 10×, 2.0× half, pitch as the mode says",
        arguments: [
            (0.1, PlaybackSpeed.Mode.tape), (0.1, .keep), (2.0, .tape), (2.0, .keep), (0.25, .keep), (0.25, .tape),
        ])
    func extremes(factor: Double, mode: PlaybackSpeed.Mode) throws {
        let input = StudySignals.tone(1000, seconds: 1, sampleRate: Self.rate, channels: 2)
        let output = try Self.run(input, PlaybackSpeed(factor: factor, mode: mode), channels: 2)
        #expect(output.count % 2 == 0)
        let ratio = Double(output.count) / Double(input.count)
        // Sonic lengthens by whole samples per pitch period: at 0.1 on a 1 kHz tone (44-sample periods) that
        // rounds 4 % long (measured 10.42×). Positions must therefore come from frames consumed, not × factor.
        let tolerance = factor == 0.1 && mode == .keep ? 0.05 : 0.02
        #expect(abs(ratio - 1 / factor) * factor < tolerance, "\(factor) \(mode): \(ratio)×")
        let pitch = try #require(Self.middlePitch(output, channels: 2))
        let expected = mode == .tape ? 1000 * factor : 1000
        #expect(abs(pitch - expected) / expected < 0.01, "\(factor) \(mode): \(pitch) Hz")
    }

    @Test(
        "changing the factor mid-stream makes no click: no jump between samples beyond what the tone allows",
        arguments: PlaybackSpeed.Mode.allCases)
    func changesWithoutClicks(mode: PlaybackSpeed.Mode) throws {
        let input = StudySignals.tone(1000, seconds: 3, sampleRate: Self.rate)
        let processor = try SpeedProcessor(format: PCMFormat(sampleRate: Self.rate, channels: 1), speed: .normal)
        var output: [Int16] = []
        var seams: [Int] = []
        let factors = [1.0, 0.5, 0.7, 0.25, 1.3, 2.0, 0.1, 1.0, 0.5, 1.0, 0.8, 0.3]
        for (index, factor) in factors.enumerated() {
            output += try processor.setSpeed(PlaybackSpeed(factor: factor, mode: mode))
            seams.append(output.count)
            let piece = input[(index * 11025)..<((index + 1) * 11025)]
            output += try processor.process(Array(piece))
        }
        output += try processor.flush()
        // A 1 kHz sine of amplitude 16000 moves at most 16000 × 2π × 1000 / 44100 ≈ 2280 per sample; in tape
        // mode the tone moves to factor × 1 kHz, so each piece (and the glide into it) allows that much more.
        let slope = 16000 * 2 * Double.pi * 1000 / Double(Self.rate)
        var worst = (ratio: 0.0, at: 0)
        for index in 1..<output.count {
            let piece = max(0, (seams.lastIndex { $0 <= index } ?? 0))
            let previous = max(0, piece - 1)
            let factor = mode == .tape ? max(1, factors[piece], factors[previous]) : 1
            let ratio = Double(abs(Int(output[index]) - Int(output[index - 1]))) / (slope * factor)
            if ratio > worst.ratio { worst = (ratio, index) }
        }
        #expect(worst.ratio <= 1.25, "\(mode): a jump of \(worst.ratio)× the tone's largest step at \(worst.at)")
    }

    @Test("volume 50 halves the amplitude (−6 dB ±0.1); PulseAudio's volume for 50 is the same factor")
    func volume() {
        var samples = StudySignals.tone(1000, seconds: 0.5, sampleRate: Self.rate)
        let before = StudySignals.rmsDecibels(samples[...])
        Gain.apply(Gain.linear(percent: 50), to: &samples)
        let after = StudySignals.rmsDecibels(samples[...])
        #expect(abs(after - before + 6.02) < 0.1, "\(after - before) dB")
        #expect(abs(PulseVolume.linear(PulseVolume.volume(percent: 50)) - 0.5) < 0.005)
        #expect(PulseVolume.linear(PulseVolume.volume(percent: 0)) == 0)
        #expect(abs(PulseVolume.linear(PulseVolume.volume(percent: 100)) - 1) < 0.001)
    }

    @Test("the pitch estimator reads 500 Hz and 1 kHz to better than 0.1 %")
    func pitchEstimator() throws {
        for frequency in [500.0, 1000.0, 437.3] {
            let tone = StudySignals.tone(frequency, seconds: 0.5, sampleRate: Self.rate)
            let measured = try #require(StudySignals.pitch(tone[...], sampleRate: Self.rate))
            #expect(abs(measured - frequency) / frequency < 0.001)
        }
    }
}
