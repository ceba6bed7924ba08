import CSoxr
import ChirperCore
import ChirperSystem

/// libsoxr could not resample (its message), or could not be loaded.
public struct ResamplerError: UserFacingError, Hashable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var userMessage: String { "cannot resample: \(message)" }
    public var description: String { "soxr: \(message)" }
}

/// Mono float audio at any rate turned into 48 kHz, the only rate BirdNET hears, with libsoxr's high quality
/// (20-bit, linear phase): nothing above the lower Nyquist folds back, and the output is aligned with the input
/// (libsoxr drops its filter's own delay), so a call lands at the same time after as before.
///
/// Feed the samples in pieces of any length with `process`, then `flush` once at the end: the output is the
/// same as for one piece. At 48 kHz already the samples are passed as they are.
/// One owner for one `soxr_t`: created in `init`, freed in `deinit`. Not thread-safe.
public final class Resampler {
    public static let outputRate = 48_000
    public let inputRate: Int
    /// nil at 48 kHz, where nothing is done.
    private let soxr: soxr_t?
    private var scratch: [Float] = []

    public init(inputRate: Int) throws(ResamplerError) {
        guard inputRate > 0 else { throw ResamplerError(message: "the sample rate \(inputRate) Hz is not a rate") }
        self.inputRate = inputRate
        guard inputRate != Self.outputRate else {
            soxr = nil
            return
        }
        if let missing = LazyLibrary.missing(chirper_soxr_load, library: "libsoxr", package: "libsoxr0") {
            throw ResamplerError(message: missing)
        }
        var quality = soxr_quality_spec(UInt(SOXR_HQ), UInt(SOXR_LINEAR_PHASE))
        var error: soxr_error_t?
        let made = soxr_create(Double(inputRate), Double(Self.outputRate), 1, &error, nil, &quality, nil)
        try Self.check(error)
        guard let made else { throw ResamplerError(message: "libsoxr made no resampler for \(inputRate) Hz") }
        soxr = made
    }

    deinit {
        if let soxr { soxr_delete(soxr) }
    }

    /// Resamples the next samples; returns what is ready (libsoxr holds back its filter's length until `flush`).
    public func process(_ samples: [Float]) throws(ResamplerError) -> [Float] {
        guard let soxr else { return samples }
        return try run(soxr, samples, last: false)
    }

    /// Lets out what libsoxr still holds: call once, after the last samples.
    public func flush() throws(ResamplerError) -> [Float] {
        guard let soxr else { return [] }
        return try run(soxr, [], last: true)
    }

    /// Feeds `samples` (or the end of input) and drains the output until libsoxr has nothing more for now.
    private func run(_ soxr: soxr_t, _ samples: [Float], last: Bool) throws(ResamplerError) -> [Float] {
        // An empty piece is not the end: to libsoxr, no input is.
        if samples.isEmpty && !last { return [] }
        let ratio = Double(Self.outputRate) / Double(inputRate)
        let room = max(4096, Int((Double(samples.count) * ratio).rounded(.up)) + 64)
        if scratch.count < room { scratch = [Float](repeating: 0, count: room) }
        var result: [Float] = []
        var offset = 0
        while true {
            var used = 0
            var produced = 0
            let error = samples.withUnsafeBufferPointer { input in
                scratch.withUnsafeMutableBufferPointer { output in
                    // A NULL input says the input has ended (libsoxr's flush).
                    let start: UnsafeRawPointer? = last ? nil : input.baseAddress.map { UnsafeRawPointer($0 + offset) }
                    return soxr_process(
                        soxr, start, samples.count - offset, &used, output.baseAddress, output.count, &produced)
                }
            }
            try Self.check(error)
            offset += used
            result += scratch[0..<produced]
            // Done once all input is taken and the output buffer was not filled (nothing more waits).
            if offset >= samples.count && produced < scratch.count { return result }
        }
    }

    /// The one error funnel: libsoxr's errors are messages (NULL when none).
    private static func check(_ error: soxr_error_t?) throws(ResamplerError) {
        guard let error else { return }
        throw ResamplerError(message: String(cString: error))
    }
}
