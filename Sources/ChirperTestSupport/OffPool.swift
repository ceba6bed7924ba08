import Foundation

/// Runs blocking work (waiting for a subprocess, reading a pipe to its end) on a thread of its own, and awaits
/// it. Tests must not block the cooperative pool: it has one thread per core (two here), and parameterised
/// cases that each waited for lame, sox or mpg123 held pool threads for seconds, delaying every other test's
/// tasks, the timing-sensitive ones among them.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
