import ChirperTestSupport
import Foundation
import Testing

private let apiKey = "ab-gap-KEY-52d"
/// Asked for between the sides: not the default (0.5 s).
private let gap = 0.7
/// The silence heard between two sides is the gap asked for, less at most `early`, plus at most `late` for any one
/// and `lateMedian` for their median: on a quiet machine the sides are the gap apart within 50 ms (BENCH.md), but
/// on two cores shared with a whole test suite, starting the next side (a stream, a fetch, a prebuffer) can come
/// a second late. Before the sides were kept the gap apart, the sink idling at its own latency added its 2 s to
/// every one of them.
private let early = 0.05
private let late = 1.3
private let lateMedian = 0.5

/// A private PulseAudio whose null sink idles at its own latency (2 s ahead: nothing asks it for less, not
/// even the recorder on its monitor), a loopback xeno-canto whose row 1 is a mono tone and row 2 a stereo one
/// (so each side gets a stream of its own), and the monitor's recorder.
private struct LongLatencySink {
    let pulse: PulseHarness
    let server: LoopbackServer
    let recorder: MonitorRecorder
    let scratch: URL

    static func start() async throws -> LongLatencySink {
        let pulse = try PulseHarness()
        try await pulse.start(sampleRate: toneRate, channels: 1, defaultLatency: true)
        let base = ServerBase()
        let server = try await LoopbackServer.start { twoTones($0, base: base.value, secondChannels: 2) }
        base.value = server.baseURL
        let recorder = try await pulse.startRecording(
            sampleRate: toneRate, channels: 1, latencyMilliseconds: PulseHarness.defaultLatencyRecording)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-ab-gap-\(UUID())")
        return LongLatencySink(pulse: pulse, server: server, recorder: recorder, scratch: scratch)
    }

    var arguments: [String] { ["--api-url", server.baseURL + "/api/3/recordings", "--output", "pulse"] }

    var environment: [String: String] {
        var environment = pulse.environment.filter { $0.key.hasPrefix("PULSE_") }
        environment["XENO_CANTO_API_KEY"] = apiKey
        environment["XDG_CACHE_HOME"] = scratch.path + "/cache"
        environment["XDG_DATA_HOME"] = scratch.path + "/data"
        environment["XDG_STATE_HOME"] = scratch.path + "/state"
        return environment
    }

    /// Enough of the sink's own time for the first side (which may wait out the 2 s the idle sink rendered
    /// ahead) and four more sides with their gaps; the recorder's samples arrive up to 2 s late, which this
    /// counts in too.
    func waitForFourSides() async {
        await recorder.waitForMore(seconds: 4 + 5 * (toneSeconds + gap) + 2)
    }

    /// Ends the recording and the servers; the monitor's samples.
    func finish() async -> [Int16] {
        let recording = await recorder.stop()
        await server.shutdown()
        await pulse.stop()
        try? FileManager.default.removeItem(at: scratch)
        return recording.samples
    }
}

/// The sides heard alternate 1 kHz and 2 kHz, and the silence between each two is the gap asked for.
private func expectGapsAsked(_ samples: [Int16], sourceLocation: SourceLocation = #_sourceLocation) {
    let heard = sides(stretches(samples))
    let complete = Array(heard.dropLast())  // the last one may be cut by `stop`
    #expect(complete.count >= 4, "heard: \(heard)", sourceLocation: sourceLocation)
    #expect(
        complete.map(\.pitch) == complete.indices.map { $0 % 2 == 0 ? 1000 : 2000 }, "heard: \(heard)",
        sourceLocation: sourceLocation)
    let heardSilences = silences(between: complete)
    // The first B side opens the session's first stream of its format: on a loaded machine that has taken over
    // two seconds once, which is left to mend (the bug this guards against lengthened every silence). The median
    // below still counts it.
    for (index, silence) in heardSilences.enumerated().dropFirst() {
        #expect(
            silence >= gap - early && silence <= gap + late,
            "silence \(index + 1) heard \(String(format: "%.3f", silence)) s, asked \(gap) s; heard: \(complete)",
            sourceLocation: sourceLocation)
    }
    guard !heardSilences.isEmpty else { return }
    let median = heardSilences.sorted()[heardSilences.count / 2]
    #expect(
        median <= gap + lateMedian, "median silence \(String(format: "%.3f", median)) s, asked \(gap) s",
        sourceLocation: sourceLocation)
}

@Suite(
    "A/B listening on a sink at its default latency",
    .serialized,
    .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"),
    .enabled(if: PulseHarness.unavailableReason == nil, "\(PulseHarness.unavailableReason ?? "")")
)
struct ABGapTests {
    @Test("ab 1 2 0.7 in a pipe, a mono and a stereo recording, sink at its default latency: 0.7 s between the sides")
    func gapInAPipe() async throws {
        let sink = try await LongLatencySink.start()
        let session = try ChirperSession(sink.arguments, environment: sink.environment)
        defer { session.kill() }

        try await session.run(["search tonus"], marker: "ab-gap-mark-1")
        try await session.run(["ab 1 2 \(gap)"], marker: "ab-gap-mark-2")
        await sink.waitForFourSides()
        try await session.run(["stop"], marker: "ab-gap-mark-3")
        try await session.quit()
        expectGapsAsked(await sink.finish())
    }

    @Test(
        "ab 1 2 0.7 on an 80-column terminal, a mono and a stereo recording, sink at its default latency: 0.7 s between"
    )
    func gapOnATerminal() async throws {
        let sink = try await LongLatencySink.start()
        var environment = ProcessInfo.processInfo.environment
        for name in ["NO_COLOR", "LC_ALL", "LC_CTYPE", "EDITRC"] { environment[name] = nil }
        environment["HOME"] = sink.scratch.path
        environment["TERM"] = "xterm-256color"
        environment["LANG"] = "C.UTF-8"
        environment.merge(sink.environment) { _, new in new }
        let session = try PTYSession(
            executable: ChirperBinary.path, arguments: sink.arguments, environment: environment, columns: 80)
        defer { session.stop() }

        try await session.waitForPrompt()
        session.type("search tonus\r")
        try await session.waitFor("the two rows") { $0.transcript.contains { $0.contains("Two Kilohertz") } }
        session.type("ab 1 2 \(gap)\r")
        await sink.waitForFourSides()
        session.type("stop\r")
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
        expectGapsAsked(await sink.finish())
    }
}
