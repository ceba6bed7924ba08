import ChirperCore
import ChirperTestSupport
import Testing

@testable import ChirperAudio

/// A stop, a seek or a new track under a waiting write or drain is an event the output answers, not an error.
extension PulseEndToEndTests {
    @Test(
        "a stop under a waiting write and a waiting drain answers both as stopped, not as an error; the next track's output on the same stream plays",
        .timeLimit(.minutes(1))
    )
    func stopUnderWaitsIsAnEvent() async throws {
        let harness = try PulseHarness()
        try await harness.start(sampleRate: 8000, channels: 1)
        let sink = PulseAudioSink(server: harness.serverAddress)
        let format = PCMFormat(sampleRate: 8000, channels: 1)
        let opened = try await sink.openOutput(format: format, label: "first", bufferSeconds: 0.05, onUnderrun: {})
        let first = try #require(opened as? PulseOutput)
        // Held (not started): 1 s of audio cannot fit in the 50 ms the output holds, so the write waits, and the
        // drain waits for it. The stop comes once both are waiting.
        let writer = Task { try await first.write([Int16](repeating: 1000, count: 8000)) }
        let drainer = Task { try await first.drain() }
        while !(first.isWaiting(.space) && first.isWaiting(.drain)) { await Task.yield() }
        first.stop()
        #expect(try await writer.value == .stopped)
        #expect(try await drainer.value == .stopped)
        #expect(try await first.write([1, 2, 3]) == .stopped, "a stopped output takes nothing more")

        // The same format and size: the parked stream is taken again.
        let second = try await sink.openOutput(format: format, label: "second", bufferSeconds: 0.05, onUnderrun: {})
        try second.start()
        #expect(try await second.write([Int16](repeating: 1000, count: 800)) == .queued)
        guard case .played = try await second.drain() else {
            Issue.record("the next track's drain did not play out")
            return
        }
        #expect(await harness.sinkInputCount() == 1, "the stream was parked and taken again")
        second.stop()
        sink.shutdown()
        await harness.stop()
    }

    @Test(
        "a write waiting for room ends as stopped when its task is cancelled, however that races the server's requests (1000 times)",
        .timeLimit(.minutes(1))
    )
    func cancelledWritesEnd() async throws {
        // The race this covers: the main loop thread resumes a waiting write (room freed by the server's request)
        // while the writer's cancellation handler runs. A handler that waited for the main loop lock deadlocked.
        let harness = try PulseHarness()
        try await harness.start(sampleRate: 8000, channels: 1)
        let sink = PulseAudioSink(server: harness.serverAddress)
        let output = try await sink.openOutput(
            format: PCMFormat(sampleRate: 8000, channels: 1), label: "cancel", bufferSeconds: 0.05, onUnderrun: {})
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
        #expect(await harness.sinkInputCount() == 1)
        output.stop()
        sink.shutdown()
        await harness.stop()
    }
}
