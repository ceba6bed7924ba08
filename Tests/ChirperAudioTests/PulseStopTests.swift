import ChirperCore
import ChirperTestSupport
import Testing

@testable import ChirperAudio

/// A stop, a seek or a new track under a waiting write or drain is an event the output answers, not an error.
extension PulseEndToEndTests {
    /// Which of the two waits on the held output begins first.
    enum FirstWait: String, CaseIterable, CustomTestStringConvertible {
        case write
        case drain
        var testDescription: String { "the \(rawValue) asked for first" }
    }

    @Test(
        "a stop under a waiting write and a waiting drain answers both as stopped, not as an error; the next track's output on the same stream plays",
        .timeLimit(.minutes(1)), arguments: FirstWait.allCases
    )
    func stopUnderWaitsIsAnEvent(first order: FirstWait) async throws {
        let rig = try await SmallStreamRig.start()
        let first = try #require(try await rig.open("first") as? PulseOutput)
        // Held (not started): 1 s of audio cannot fit in the 50 ms the output holds, so the write waits, and the
        // drain waits for it. A drain asked for before anything is queued waits too: the server, given nothing
        // yet, would answer it at once, and the track would count as played unheard (a clean-clone CI run saw
        // that order end as played). The stop comes once both are waiting.
        let writer: Task<OutputWrite, any Error>
        let drainer: Task<OutputDrain, any Error>
        switch order {
        case .write:
            writer = Task { try await first.write([Int16](repeating: 1000, count: 8000)) }
            while !first.isWaiting(.space) { await Task.yield() }
            drainer = Task { try await first.drain() }
            while !first.isWaiting(.drain) { await Task.yield() }
        case .drain:
            drainer = Task { try await first.drain() }
            while !first.isWaiting(.drain) { await Task.yield() }
            writer = Task { try await first.write([Int16](repeating: 1000, count: 8000)) }
            while !first.isWaiting(.space) { await Task.yield() }
            #expect(first.isWaiting(.drain), "a held stream's drain waits for its start")
        }
        first.stop()
        #expect(try await writer.value == .stopped)
        #expect(try await drainer.value == .stopped)
        #expect(try await first.write([1, 2, 3]) == .stopped, "a stopped output takes nothing more")

        // The same format and size: the parked stream is taken again.
        let second = try await rig.open("second")
        try second.start()
        #expect(try await second.write([Int16](repeating: 1000, count: 800)) == .queued)
        guard case .played = try await second.drain() else {
            Issue.record("the next track's drain did not play out")
            return
        }
        #expect(await rig.harness.sinkInputCount() == 1, "the stream was parked and taken again")
        second.stop()
        await rig.tearDown()
    }

    @Test(
        "a write waiting for room ends as stopped when its task is cancelled, however that races the server's requests (1000 times)",
        .timeLimit(.minutes(1))
    )
    func cancelledWritesEnd() async throws {
        // The race this covers: the main loop thread resumes a waiting write (room freed by the server's request)
        // while the writer's cancellation handler runs. A handler that waited for the main loop lock deadlocked.
        let rig = try await SmallStreamRig.start()
        let output = try await rig.open("cancel")
        try output.start()
        // 1 s of audio, far more than the 50 ms the output holds: each write waits for room many times.
        let block = [Int16](repeating: 1000, count: 8000)
        for round in 0..<1000 {
            let writer = Task { try await output.write(block) }
            // Spread the cancellations over the server's request cycle (this suite runs in real time); the
            // outcome does not depend on how long this is.
            try await Task.sleep(for: .microseconds(round * 997 % 10_000))
            writer.cancel()
            #expect(try await writer.value == .stopped, "round \(round)")
        }
        #expect(await rig.harness.sinkInputCount() == 1)
        output.stop()
        await rig.tearDown()
    }
}

/// A private sound server at 8 kHz mono, and outputs on it that hold 50 ms: a second of audio makes a write wait
/// for room many times.
private struct SmallStreamRig {
    let harness: PulseHarness
    let sink: PulseAudioSink

    static func start() async throws -> SmallStreamRig {
        let harness = try PulseHarness()
        try await harness.start(sampleRate: 8000, channels: 1)
        return SmallStreamRig(harness: harness, sink: PulseAudioSink(server: harness.serverAddress))
    }

    /// Every output has the same format and size, so a parked stream is taken again by the next.
    func open(_ label: String) async throws -> any AudioOutput {
        try await sink.openOutput(
            format: PCMFormat(sampleRate: 8000, channels: 1), label: label, bufferSeconds: 0.05, onUnderrun: {})
    }

    func tearDown() async {
        sink.shutdown()
        await harness.stop()
    }
}
