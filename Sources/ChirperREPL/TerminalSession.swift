import CEditLine
import ChirperCore
import Dispatch
import FoundationEssentials
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The write end of the self-pipe, for the SIGWINCH handler (which can only reach globals).
// Written on the terminal thread before the handler is installed and not changed while it is.
nonisolated(unsafe) var resizeWakeDescriptor: Int32 = -1

/// Everything the terminal thread owns: the libedit handles and the model of what is on the screen.
///
/// The screen, from the top: lines printed so far, then the status line (if any), then the prompt with the line
/// being edited (which may wrap over several rows). Everything is written from here, so the model stays true.
final class TerminalSession {
    struct Setup: Sendable {
        var prompt: String
        var historyPath: String?
        var endOfFileCharacter: UInt8
    }

    let editLine: OpaquePointer
    private let history: TerminalHistory
    let files: [UnsafeMutablePointer<FILE>]
    let mailbox: TerminalMailbox
    private let lines: Channel<String, Never>
    private let endOfFileCharacter: UInt8
    var previousResizeAction = sigaction()

    /// The prompt text, and the same as a C string for libedit's prompt function.
    var prompt: String
    var promptCString: UnsafeMutablePointer<CChar>
    var columns: Int
    /// The status rows the app wants shown (none: no status).
    var status: [String] = []
    /// The status rows on the screen, directly above the prompt's first row (or above the cursor's row when no
    /// prompt is shown); nil when none are.
    var statusOnScreen: [String]?
    /// The image the app wants over the status's first rows (the live strip in real pixels).
    var picture: StatusPicture?
    /// The image on the screen, over the first rows of `statusOnScreen`.
    var pictureOnScreen: StatusPicture?
    /// The image last sent whole: the terminal may keep its pixels (kitty), to draw it again or to free.
    var pictureSent: StatusPicture?
    /// libedit is reading a line: the prompt and the line are on the screen and the terminal is in edit mode.
    var editing = false
    /// Standard input has ended (Ctrl-D at an empty prompt, or a hang-up): no more keys are read.
    private var inputEnded = false
    /// Lines to print once the current key is handled (a completion list, a history warning).
    var pendingLines: [String] = []
    /// A libedit call failed while running, and the user was told.
    var toldRunTimeRefusal = false
    /// Ctrl-L was pressed.
    var clearRequested = false
    /// Bytes for the screen, written at `flush`.
    var output: [UInt8] = []

    /// Runs the terminal thread: sets up libedit, serves keys and requests until `close`, then restores the terminal.
    static func run(
        _ setup: Setup,
        mailbox: TerminalMailbox,
        lines: Channel<String, Never>,
        ready: DispatchSemaphore
    ) {
        let session: TerminalSession
        do {
            session = try TerminalSession(setup, mailbox: mailbox, lines: lines)
        } catch {
            mailbox.setupFailure = error
            mailbox.refuse()
            lines.finish()
            ready.signal()
            return
        }
        ready.signal()
        session.serve()
    }

    private init(
        _ setup: Setup,
        mailbox: TerminalMailbox,
        lines: Channel<String, Never>
    ) throws(TerminalConsoleError) {
        if let missing = LazyLibrary.missing(chirper_editline_load, library: "libedit", package: "libedit2") {
            throw .setupFailed(missing)
        }
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
        let history: TerminalHistory
        do {
            history = try TerminalHistory(path: setup.historyPath)
        } catch {
            files.forEach { fclose($0) }
            throw error
        }
        guard let editLine = el_init("chirper-play", files[0], files[1], files[2]) else {
            files.forEach { fclose($0) }
            throw .setupFailed("el_init failed")
        }
        self.editLine = editLine
        self.history = history
        self.files = files
        self.mailbox = mailbox
        self.lines = lines
        self.endOfFileCharacter = setup.endOfFileCharacter
        self.prompt = setup.prompt
        self.promptCString = strdup(setup.prompt)
        self.columns = mailbox.columns
        // From here on `deinit` frees the handles, also when the configuration fails.
        try configure()
        history.load()
        takeHistoryWarning()
        installResizeHandler()
    }

    /// The one owner of the EditLine handle and its FILEs (the History handle has its own owner). `el_end`
    /// also puts the terminal back in the modes libedit found.
    deinit {
        el_end(editLine)
        files.forEach { fclose($0) }
        free(promptCString)
    }

    /// The session behind an EditLine, for libedit's callbacks.
    fileprivate static func owner(of editLine: OpaquePointer?) -> TerminalSession? {
        guard let editLine, let data = chirper_el_get_clientdata(editLine) else { return nil }
        return Unmanaged<TerminalSession>.fromOpaque(data).takeUnretainedValue()
    }

