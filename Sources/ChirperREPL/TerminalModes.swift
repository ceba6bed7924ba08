#if canImport(Glibc)
    import Glibc
#endif

/// The terminal modes from before the first console started, for `restoreAtExit`.
enum SavedTerminalModes {
    // Written once, when the first console opens and before `atexit` can call `restore`; read from atexit and
    // signal handlers, which cannot take locks.
    nonisolated(unsafe) private static var modes = termios()
    nonisolated(unsafe) private static var saved = false

    static func remember(_ original: termios) {
        guard !saved else { return }
        modes = original
        saved = true
        atexit { SavedTerminalModes.restore() }
    }

    static func restore() {
        guard saved else { return }
        var original = modes
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &original)
    }
}
