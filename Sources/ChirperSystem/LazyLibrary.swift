/// A C library loaded with dlopen at its first use (`CLazyLibrary.h`): each has a `chirper_<name>_load(error,
/// size)` that loads it once and says why it could not.
public enum LazyLibrary {
    /// Why `load` could not load its library (dlerror's text, or the function it lacks), or nil once it is loaded.
    private static func failure(_ load: (UnsafeMutablePointer<CChar>?, Int) -> Int32) -> String? {
        var reason = [CChar](repeating: 0, count: 256)
        guard load(&reason, reason.count) != 0 else { return nil }
        return String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The one way a missing library is said, `cannot load libX (why); install PACKAGE`, or nil once it is loaded.
    /// - Parameters:
    ///   - library: its name as users know it (`libfftw3f`).
    ///   - package: the Debian package that provides it (`libfftw3-single3`).
    public static func missing(
        _ load: (UnsafeMutablePointer<CChar>?, Int) -> Int32, library: String, package: String
    ) -> String? {
        failure(load).map { "cannot load \(library) (\($0)); install \(package)" }
    }
}
