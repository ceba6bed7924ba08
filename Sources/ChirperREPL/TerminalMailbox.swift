import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What other threads ask of the terminal thread.
enum TerminalRequest: Sendable {
    case print([String])
    case status(String?)
    case prompt(String)
    case interrupt
    case close
}

/// Requests for the terminal thread, and the self-pipe that wakes it.
final class TerminalMailbox: @unchecked Sendable {
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
