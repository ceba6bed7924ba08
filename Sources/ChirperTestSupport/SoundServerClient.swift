/// What the PulseAudio and PipeWire harnesses both do as a client of their private server: run `pactl`, and
/// record the null sink's monitor with `parec`.
struct SoundServerClient: Sendable {
    /// `unix:/path/native`.
    var serverAddress: String
    var environment: [String: String]
    /// Why the server cannot run here, for the error when a tool is missing.
    var unavailableReason: String?

    /// Runs `pactl` against the server; returns its exit status and output.
    func pactl(_ arguments: [String]) async -> (status: Int32, output: String) {
        guard let path = PulseHarness.executable(named: "pactl"),
            let process = try? ChildProcess(
                executable: path,
                arguments: ["--server=\(serverAddress)"] + arguments,
                environment: environment,
                captureOutput: true
            )
        else { return (-1, "") }
        await process.waitForExit()
        return (process.exitStatus, String(decoding: process.output, as: UTF8.self))
    }

    /// Starts `parec` on the test sink's monitor, asking for `latencyMilliseconds`, and returns once audio
    /// (silence at first) is flowing.
    func startRecording(sampleRate: Int, channels: Int, latencyMilliseconds: Int = 10) async throws -> MonitorRecorder {
        guard let parec = PulseHarness.executable(named: "parec") else {
            throw HarnessError.failed(unavailableReason ?? "parec missing")
        }
        let recorder = try MonitorRecorder(
            executable: parec,
            arguments: [
                "--server=\(serverAddress)", "--device=\(PulseHarness.sinkName).monitor", "--format=s16le",
                "--rate=\(sampleRate)", "--channels=\(channels)", "--latency-msec=\(latencyMilliseconds)", "--raw",
            ],
            environment: environment,
            sampleRate: sampleRate,
            channels: channels
        )
        try await recorder.waitUntilFlowing()
        return recorder
    }
}
