import Foundation
import Glibc
import NIOConcurrencyHelpers

/// A private PulseAudio server for one test: its own directory and socket, a null sink named
/// `chirper_test`, and `parec` on the sink's monitor to capture what was played.
///
/// Nothing is shared with a desktop session or with other tests: the client is pointed at
/// `serverAddress` explicitly. Tests that need it should check `PulseHarness.unavailableReason` first and
/// skip with that message when `pulseaudio` or `parec` is missing.
public final class PulseHarness: Sendable {
    /// The null sink's name; its monitor source is `chirper_test.monitor`.
    public static let sinkName = "chirper_test"

    /// Why the harness cannot run here, or `nil` if `pulseaudio`, `pactl` and `parec` are installed.
    public static let unavailableReason: String? = {
        let missing = ["pulseaudio", "pactl", "parec"].filter { executable(named: $0) == nil }
        if missing.isEmpty { return nil }
        return "skipped: \(missing.joined(separator: ", ")) not installed (apt-get install pulseaudio pulseaudio-utils)"
    }()

    /// The harness's private directory (socket, runtime and state folders, server log).
    public let directory: String
    /// `unix:<directory>/native`: give this to `PulseAudioSink(server:)`.
    public var serverAddress: String { "unix:\(directory)/native" }
    public var socketPath: String { "\(directory)/native" }

    private let server = NIOLockedValueBox<ChildProcess?>(nil)
    /// A `parec` reading the monitor with low latency and discarding it; see `start`.
    private let keeper = NIOLockedValueBox<ChildProcess?>(nil)

