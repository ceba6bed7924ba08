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
    /// What each `waitFor` waits for, and the first screen that met it.
    private var watches: [Int: Watch] = [:]
    private var lastWatch = 0

    private struct Watch {
        let condition: @Sendable (TerminalScreen) -> Bool
        var met: TerminalScreen?
    }

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

    /// Waits until `condition` holds for the screen, or fails after `timeout` showing the screen. The reader
    /// thread checks it on each screen it makes, as it reads, so a line shown briefly (a status line before the
    /// next) is seen even when this task runs late, as it does on a loaded machine. Returns the first screen
    /// that met it, which may already be gone.
    @discardableResult
    func waitFor(
        _ what: String,
        timeout: Duration = .seconds(20),
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @Sendable (TerminalScreen) -> Bool
    ) async throws -> TerminalScreen {
        // Watched from this screen on; the conditions run outside the lock, as some read the output too.
        let (id, first) = lock.withLock { () -> (Int, TerminalScreen) in
            lastWatch += 1
            watches[lastWatch] = Watch(condition: condition, met: nil)
            return (lastWatch, screen)
        }
        defer { lock.withLock { watches[id] = nil } }
        if condition(first) { return first }
        let deadline = ContinuousClock.now + timeout
        while true {
            let (met, screen, exited) = lock.withLock { (watches[id]?.met, self.screen, exitStatus) }
            if let met { return met }
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
            if !data.isEmpty { checkWatches() }
            waiting.forEach { $0.resume() }
            if done {
                if reaped != pid && lock.withLock({ exitStatus == nil }) { waitpid(pid, &status, 0) }
                return
            }
        }
    }
}

extension PTYSession {
    /// Checks the watches not yet met on the screen the reader just made, outside the lock (a condition may read
    /// the output), and keeps that screen for each one it meets.
    fileprivate func checkWatches() {
        let (screen, pending) = lock.withLock { (self.screen, watches.filter { $0.value.met == nil }) }
        let met = pending.filter { $0.value.condition(screen) }.keys
        guard !met.isEmpty else { return }
        lock.withLock {
            for id in met where watches[id]?.met == nil { watches[id]?.met = screen }
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
