import NIOConcurrencyHelpers

/// The continuations suspended on one playback stream, kept apart from the main-loop-guarded
/// `PulseStreamState` behind their own lock, so that a task's cancellation handler can fail them without the
/// main loop lock (see `PulseOutput.wait`). Their lock is a leaf: nothing is resumed or locked while it is held.
final class PulseWaiters: Sendable {
    /// What a suspended operation waits for.
    enum Kind {
        /// `waitUntilReady`: the server has the stream ready.
        case ready
        /// `write`: room in the stream's queue.
        case space
        /// `drain`: the queue handed over, then the server's drain.
        case drain
    }

    private struct Waiting {
        var ready: CheckedContinuation<Void, any Error>?
        var space: CheckedContinuation<Void, any Error>?
        var drain: CheckedContinuation<Void, any Error>?

        subscript(kind: Kind) -> CheckedContinuation<Void, any Error>? {
            get {
                switch kind {
                case .ready: ready
                case .space: space
                case .drain: drain
                }
            }
            set {
                switch kind {
                case .ready: ready = newValue
                case .space: space = newValue
                case .drain: drain = newValue
                }
            }
        }
    }

    private let waiting = NIOLockedValueBox(Waiting())

    /// Registers `continuation` for `kind`, unless the current task is already cancelled (then `false`).
    /// Checked under the lock the cancellation handler takes, so a cancellation is never missed: either the
    /// handler finds the continuation, or the task was cancelled before and the check sees it.
    func register(_ kind: Kind, _ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        waiting.withLockedValue { waiting in
            if Task.isCancelled { return false }
            waiting[kind] = continuation
            return true
        }
    }

    func isWaiting(_ kind: Kind) -> Bool {
        waiting.withLockedValue { $0[kind] != nil }
    }

    /// Takes the continuation waiting for `kind` out, if any; the caller resumes it.
    func take(_ kind: Kind) -> CheckedContinuation<Void, any Error>? {
        waiting.withLockedValue { waiting in
            defer { waiting[kind] = nil }
            return waiting[kind]
        }
    }

    /// Takes every waiting continuation out; the caller resumes them.
    func takeAll() -> [CheckedContinuation<Void, any Error>] {
        waiting.withLockedValue { waiting in
            defer { waiting = Waiting() }
            return [waiting.ready, waiting.space, waiting.drain].compactMap { $0 }
        }
    }
}

/// Continuations taken out of libpulse-guarded state with the result decided for each, resumed by `run()`
/// once the deciding code has released its locks: decide under the lock, act outside it.
///
/// Code that takes the main loop lock itself calls `run()` after unlocking. A libpulse callback cannot
/// unlock (libpulse holds the lock around it, and `pa_threaded_mainloop_unlock` and `_once_unlocked` assert
/// they are not called on the main loop's thread; only a hop to another thread would do), so it calls `run()`
/// at its end: outside the waiters' lock, still inside the main loop lock. That is safe because resuming only
/// enqueues the task on its executor, briefly taking the task's status lock (the Swift runtime updates the
/// task's dependency record). The one deadlock possible is with a thread that holds that status lock and
/// waits for the main loop lock: a cancellation handler runs with it held, so cancellation handlers never
/// take the main loop lock (`PulseOutput.wait` fails its waiters through `PulseWaiters`).
struct PulseResumptions {
    private var decided: [(CheckedContinuation<Void, any Error>, Result<Void, any Error>)] = []

    /// Decides that `continuation` (if there is one) gets `result`; `run()` resumes it.
    mutating func resume(_ continuation: CheckedContinuation<Void, any Error>?, with result: Result<Void, any Error>) {
        guard let continuation else { return }
        decided.append((continuation, result))
    }

    /// Decides that each of `continuations` gets `error`; `run()` resumes them.
    mutating func fail(_ continuations: [CheckedContinuation<Void, any Error>], with error: any Error) {
        for continuation in continuations { decided.append((continuation, .failure(error))) }
    }

    /// Resumes what was decided. Call with no lock held (in a libpulse callback: only the main loop's).
    func run() {
        for (continuation, result) in decided { continuation.resume(with: result) }
    }
}
