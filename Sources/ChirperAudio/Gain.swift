/// Software volume: scales 16-bit samples, for outputs without a server-side volume (file, null sink).
///
/// The PulseAudio output should not use it: samples scaled here are heard only after the ~2 s the sink
/// buffers, so `volume` would lag by up to 2 s; the stream volume (`PulseVolume`) acts at once.
public enum Gain {
    /// The linear factor for `volume <0-100>`: 50 halves the amplitude (−6 dB), 0 is silence.
    public static func linear(percent: Int) -> Double {
        Double(min(max(percent, 0), 100)) / 100
    }

    /// Scales `samples` by `factor` (0…1), rounded to nearest; 1 leaves them untouched.
    public static func apply(_ factor: Double, to samples: inout [Int16]) {
        guard factor != 1 else { return }
        let clamped = min(max(factor, 0), 1)
        for index in samples.indices {
            samples[index] = Int16((Double(samples[index]) * clamped).rounded())
        }
    }
}
