import ChirperAudio
import ChirperTestSupport
import Foundation
import Testing

/// Signals whose content tells time and pitch, and the measurements that read them back (issue 9's tests).
enum StudySignals {
    static let hasLame = PulseHarness.executable(named: "lame") != nil
    static let noLame: Comment = "skipped: lame (to encode the MP3 fixtures) is not installed"

    /// Seconds per step of the stepped tone, and how much of each step sounds (the rest is silence).
    static let step = 0.5
    static let toneLength = 0.45

    /// Step `k`'s frequency: distinct for every step, so a window of audio tells which step it is from.
    static func stepFrequency(_ k: Int) -> Double { 400 + 40 * Double(k) }

    /// A mono tone stepping every 0.5 s (400, 440, 480 … Hz), each step 0.45 s of tone (5 ms fades) and
    /// 0.05 s of silence: the frequency names the step, the onset after the silence marks it to a few samples.
    /// `steppedTone`, made off the cooperative pool: seconds of samples one by one hold a pool thread for a
    /// while in a debug build, and the player's tests beside it wait on that pool.
    static func steppedToneOffThePool(seconds: Double, sampleRate: Int) async throws -> [Int16] {
        try await offThePool { steppedTone(seconds: seconds, sampleRate: sampleRate) }
    }

    static func steppedTone(seconds: Double, sampleRate: Int) -> [Int16] {
        let frames = Int(seconds * Double(sampleRate))
        let stepFrames = Int(step * Double(sampleRate))
        let toneFrames = Int(toneLength * Double(sampleRate))
        let fade = Double(sampleRate) * 0.005
        return (0..<frames).map { frame in
            let k = frame / stepFrames
            let within = frame % stepFrames
            guard within < toneFrames else { return 0 }
            let envelope = min(1, Double(within) / fade, Double(toneFrames - within) / fade)
            let t = Double(within) / Double(sampleRate)
            return Int16((sin(2 * .pi * stepFrequency(k) * t) * 16000 * envelope).rounded())
        }
    }

    /// A steady sine of `frequency`, interleaved over `channels`.
    static func tone(_ frequency: Double, seconds: Double, sampleRate: Int, channels: Int = 1) -> [Int16] {
        let frames = Int(seconds * Double(sampleRate))
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            let value = Int16((sin(2 * .pi * frequency * Double(frame) / Double(sampleRate)) * 16000).rounded())
            for _ in 0..<channels { samples.append(value) }
        }
        return samples
    }

    /// Encodes 16-bit mono `samples` to MP3 with lame and the given options (e.g. `-b 128`, `-V 4`, `-t`).
    static func encodeMP3(_ samples: [Int16], sampleRate: Int, options: [String]) async throws -> [UInt8] {
        guard let lame = PulseHarness.executable(named: "lame") else { throw TestFailure("lame missing") }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Made off the cooperative pool: seconds of samples, byte by byte, in a debug build.
        let wav = try await offThePool {
            makeWAV(samples, encoding: .signed16, sampleRate: sampleRate, channels: 1, extraChunks: false)
        }
        try Data(wav.bytes).write(to: URL(fileURLWithPath: directory + "/in.wav"))
        let result = try await Tool.run(lame, ["--quiet"] + options + [directory + "/in.wav", directory + "/out.mp3"])
        guard result.status == 0 else { throw TestFailure("lame \(options) failed") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/out.mp3")))
    }

    // MARK: - Measurements

    /// The frequency of a steady tone in mono `samples`, from upward zero crossings (interpolated between
    /// samples): better than 0.1 % for a clean tone a few hundred periods long.
    static func pitch(_ samples: ArraySlice<Int16>, sampleRate: Int) -> Double? {
        var first: Double?
        var last = 0.0
        var crossings = 0
        var previous = Double(samples.first ?? 0)
        for (offset, sample) in samples.dropFirst().enumerated() {
            let value = Double(sample)
            if previous < 0 && value >= 0 {
                let position = Double(offset) + (-previous) / (value - previous)
                if first == nil { first = position }
                last = position
                crossings += 1
            }
            previous = value
        }
        guard let first, crossings > 2, last > first else { return nil }
        return Double(crossings - 1) / (last - first) * Double(sampleRate)
    }

    /// Root mean square level in dB below full scale (−∞ for silence).
    static func rmsDecibels(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return -.infinity }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return 10 * log10(sum / Double(samples.count) / (32768.0 * 32768.0))
    }

    /// The first sample after `from` that is loud (above a quarter of the tone's amplitude) after at
    /// least 10 ms of quiet: the onset of the next step's tone.
    static func nextOnset(_ samples: [Int16], from: Int, sampleRate: Int) -> Int? {
        let quietNeeded = sampleRate / 100
        var quiet = 0
        var index = from
        while index < samples.count {
            if abs(Int(samples[index])) > 4000 {
                if quiet >= quietNeeded { return index }
                quiet = 0
            } else {
                quiet += 1
            }
            index += 1
        }
        return nil
    }

    /// Where `output` starts in the stepped tone's recording time, in frames: its first complete step is
    /// found by its onset and named by its frequency, then compared with the same step's onset in
    /// `reference` (a straight decode of the same file, so codec delay cancels out).
    static func startFrame(of output: [Int16], reference: [Int16], sampleRate: Int) -> Int? {
        guard let onset = nextOnset(output, from: 0, sampleRate: sampleRate) else { return nil }
        let window = output[onset + sampleRate / 50..<min(output.count, onset + sampleRate * 2 / 5)]
        guard let frequency = pitch(window, sampleRate: sampleRate) else { return nil }
        let k = Int(((frequency - 400) / 40).rounded())
        let stepFrames = Int(step * Double(sampleRate))
        // The reference's onset of step k: search from just before where it should be.
        guard
            let referenceOnset = nextOnset(
                reference, from: max(0, k * stepFrames - stepFrames / 20), sampleRate: sampleRate)
        else { return nil }
        return referenceOnset - onset
    }
}
