import CKissFFT
import ChirperCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why the FFT could not be set up.
public enum FFTError: UserFacingError, Hashable {
    /// kissfft refused the size (odd) or could not allocate its plan.
    case setupFailed(size: Int)

    public var userMessage: String {
        switch self {
        case .setupFailed(let size):
            "cannot set up a \(size)-point FFT for the sonogram (out of memory?); try again"
        }
    }
}

/// The one owner of a kissfft real-FFT plan (`kiss_fftr_cfg`): allocated in init, freed in deinit.
///
/// kissfft reports nothing but a failed allocation, so `check` is its whole error funnel. Not thread-safe:
/// one task uses it (the scratch buffer is reused between calls).
public final class RealFFT: PowerSpectrumTransform {
    public let size: Int
    private var plan: kiss_fftr_cfg?
    private var bins: [kiss_fft_cpx]

    /// - Parameter size: points, even (the sonogram uses 512 or 1024).
    public init(size: Int) throws {
        guard size >= 2, size % 2 == 0 else { throw FFTError.setupFailed(size: size) }
        self.size = size
        bins = [kiss_fft_cpx](repeating: kiss_fft_cpx(r: 0, i: 0), count: size / 2 + 1)
        plan = try Self.check(kiss_fftr_alloc(Int32(size), 0, nil, nil), size: size)
    }

    deinit {
        close()
    }

    /// Frees the plan; safe to call twice.
    public func close() {
        if let plan {
            // kiss_fftr_alloc takes one block with KISS_FFT_MALLOC (malloc): free() releases it.
            free(UnsafeMutableRawPointer(plan))
        }
        plan = nil
    }

    /// The error funnel: a nil plan becomes `FFTError`.
    static func check(_ plan: kiss_fftr_cfg?, size: Int) throws -> kiss_fftr_cfg {
        guard let plan else { throw FFTError.setupFailed(size: size) }
        return plan
    }

    public func power(of input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == size && output.count == size / 2 + 1, "RealFFT: wrong buffer sizes")
        guard let plan, let base = input.baseAddress else { return }
        bins.withUnsafeMutableBufferPointer { bins in
            kiss_fftr(plan, base, bins.baseAddress)
            for bin in 0..<bins.count { output[bin] = bins[bin].r * bins[bin].r + bins[bin].i * bins[bin].i }
        }
    }
}
