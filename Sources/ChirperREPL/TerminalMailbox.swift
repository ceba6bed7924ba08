import ChirperCore
import Dispatch
import FoundationEssentials
import Synchronization
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What other threads ask of the terminal thread.
enum TerminalRequest: Sendable {
    case print([String])
    /// The status's rows (none: no status), and an image over its first rows.
    case status([String], StatusPicture?)
    case prompt(String)
    case interrupt
    case close
}

/// Requests for the terminal thread, and the self-pipe that wakes it.
final class TerminalMailbox: @unchecked Sendable {
    // @unchecked: `currentColumns`, `failure` and `closing` are read and written only with `lock` held; the
    // requests, the descriptors and the channels are thread-safe.
    private let lock = Mutex(())
    /// Finished by the `close` request, or when the terminal thread goes away on its own.
    private let requests = Channel(of: TerminalRequest.self, failure: Never.self)
    private var currentColumns: Int
    private var failure: TerminalConsoleError?
    private var closing = false
    let wakeReader: Int32
    let wakeWriter: Int32
    /// Its one element says how closing ended: true when the terminal thread has finished (terminal restored,
    /// history saved), false when it was given up on first (see `TerminalConsole.close`).
    let stopped = Channel(of: Bool.self, failure: Never.self)
    /// Ends once the console is closed, for a second `close`.
    let closed = Channel(of: Never.self, failure: Never.self)

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
        lock.withLock { _ in
            defer { closing = true }
            return !closing
        }
    }

    /// Queues `request` and wakes the terminal thread; false once the console is closing or closed.
    func post(_ request: TerminalRequest) -> Bool {
        let isClose: Bool
        if case .close = request { isClose = true } else { isClose = false }
        let posted = requests.post(request, last: isClose)
        if posted { wake() }
        return posted
    }

    /// Everything queued since the last call.
    func take() -> [TerminalRequest] {
        requests.pollAll()
    }

    /// Stops accepting requests (the terminal thread is going away on its own).
    func refuse() {
        requests.finish()
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
        get { lock.withLock { _ in currentColumns } }
        set { lock.withLock { _ in currentColumns = newValue } }
    }

    /// Why the terminal thread could not set up, as its setup threw it (the console rethrows it).
    var setupFailure: TerminalConsoleError? {
        get { lock.withLock { _ in failure } }
        set { lock.withLock { _ in failure = newValue } }
    }
}
