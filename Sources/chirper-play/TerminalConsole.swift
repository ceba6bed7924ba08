import CEditLine
import ChirperCore
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why the terminal console could not start; the app falls back to `PipeConsole`.
enum TerminalConsoleError: Error, CustomStringConvertible {
    case notATerminal
    case dumbTerminal
    case alreadyOpen
    case setupFailed(String)

    var description: String {
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
final class TerminalConsole: Console {
    let isInteractive = true
    let lines: AsyncStream<String>
    private let mailbox: TerminalMailbox

    /// Columns of the terminal, kept up to date on SIGWINCH.
    var width: Int { mailbox.columns }

    /// Starts line editing on the terminal (standard input and output must both be one). History is kept in
    /// `historyPath` (nil: this session only).
    init(prompt: String = "chirper> ", historyPath: String? = TerminalConsole.defaultHistoryPath()) throws {
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
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        let endOfFile = withUnsafeBytes(of: modes.c_cc) { $0[Int(VEOF)] }
        let setup = TerminalSession.Setup(
            prompt: prompt, historyPath: historyPath, endOfFileCharacter: endOfFile == 0 ? 4 : endOfFile)
        let ready = DispatchSemaphore(value: 0)
        mailbox.stopped.enter()
        // A plain thread: it blocks in poll(2) and in libedit's reads, which must not hold up the cooperative pool.
        let thread = Thread {
            TerminalSession.run(setup, mailbox: mailbox, continuation: continuation, ready: ready)
            mailbox.stopped.leave()
        }
        thread.name = "chirper-terminal"
        thread.stackSize = 1 << 20
        thread.start()
        ready.wait()
        if let failure = mailbox.setupFailure {
            TerminalConsole.openFlag.release()
            throw TerminalConsoleError.setupFailed(failure)
        }
        self.mailbox = mailbox
        self.lines = stream
    }

    deinit {
        close()
    }

    func print(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        if !mailbox.post(.print(lines)) {
            // Closed: the terminal is back in its normal mode, so plain lines are right.
            let text = lines.joined(separator: "\n") + "\n"
            text.utf8CString.withUnsafeBufferPointer { _ = Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
        }
    }

    func setStatus(_ text: String?) {
        _ = mailbox.post(.status(text))
    }

    func interrupted() {
        _ = mailbox.post(.interrupt)
    }

    /// Replaces the prompt (plain text; wrap invisible parts such as colour codes in `\u{1}` … `\u{1}`).
    func setPrompt(_ prompt: String) {
        _ = mailbox.post(.prompt(prompt))
    }

    func close() {
        let first = mailbox.beginClosing()
        _ = mailbox.post(.close)
        // The terminal thread answers within milliseconds unless it is stuck in libedit waiting for the rest of a
        // key sequence (a lone Escape); then the modes are restored from here.
        if mailbox.stopped.wait(timeout: .now() + 2) == .timedOut {
            TerminalConsole.restoreAtExit()
        }
        if first { TerminalConsole.openFlag.release() }
    }

    /// Puts the terminal back in the modes it had before the console started. Safe in an `atexit` or signal
    /// handler (one tcsetattr, no locks); registered with `atexit` when the first console opens.
    static func restoreAtExit() {
        SavedTerminalModes.restore()
    }

    /// `$XDG_STATE_HOME/chirper-play/history`, by default `~/.local/state/chirper-play/history`.
    static func defaultHistoryPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
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
    private let lock = NSLock()
    private var open = false

    func claim() -> Bool {
        lock.withLock {
            defer { open = true }
            return !open
        }
    }

    func release() {
        lock.withLock { open = false }
    }
}

/// The terminal modes from before the first console started, for `restoreAtExit`.
private enum SavedTerminalModes {
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

/// What other threads ask of the terminal thread.
private enum TerminalRequest: Sendable {
    case print([String])
    case status(String?)
    case prompt(String)
    case interrupt
    case close
}

/// Requests for the terminal thread, and the self-pipe that wakes it.
private final class TerminalMailbox: @unchecked Sendable {
    // @unchecked: `requests`, `accepting`, `currentColumns`, `failure` and `closing` are read and written only
    // with `lock` held; the descriptors and the group are immutable (and the group is thread-safe).
    private let lock = NSLock()
    private var requests: [TerminalRequest] = []
    private var accepting = true
    private var currentColumns: Int
    private var failure: String?
    private var closing = false
    let wakeReader: Int32
    let wakeWriter: Int32
    /// Left when the terminal thread has finished (terminal restored, history saved).
    let stopped = DispatchGroup()

    init(wakeReader: Int32, wakeWriter: Int32, columns: Int) {
        self.wakeReader = wakeReader
        self.wakeWriter = wakeWriter
        self.currentColumns = columns
    }

    deinit {
        Glibc.close(wakeReader)
        Glibc.close(wakeWriter)
    }

    /// True for the first caller only.
    func beginClosing() -> Bool {
        lock.withLock {
            defer { closing = true }
            return !closing
        }
    }

    /// Queues `request` and wakes the terminal thread; false once the console is closing or closed.
    func post(_ request: TerminalRequest) -> Bool {
        let posted = lock.withLock {
            guard accepting else { return false }
            requests.append(request)
            if case .close = request { accepting = false }
            return true
        }
        if posted { wake() }
        return posted
    }

    /// Everything queued since the last call.
    func take() -> [TerminalRequest] {
        lock.withLock {
            defer { requests.removeAll() }
            return requests
        }
    }

    /// Stops accepting requests (the terminal thread is going away on its own).
    func refuse() {
        lock.withLock { accepting = false }
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)  // a full pipe already holds a wake-up
    }

    func drainWakeUps() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeReader, &bytes, bytes.count) > 0 {}
    }

    var columns: Int {
        get { lock.withLock { currentColumns } }
        set { lock.withLock { currentColumns = newValue } }
    }

    var setupFailure: String? {
        get { lock.withLock { failure } }
        set { lock.withLock { failure = newValue } }
    }
}

/// The write end of the self-pipe, for the SIGWINCH handler (which can only reach globals).
// Written on the terminal thread before the handler is installed and not changed while it is.
nonisolated(unsafe) private var resizeWakeDescriptor: Int32 = -1

/// Everything the terminal thread owns: the libedit handles and the model of what is on the screen.
///
/// The screen, from the top: lines printed so far, then the status line (if any), then the prompt with the line
/// being edited (which may wrap over several rows). Everything is written from here, so the model stays true.
private final class TerminalSession {
    struct Setup: Sendable {
        var prompt: String
        var historyPath: String?
        var endOfFileCharacter: UInt8
    }

    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private let files: [UnsafeMutablePointer<FILE>]
    private let mailbox: TerminalMailbox
    private let continuation: AsyncStream<String>.Continuation
    private let historyPath: String?
    private let endOfFileCharacter: UInt8
    private var previousResizeAction = sigaction()

