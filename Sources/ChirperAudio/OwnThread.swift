import ChirperCore
import FoundationEssentials
import ChirperSystem

/// Runs `work` on a thread of its own, outside the cooperative pool, and gives its result: for work that
/// holds a thread for milliseconds or more without awaiting (decoding a piece of a recording, loading a
/// library), which on the pool (one thread per core) would hold up every other task of the session.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        startDetachedThread(name: "chirper-work") { continuation.resume(with: Result { try work() }) }
    }
}
