import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Plain file reads and writes on descriptors, where FoundationEssentials (what the program is built on instead
/// of Foundation, which costs every start) has no `FileHandle`: sizes, the first bytes of a file, and writes that go on
/// through partial writes and signals. A `.part` being appended to is a `PartFile` (ChirperAudio).
public enum FileIO {
    /// The size of the file at `path` (not following a symbolic link), nil when there is none.
    public static func size(atPath path: String) -> Int64? {
        status(atPath: path)?.size
    }

    /// The size and the last modification (seconds since 1970) of the file at `path`, from one `lstat` (or
    /// `stat`, of what a link points to, when `followingLinks`).
    public static func status(atPath path: String, followingLinks: Bool = false) -> (size: Int64, modified: Double)? {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        return (Int64(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
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

    /// Makes the folder at `path` and any missing folders above it (`mkdir -p`): nil when it is there, else
    /// the system's error number.
    public static func makeFolders(atPath path: String) -> Int32? {
        var made = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            made += "/" + component
            if mkdir(made, 0o755) != 0, errno != EEXIST { return errno }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return errno }
        return info.st_mode & S_IFMT == S_IFDIR ? nil : ENOTDIR
    }

    /// Why ``makeFolders(atPath:)`` said ENOTDIR: the deepest part of `path` that exists, a file where a folder
    /// must be (`path` itself, or a folder above it); nil when nothing in the path is in the way.
    public static func fileInTheWay(of path: String) -> String? {
        var part = path
        while status(atPath: part) == nil {
            guard let slash = part.lastIndex(of: "/"), slash != part.startIndex else { return nil }
            part = String(part[..<slash])
        }
        var info = stat()
        guard stat(part, &info) == 0 else { return part }
        return info.st_mode & S_IFMT == S_IFDIR ? nil : part
    }

    /// Writes all of `bytes` to `descriptor`, going on after partial writes and signals: nil when everything
    /// went, else the system's error number (EPIPE when the other end is gone, ENOSPC when the disk is full).
    @discardableResult
    public static func writeAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) -> Int32? {
        let array = Array(bytes)
        var done = 0
        while done < array.count {
            let wrote = array.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, array.count - done) }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { return wrote < 0 ? errno : EIO }
            done += wrote
        }
        return nil
    }
}