    /// The prompt text, and the same as a C string for libedit's prompt function.
    private var prompt: String
    private var promptCString: UnsafeMutablePointer<CChar>
    private var columns: Int
    /// The status line the app wants shown.
    private var status: String?
    /// The status line on the screen, directly above the prompt's first row (or above the cursor's row when no
    /// prompt is shown); nil when none is.
    private var statusOnScreen: String?
    /// libedit is reading a line: the prompt and the line are on the screen and the terminal is in edit mode.
    private var editing = false
    /// Standard input has ended (Ctrl-D at an empty prompt, or a hang-up): no more keys are read.
    private var inputEnded = false
    /// Lines to print once the current key is handled (a completion list, a history warning).
    private var pendingLines: [String] = []
    /// Ctrl-L was pressed.
    private var clearRequested = false
    /// The most recent history entry, so repeats are not added.
    private var lastHistoryEntry: String?
    private var historyWarned = false
    /// Bytes for the screen, written at `flush`.
    private var output: [UInt8] = []

    /// Runs the terminal thread: sets up libedit, serves keys and requests until `close`, then restores the terminal.
    static func run(
        _ setup: Setup,
        mailbox: TerminalMailbox,
        continuation: AsyncStream<String>.Continuation,
        ready: DispatchSemaphore
    ) {
        let session: TerminalSession
        do {
            session = try TerminalSession(setup, mailbox: mailbox, continuation: continuation)
        } catch {
            mailbox.setupFailure = error.description
            mailbox.refuse()
            continuation.finish()
            ready.signal()
            return
        }
        ready.signal()
        session.serve()
    }

