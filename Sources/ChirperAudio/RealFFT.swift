import CFFTW
import ChirperCore
import NIOConcurrencyHelpers

/// Why the FFT could not be set up.
public enum FFTError: UserFacingError, Hashable {
    /// FFTW refused the size (odd) or could not allocate its arrays or its plan.
    case setupFailed(size: Int)
    /// libfftw3f could not be loaded (the line that says so).
    case libraryMissing(String)

    public var userMessage: String {
        switch self {
        case .setupFailed(let size):
            "cannot set up a \(size)-point FFT for the sonogram (out of memory?); try again"
        case .libraryMissing(let line):
            line
        }
    }
}

/// The one owner of an FFTW single-precision real-to-complex plan (`fftwf_plan`) and of the two arrays it was
/// planned for: made in init, destroyed in deinit.
///
/// FFTW's planner (making and destroying plans) is not thread-safe, so it runs under one lock (`planner`);
/// executing a plan is, so pieces of a recording analysed in parallel each execute their own. FFTW reports
/// nothing but a plan or an array it could not make: `check` is its whole error funnel. The plan is made with
/// `FFTW_ESTIMATE` (microseconds; measuring would take 100 ms per size for the same speed on this shape).
/// Not thread-safe itself: one task uses it (its arrays are reused between calls).
public final class RealFFT: PowerSpectrumTransform {
    public let size: Int
    private let input: UnsafeMutablePointer<Float>
    private let bins: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan
    private static let planner = NIOLock()

    /// - Parameter size: points, even (the sonogram uses 64 to 16,384).
    public init(size: Int) throws {
        guard size >= 2, size % 2 == 0 else { throw FFTError.setupFailed(size: size) }
        if let missing = LazyLibrary.missing(chirper_fftw_load, library: "libfftw3f", package: "libfftw3-single3") {
            throw FFTError.libraryMissing(missing)
        }
        self.size = size
        let input = try Self.check(fftwf_alloc_real(size), size: size)
        guard let bins = fftwf_alloc_complex(size / 2 + 1) else {
            fftwf_free(input)
            throw FFTError.setupFailed(size: size)
        }
        let plan = Self.planner.withLock {
            fftwf_plan_dft_r2c_1d(Int32(size), input, bins, chirper_fftw_estimate)
        }
        guard let plan else {
            fftwf_free(input)
            fftwf_free(bins)
            throw FFTError.setupFailed(size: size)
        }
        self.input = input
        self.bins = bins
        self.plan = plan
    }

    deinit {
        Self.planner.withLock { fftwf_destroy_plan(plan) }
        fftwf_free(input)
        fftwf_free(bins)
    }

    /// The error funnel: an array FFTW could not allocate becomes `FFTError`.
    static func check<T>(_ pointer: UnsafeMutablePointer<T>?, size: Int) throws -> UnsafeMutablePointer<T> {
        guard let pointer else { throw FFTError.setupFailed(size: size) }
        return pointer
    }

    public func power(
        of input: UnsafeBufferPointer<Float>, windowedBy window: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        let count = window.count
        precondition(
            input.count == count && count <= size && output.count == size / 2 + 1, "RealFFT: wrong buffer sizes")
        guard let samples = input.baseAddress, let weights = window.baseAddress, let powers = output.baseAddress
        else { return }
        let points = self.input
        for i in 0..<count { points[i] = samples[i] * weights[i] }
        (points + count).update(repeating: 0, count: size - count)
        fftwf_execute(plan)
        let bins = size / 2 + 1
        // fftwf_complex is two Floats, real then imaginary.
        self.bins.withMemoryRebound(to: Float.self, capacity: 2 * bins) { parts in
            for bin in 0..<bins {
                let (real, imaginary) = (parts[bin &* 2], parts[bin &* 2 &+ 1])
                powers[bin] = real * real + imaginary * imaginary
            }
        }
    }
}
