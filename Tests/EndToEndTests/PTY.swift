import ChirperTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A child process on a pseudo-terminal: the test types into the master side, and everything the child writes
/// is fed to a `TerminalScreen`, so assertions are about what a user would see (the line being edited, the
/// cursor), not about the escape sequences that put it there.
final class PTYSession: @unchecked Sendable {
    // @unchecked: `screen`, `raw`, `exitStatus`, `finished` and `waiters` are read and written only with `lock`
    // held; the descriptors and the pid are immutable.
    let pid: pid_t
    private let master: Int32
    /// The parent keeps the slave side open, so the terminal's modes can be read after the child has exited.
    private let slave: Int32
    /// The terminal's modes before the child started.
    let initialModes: termios
    private let lock = NSLock()
    private var screen: TerminalScreen
    private var raw: [UInt8] = []
    private var exitStatus: Int32?
    private var finished = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Starts `executable` with its standard input, output and error on a new terminal of `rows` × `columns`,
    /// in a session of its own with that terminal as its controlling terminal (so Ctrl-C typed there is a SIGINT).
    init(executable: String, arguments: [String], environment: [String: String], rows: Int = 24, columns: Int = 100)
        throws
    {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw PTYError.system("openpty", errno) }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        // ttyname_r, not ttyname: tests run in parallel, and ttyname's buffer is shared.
        var name = [CChar](repeating: 0, count: 128)
        let named = ttyname_r(slave, &name, name.count)
        guard named == 0 else {
            Glibc.close(master)
            Glibc.close(slave)
            throw PTYError.system("ttyname_r", named)
        }
        let slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)

        var modes = termios()
        tcgetattr(slave, &modes)

        let child: pid_t
        do {
            child = try spawnChild(executable, arguments: arguments, environment: environment, newSession: true) {
                // Opened after setsid, so the terminal becomes the child's controlling terminal.
                posix_spawn_file_actions_addopen(&$0, 0, slavePath, O_RDWR, 0)
                posix_spawn_file_actions_adddup2(&$0, 0, 1)
                posix_spawn_file_actions_adddup2(&$0, 0, 2)
            }
        } catch {
            Glibc.close(master)
            Glibc.close(slave)
            throw PTYError.system("posix_spawn \(executable)", error.code)
        }
        self.pid = child
        self.master = master
        self.slave = slave
        self.initialModes = modes
        self.screen = TerminalScreen(rows: rows, columns: columns)
        let reader = Thread { [self] in readUntilClosed() }
        reader.stackSize = 1 << 20
        reader.start()
    }

    deinit {
        Glibc.close(master)
        Glibc.close(slave)
    }

    /// Types `text` (raw bytes: "\r" is Enter, "\u{1B}[A" the up arrow, "\t" Tab).
    func type(_ text: String) {
        var bytes = Array(text.utf8)
        while !bytes.isEmpty {
            let written = write(master, bytes, bytes.count)
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            bytes.removeFirst(written)
        }
    }

    /// Sends `signal` to the child (by its pid).
    func send(_ signal: Int32) {
        if lock.withLock({ exitStatus == nil }) { kill(pid, signal) }
    }

    /// What the user sees now.
    var current: TerminalScreen { lock.withLock { screen } }

    /// Everything the child has written so far, escape sequences included.
    var output: String { lock.withLock { String(decoding: raw, as: UTF8.self) } }

    /// Bytes written so far, to measure what arrives after a point.
    var outputCount: Int { lock.withLock { raw.count } }

    /// What the child has written after the first `offset` bytes.
    func output(after offset: Int) -> String {
        lock.withLock { String(decoding: raw[min(offset, raw.count)...], as: UTF8.self) }
    }

    /// The exit status, once the child has exited (128 + n when killed by signal n).
    var exited: Int32? { lock.withLock { exitStatus } }

    /// The terminal's modes (the slave side), as the child left them.
    func modes() -> termios {
        var modes = termios()
        tcgetattr(slave, &modes)
        return modes
    }

    /// Waits until `condition` holds for the screen, or fails after `timeout` showing the screen.
    func waitFor(
        _ what: String,
        timeout: Duration = .seconds(20),
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (TerminalScreen) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (screen, exited) = lock.withLock { (self.screen, exitStatus) }
            if condition(screen) { return }
            if ContinuousClock.now > deadline || exited != nil {
                let why = exited.map { "the program exited with status \($0)" } ?? "\(timeout) passed"
                Issue.record(
                    "waited for \(what), but \(why); the screen:\n\(screen.transcript.joined(separator: "\n"))",
                    sourceLocation: sourceLocation)
                throw PTYError.timedOut(what)
            }
            await nextChange()
        }
    }

    /// Waits for the child to exit; returns its status (128 + n when killed by signal n).
    func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = exited { return status }
            if ContinuousClock.now > deadline {
                Issue.record(
                    "chirper-play did not exit within \(timeout); the screen:\n\(current.transcript.joined(separator: "\n"))"
                )
                throw PTYError.timedOut("exit")
            }
            await nextChange()
        }
    }

    /// Ends the child if it is still running (SIGKILL, by its pid) and stops reading.
    func stop() {
        let running = lock.withLock {
            finished = true
            return exitStatus == nil
        }
        if running { kill(pid, SIGKILL) }
    }

    /// Resumes when the reader has seen new output or a tick of at most 100 ms has passed (for deadlines).
    private func nextChange() async {
        await withCheckedContinuation { continuation in
            let done = lock.withLock {
                if finished { return true }
                waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func readUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 100)
            var data: [UInt8] = []
            while true {
                let count = read(master, &buffer, buffer.count)
                if count <= 0 { break }
                data += buffer[0..<count]
            }
            var status: Int32 = 0
            let reaped = lock.withLock { exitStatus == nil } ? waitpid(pid, &status, WNOHANG) : 0
            let (waiting, done) = lock.withLock { () -> ([CheckedContinuation<Void, Never>], Bool) in
                if !data.isEmpty {
                    raw += data
                    screen.feed(data)
                }
                if reaped == pid {
                    // WIFEXITED: the low seven bits are zero; the status is in the next byte. Otherwise the signal.
                    exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                }
                defer { waiters.removeAll() }
                return (waiters, finished)
            }
            waiting.forEach { $0.resume() }
            if done {
                if reaped != pid && lock.withLock({ exitStatus == nil }) { waitpid(pid, &status, 0) }
                return
            }
        }
    }
}

