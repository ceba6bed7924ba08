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
    private let files: [UnsafeMutablePointer<FILE>]
    let mailbox: TerminalMailbox
    private let continuation: AsyncStream<String>.Continuation
    private let endOfFileCharacter: UInt8
    var previousResizeAction = sigaction()

    /// The prompt text, and the same as a C string for libedit's prompt function.
    private var prompt: String
    private var promptCString: UnsafeMutablePointer<CChar>
    var columns: Int
    /// The status rows the app wants shown (none: no status).
    private var status: [String] = []
    /// The status rows on the screen, directly above the prompt's first row (or above the cursor's row when no
    /// prompt is shown); nil when none are.
    private var statusOnScreen: [String]?
    /// The image the app wants over the status's first rows (the live strip in real pixels).
    private var picture: StatusPicture?
    /// The image on the screen, over the first rows of `statusOnScreen`.
    private var pictureOnScreen: StatusPicture?
    /// The image last sent whole: the terminal may keep its pixels (kitty), to draw it again or to free.
    private var pictureSent: StatusPicture?
    /// libedit is reading a line: the prompt and the line are on the screen and the terminal is in edit mode.
    private var editing = false
    /// Standard input has ended (Ctrl-D at an empty prompt, or a hang-up): no more keys are read.
    private var inputEnded = false
    /// Lines to print once the current key is handled (a completion list, a history warning).
    var pendingLines: [String] = []
    /// A libedit call failed while running, and the user was told.
    private var toldRunTimeRefusal = false
    /// Ctrl-L was pressed.
    var clearRequested = false
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
            mailbox.setupFailure = error
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
        self.continuation = continuation
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
        continuation.yield(line)
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
        continuation.finish()
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
    func erase(cursorRow: Int? = nil) {
        var up = 0
        if editing {
            up =
                cursorRow
                ?? TerminalLayout.row(
                    after: TerminalLayout.visible(prompt) + currentLine().beforeCursor, columns: columns)
        }
        if let shown = statusOnScreen { up += shown.count }
        takePictureOff()
        write(up > 0 ? "\r\u{1B}[\(up)A\u{1B}[J" : "\r\u{1B}[J")
        statusOnScreen = nil
    }

    /// Takes the status's image off the screen (erasing its rows' text does not take a kitty image away).
    private func takePictureOff() {
        if let shown = pictureOnScreen { write(shown.remove) }
        pictureOnScreen = nil
    }

    /// libedit's calls while the session runs: a refusal is said once, above the prompt, and the session goes
    /// on (lines are still read; only their editing may look wrong).
    private func atRunTime(_ code: Int32, _ what: String) {
        do {
            try EditLineCall.check(code, what)
        } catch {
            guard !toldRunTimeRefusal else { return }
            toldRunTimeRefusal = true
            pendingLines.append(
                "chirper-play: libedit refused \(what); typed lines still work, but may not show as typed")
        }
    }

    /// Draws the status line and, when editing, has libedit draw the prompt and the line from the cursor's row.
    func draw() {
        drawStatus()
        if editing {
            stage()
            atRunTime(chirper_el_refresh(editLine), "to redraw the line")
        }
    }

    /// The status may be several rows (the live sonogram strip above the status line): each is clipped to one
    /// row of the screen. The image over its first rows is drawn after them, and the cursor put back below.
    private func drawStatus() {
        for row in status {
            write(TerminalLayout.clip(row, columns: columns - 1) + "\u{1B}[0m\u{1B}[K\r\n")
        }
        statusOnScreen = status.isEmpty ? nil : status
        writePicture(top: "\u{1B}7\u{1B}[\(status.count)A\r", back: "\u{1B}8")
    }

    /// Brings the status's image on the screen up to date: the one shown is taken off, the pixels of one no
    /// longer wanted are freed, and the one wanted is drawn at its place (`top` moves the cursor to the start of
    /// the status's first row; `back` follows the image). A terminal moves the cursor after a sixel image as it
    /// likes, so the cursor is put where it must be, not moved from where the image left it.
    private func writePicture(top: String, back: String) {
        takePictureOff()
        if let sent = pictureSent, sent.id != picture?.id {
            write(sent.forget)
            pictureSent = nil
        }
        guard let picture, picture.lines < status.count else { return }
        let right = picture.column > 0 ? "\u{1B}[\(picture.column)C" : ""
        write(top + right + (pictureSent?.id == picture.id ? picture.redraw : picture.draw) + back)
        pictureSent = picture
        pictureOnScreen = picture
    }

    /// Rewrites, in place, the rows of the status on screen that differ in `new` (as many rows as `shown`): the
    /// cursor is saved, each changed row rewritten from its start, and the cursor put back. The live strip's
    /// picture lines change only when its page turns, so most updates rewrite the marker and status lines.
    private func updateStatus(_ new: [String], over shown: [String]) {
        let toPrompt = TerminalLayout.row(
            after: TerminalLayout.visible(prompt) + currentLine().beforeCursor, columns: columns)
        write("\u{1B}7")
        var underPicture = false
        for (index, (old, row)) in zip(shown, new).enumerated() where !TerminalLayout.same(old.utf8, row.utf8) {
            let up = toPrompt + new.count - index
            write("\u{1B}8\u{1B}[\(up)A\r" + TerminalLayout.clip(row, columns: columns - 1) + "\u{1B}[0m\u{1B}[K")
            underPicture = underPicture || index < (pictureOnScreen?.lines ?? 0)
        }
        // A new page, or a row under the image rewritten (erasing a row erases a sixel's pixels there).
        if underPicture || picture?.id != pictureOnScreen?.id {
            writePicture(top: "\u{1B}8\u{1B}[\(toPrompt + new.count)A\r", back: "")
        }
        write("\u{1B}8")
        statusOnScreen = new
        flush()
    }

    /// Shows what a key left to show: the screen cleared by Ctrl-L, a completion list, a warning.
    private func showPending() {
        if clearRequested {
            clearRequested = false
            takePictureOff()
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
