import ChirperCore
import ChirperSystem
import Synchronization
import Testing

@testable import ChirperIdentify

/// How many times a model was made.
private final class Makings: Sendable {
    let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var total: Int { count.withLock { $0 } }
}

@Suite("A model loaded once, whoever asks first")
struct LoadOnceTests {
    @Test("two asking at once: the first makes it, the second waits for that one instead of making a second")
    func oneMakingForTwo() async throws {
        let once = LoadOnce<Int>()
        let makings = Makings()
        let started = Channel<Void, Never>()
        let release = Channel<Never, Never>()
        async let first = once.value {
            makings.add()
            _ = started.post(())
            await release.ended()
            return .success(42)
        }
        // The first is making it when the second asks.
        _ = await started.next()
        async let second = once.value {
            makings.add()
            return .success(7)
        }
        release.finish()
        #expect(try await first == 42)
        #expect(try await second == 42)
        #expect(makings.total == 1)
        #expect(try await once.value { .success(9) } == 42, "made once, kept")
    }

    @Test("a reason it cannot be made is kept too: the same line for every later caller, with no second try")
    func failureKept() async throws {
        let once = LoadOnce<Int>()
        let missing = IdentifyUnavailable(reason: "no BirdNET model in /nowhere: run `make model`")
        await #expect(throws: missing) { try await once.value { .failure(missing) } }
        await #expect(throws: missing) {
            try await once.value {
                Issue.record("a second making was asked for")
                return .success(1)
            }
        }
    }
}
