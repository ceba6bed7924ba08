import CEditLine
import ChirperCore
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#endif

/// Keys bound to chirper-play's commands, called by libedit inside el_gets.
extension TerminalSession {
    /// Tab: completes the word before the cursor; with several candidates and nothing in common to add, lists them.
    func complete() -> UInt8 {
        let before = currentLine().beforeCursor
        let candidates = Completion.candidates(lineBeforeCursor: before)
        let word = before.last == " " ? "" : String(before.split(separator: " ").last ?? "")
        guard let first = candidates.first else { return UInt8(CC_REFRESH_BEEP) }
        if candidates.count == 1 {
            // A tag ("cnt:") wants its value straight after it; a finished word gets a space.
            return replace(word, with: first.hasSuffix(":") ? first : first + " ")
        }
        let common = candidates.dropFirst().reduce(first) { common, next in
            String(zip(common, next).prefix { $0 == $1 }.map(\.0))
        }
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
    func requestClear() -> UInt8 {
        clearRequested = true
        return UInt8(CC_NORM)
    }
}

/// Following the terminal's size.
extension TerminalSession {
    /// The terminal was resized: redraw at the new width.
    func followResize() {
        guard let newColumns = TerminalConsole.terminalColumns(), newColumns != columns else { return }
        erase()
        columns = newColumns
        mailbox.columns = newColumns
        el_resize(editLine)
        draw()
    }

    /// SIGWINCH writes to the wake pipe; the terminal thread then follows the new size.
    func installResizeHandler() {
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
}