enum PTYError: Error, CustomStringConvertible {
    case system(String, Int32)
    case timedOut(String)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .timedOut(let what): "timed out waiting for \(what)"
        }
    }
}

/// A small VT100/xterm screen: enough of what libedit (with TERM=xterm-256color) and chirper-play write to know
/// what is on each row and where the cursor is. Lines that scroll off the top are kept in `scrollback`.
struct TerminalScreen: Sendable {
    let rows: Int
    let columns: Int
    private(set) var cells: [[Character]]
    private(set) var scrollback: [String] = []
    private(set) var cursorRow = 0
    private(set) var cursorColumn = 0
    /// The cursor is past the last column; the next character wraps first.
    private var pendingWrap = false
    private var insertMode = false
    private var saved = (row: 0, column: 0)
    private var state = ParserState.ground
    private var utf8: [UInt8] = []

    private enum ParserState: Sendable {
        case ground
        case escape
        case charset
        case csi(String)
        case osc(sawEscape: Bool)
    }

    init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    /// The rows on the screen, trailing blanks removed.
    var lines: [String] { cells.map { String($0).trimmingTrailingSpaces() } }

    /// Everything: the rows scrolled off, then the screen.
    var transcript: [String] {
        var all = scrollback + lines
        while all.last?.isEmpty == true { all.removeLast() }
        return all
    }

    /// The row the cursor is on.
    var cursorLine: String { lines[cursorRow] }

    /// The row just above the cursor's.
    var lineAboveCursor: String { cursorRow > 0 ? lines[cursorRow - 1] : scrollback.last ?? "" }

    mutating func feed(_ bytes: [UInt8]) {
        for byte in bytes {
            if !utf8.isEmpty || byte >= 0x80 {
                utf8.append(byte)
                let expected = utf8[0] >= 0xF0 ? 4 : utf8[0] >= 0xE0 ? 3 : utf8[0] >= 0xC0 ? 2 : 1
                if utf8.count >= expected {
                    let text = String(decoding: utf8, as: UTF8.self)
                    utf8.removeAll()
                    for character in text { put(character) }
                }
                continue
            }
            handle(byte)
        }
    }

    private mutating func handle(_ byte: UInt8) {
        switch state {
        case .ground:
            switch byte {
            case 0x1B: state = .escape
            case 0x07: break
            case 0x08:
                cursorColumn = max(0, cursorColumn - 1)
                pendingWrap = false
            case 0x09:
                cursorColumn = min(columns - 1, (cursorColumn / 8 + 1) * 8)
                pendingWrap = false
            case 0x0A, 0x0B, 0x0C:
                lineFeed()
            case 0x0D:
                cursorColumn = 0
                pendingWrap = false
            case 0x00..<0x20, 0x7F:
                break
            default:
                put(Character(Unicode.Scalar(byte)))
            }
        case .escape:
            state = .ground
            switch byte {
            case UInt8(ascii: "["): state = .csi("")
            // OSC, and the other strings a terminal reads to their end and ignores when it does not know them
            // (APC: kitty graphics; DCS: sixels and replies; PM; SOS).
            case UInt8(ascii: "]"), UInt8(ascii: "_"), UInt8(ascii: "P"), UInt8(ascii: "^"), UInt8(ascii: "X"):
                state = .osc(sawEscape: false)
            case UInt8(ascii: "("), UInt8(ascii: ")"): state = .charset
            case UInt8(ascii: "7"): saved = (cursorRow, cursorColumn)
            case UInt8(ascii: "8"):
                (cursorRow, cursorColumn) = saved
                pendingWrap = false
            case UInt8(ascii: "M"):
                if cursorRow > 0 {
                    cursorRow -= 1
                } else {
                    cells.insert(blankRow, at: 0)
                    cells.removeLast()
                }
            default: break
            }
        case .charset:
            state = .ground
        case .osc(let sawEscape):
            if byte == 0x07 || (sawEscape && byte == UInt8(ascii: "\\")) {
                state = .ground
            } else {
                state = .osc(sawEscape: byte == 0x1B)
            }
        case .csi(let parameters):
            if (0x40...0x7E).contains(byte) {
                state = .ground
                controlSequence(parameters, final: Character(Unicode.Scalar(byte)))
            } else {
                state = .csi(parameters + String(Unicode.Scalar(byte)))
            }
        }
    }