    private init(
        _ setup: Setup,
        mailbox: TerminalMailbox,
        continuation: AsyncStream<String>.Continuation
    ) throws(TerminalConsoleError) {
        // libedit's own FILEs on duplicates of the standard descriptors, so closing them at the end closes only those.
        var files: [UnsafeMutablePointer<FILE>] = []
        for (descriptor, mode) in [(STDIN_FILENO, "r"), (STDOUT_FILENO, "w"), (STDERR_FILENO, "w")] {
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
            guard copy >= 0, let file = fdopen(copy, mode) else {
                files.forEach { fclose($0) }
                throw .setupFailed("cannot duplicate descriptor \(descriptor): \(String(cString: strerror(errno)))")
            }
            files.append(file)
        }
        // Room for a whole redraw, so it goes out in one write.
        setvbuf(files[1], nil, _IOFBF, 1 << 16)
        guard let editLine = el_init("chirper-play", files[0], files[1], files[2]) else {
            files.forEach { fclose($0) }
            throw .setupFailed("el_init failed")
        }
        guard let history = history_init() else {
            el_end(editLine)
            files.forEach { fclose($0) }
            throw .setupFailed("history_init failed")
        }
        self.editLine = editLine
        self.history = history
        self.files = files
        self.mailbox = mailbox
        self.continuation = continuation
        self.historyPath = setup.historyPath
        self.endOfFileCharacter = setup.endOfFileCharacter
        self.prompt = setup.prompt
        self.promptCString = strdup(setup.prompt)
        self.columns = mailbox.columns
        configure()
        loadHistory()
        installResizeHandler()
    }

    deinit {
        free(promptCString)
    }

    /// The session behind an EditLine, for libedit's callbacks.
    fileprivate static func owner(of editLine: OpaquePointer?) -> TerminalSession? {
        guard let editLine, let data = chirper_el_get_clientdata(editLine) else { return nil }
        return Unmanaged<TerminalSession>.fromOpaque(data).takeUnretainedValue()
    }

    private func configure() {
        chirper_el_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
        // No libedit signal handlers: the app handles SIGINT, SIGTERM and SIGHUP, and this session SIGWINCH.
        chirper_el_set_signal(editLine, 0)
        chirper_el_set_editor(editLine, "emacs")
        chirper_el_set_prompt(
            editLine, { editLine in TerminalSession.owner(of: editLine)?.promptCString }, 1)
        var event = HistEvent()
        chirper_history_set_size(history, &event, 1000)
        chirper_history_set_unique(history, &event, 1)
        chirper_el_set_history(editLine, history)
        chirper_el_add_function(
            editLine, "chirper-complete", "complete commands and search tags",
            { editLine, _ in TerminalSession.owner(of: editLine)?.complete() ?? UInt8(CC_ERROR) })
        chirper_el_bind(editLine, "^I", "chirper-complete")
        chirper_el_add_function(
            editLine, "chirper-clear-screen", "clear the screen, keeping the status line",
            { editLine, _ in TerminalSession.owner(of: editLine)?.requestClear() ?? UInt8(CC_ERROR) })
        chirper_el_bind(editLine, "^L", "chirper-clear-screen")
        // The keys readline users expect (libedit's readline emulation binds the same).
        let bindings = [
            ("^R", "em-inc-search-prev"),
            ("\\e[1~", "ed-move-to-beg"), ("\\e[4~", "ed-move-to-end"), ("\\e[7~", "ed-move-to-beg"),
            ("\\e[8~", "ed-move-to-end"), ("\\e[H", "ed-move-to-beg"), ("\\e[F", "ed-move-to-end"),
            ("\\e[3~", "ed-delete-next-char"), ("\\e[1;5C", "em-next-word"), ("\\e[1;5D", "ed-prev-word"),
            ("\\e[5C", "em-next-word"), ("\\e[5D", "ed-prev-word"),
        ]
        for (keys, command) in bindings {
            chirper_el_bind(editLine, keys, command)
        }
        // The user's ~/.editrc (or $EDITRC) last, so it can change any of this.
        el_source(editLine, nil)
    }