    private func configure() throws(TerminalConsoleError) {
        let check = EditLineCall.check
        try check(chirper_el_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque()), "client data")
        // No libedit signal handlers: the app handles SIGINT, SIGTERM and SIGHUP, and this session SIGWINCH.
        try check(chirper_el_set_signal(editLine, 0), "signal handling off")
        try check(chirper_el_set_editor(editLine, "emacs"), "the emacs key map")
        try check(
            chirper_el_set_prompt(editLine, { editLine in TerminalSession.owner(of: editLine)?.promptCString }, 1),
            "the prompt")
        try check(chirper_el_set_history(editLine, history.handle), "the history")
        try check(
            chirper_el_add_function(
                editLine, "chirper-complete", "complete commands and search tags",
                { editLine, _ in TerminalSession.owner(of: editLine)?.complete() ?? UInt8(CC_ERROR) }),
            "the completion command")
        try check(chirper_el_bind(editLine, "^I", "chirper-complete"), "Tab")
        try check(
            chirper_el_add_function(
                editLine, "chirper-clear-screen", "clear the screen, keeping the status line",
                { editLine, _ in TerminalSession.owner(of: editLine)?.requestClear() ?? UInt8(CC_ERROR) }),
            "the clear-screen command")
        try check(chirper_el_bind(editLine, "^L", "chirper-clear-screen"), "Ctrl-L")
        // The keys readline users expect (libedit's readline emulation binds the same).
        let bindings = [
            ("^R", "em-inc-search-prev"),
            ("\\e[1~", "ed-move-to-beg"), ("\\e[4~", "ed-move-to-end"), ("\\e[7~", "ed-move-to-beg"),
            ("\\e[8~", "ed-move-to-end"), ("\\e[H", "ed-move-to-beg"), ("\\e[F", "ed-move-to-end"),
            ("\\e[3~", "ed-delete-next-char"), ("\\e[1;5C", "em-next-word"), ("\\e[1;5D", "ed-prev-word"),
            ("\\e[5C", "em-next-word"), ("\\e[5D", "ed-prev-word"),
        ]
        for (keys, command) in bindings {
            try check(chirper_el_bind(editLine, keys, command), "the key \(keys)")
        }
        // The user's ~/.editrc (or $EDITRC) last, so it can change any of this. Tolerated: -1 also means there
        // is no such file, which is the usual case.
        _ = el_source(editLine, nil)
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
            if changed, lines.isEmpty, newPrompt == nil, !status.isEmpty, let shown = statusOnScreen,
                status.count == shown.count, editing
            {
                // Only the status changed, row for row: rewrite the rows that differ, nothing else.
                updateStatus(status, over: shown)
            } else if changed {
                redraw(printing: lines, prompt: newPrompt)
            }
            lines = []
            newPrompt = nil
            changed = false
        }
        for request in requests {
            switch request {
            case .print(let more):
                lines += more
                changed = true
            case .status(let rows, let image):
                status = rows
                picture = image
                changed =
                    changed || !TerminalLayout.same(rows, statusOnScreen ?? []) || image?.id != pictureOnScreen?.id
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
        atRunTime(chirper_el_set_unbuffered(editLine, 0), "to leave edit mode")
        editing = false
        if let shown = statusOnScreen {
            let rows = TerminalLayout.row(after: TerminalLayout.visible(prompt) + line, columns: columns) + 1
            takePictureOff()
            write("\r\u{1B}[\(rows + shown.count)A\u{1B}[J")
            write(TerminalLayout.printable(prompt) + TerminalText.sanitize(line) + "\r\n")
            statusOnScreen = nil
        }
        history.remember(line)
        takeHistoryWarning()
        lines.post(line)
        startEditing()
    }

    /// Ctrl-C: the half-typed line stays on the screen marked ^C, and editing starts again on an empty line.
    private func interrupt() {
        guard editing else { return }
        let line = currentLine().all
        erase()
        write(TerminalLayout.printable(prompt) + TerminalText.sanitize(line) + "^C\r\n")
        atRunTime(chirper_el_set_unbuffered(editLine, 0), "to leave edit mode")
        editing = false
        startEditing()
    }

    /// Ctrl-D at an empty prompt, or the terminal hung up: the prompt goes and `lines` ends.
    private func endOfInput() {
        inputEnded = true
        if editing {
            erase(cursorRow: 0)
            atRunTime(chirper_el_set_unbuffered(editLine, 0), "to leave edit mode")
            editing = false
            draw()
        }
        lines.finish()
    }

    /// Status line, then the prompt on an empty line; libedit's unbuffered mode puts the terminal in edit mode.
    private func startEditing() {
        write("\r")
        drawStatus()
        stage()
        atRunTime(chirper_el_set_unbuffered(editLine, 1), "to enter edit mode")
        editing = true
    }

    private func shutdown() {
        mailbox.refuse()
        erase()
        // The pixels the terminal keeps of the last image go too.
        if let sent = pictureSent { write(sent.forget) }
        pictureSent = nil
        flush()
        if editing {
            atRunTime(chirper_el_set_unbuffered(editLine, 0), "to leave edit mode")
            editing = false
        }
        sigaction(SIGWINCH, &previousResizeAction, nil)
        resizeWakeDescriptor = -1
        // `deinit` ends libedit (which puts back the modes it found); the saved modes are applied here, in case
        // anything else changed them.
        SavedTerminalModes.restore()
        lines.finish()
    }

    /// The line being edited, whole and up to the cursor.
    func currentLine() -> (all: String, beforeCursor: String) {
        guard let info = el_line(editLine)?.pointee, let start = info.buffer else { return ("", "") }
        let all = UnsafeRawBufferPointer(start: start, count: info.lastchar - start)
        let before = UnsafeRawBufferPointer(start: start, count: info.cursor - start)
        return (String(decoding: all, as: UTF8.self), String(decoding: before, as: UTF8.self))
    }

    /// Shows the history's warning line, if it has one, with the next redraw.
    private func takeHistoryWarning() {
        if let warning = history.takeWarning() { pendingLines.append(warning) }
    }
}