    private var blankRow: [Character] { Array(repeating: " ", count: columns) }

    private mutating func put(_ character: Character) {
        if pendingWrap {
            pendingWrap = false
            cursorColumn = 0
            lineFeed()
        }
        if insertMode {
            cells[cursorRow].insert(character, at: cursorColumn)
            cells[cursorRow].removeLast()
        } else {
            cells[cursorRow][cursorColumn] = character
        }
        if cursorColumn == columns - 1 {
            pendingWrap = true
        } else {
            cursorColumn += 1
        }
    }

    private mutating func lineFeed() {
        pendingWrap = false
        if cursorRow == rows - 1 {
            scrollback.append(String(cells[0]).trimmingTrailingSpaces())
            cells.removeFirst()
            cells.append(blankRow)
        } else {
            cursorRow += 1
        }
    }

    private mutating func controlSequence(_ parameters: String, final: Character) {
        let isPrivate = parameters.hasPrefix("?") || parameters.hasPrefix(">")
        let numbers = parameters.filter { $0.isNumber || $0 == ";" }.split(
            separator: ";", omittingEmptySubsequences: false
        )
        .map { Int($0) ?? 0 }
        func number(_ index: Int, default value: Int) -> Int {
            index < numbers.count && numbers[index] > 0 ? numbers[index] : value
        }
        let count = number(0, default: 1)
        if final != "m" && final != "h" && final != "l" { pendingWrap = false }
        switch final {
        case "A": cursorRow = max(0, cursorRow - count)
        case "B", "e": cursorRow = min(rows - 1, cursorRow + count)
        case "C", "a": cursorColumn = min(columns - 1, cursorColumn + count)
        case "D": cursorColumn = max(0, cursorColumn - count)
        case "E":
            cursorRow = min(rows - 1, cursorRow + count)
            cursorColumn = 0
        case "F":
            cursorRow = max(0, cursorRow - count)
            cursorColumn = 0
        case "G", "`": cursorColumn = min(columns - 1, count - 1)
        case "d": cursorRow = min(rows - 1, count - 1)
        case "H", "f":
            cursorRow = min(rows - 1, number(0, default: 1) - 1)
            cursorColumn = min(columns - 1, number(1, default: 1) - 1)
        case "J":
            let mode = numbers.first ?? 0
            if mode == 0 {
                clear(row: cursorRow, from: cursorColumn, to: columns)
                for row in (cursorRow + 1)..<rows { cells[row] = blankRow }
            } else if mode == 1 {
                for row in 0..<cursorRow { cells[row] = blankRow }
                clear(row: cursorRow, from: 0, to: cursorColumn + 1)
            } else {
                cells = Array(repeating: blankRow, count: rows)
            }
        case "K":
            switch numbers.first ?? 0 {
            case 0: clear(row: cursorRow, from: cursorColumn, to: columns)
            case 1: clear(row: cursorRow, from: 0, to: cursorColumn + 1)
            default: cells[cursorRow] = blankRow
            }
        case "@":
            for _ in 0..<min(count, columns - cursorColumn) {
                cells[cursorRow].insert(" ", at: cursorColumn)
                cells[cursorRow].removeLast()
            }
        case "P":
            for _ in 0..<min(count, columns - cursorColumn) {
                cells[cursorRow].remove(at: cursorColumn)
                cells[cursorRow].append(" ")
            }
        case "X": clear(row: cursorRow, from: cursorColumn, to: min(columns, cursorColumn + count))
        case "L":
            for _ in 0..<min(count, rows - cursorRow) {
                cells.insert(blankRow, at: cursorRow)
                cells.removeLast()
            }
        case "M":
            for _ in 0..<min(count, rows - cursorRow) {
                cells.remove(at: cursorRow)
                cells.append(blankRow)
            }
        case "h", "l":
            if !isPrivate && numbers.contains(4) { insertMode = final == "h" }
        default:
            break  // SGR, scrolling regions, modes: nothing a test reads
        }
    }

    private mutating func clear(row: Int, from start: Int, to end: Int) {
        guard start < end else { return }
        for column in start..<min(end, columns) { cells[row][column] = " " }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
