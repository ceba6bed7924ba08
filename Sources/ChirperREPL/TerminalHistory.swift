import CEditLine
import ChirperCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The line history: the one owner of libedit's History handle, and the file it is kept in across sessions.
///
/// At most 1000 entries, no empty lines, no repeat of the previous line. The file lives in a 0700 folder with
/// mode 0600 and is replaced whole (temporary file, then rename), so a crash never leaves half of it. Trouble
/// with the file never stops the REPL: one warning, and the history is kept for this session only.
final class TerminalHistory {
    /// libedit's handle, for `el_set(EL_HIST)`; valid until this object goes.
    let handle: OpaquePointer
    private let path: String?
    /// The most recent entry, so repeats are not added.
    private var lastEntry: String?
    /// A problem was reported: the file is left alone from then on.
    private var warned = false
    /// The warning line not yet shown.
    private var warning: String?

    /// - Parameter path: the history file (nil: this session only).
    init(path: String?) throws(TerminalConsoleError) {
        guard let handle = history_init() else { throw .setupFailed("history_init failed") }
        self.handle = handle
        self.path = path
        var event = HistEvent()
        try EditLineCall.check(chirper_history_set_size(handle, &event, 1000), "history size")
        try EditLineCall.check(chirper_history_set_unique(handle, &event, 1), "history unique")
    }

    deinit {
        history_end(handle)
    }

    /// Reads the file, creating its folder (0700) and the file (0600) when missing.
    func load() {
        guard let path else { return }
        let folder = PathText.folder(of: path)
        if let problem = Self.makeFolders(folder) {
            report("cannot create \(folder): \(problem)")
            return
        }
        let descriptor = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            report("cannot open \(path): \(String(cString: strerror(errno)))")
            return
        }
        var info = stat()
        let size = fstat(descriptor, &info) == 0 ? info.st_size : 0
        Glibc.close(descriptor)
        guard size > 0 else { return }
        var event = HistEvent()
        if chirper_history_load(handle, &event, path) < 0 {
            // Not saved over either: it may be someone's data.
            report("cannot read \(path) (not a libedit history file?)")
        } else if chirper_history_first(handle, &event) == 0, let newest = event.str {
            lastEntry = String(cString: newest)
        }
    }

    /// Adds a line (not an empty one, not a repeat of the previous one) and saves the file.
    func remember(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace), line != lastEntry else { return }
        var event = HistEvent()
        if chirper_history_enter(handle, &event, line) < 0 {
            report("cannot add to the history")
            return
        }
        lastEntry = line
        save()
    }

    /// Writes the whole history to a temporary file and renames it over the old one.
    private func save() {
        guard let path, !warned else { return }
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0, let file = fdopen(descriptor, "w") else {
            if descriptor >= 0 { Glibc.close(descriptor) }
            report("cannot save \(path): \(String(cString: strerror(errno)))")
            return
        }
        var event = HistEvent()
        let saved = chirper_history_save_fp(handle, &event, file) >= 0
        let closed = fclose(file) == 0
        guard saved, closed, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            report("cannot save \(path): \(reason)")
            return
        }
    }

    /// `mkdir -p` with mode 0700; nil on success, else why not.
    private static func makeFolders(_ folder: String) -> String? {
        var current = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o700) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
        }
        var info = stat()
        guard stat(folder, &info) == 0 else { return String(cString: strerror(errno)) }
        return (info.st_mode & S_IFMT) == S_IFDIR ? nil : "not a folder"
    }

    /// One line, once, and the file is left alone from then on.
    private func report(_ problem: String) {
        guard !warned else { return }
        warned = true
        warning = "history: \(TerminalText.sanitize(problem)); history is kept for this session only"
    }

    /// The warning line to show, once.
    func takeWarning() -> String? {
        defer { warning = nil }
        return warning
    }
}

/// libedit's one error funnel: `el_set` and `history` return -1 on failure (0 or more on success).
enum EditLineCall {
    static func check(_ code: Int32, _ what: String) throws(TerminalConsoleError) {
        guard code >= 0 else { throw .setupFailed("libedit refused \(what)") }
    }
}