    // MARK: - The loop

    private func serve() {
        startEditing()
        showPending()
        flush()
        var running = true
        while running {
            var descriptors = [
                pollfd(fd: inputEnded ? -1 : STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: mailbox.wakeReader, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if descriptors[1].revents != 0 {
                mailbox.drainWakeUps()
            }
            followResize()
            running = handle(mailbox.take())
            let input = descriptors[0].revents
            if running, !inputEnded, input != 0 {
                readKey(hangUp: input & Int16(POLLHUP | POLLERR | POLLNVAL) != 0)
                showPending()
            }
            flush()
        }
        shutdown()
    }

    /// Serves requests in order, drawing once for a run of prints and status changes; false on `close`.
    private func handle(_ requests: [TerminalRequest]) -> Bool {
        var lines: [String] = []
        var newPrompt: String?
        var changed = false
        func redrawCollected() {
            if changed { redraw(printing: lines, prompt: newPrompt) }
            lines = []
            newPrompt = nil
            changed = false
        }
        for request in requests {
            switch request {
            case .print(let more):
                lines += more
                changed = true
            case .status(let text):
                status = text
                changed = changed || text != statusOnScreen
            case .prompt(let text):
                newPrompt = text
                changed = true
            case .interrupt:
                redrawCollected()
                interrupt()
            case .close:
                redrawCollected()
                return false
            }
        }
        redrawCollected()
        return true
    }

    /// Reads one key (or key sequence) through libedit.
    private func readKey(hangUp: Bool) {
        var count: Int32 = 0
        errno = 0
        guard let buffer = el_gets(editLine, &count), count > 0 else {
            // An empty line (a key that deleted the last character) also comes back as NULL and -1, but with
            // errno (libedit's el_errno) 0; a failed read, or a hang-up, ends the input.
            if hangUp || (count < 0 && errno != 0 && errno != EINTR && errno != EAGAIN) { endOfInput() }
            return
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(count))
        if count == 1 && bytes[0] == endOfFileCharacter {
            endOfInput()
        } else if let last = bytes.last, last == 0x0A || last == 0x0D {
            accept(String(decoding: bytes.dropLast(), as: UTF8.self))
        }
    }

    /// Enter: libedit has moved the cursor below the line. The status line goes below the finished line, and a
    /// fresh prompt below that.
    private func accept(_ line: String) {
        chirper_el_set_unbuffered(editLine, 0)
        editing = false
        if statusOnScreen != nil {
            let rows = TerminalLayout.row(after: TerminalLayout.visible(prompt) + line, columns: columns) + 1
            write("\r\u{1B}[\(rows + 1)A\u{1B}[J")
            write(TerminalLayout.printable(prompt) + TerminalText.sanitize(line) + "\r\n")
            statusOnScreen = nil
        }
        remember(line)
        continuation.yield(line)
        startEditing()
    }

    /// Ctrl-C: the half-typed line stays on the screen marked ^C, and editing starts again on an empty line.
    private func interrupt() {
        guard editing else { return }
        let line = currentLine().all
        erase()
        write(TerminalLayout.printable(prompt) + TerminalText.sanitize(line) + "^C\r\n")
        chirper_el_set_unbuffered(editLine, 0)
        editing = false
        startEditing()
    }

    /// Ctrl-D at an empty prompt, or the terminal hung up: the prompt goes and `lines` ends.
    private func endOfInput() {
        inputEnded = true
        if editing {
            erase(cursorRow: 0)
            chirper_el_set_unbuffered(editLine, 0)
            editing = false
            draw()
        }
        continuation.finish()
    }

    /// Status line, then the prompt on an empty line; libedit's unbuffered mode puts the terminal in edit mode.
    private func startEditing() {
        write("\r")
        drawStatus()
        stage()
        chirper_el_set_unbuffered(editLine, 1)
        editing = true
    }

    private func shutdown() {
        mailbox.refuse()
        erase()
        flush()
        if editing {
            chirper_el_set_unbuffered(editLine, 0)
            editing = false
        }
        sigaction(SIGWINCH, &previousResizeAction, nil)
        resizeWakeDescriptor = -1
        // el_end puts the terminal back in the modes libedit found; the saved modes are applied as well, in case
        // anything else changed them.
        el_end(editLine)
        history_end(history)
        files.forEach { fclose($0) }
        SavedTerminalModes.restore()
        continuation.finish()
    }

    // MARK: - Drawing

    /// Erases the prompt and the status line, prints `lines` where they were, and draws both again.
    private func redraw(printing lines: [String], prompt newPrompt: String?) {
        erase()
        if let newPrompt {
            prompt = newPrompt
            free(promptCString)
            promptCString = strdup(newPrompt)
        }
        for line in lines {
            for part in line.split(separator: "\n", omittingEmptySubsequences: false) {
                write(part + (part.contains("\u{1B}") ? "\u{1B}[0m\r\n" : "\r\n"))
            }
        }
        draw()
    }

    /// Moves to the start of the status line (or of the prompt) and clears to the end of the screen.
    private func erase(cursorRow: Int? = nil) {
        var up = 0
        if editing {
            up =
                cursorRow
                ?? TerminalLayout.row(
                    after: TerminalLayout.visible(prompt) + currentLine().beforeCursor, columns: columns)
        }
        if statusOnScreen != nil { up += 1 }
        write(up > 0 ? "\r\u{1B}[\(up)A\u{1B}[J" : "\r\u{1B}[J")
        statusOnScreen = nil
    }

    /// Draws the status line and, when editing, has libedit draw the prompt and the line from the cursor's row.
    private func draw() {
        drawStatus()
        if editing {
            stage()
            chirper_el_refresh(editLine)
        }
    }

    private func drawStatus() {
        guard let status else { return }
        write(TerminalLayout.clip(status, columns: columns - 1) + "\u{1B}[0m\u{1B}[K\r\n")
        statusOnScreen = status
    }

    /// Shows what a key left to show: the screen cleared by Ctrl-L, a completion list, a warning.
    private func showPending() {
        if clearRequested {
            clearRequested = false
            write("\u{1B}[H\u{1B}[2J")
            statusOnScreen = nil
            draw()
        }
        if !pendingLines.isEmpty {
            let lines = pendingLines
            pendingLines = []
            redraw(printing: lines, prompt: nil)
        }
    }

    /// On a new width: erase with the old layout, tell libedit, draw with the new one.
    private func followResize() {
        guard let newColumns = TerminalConsole.terminalColumns(), newColumns != columns else { return }
        erase()
        columns = newColumns
        mailbox.columns = newColumns
        el_resize(editLine)
        draw()
    }

    private func installResizeHandler() {
        resizeWakeDescriptor = mailbox.wakeWriter
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            let saved = errno
            var byte: UInt8 = 2
            _ = Glibc.write(resizeWakeDescriptor, &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        // SA_RESTART: libedit's read(2) carries on instead of failing with EINTR.
        action.sa_flags = SA_RESTART
        sigaction(SIGWINCH, &action, &previousResizeAction)
    }

    private func write(_ text: some StringProtocol) {
        output.append(contentsOf: text.utf8)
    }

    /// Hands the queued bytes to libedit's output stream, behind what libedit has written, without writing them
    /// yet: libedit flushes at the end of a refresh, so a whole redraw reaches the terminal in one write.
    private func stage() {
        guard !output.isEmpty else { return }
        _ = output.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, files[1]) }
        output.removeAll(keepingCapacity: true)
    }

    /// Writes everything queued to the terminal.
    private func flush() {
        stage()
        fflush(files[1])
    }

    /// The line being edited, whole and up to the cursor.
    private func currentLine() -> (all: String, beforeCursor: String) {
        guard let info = el_line(editLine)?.pointee, let start = info.buffer else { return ("", "") }
        let all = UnsafeRawBufferPointer(start: start, count: info.lastchar - start)
        let before = UnsafeRawBufferPointer(start: start, count: info.cursor - start)
        return (String(decoding: all, as: UTF8.self), String(decoding: before, as: UTF8.self))
    }

    // MARK: - Keys bound to chirper-play's commands (called by libedit inside el_gets)

    /// Tab: completes the word before the cursor; with several candidates and nothing in common to add, lists them.
    fileprivate func complete() -> UInt8 {
        let before = currentLine().beforeCursor
        let candidates = Completion.candidates(lineBeforeCursor: before)
        let word = before.last == " " ? "" : String(before.split(separator: " ").last ?? "")
        guard let first = candidates.first else { return UInt8(CC_REFRESH_BEEP) }
        if candidates.count == 1 {
            // A tag ("cnt:") wants its value straight after it; a finished word gets a space.
            return replace(word, with: first.hasSuffix(":") ? first : first + " ")
        }
        let common = candidates.dropFirst().reduce(first) { String($0.commonPrefix(with: $1)) }
        if common.unicodeScalars.count > word.unicodeScalars.count {
            return replace(word, with: common)
        }
        pendingLines += TerminalLayout.table(candidates, columns: columns)
        return UInt8(CC_NORM)
    }

    private func replace(_ word: String, with text: String) -> UInt8 {
        let count = word.unicodeScalars.count
        if count > 0 { el_deletestr(editLine, Int32(count)) }
        guard el_insertstr(editLine, text) == 0 else { return UInt8(CC_REFRESH_BEEP) }
        return UInt8(CC_REFRESH)
    }

    /// Ctrl-L: libedit's own clear-screen would lose the status line, so the loop clears and redraws both.
    fileprivate func requestClear() -> UInt8 {
        clearRequested = true
        return UInt8(CC_NORM)
    }

    // MARK: - History

    private func loadHistory() {
        guard let path = historyPath else { return }
        let folder = (path as NSString).deletingLastPathComponent
        if let problem = Self.makeFolders(folder) {
            warnAboutHistory("cannot create \(folder): \(problem)")
            return
        }
        let descriptor = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            warnAboutHistory("cannot open \(path): \(String(cString: strerror(errno)))")
            return
        }
        var info = stat()
        let size = fstat(descriptor, &info) == 0 ? info.st_size : 0
        Glibc.close(descriptor)
        guard size > 0 else { return }
        var event = HistEvent()
        if chirper_history_load(history, &event, path) < 0 {
            // Not saved over either: it may be someone's data.
            warnAboutHistory("cannot read \(path) (not a libedit history file?)")
        } else if chirper_history_first(history, &event) == 0, let newest = event.str {
            lastHistoryEntry = String(cString: newest)
        }
    }

