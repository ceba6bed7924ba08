import CEditLine
import ChirperCore
import Dispatch
import FoundationEssentials
import ChirperSystem
#if canImport(Glibc)
    import Glibc
#endif

/// Drawing on the terminal: the printed lines, the prompt, the status line and the strip's picture.
extension TerminalSession {
    /// Erases the prompt and the status line, prints `lines` where they were, and draws both again.
    func redraw(printing lines: [String], prompt newPrompt: String?) {
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
    func takePictureOff() {
        if let shown = pictureOnScreen { write(shown.remove) }
        pictureOnScreen = nil
    }

    /// libedit's calls while the session runs: a refusal is said once, above the prompt, and the session goes
    /// on (lines are still read; only their editing may look wrong).
    func atRunTime(_ code: Int32, _ what: String) {
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
    func drawStatus() {
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
    func updateStatus(_ new: [String], over shown: [String]) {
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
    func showPending() {
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
    func write(_ text: some StringProtocol) {
        output.append(contentsOf: text.utf8)
    }

    /// Hands the queued bytes to libedit's output stream, behind what libedit has written, without writing them
    /// yet: libedit flushes at the end of a refresh, so a whole redraw reaches the terminal in one write.
    func stage() {
        guard !output.isEmpty else { return }
        _ = output.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, files[1]) }
        output.removeAll(keepingCapacity: true)
    }

    /// Writes everything queued to the terminal.
    func flush() {
        stage()
        fflush(files[1])
    }
}
