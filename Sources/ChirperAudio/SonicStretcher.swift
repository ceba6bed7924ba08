import ChirperCore
import CSonic
import ChirperSystem

/// libsonic could not allocate its buffers (its only failure).
public struct SonicError: UserFacingError, Hashable, CustomStringConvertible {
    public var message: String
    /// What the user can do about it, where `message` does not say.
    public var remedy: String? = "try another speed"
    public var userMessage: String { "cannot change the speed: \(message)" + (remedy.map { "; \($0)" } ?? "") }
    public var description: String { "sonic: \(message)" }
}

/// libsonic's time-stretch over interleaved 16-bit audio: the `keep` speed change (pitch kept).
///
/// Sonic finds the pitch period (AMDF) and drops or repeats whole periods (PICOLA-style overlap-add), so a
/// steady tone stays at its frequency at any speed; the speed can change between calls. It holds up to a few
/// pitch periods back: `flush` at the end of a stream lets them out.
/// One owner for one `sonicStream`: created in `init`, freed in `deinit`. Not thread-safe.
public final class SonicStretcher {
    private let stream: OpaquePointer
    public let channels: Int
    public private(set) var speed: Double
    private var scratch: [Int16] = []

    public init(sampleRate: Int, channels: Int, speed: Double) throws(SonicError) {
        if let missing = LazyLibrary.missing(chirper_sonic_load, library: "libsonic", package: "libsonic0") {
            throw SonicError(message: missing, remedy: nil)
        }
        guard let stream = sonicCreateStream(Int32(sampleRate), Int32(channels)) else {
            throw SonicError(message: "out of memory for \(sampleRate) Hz, \(channels) channels")
        }
        self.stream = stream
        self.channels = channels
        self.speed = speed
        sonicSetSpeed(stream, Float(speed))
    }

    deinit {
        sonicDestroyStream(stream)
    }

    /// Changes the speed from the next samples on.
    public func setSpeed(_ speed: Double) {
        self.speed = speed
        sonicSetSpeed(stream, Float(speed))
    }

    /// Stretches the next interleaved samples (whole frames); returns what is ready.
    public func process(_ samples: [Int16]) throws(SonicError) -> [Int16] {
        let frames = samples.count / channels
        if frames > 0 {
            var input = samples
            let written = input.withUnsafeMutableBufferPointer {
                sonicWriteShortToStream(stream, $0.baseAddress, Int32(frames))
            }
            try check(written)
        }
        return readAvailable()
    }

    /// Lets out what sonic still holds (call at the end of the stream, or before dropping it).
    public func flush() throws(SonicError) -> [Int16] {
        try check(sonicFlushStream(stream))
        return readAvailable()
    }

    private func readAvailable() -> [Int16] {
        var result: [Int16] = []
        while true {
            let available = Int(sonicSamplesAvailable(stream))
            guard available > 0 else { return result }
            if scratch.count < available * channels { scratch = [Int16](repeating: 0, count: available * channels) }
            let read = scratch.withUnsafeMutableBufferPointer {
                Int(sonicReadShortFromStream(stream, $0.baseAddress, Int32(available)))
            }
            guard read > 0 else { return result }
            result += scratch[0..<(read * channels)]
        }
    }

    // Sonic's writes and flush return 0 only when a buffer could not grow.
    private func check(_ status: Int32) throws(SonicError) {
        guard status == 0 else { return }
        throw SonicError(message: "out of memory")
    }
}
