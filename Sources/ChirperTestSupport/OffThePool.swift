import Dispatch

/// Runs `work` on a GCD thread and waits for it: long synchronous work in a test (decoding minutes of audio
/// in a debug build) would otherwise hold one of the few threads of Swift's cooperative pool, and the other
/// tests' timers and network would starve meanwhile.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
