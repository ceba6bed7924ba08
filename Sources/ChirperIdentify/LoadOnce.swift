import ChirperCore
import ChirperSystem
import Synchronization

/// A model made once and kept, or the reason it could not be, the same for every caller after. The first caller
/// makes it; those who ask meanwhile wait for that making (a latch on `Channel`) instead of making a second copy:
/// a typed `identify` and `identify on` may ask at the same moment, and each copy is tens of megabytes.
final class LoadOnce<Value: Sendable>: Sendable {
    private enum State: Sendable {
        case idle
        /// Being made; the latch opens when it is.
        case making(Channel<Never, Never>)
        case made(Result<Value, IdentifyUnavailable>)
    }

    private enum Step: Sendable {
        case made(Result<Value, IdentifyUnavailable>)
        case wait(Channel<Never, Never>)
        case make(Channel<Never, Never>)
    }

    private let state = Mutex<State>(.idle)

    /// The value, made by `make` if nobody made it or is making it.
    func value(_ make: () async -> Result<Value, IdentifyUnavailable>) async throws(IdentifyUnavailable) -> Value {
        while true {
            // Decided under the lock; made, waited for and announced after it.
            let step = state.withLock { state -> Step in
                switch state {
                case .made(let result): return .made(result)
                case .making(let latch): return .wait(latch)
                case .idle:
                    let latch = Channel<Never, Never>()
                    state = .making(latch)
                    return .make(latch)
                }
            }
            switch step {
            case .made(let result):
                return try result.get()
            case .wait(let latch):
                await latch.ended()
            case .make(let latch):
                let result = await make()
                state.withLock { $0 = .made(result) }
                latch.finish()
                return try result.get()
            }
        }
    }
}
