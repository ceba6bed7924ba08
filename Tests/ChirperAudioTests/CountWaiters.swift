import NIOConcurrencyHelpers

/// Those waiting for a count a test double keeps (opens, reads, samples accepted) to reach theirs. Kept in the
/// double's locked state: decided under its lock, resumed after it.
struct CountWaiters {
    private var waiting: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Keeps `continuation` until the count reaches `count`; false when `now` has already (resume it at once).
    mutating func wait(for count: Int, now: Int, _ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard now < count else { return false }
        waiting.append((count, continuation))
        return true
    }

    /// Takes out those whose count `now` reaches, to be resumed after the lock.
    mutating func reached(_ now: Int) -> [CheckedContinuation<Void, Never>] {
        defer { waiting.removeAll { $0.count <= now } }
        return waiting.filter { $0.count <= now }.map(\.continuation)
    }
}

extension NIOLockedValueBox {
    /// Returns once `count` of the locked value reaches `target` (at once if it has), waiting in `waiters`.
    func wait(
        until target: Int, counted count: (Value) -> Int, in waiters: WritableKeyPath<Value, CountWaiters>
    ) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = withLockedValue { value in
                value[keyPath: waiters].wait(for: target, now: count(value), continuation)
            }
            if !waits { continuation.resume() }
        }
    }
}
