import ChirperCore
import FoundationEssentials
import Synchronization
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Where the REPL reads commands and writes what it shows: a terminal with line editing and a live status
/// line, or plain pipes for scripts. The app never writes to stdout directly.
public protocol Console: AnyObject, Sendable {
    /// True on a terminal: prompt, colours, status line. False in a pipe: one stable line per change.
    var isInteractive: Bool { get }
    /// Columns available for a line (80 when unknown).
    var width: Int { get }
    /// Lines the user entered, in order; finishes at end of input (Ctrl-D, or EOF on a pipe).
    var lines: Channel<String, Never> { get }
    /// Prints whole lines. On a terminal they appear above the status line and the prompt, and what the user
    /// is typing is kept intact.
    func print(_ lines: [String])
    /// Shows `rows` as the live status, replacing the previous one; none removes it. Each row (one line, no
    /// `\n`) takes a row of the screen above the prompt: the live sonogram strip, then the status line. Handed
    /// over as rows so that the rows that did not change (the strip's picture, between page turns) are the same
    /// strings again, compared and skipped without splitting a long text ten times a second. `picture` is drawn
    /// over the first rows (the strip's page in real pixels). Ignored in a pipe.
    func setStatus(_ rows: [String], picture: StatusPicture?)
    /// Ctrl-C arrived: a terminal drops the half-typed line and shows a fresh prompt.
    func interrupted()
    /// Restores the terminal and saves history; safe to call twice. Awaits the terminal for a while at most,
    /// never blocking a thread.
    func close() async
    /// For a program that leaves now: restores the terminal without waiting.
    func closeAtOnce()
    /// What the terminal said it can draw (asked once at start-up); none for a pipe.
    var graphics: TerminalGraphicsSupport { get }
}

extension Console {
    public var graphics: TerminalGraphicsSupport { .none }

    public func closeAtOnce() {}

    /// Shows `rows` as the live status, with no picture.
    public func setStatus(_ rows: [String]) { setStatus(rows, picture: nil) }
}

/// Commands from standard input, lines to standard output: no prompt, no colours, no escape codes.
public final class PipeConsole: Console {
    public let isInteractive = false
    public let width = 80
    public let lines = Channel(of: String.self, failure: Never.self)
    private let lock = Mutex(())
    /// `--json`: each line as a JSON object (``JSONLines``), errors on standard error.
    private let json: Bool

    public init(json: Bool = false) {
        self.json = json
        let lines = self.lines
        // A plain thread: reading a pipe blocks, and must not hold up the cooperative pool.
        startDetachedThread(name: "chirper-input", stackSize: 1 << 20) {
            while let line = Swift.readLine(strippingNewline: true) {
                lines.post(line)
            }
            lines.finish()
        }
    }

    public func print(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        lock.withLock { _ in write(lines) }
    }

    private func write(_ lines: [String]) {
        guard json else {
            Self.write((lines.joined(separator: "\n") + "\n"), to: STDOUT_FILENO)
            return
        }
        var out = ""
        for line in lines {
            // Escape sequences (a picture for a terminal) have no place in JSON lines.
            guard !line.hasPrefix("\u{1B}") else { continue }
            if JSONLines.isError(line) {
                if !out.isEmpty { Self.write(out, to: STDOUT_FILENO) }
                out = ""
                Self.write(JSONLines.object(for: line) + "\n", to: STDERR_FILENO)
            } else {
                out += JSONLines.object(for: line) + "\n"
            }
        }
        if !out.isEmpty { Self.write(out, to: STDOUT_FILENO) }
    }

    /// Writes `text`; a reader that went away (`| head`: EPIPE) is not the session's end, nor a crash.
    private static func write(_ text: String, to descriptor: Int32) {
        FileIO.writeAll(text.utf8, to: descriptor)
    }

    public func setStatus(_ rows: [String], picture: StatusPicture?) {}
    public func interrupted() {}
    public func close() {}
}
