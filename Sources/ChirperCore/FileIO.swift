import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Plain file reads and writes on descriptors, where FoundationEssentials (what the program is built on instead
/// of Foundation, issue 30) has no `FileHandle`: sizes, the first bytes of a file, and writes that go on
/// through partial writes and signals.
public enum FileIO {
    /// The size of the file at `path` (not following a symbolic link), nil when there is none.
    public static func size(atPath path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Up to `count` bytes from the start of the file at `path`, nil when it cannot be read.
    public static func head(ofPath path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes[..<filled])
    }

    /// Writes all of `bytes` to `descriptor`; false when the other end is gone (EPIPE) or the write fails.
    @discardableResult
    public static func writeAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) -> Bool {
        let array = Array(bytes)
        var done = 0
        while done < array.count {
            let wrote = array.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, array.count - done) }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { return false }
            done += wrote
        }
        return true
    }
}

/// A file opened to append to, with one owner (the cache's writer queue), closed once: FoundationEssentials'
/// stand-in for `FileHandle(forWritingTo:)` followed by `seekToEnd()`.
public final class AppendingFile {
    private var descriptor: Int32

    /// Opens the existing file at `path` to append to it.
    public init(path: String) throws(POSIXError) {
        descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    public func write(_ bytes: [UInt8]) throws(POSIXError) {
        guard descriptor >= 0 else { throw POSIXError(.EBADF) }
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, bytes.count - done) }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            done += wrote
        }
    }

    public func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
