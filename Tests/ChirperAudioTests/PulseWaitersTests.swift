import ChirperSystem
import Testing

@testable import ChirperAudio

@Suite("A playback stream's waiters: decided under the lock, answered after it")
struct PulseWaitersTests {
    @Test("a waiter taken out under the lock hears nothing until the decided answers run, then its result")
    func answeredAfter() async throws {
        let waiters = PulseWaiters()
        let waiter = PulseWaiters.Waiter()
        var registering = PulseResumptions()
        #expect(waiters.register(.space, waiter, into: &registering))
        registering.run()
        var answers = PulseResumptions()
        answers.resume(waiters.take(.space), with: .success(.came))
        #expect(!waiters.isWaiting(.space))
        #expect(waiter.poll() == nil, "nothing is answered while deciding")
        answers.run()
        let answer = try #require(await waiter.next())
        #expect(answer == .success(.came))
        #expect(await waiter.next() == nil, "answered once")
    }

    @Test("a second wait of the same kind ends the first, which would otherwise wait for ever")
    func replaced() async throws {
        let waiters = PulseWaiters()
        let (first, second) = (PulseWaiters.Waiter(), PulseWaiters.Waiter())
        var resumptions = PulseResumptions()
        #expect(waiters.register(.drain, first, into: &resumptions))
        #expect(waiters.register(.drain, second, into: &resumptions))
        resumptions.run()
        let answer = try #require(first.poll(), "the first is answered")
        #expect(answer == .success(.ended))
        #expect(waiters.take(.drain) === second)
    }

    @Test("a task already cancelled does not register: its wait ends at once")
    func cancelledTask() async {
        let waiters = PulseWaiters()
        let registered = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var resumptions = PulseResumptions()
            return waiters.register(.ready, PulseWaiters.Waiter(), into: &resumptions)
        }
        #expect(await registered.value == false)
        #expect(!waiters.isWaiting(.ready))
    }
}