    /// Adds a line to the history (not empty lines, not a repeat of the previous one) and saves the file.
    private func remember(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace), line != lastHistoryEntry else { return }
        var event = HistEvent()
        chirper_history_enter(history, &event, line)
        lastHistoryEntry = line
        saveHistory()
    }

    /// Writes the whole history (at most 1000 lines) to a temporary file and renames it over the old one, so
    /// a crash never leaves half a file.
    private func saveHistory() {
        guard let path = historyPath, !historyWarned else { return }
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0, let file = fdopen(descriptor, "w") else {
            if descriptor >= 0 { Glibc.close(descriptor) }
            warnAboutHistory("cannot save \(path): \(String(cString: strerror(errno)))")
            return
        }
        var event = HistEvent()
        let saved = chirper_history_save_fp(history, &event, file) >= 0
        let closed = fclose(file) == 0
        guard saved, closed, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            warnAboutHistory("cannot save \(path): \(reason)")
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

    /// One line, once, and the file is left alone from then on: history trouble never stops the REPL.
    private func warnAboutHistory(_ problem: String) {
        guard !historyWarned else { return }
        historyWarned = true
        pendingLines.append("history: \(TerminalText.sanitize(problem)); history is kept for this session only")
    }
}

/// Where text lands on the screen: libedit's line wrapping, visible widths, clipping and tables.
enum TerminalLayout {
    /// The prompt as it takes room on the screen: what lies between a pair of \u{1} markers is invisible.
    static func visible(_ prompt: String) -> String {
        prompt.split(separator: "\u{1}", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 0 }.map(\.element).joined()
    }

