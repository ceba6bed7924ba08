/// The shape of decoded audio: interleaved signed 16-bit native-endian samples at this rate and channel count.
///
/// Everything the decoders produce and the sinks accept is 16-bit: every MP3 decodes to it exactly (so a
/// decode can be compared sample for sample with `mpg123 -s`), it is transparent for field recordings, and it
/// halves the memory and bandwidth of 32-bit float. WAV input of other widths is converted on the way in.
public struct PCMFormat: Sendable, Hashable, CustomStringConvertible {
    /// Frames per second, e.g. 44100.
    public var sampleRate: Int
    /// 1 (mono) or 2 (stereo).
    public var channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Bytes per second of 16-bit interleaved audio in this format.
    public var bytesPerSecond: Int { sampleRate * channels * 2 }

    /// Seconds that `sampleCount` interleaved samples last.
    public func seconds(ofSamples sampleCount: Int) -> Double {
        guard sampleRate > 0, channels > 0 else { return 0 }
        return Double(sampleCount / channels) / Double(sampleRate)
    }

    public var description: String {
        "\(sampleRate) Hz \(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels")"
    }
}
