#if canImport(Glibc)
    import Glibc
#endif

/// Text files written whole or not at all: written to a hidden file beside the final name and put in place in
/// one step, so that a process stopped part-way (Ctrl-C, `kill -9`, a full disk) never leaves a half file
/// under the final name that a later run would take for a finished one.
extension FileIO {
    /// Why a whole-file write did not happen.
    public enum WriteRefusal: Error, Sendable, Hashable {
        /// A file of that name is there, and was left as it is.
        case exists
        /// The system's words.
        case failed(String)
    }

    /// Writes `text` to `path`, replacing a file of that name in one step: nil when written, else why not.
    public static func writeWhole(_ text: String, to path: String) -> WriteRefusal? {
        let hidden: String
        switch writeHidden(text, beside: path) {
        case .success(let written): hidden = written
        case .failure(let refusal): return refusal
        }
        guard rename(hidden, path) == 0 else {
            let reason = lastError()
            unlink(hidden)
            return .failed(reason)
        }
        return nil
    }

    /// Writes `text` to `path` only when no file of that name is there: `link(2)` puts it in place and fails on
    /// one that exists, so a file that appears meanwhile is not replaced either.
    /// nil when written, else why not.
    public static func writeNew(_ text: String, to path: String) -> WriteRefusal? {
        if status(atPath: path) != nil { return .exists }
        let hidden: String
        switch writeHidden(text, beside: path) {
        case .success(let written): hidden = written
        case .failure(let refusal): return refusal
        }
        defer { unlink(hidden) }
        guard link(hidden, path) == 0 else {
            return errno == EEXIST ? .exists : .failed(lastError())
        }
        return nil
    }

    /// The hidden name beside `path` that a write in progress has: a dot, the name, this process's number.
    public static func hiddenName(beside path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return folder + "." + name + ".part-\(getpid())"
    }

    /// `text` in the hidden file beside `path`, flushed to the disk; its path.
    private static func writeHidden(_ text: String, beside path: String) -> Result<String, WriteRefusal> {
        let hidden = hiddenName(beside: path)
        let descriptor = open(hidden, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return .failure(.failed(lastError())) }
        let written = writeAll(Array(text.utf8), to: descriptor)
        let flushed = written == nil ? (fsync(descriptor) == 0 ? nil : errno) : written
        close(descriptor)
        if let flushed {
            unlink(hidden)
            return .failure(.failed(String(cString: strerror(flushed)).lowercased()))
        }
        return .success(hidden)
    }
}
