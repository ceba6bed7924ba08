import Dispatch
import Synchronization
import Testing

/// Runs `work` on a thread of its own and waits for it: long synchronous work in a test (decoding minutes of
/// audio in a debug build) would otherwise hold one of the few threads of Swift's cooperative pool, and the
/// other tests' timers and network would starve meanwhile. A serial queue of its own targets libdispatch's
/// overcommit root queue, which makes a thread when all are busy; `DispatchQueue.global()` is the queue the
/// cooperative pool itself runs on (on Linux), as wide as the machine has cores.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue(label: "chirper-tests.off-the-pool").async {
            continuation.resume(with: Result { try work() })
        }
    }
}

/// Starts `work`, which blocks (reading a child's output to its end, waiting for it to exit), on a thread outside
/// the cooperative pool. `DispatchQueue.global()` is not outside it on Linux: a blocking read there for a child's
/// whole life takes one of the pool's few threads from the players and servers of the tests beside it.
public func startBlocking(_ label: String, _ work: @escaping @Sendable () -> Void) {
    DispatchQueue(label: "chirper-tests." + label).async(execute: work)
}

/// The executor of tests marked `.heavyWork`: their jobs run on four threads of their own (serial queues, each
/// on an overcommit thread), so that a test body that computes for seconds synchronously (a sonogram of 30
/// minutes, a fuzz corpus, signals made sample by sample in a debug build) does not hold the cooperative
/// pool's threads. On a two-core machine two such tests held the whole pool for 15 s at the start of every
/// run (gdb), and the player's tests, whose data arrives through pool tasks, failed as stalled.
public final class HeavyWorkExecutor: TaskExecutor {
    public static let shared = HeavyWorkExecutor()

    private let queues = (0..<4).map { DispatchQueue(label: "chirper-tests.heavy-work-\($0)") }
    private let next = Atomic<Int>(0)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue % queues.count
        queues[index].async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// `.heavyWork`: the test (or every test of the suite) runs on `HeavyWorkExecutor`'s threads.
public struct HeavyWork: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(HeavyWorkExecutor.shared) { try await function() }
    }
}

extension Trait where Self == HeavyWork {
    /// Runs the test's body off Swift's cooperative pool (see `HeavyWorkExecutor`).
    public static var heavyWork: Self { HeavyWork() }
}
