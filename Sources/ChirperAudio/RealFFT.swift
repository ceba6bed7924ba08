import CFFTW
import FoundationEssentials
import ChirperCore
import NIOConcurrencyHelpers
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

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

/// The one owner of an FFTW single-precision plan (`fftwf_plan`) and of the two arrays it was planned for: made
/// in init, destroyed in deinit.
///
/// The real transform of `size` points is made as a complex one of `size / 2` (the even samples as real parts,
/// the odd as imaginary) and one pass that splits the result into the real input's bins (`power`): the standard
/// way to get a real FFT from a complex one. FFTW's own real-to-complex plan does the same split, but the plan
/// `FFTW_ESTIMATE` picks for it splits with a slow codelet, slower than this complex transform and split, and
/// the faster real plan `FFTW_MEASURE` finds takes longer to find than a sonogram takes to draw.
///
/// FFTW's planner (making and destroying plans) is not thread-safe, so it runs under one lock (`planner`);
/// executing a plan is, so pieces of a recording analysed in parallel each execute their own. FFTW reports
/// nothing but a plan or an array it could not make: `check` is its whole error funnel. Not thread-safe itself:
/// one task uses it (its arrays are reused between calls).
public final class RealFFT: PowerSpectrumTransform {
    public let size: Int
    /// `size` floats: sample 2n is point n's real part, sample 2n + 1 its imaginary part.
    private let input: UnsafeMutablePointer<fftwf_complex>
    private let bins: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan
    /// cos and −sin of 2πk / `size`, for k below `size / 2`: the twiddles of the split.
    private let twiddles: (cos: [Float], sin: [Float])
    private static let planner = NIOLock()

    /// - Parameter size: points, even (the sonogram uses 64 to 16,384).
    public init(size: Int) throws {
        guard size >= 2, size % 2 == 0 else { throw FFTError.setupFailed(size: size) }
        if let missing = LazyLibrary.missing(chirper_fftw_load, library: "libfftw3f", package: "libfftw3-single3") {
            throw FFTError.libraryMissing(missing)
        }
        self.size = size
        let half = size / 2
        let input = try Self.check(fftwf_alloc_complex(half), size: size)
        guard let bins = fftwf_alloc_complex(half) else {
            fftwf_free(input)
            throw FFTError.setupFailed(size: size)
        }
        let plan = Self.planner.withLock {
            fftwf_plan_dft_1d(Int32(half), input, bins, chirper_fftw_forward, chirper_fftw_estimate)
        }
        guard let plan else {
            fftwf_free(input)
            fftwf_free(bins)
            throw FFTError.setupFailed(size: size)
        }
        self.input = input
        self.bins = bins
        self.plan = plan
        let angles = (0..<half).map { 2 * Double.pi * Double($0) / Double(size) }
        twiddles = (angles.map { Float(cos($0)) }, angles.map { Float(-sin($0)) })
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
        let (count, size, half) = (window.count, size, size / 2)
        precondition(
            input.count == count && count <= size && output.count == half + 1, "RealFFT: wrong buffer sizes")
        guard let samples = input.baseAddress, let weights = window.baseAddress, let powers = output.baseAddress
        else { return }
        // fftwf_complex is two Floats, the real part then the imaginary.
        self.input.withMemoryRebound(to: Float.self, capacity: size) { points in
            for i in 0..<count { points[i] = samples[i] * weights[i] }
            (points + count).update(repeating: 0, count: size - count)
        }
        fftwf_execute(plan)
        bins.withMemoryRebound(to: Float.self, capacity: size) { z in
            twiddles.cos.withUnsafeBufferPointer { cos in
                twiddles.sin.withUnsafeBufferPointer { sin in
                    // With Z the complex transform: the even samples' transform is E[k] = (Z[k] + conj Z[half − k]) / 2,
                    // the odd ones' O[k] = (Z[k] − conj Z[half − k]) / 2i, and bin k of the real input
                    // X[k] = E[k] + W^k O[k], W = e^(−2πi / size); X[0] and X[half] are E[0] ± O[0].
                    powers[0] = (z[0] + z[1]) * (z[0] + z[1])
                    powers[half] = (z[0] - z[1]) * (z[0] - z[1])
                    for k in 1..<max(1, half) {
                        let (ar, ai) = (z[k &* 2], z[k &* 2 &+ 1])
                        let (br, bi) = (z[(half &- k) &* 2], z[(half &- k) &* 2 &+ 1])
                        let (evenReal, evenImaginary) = ((ar + br) * 0.5, (ai - bi) * 0.5)
                        let (oddReal, oddImaginary) = ((ai + bi) * 0.5, (br - ar) * 0.5)
                        let (c, s) = (cos[k], sin[k])
                        let real = evenReal + c * oddReal - s * oddImaginary
                        let imaginary = evenImaginary + c * oddImaginary + s * oddReal
                        powers[k] = real * real + imaginary * imaginary
                    }
                }
            }
        }
    }
}
