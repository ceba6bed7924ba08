import CEditLine
import ChirperCore
import Dispatch
import FoundationEssentials
import Synchronization
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Why the terminal console could not start; the app falls back to `PipeConsole`.
public enum TerminalConsoleError: Error, CustomStringConvertible {
    case notATerminal
    case dumbTerminal
    case alreadyOpen
    case setupFailed(String)

    public var description: String {
        switch self {
        case .notATerminal: "standard input and output are not both a terminal"
        case .dumbTerminal: "TERM=dumb cannot move the cursor"
        case .alreadyOpen: "another terminal console is open"
        case .setupFailed(let reason): "cannot set up line editing: \(reason)"
        }
    }
}

/// The console on a terminal: line editing, history and Tab completion from libedit, and a live status line
/// kept directly above the prompt.
///
/// One thread, the terminal thread, owns the terminal: every libedit call and every byte written to the screen
/// happen there. It waits in poll(2) on standard input and on a self-pipe. When standard input is readable,
/// `el_gets` in libedit's unbuffered mode runs exactly one editing command (one key or key sequence) and
/// returns. Other threads (`print`, `setStatus`, `interrupted`, `setPrompt`, `close`) post a request to the
/// mailbox and write a byte to the self-pipe; the terminal thread then erases the prompt and the status line
/// above it, writes the new lines, draws the status line again, and has libedit redraw the prompt with the
/// half-typed line and the cursor where they were (`EL_REFRESH`).
///
/// This uses libedit's native API rather than its readline emulation. `rl_callback_read_char` is a thin layer
/// over the same `el_gets` in unbuffered mode, with quirks this console would have to work around: it has to be
/// installed again after every line (it calls `el_gets` before re-arming unbuffered mode), it ignores
/// `rl_completer_word_break_characters`, and during completion `rl_point` counts wide characters while
/// `rl_line_buffer` holds bytes. The native API gives one owner for the EditLine and History handles, client
/// data for the callbacks instead of C globals, and a Tab command that decides exactly what is inserted.
public final class TerminalConsole: Console {
    public let isInteractive = true
    public let lines = Channel(of: String.self, failure: Never.self)
    private let mailbox: TerminalMailbox

    /// Columns of the terminal, kept up to date on SIGWINCH.
    public var width: Int { mailbox.columns }
    public let graphics: TerminalGraphicsSupport
    /// Times how long `close` waits for the terminal thread.
    private let clock: any Clock<Duration>
    /// How long that is: the terminal thread answers within milliseconds unless it is stuck in libedit waiting
    /// for the rest of a key sequence (a lone Escape).
    static let closeTimeout = Duration.seconds(2)

