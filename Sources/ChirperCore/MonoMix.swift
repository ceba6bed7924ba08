/// Interleaved 16-bit PCM as mono floats in [-1, 1): the mean of the channels, as BirdNET's tools mix a
/// recording down. One place for what `identify` reads and what `identify on` hears, so the two agree.
public enum MonoMix {
    /// Frames `frames` of `samples` (interleaved, `channels` to a frame), each the mean of its channels.
    public static func mean(of samples: [Int16], channels: Int, frames: Range<Int>) -> [Float] {
        let channels = max(1, channels)
        let scale = 1 / (32768 * Float(channels))
        var mono = [Float](repeating: 0, count: frames.count)
        samples.withUnsafeBufferPointer { samples in
            mono.withUnsafeMutableBufferPointer { mono in
                for frame in frames {
                    let base = frame * channels
                    // Summed in integers: exact for up to 65,536 channels, and the same whatever the order.
                    var sum: Int32 = 0
                    for channel in 0..<channels { sum += Int32(samples[base + channel]) }
                    mono[frame - frames.lowerBound] = Float(sum) * scale
                }
            }
        }
        return mono
    }
}
