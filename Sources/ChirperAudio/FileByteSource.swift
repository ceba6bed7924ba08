import Glibc

/// Reads a local file in chunks (the offline catalog's recordings, and tests).
public struct FileByteSource: ByteSource {
    public let path: String
    public let chunkSize: Int

    public init(path: String, chunkSize: Int = 16 * 1024) {
        self.path = path
        self.chunkSize = max(1, chunkSize)
    }

    public var wholeLocalFile: String? { path }
    public var keepsArrivedBytes: Bool { true }

    public func open(from offset: Int64) async throws -> any ByteReader {
        try FileByteReader(path: path, offset: offset, chunkSize: chunkSize)
    }
}

/// One open file descriptor, closed at the end, on error, or when the reader is released.
final class FileByteReader: ByteReader {
    private var descriptor: Int32
    private let path: String
    private let chunkSize: Int
    let totalLength: Int64?

    init(path: String, offset: Int64, chunkSize: Int) throws {
        self.path = path
        self.chunkSize = chunkSize
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ByteSourceError.file(path: path, reason: Self.lastError()) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            Glibc.close(fd)
            throw ByteSourceError.file(path: path, reason: "it is a directory")
        }
        totalLength = fstat(fd, &info) == 0 ? Int64(info.st_size) : nil
        if offset > 0, lseek(fd, off_t(offset), SEEK_SET) < 0 {
            let reason = Self.lastError()
            Glibc.close(fd)
            throw ByteSourceError.file(path: path, reason: reason)
        }
        descriptor = fd
    }

    deinit {
        close()
    }

    func read() async throws -> [UInt8]? {
        guard descriptor >= 0 else { return nil }
        try Task.checkCancellation()
        return try readNow()
    }

    /// The next chunk, or nil at the end, read on the caller's thread (a plain `read`, which is all `read()`
    /// does too: for a thread of its own, as `SonogramPieces`' pieces have).
    func readNow() throws -> [UInt8]? {
        guard descriptor >= 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = Self.lastError()
                close()
                throw ByteSourceError.file(path: path, reason: reason)
            }
            if count == 0 {
                close()
                return nil
            }
            buffer.removeLast(buffer.count - count)
            return buffer
        }
    }

    private func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
