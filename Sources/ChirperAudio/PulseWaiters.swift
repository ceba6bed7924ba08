import ChirperSystem
import NIOConcurrencyHelpers

/// The operations suspended on one playback stream, each waiting on a one-shot channel (`Waiter`), kept apart
/// from the main-loop-guarded `PulseStreamState` behind their own lock, so that a task's cancellation handler
/// can end them without the main loop lock (see `PulseOutput.wait`). Their lock is a leaf: nothing is posted
/// or locked while it is held.
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

    /// How a suspended operation ends when the stream did not fail: what it waited for came, or its use of the
    /// stream ended under it (its output was stopped or parked, a later track took the stream, the stream was
    /// closed, another operation of its kind replaced it, or its task was cancelled).
    enum Answer: Sendable, Equatable {
        case came
        case ended
    }

    /// One suspended operation's answer, or the stream's failure, posted once (as its last element); cancelled
    /// with its task.
    typealias Waiter = Channel<Result<Answer, AudioSinkError>, Never>

    private struct Waiting {
        var ready: Waiter?
        var space: Waiter?
        var drain: Waiter?

        subscript(kind: Kind) -> Waiter? {
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

    /// Registers `waiter` for `kind`, unless the current task is already cancelled (then `false`). Checked
    /// under the lock the cancellation handler takes, so a cancellation is never missed: either the handler
    /// finds the waiter, or the task was cancelled before and the check sees it. A waiter it replaces (one
    /// operation of a kind at a time) is ended rather than left waiting forever.
    func register(_ kind: Kind, _ waiter: Waiter, into resumptions: inout PulseResumptions) -> Bool {
        let (registered, replaced) = waiting.withLockedValue { waiting -> (Bool, Waiter?) in
            if Task.isCancelled { return (false, nil) }
            defer { waiting[kind] = waiter }
            return (true, waiting[kind])
        }
        resumptions.resume(replaced, with: .success(.ended))
        return registered
    }

    func isWaiting(_ kind: Kind) -> Bool {
        waiting.withLockedValue { $0[kind] != nil }
    }

    /// Takes the waiter for `kind` out, if any; the caller answers it.
    func take(_ kind: Kind) -> Waiter? {
        waiting.withLockedValue { waiting in
            defer { waiting[kind] = nil }
            return waiting[kind]
        }
    }

    /// Takes every waiter out; the caller answers them.
    func takeAll() -> [Waiter] {
        waiting.withLockedValue { waiting in
            defer { waiting = Waiting() }
            return [waiting.ready, waiting.space, waiting.drain].compactMap { $0 }
        }
    }
}

/// Waiters taken out of libpulse-guarded state with the result decided for each, answered by `run()` once
/// the deciding code has released its locks: decide under the lock, act outside it.
///
/// Code that takes the main loop lock itself calls `run()` after unlocking. A libpulse callback cannot
/// unlock (libpulse holds the lock around it, and `pa_threaded_mainloop_unlock` and `_once_unlocked` assert
/// they are not called on the main loop's thread; only a hop to another thread would do), so it calls `run()`
/// at its end: outside the waiters' lock, still inside the main loop lock. That is safe because resuming only
/// enqueues the task on its executor, briefly taking the task's status lock (the Swift runtime updates the
/// task's dependency record). The one deadlock possible is with a thread that holds that status lock and
/// waits for the main loop lock: a cancellation handler runs with it held, so cancellation handlers never
/// take the main loop lock (`PulseOutput.wait` ends its waiters through `PulseWaiters`).
struct PulseResumptions {
    private var decided: [(PulseWaiters.Waiter, Result<PulseWaiters.Answer, AudioSinkError>)] = []
    private var latches: [Channel<Never, Never>] = []

    /// Decides that `latch` opens; `run()` opens it.
    mutating func open(_ latch: Channel<Never, Never>) {
        latches.append(latch)
    }

    /// Decides that `waiter` (if there is one) gets `result`; `run()` answers it.
    mutating func resume(_ waiter: PulseWaiters.Waiter?, with result: Result<PulseWaiters.Answer, AudioSinkError>) {
        guard let waiter else { return }
        decided.append((waiter, result))
    }

    /// Decides that each of `waiters` gets `result`; `run()` answers them.
    mutating func resume(_ waiters: [PulseWaiters.Waiter], with result: Result<PulseWaiters.Answer, AudioSinkError>) {
        for waiter in waiters { decided.append((waiter, result)) }
    }

    /// Resumes what was decided. Call with no lock held (in a libpulse callback: only the main loop's).
    func run() {
        for (waiter, result) in decided { waiter.post(result, last: true) }
        for latch in latches { latch.finish() }
    }
}
