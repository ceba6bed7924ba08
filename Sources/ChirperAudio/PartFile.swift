import ChirperCore
import Glibc
import ChirperSystem

/// A `.part` being written (a `save`'s, or the play cache's): opened for appending (created if missing), closed
/// by `close`, `discard` or when released.
final class PartFile {
    struct WriteError: Error, CustomStringConvertible {
        /// The line a `save` says.
        var message: String
        /// The system's reason alone ("No space left on device"), for callers with their own words.
        var reason: String
        var description: String { reason }
    }

    private var descriptor: Int32
    private let path: String
    private(set) var size: Int64

    /// Opens the part at `path` to append to it; `truncating` empties it first (a part begun again).
    init(path: String, truncating: Bool = false) throws(WriteError) {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncating ? O_TRUNC : 0), 0o644)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw WriteError(message: "cannot write \(path) (\(reason)); save to another folder", reason: reason)
        }
        var info = stat()
        size = fstat(fd, &info) == 0 ? Int64(info.st_size) : 0
        descriptor = fd
    }

    deinit { close() }

    func append(_ bytes: [UInt8]) throws(WriteError) {
        if let code = FileIO.writeAll(bytes, to: descriptor) {
            let reason = String(cString: strerror(code))
            throw WriteError(
                message: code == ENOSPC
                    ? "the disk is full (\(reason)); free some space or save to another folder"
                    : "cannot write \(path) (\(reason)); save to another folder",
                reason: reason)
        }
        size += Int64(bytes.count)
    }

    /// Closes the file (once; later writes fail).
    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Deletes the part (a full disk, bytes that cannot be right).
    func discard() {
        close()
        unlink(path)
    }
}