    /// The prompt as written to the screen: the markers go, what they enclose stays.
    static func printable(_ prompt: String) -> String {
        prompt.filter { $0 != "\u{1}" }
    }

    /// The row (0 = the first) the cursor is on after writing `text` from the start of a row, wrapping as
    /// libedit does: a character that does not fit goes to the next row, and a full row moves the cursor down.
    static func row(after text: String, columns: Int) -> Int {
        guard columns > 0 else { return 0 }
        var row = 0
        var column = 0
        for scalar in text.unicodeScalars {
            let width = displayWidth(scalar)
            if width > 1 && column + width > columns {
                row += 1
                column = 0
            }
            column += width
            if column >= columns {
                row += 1
                column = 0
            }
        }
        return row
    }

    /// Columns libedit uses for a character: control characters as ^X, unprintable ones as \U+XXXX.
    static func displayWidth(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || value == 0x7F { return 2 }
        let width = Int(wcwidth(wchar_t(bitPattern: value)))
        if width >= 0 { return width }
        return value > 0xFFFF ? 8 : 7
    }

    /// `text` cut to `columns` visible columns; SGR and other CSI sequences are kept (they take no room), other
    /// control characters dropped.
    static func clip(_ text: String, columns: Int) -> String {
        var output = String.UnicodeScalarView()
        var used = 0
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" {
                guard let next = scalars.next(), next == "[" else { continue }
                var sequence = String.UnicodeScalarView(["\u{1B}", "["])
                while let part = scalars.next() {
                    sequence.append(part)
                    if (0x40...0x7E).contains(part.value) { break }
                }
                output.append(contentsOf: sequence)
                continue
            }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue }
            let width = displayWidth(scalar)
            if used + width > columns { break }
            used += width
            output.append(scalar)
        }
        return String(output)
    }

    /// `items` in columns down then across, like ls, within `columns`.
    static func table(_ items: [String], columns: Int) -> [String] {
        let widths = items.map { $0.unicodeScalars.reduce(0) { $0 + displayWidth($1) } }
        let cell = (widths.max() ?? 0) + 2
        let across = max(1, columns / max(1, cell))
        let rows = (items.count + across - 1) / across
        return (0..<rows).map { row in
            var line = ""
            for column in 0..<across {
                let index = row + column * rows
                guard index < items.count else { break }
                let isLast = index + rows >= items.count || column == across - 1
                line += items[index] + (isLast ? "" : String(repeating: " ", count: cell - widths[index]))
            }
            return line
        }
    }
}