    /// Starts line editing on the terminal (standard input and output must both be one). History is kept in
    /// `historyPath` (nil: this session only). With `askGraphics`, the terminal is first asked which graphics
    /// it draws (up to 100 ms). `clock` times `close`.
    public init(
        prompt: String = "chirper> ", historyPath: String? = TerminalConsole.defaultHistoryPath(),
        askGraphics: Bool = false, clock: any Clock<Duration> = ContinuousClock()
    ) throws {
        self.clock = clock
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw TerminalConsoleError.notATerminal }
        // The status line and the redraws use ANSI (VT100) cursor movement, which a dumb terminal lacks.
        if ProcessInfo.processInfo.environment["TERM"] == "dumb" { throw TerminalConsoleError.dumbTerminal }
        guard TerminalConsole.openFlag.claim() else { throw TerminalConsoleError.alreadyOpen }
        var modes = termios()
        guard tcgetattr(STDIN_FILENO, &modes) == 0 else {
            TerminalConsole.openFlag.release()
            throw TerminalConsoleError.setupFailed("tcgetattr: \(String(cString: strerror(errno)))")
        }
        SavedTerminalModes.remember(modes)
        graphics = askGraphics ? TerminalGraphicsProbe.ask(original: modes) : .none
        TerminalConsole.selectUTF8Locale()
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            TerminalConsole.openFlag.release()
            throw TerminalConsoleError.setupFailed("pipe: \(String(cString: strerror(errno)))")
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let mailbox = TerminalMailbox(
            wakeReader: pipeEnds[0], wakeWriter: pipeEnds[1], columns: TerminalConsole.terminalColumns() ?? 80)
        let lines = self.lines
        let endOfFile = withUnsafeBytes(of: modes.c_cc) { $0[Int(VEOF)] }
        let setup = TerminalSession.Setup(
            prompt: prompt, historyPath: historyPath, endOfFileCharacter: endOfFile == 0 ? 4 : endOfFile)
        let ready = DispatchSemaphore(value: 0)
        // A plain thread: it blocks in poll(2) and in libedit's reads, which must not hold up the cooperative pool.
        startDetachedThread(name: "chirper-terminal", stackSize: 1 << 20) {
            TerminalSession.run(setup, mailbox: mailbox, lines: lines, ready: ready)
            mailbox.stopped.post(true, last: true)
        }
        ready.wait()
        if let failure = mailbox.setupFailure {
            TerminalConsole.openFlag.release()
            throw failure
        }
        self.mailbox = mailbox
    }

    deinit {
        closeAtOnce()
    }

    public func print(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        if !mailbox.post(.print(lines)) {
            // Closed: the terminal is back in its normal mode, so plain lines are right.
            let text = lines.joined(separator: "\n") + "\n"
            text.utf8CString.withUnsafeBufferPointer { _ = Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
        }
    }

    public func setStatus(_ rows: [String], picture: StatusPicture?) {
        _ = mailbox.post(.status(rows, picture))
    }

    public func interrupted() {
        _ = mailbox.post(.interrupt)
    }

    /// Replaces the prompt (plain text; wrap invisible parts such as colour codes in `\u{1}` … `\u{1}`).
    public func setPrompt(_ prompt: String) {
        _ = mailbox.post(.prompt(prompt))
    }

    public func close() async {
        guard mailbox.beginClosing() else { return await mailbox.closed.ended() }
        _ = mailbox.post(.close)
        // Awaited, never blocking a thread: the terminal thread says it stopped, or the timer that it is given up
        // on (the first to post is the answer); then the modes are restored from here.
        let (stopped, clock) = (mailbox.stopped, self.clock)
        let timer = Task {
            try? await clock.sleep(for: Self.closeTimeout)
            stopped.post(false, last: true)
        }
        if await stopped.next() != true { TerminalConsole.restoreAtExit() }
        timer.cancel()
        TerminalConsole.openFlag.release()
        mailbox.closed.finish()
    }

    /// For a program that leaves now (a second signal): asks the terminal thread to close, and restores the
    /// modes at once rather than waiting for it.
    public func closeAtOnce() {
        guard mailbox.beginClosing() else { return }
        _ = mailbox.post(.close)
        TerminalConsole.restoreAtExit()
        TerminalConsole.openFlag.release()
        mailbox.closed.finish()
    }

    /// Puts the terminal back in the modes it had before the console started. Safe in an `atexit` or signal
    /// handler (one tcsetattr, no locks); registered with `atexit` when the first console opens.
    public static func restoreAtExit() {
        SavedTerminalModes.restore()
    }

    /// `$XDG_STATE_HOME/chirper-play/history`, by default `~/.local/state/chirper-play/history`.
    public static func defaultHistoryPath(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String?
    {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/chirper-play/history"
        }
        var home = environment["HOME"] ?? ""
        if home.isEmpty, let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        return home.isEmpty ? nil : home + "/.local/state/chirper-play/history"
    }

    /// Columns of the terminal on standard output, if it says.
    static func terminalColumns() -> Int? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// libedit reads and writes UTF-8 only when LC_CTYPE says so; Swift strings are UTF-8 whatever the locale.
    private static func selectUTF8Locale() {
        func isUTF8() -> Bool {
            guard let codeset = nl_langinfo(Int32(CODESET)) else { return false }
            return String(cString: codeset).uppercased().filter { $0 != "-" } == "UTF8"
        }
        setlocale(LC_CTYPE, "")
        if isUTF8() { return }
        for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] where setlocale(LC_CTYPE, name) != nil && isUTF8() {
            return
        }
    }

    /// One console at a time owns the terminal.
    private static let openFlag = OpenFlag()
}

/// Whether a terminal console is open.
private final class OpenFlag: @unchecked Sendable {
    // @unchecked: `open` is read and written only with `lock` held.
    private let lock = Mutex(())
    private var open = false

    func claim() -> Bool {
        lock.withLock { _ in
            defer { open = true }
            return !open
        }
    }

    func release() {
        lock.withLock { _ in open = false }
    }
}
