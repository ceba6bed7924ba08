import ChirperCore
import CMPG123  // fmt123.h (the encodings) is shared with mpg123.h; a whole-module build owns it there
import CSyn123
import ChirperSystem

/// An error from libsyn123, with the library's own message.
public struct Syn123Error: UserFacingError, Hashable, CustomStringConvertible {
    public var code: Int32
    public var message: String
    /// What the user can do about it, where `message` does not say.
    public var remedy: String? = "try another speed"
    public var userMessage: String { "cannot change the speed: \(message)" + (remedy.map { "; \($0)" } ?? "") }
    public var description: String { "syn123 error \(code): \(message)" }
}

/// libsyn123's streaming resampler over interleaved 16-bit audio: the `tape` speed change.
///
/// Playing `speed`× at the same output rate is resampling from `rate × speed` to `rate`: 0.5 gives twice the
/// samples, every frequency halved (one octave down), as a tape played slowly. The resampler (IIR low-pass,
/// up to 6-point interpolation, 108 dB) has a few samples of delay and no lookahead, so there is nothing to
/// flush; a ratio change keeps its history (`smooth`), so a speed change mid-stream does not click.
/// One owner for one `syn123_handle`: created in `init`, freed in `deinit`. Not thread-safe.
public final class Syn123Resampler {
    private let handle: OpaquePointer
    public let sampleRate: Int
    public let channels: Int
    public private(set) var speed: Double
    private var input: [Float] = []
    private var output: [Float] = []

    public init(sampleRate: Int, channels: Int, speed: Double) throws(Syn123Error) {
        if let missing = LazyLibrary.missing(chirper_syn123_load, library: "libsyn123", package: "libsyn123-0") {
            throw Syn123Error(code: -1, message: missing, remedy: nil)
        }
        var error: Int32 = 0
        let encoding = Int32(MPG123_ENC_FLOAT_32.rawValue)
        guard let handle = syn123_new(sampleRate, Int32(channels), encoding, 0, &error) else {
            throw Syn123Error(code: error, message: String(cString: syn123_strerror(error)))
        }
        self.handle = handle
        self.sampleRate = sampleRate
        self.channels = channels
        self.speed = speed
        self.targetSpeed = speed
        do {
            try configure()
        } catch {
            syn123_del(handle)
            throw error
        }
    }

    deinit {
        syn123_del(handle)
    }

    /// The speed being glided to (see `setSpeed`).
    public private(set) var targetSpeed: Double

    /// Changes the speed from the next samples on, keeping the filter state. The ratio glides there by at
    /// most ×1.25 per 256 frames (a jump from 2.0 to 0.1 takes ~80 ms): a sudden large ratio change rings
    /// in the resampler's filters and clicks (measured on a 1 kHz tone, 2.0 to 0.1 at once: a jump 2.4× the
    /// largest step the tone allows).
    public func setSpeed(_ speed: Double) throws(Syn123Error) {
        targetSpeed = speed
    }

    /// Resamples the next interleaved samples (whole frames).
    public func process(_ samples: [Int16]) throws(Syn123Error) -> [Int16] {
        var result: [Int16] = []
        var start = 0
        let frames = samples.count / channels
        while start < frames {
            var count = frames - start
            if speed != targetSpeed {
                let step = min(max(targetSpeed / speed, 1 / Self.glideStep), Self.glideStep)
                speed = abs(targetSpeed / (speed * step) - 1) < 1e-9 ? targetSpeed : speed * step
                try configure()
                count = min(count, Self.glideFrames)
            }
            result += resample(samples[(start * channels)..<((start + count) * channels)])
            start += count
        }
        return result
    }

    private static let glideStep = 1.25
    private static let glideFrames = 256

    private func resample(_ samples: ArraySlice<Int16>) -> [Int16] {
        let frames = samples.count / channels
        guard frames > 0 else { return [] }
        let inRate = inputRate
        let maxIn = max(1, syn123_resample_maxincount(inRate, sampleRate))
        var result: [Int16] = []
        result.reserveCapacity(Int(Double(samples.count) / speed) + 64 * channels)
        var start = 0
        while start < frames {
            let count = min(frames - start, maxIn, 16384)
            input.removeAll(keepingCapacity: true)
            let base = samples.startIndex
            for sample in samples[(base + start * channels)..<(base + (start + count) * channels)] {
                input.append(Float(sample) / 32768)
            }
            let capacity = syn123_resample_count(inRate, sampleRate, count) * channels
            if output.count < capacity { output = [Float](repeating: 0, count: capacity) }
            let produced = input.withUnsafeMutableBufferPointer { source in
                output.withUnsafeMutableBufferPointer { destination in
                    syn123_resample(handle, destination.baseAddress, source.baseAddress, count)
                }
            }
            for index in 0..<(produced * channels) {
                result.append(Self.toInt16(output[index]))
            }
            start += count
        }
        return result
    }

    /// The rate the input is taken to have: `sampleRate × speed`.
    private var inputRate: Int { max(1, Int((Double(sampleRate) * speed).rounded())) }

    private func configure() throws(Syn123Error) {
        try check(syn123_setup_resample(handle, inputRate, sampleRate, Int32(channels), 0, 1))
    }

    private static func toInt16(_ value: Float) -> Int16 {
        let scaled = (value * 32768).rounded()
        return Int16(min(max(scaled, -32768), 32767))
    }

    private func check(_ status: Int32) throws(Syn123Error) {
        guard status != Int32(SYN123_OK.rawValue) else { return }
        throw Syn123Error(code: status, message: String(cString: syn123_strerror(status)))
    }
}
