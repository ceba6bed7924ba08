#if canImport(Glibc)
    import Glibc
#endif

/// A regular file opened for reading at offsets: the one owner of its descriptor, opened in `open` and closed
/// when it goes. A header is read through one descriptor (one open, one `fstat`, a `pread` per range) instead of
/// opening the file again for each range.
public final class ReadableFile {
    /// Bytes in the file when it was opened.
    public let size: Int64
    /// Its last change, in seconds since 1970.
    public let modified: Double
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32, size: Int64, modified: Double) {
        self.path = path
        self.descriptor = descriptor
        self.size = size
        self.modified = modified
    }

    deinit {
        close(descriptor)
    }

    /// The file at `path` (a link followed), or why it cannot be read: the C library's words, or "not a regular
    /// file" (a folder, a device, a pipe, which is not waited on: it is opened without blocking).
    public static func open(_ path: String) -> Result<ReadableFile, FileTree.Problem> {
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(FileTree.Problem(path: path, reason: FileIO.lastError())) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = FileIO.lastError()
            close(descriptor)
            return .failure(FileTree.Problem(path: path, reason: reason))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return .failure(FileTree.Problem(path: path, reason: "not a regular file"))
        }
        return .success(
            ReadableFile(
                path: path, descriptor: descriptor, size: Int64(info.st_size),
                modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
    }

    /// Up to `count` bytes from `offset` (fewer where the file ends), or why they cannot be read.
    public func bytes(at offset: Int64, count: Int) -> Result<[UInt8], FileTree.Problem> {
        var failure: FileTree.Problem?
        let bytes = [UInt8](unsafeUninitializedCapacity: max(0, count)) { buffer, filled in
            filled = 0
            while filled < buffer.count {
                let got = pread(
                    descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
                if got < 0, errno == EINTR { continue }
                guard got >= 0 else {
                    failure = FileTree.Problem(path: path, reason: FileIO.lastError())
                    return
                }
                if got == 0 { return }
                filled += got
            }
        }
        if let failure { return .failure(failure) }
        return .success(bytes)
    }
}