    /// Makes the private directory; the server is not started yet (see `start`).
    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/chirper-pulse.XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw HarnessError.failed("mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        for sub in ["runtime", "state", "config"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(sub)", withIntermediateDirectories: true)
        }
    }

    deinit {
        keeper.withLockedValue { $0?.kill() }
        server.withLockedValue { $0?.kill() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Environment for the server and the command-line clients: everything inside `directory`.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_RUNTIME_PATH"] = "\(directory)/runtime"
        environment["PULSE_STATE_PATH"] = "\(directory)/state"
        environment["XDG_CONFIG_HOME"] = "\(directory)/config"
        environment["HOME"] = directory
        environment["PULSE_SERVER"] = serverAddress
        return environment
    }

    /// Starts the server with a null sink at this rate and channel count (record at the same format and no
    /// resampling happens, so the monitor carries exactly the samples played). Returns when it answers.
    ///
    /// - Parameter defaultLatency: no low-latency reader on the monitor (see `startLatencyKeeper`): the sink
    ///   idles at its own latency, rendering 2 s ahead, as a desktop's sink may; record it with a recorder of
    ///   `defaultLatencyRecording` so that recording does not lower it either.
    public func start(sampleRate: Int = 44100, channels: Int = 2, defaultLatency: Bool = false) async throws {
        guard let pulseaudio = Self.executable(named: "pulseaudio") else {
            throw HarnessError.failed(Self.unavailableReason ?? "pulseaudio missing")
        }
        await stop()
        let channelMap = channels == 1 ? "mono" : "front-left,front-right"
        let process = try ChildProcess(
            executable: pulseaudio,
            arguments: [
                "-n", "--daemonize=no", "--exit-idle-time=60", "--system=false", "--disallow-exit",
                "--use-pid-file=no", "--log-target=file:\(directory)/server.log", "--log-level=warning",
                "--load=module-null-sink sink_name=\(Self.sinkName) rate=\(sampleRate) channels=\(channels) "
                    + "channel_map=\(channelMap)",
                "--load=module-native-protocol-unix socket=\(socketPath) auth-anonymous=1",
            ],
            environment: environment,
            captureOutput: false
        )
        server.withLockedValue { $0 = process }
        let deadline = ContinuousClock.now + .seconds(30)
        var lastAnswer = "no socket yet"
        while ContinuousClock.now < deadline {
            if !process.isRunning {
                throw HarnessError.failed("pulseaudio exited at start; log: \(serverLog)")
            }
            if FileManager.default.fileExists(atPath: socketPath) {
                let info = await pactl(["info"])
                lastAnswer = "pactl info: status \(info.status), \(info.output.prefix(300))"
            }
            if lastAnswer.hasPrefix("pactl info: status 0,") {
                if defaultLatency { return }
                try startLatencyKeeper()
                // Suspend and resume so the sink restarts its clock at the low latency the keeper asks for,
                // instead of sleeping through the seconds it rendered ahead while nobody listened.
                _ = await pactl(["suspend-sink", Self.sinkName, "1"])
                _ = await pactl(["suspend-sink", Self.sinkName, "0"])
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError.failed("pulseaudio did not answer within 30 s (\(lastAnswer)); log: \(serverLog)")
    }

    /// A null sink left to itself renders up to 2 s ahead and, when a stream arrives, does not wake up
    /// before that time is over: the first second or two of a track would stall. A real device reacts to
    /// latency requests; a low-latency reader on the monitor makes the null sink do the same.
    private func startLatencyKeeper() throws {
        guard let parec = Self.executable(named: "parec") else { return }
        let process = try ChildProcess(
            executable: parec,
            arguments: [
                "--server=\(serverAddress)", "--device=\(Self.sinkName).monitor", "--latency-msec=10", "--raw",
            ],
            environment: environment,
            captureOutput: false
        )
        keeper.withLockedValue { $0 = process }
    }

    /// Stops the server (SIGTERM to the process this harness started) and waits for it to exit.
    public func stop() async {
        let keeper = self.keeper.withLockedValue { value in
            defer { value = nil }
            return value
        }
        if let keeper {
            keeper.terminate()
            await keeper.waitForExit()
        }
        let process = server.withLockedValue { value in
            defer { value = nil }
            return value
        }
        if let process {
            process.terminate()
            await process.waitForExit()
        }
        try? FileManager.default.removeItem(atPath: socketPath)
    }

    /// Whether the server this harness started is still running.
    public var isRunning: Bool { server.withLockedValue { $0?.isRunning ?? false } }

    /// The server's log so far (warnings and errors).
    public var serverLog: String {
        (try? String(contentsOfFile: "\(directory)/server.log", encoding: .utf8)) ?? ""
    }

    /// Runs `pactl` against this server; returns its exit status and output.
    public func pactl(_ arguments: [String]) async -> (status: Int32, output: String) {
        await client.pactl(arguments)
    }

    /// Playback streams (sink inputs) the server has now.
    public func sinkInputCount() async -> Int {
        let result = await pactl(["list", "short", "sink-inputs"])
        return result.output.split(separator: "\n").filter { !$0.isEmpty }.count
    }

    /// Whether each playback stream (sink input) is corked, as the server says.
    public func sinkInputsCorked() async -> [Bool] {
        let result = await pactl(["list", "sink-inputs"])
        return result.output.split(separator: "\n").compactMap { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("Corked: ") else { return nil }
            return text == "Corked: yes"
        }
    }

    /// Asks the server until its playback streams' corked states are `corked` (a client's cork reaches the
    /// server a moment after the client sent it), for up to 5 s; whether they were.
    public func waitForSinkInputs(corked: [Bool]) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        repeat {
            if await sinkInputsCorked() == corked { return true }
        } while ContinuousClock.now < deadline
        return false
    }

    /// A recorder's latency that asks the sink for none lower than its own: the null sink's longest, 2 s.
    public static let defaultLatencyRecording = 2000

    /// Starts `parec` on the null sink's monitor and returns once audio (silence at first) is flowing. The
    /// recorder asks for `latencyMilliseconds`; a short one makes the sink render no further ahead than that.
    public func startRecording(sampleRate: Int, channels: Int, latencyMilliseconds: Int = 10) async throws
        -> MonitorRecorder
    {
        try await client.startRecording(
            sampleRate: sampleRate, channels: channels, latencyMilliseconds: latencyMilliseconds)
    }

    private var client: SoundServerClient {
        SoundServerClient(
            serverAddress: serverAddress, environment: environment, unavailableReason: Self.unavailableReason)
    }

    /// The full path of an executable found on `PATH`.
    public static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

public enum HarnessError: Error, CustomStringConvertible {
    case failed(String)
    public var description: String {
        switch self {
        case .failed(let message): message
        }
    }
}
