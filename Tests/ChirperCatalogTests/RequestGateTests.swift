import ChirperSystem
import ChirperTestSupport
import Testing

@testable import ChirperCatalog

@Suite("The request gate: one request at a time, each spaced from the one before")
struct RequestGateTests {
    @Test("a request asked for while another runs begins once that one is done, not before")
    func oneAtATime() async {
        let clock = ManualClock()
        let gate = RequestGate(clock: clock, interval: .seconds(1))
        let began = Channel(of: String.self, failure: Never.self)
        let firstMayEnd = Channel(of: Never.self, failure: Never.self)
        let first = Task {
            await gate.run {
                began.post("first")
                await firstMayEnd.ended()
            }
        }
        #expect(await began.next() == "first")
        // Well past the spacing: only the first request still running can hold the second back.
        clock.advance(by: .seconds(5))
        let second = Task { _ = await gate.run { began.post("second") } }
        for _ in 0..<1000 { await Task.yield() }
        #expect(began.poll() == nil, "the second began while the first ran")
        firstMayEnd.finish()
        await first.value
        await second.value
        #expect(began.pollAll() == ["second"])
    }

    @Test("the next request waits out the interval from the start of the one before, on the gate's clock")
    func spaced() async {
        let clock = ManualClock()
        let gate = RequestGate(clock: clock, interval: .seconds(1))
        let began = Channel(of: String.self, failure: Never.self)
        _ = await gate.run { began.post("first") }
        let second = Task { _ = await gate.run { began.post("second") } }
        await clock.waitForSleepers()
        #expect(began.pollAll() == ["first"], "the second waits for the interval")
        clock.advance(by: .seconds(1))
        await second.value
        #expect(began.pollAll() == ["second"])
    }
}
