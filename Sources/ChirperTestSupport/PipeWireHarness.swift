import Foundation
import Glibc
import NIOConcurrencyHelpers

/// A private PipeWire for one test, as most Linux desktops now run it: its own D-Bus session bus,
/// `pipewire`, the `wireplumber` session manager and `pipewire-pulse` (PipeWire's PulseAudio server), a null
/// sink named `chirper_test` made through pipewire-pulse, and `parec` on its monitor.
///
/// Everything lives in a private directory (`XDG_RUNTIME_DIR`, config, state, the bus socket); nothing is
/// shared with a desktop session. wireplumber needs a session bus (it exits without one), so the harness starts
/// its own `dbus-daemon`. The graph's clock runs at the rate the test asks for, so no resampling happens between
/// the player and the monitor.
public final class PipeWireHarness: Sendable {
    public static let sinkName = PulseHarness.sinkName

    /// Why the harness cannot run here, or `nil` if every program it starts is installed.
    public static let unavailableReason: String? = {
        let programs = ["dbus-daemon", "pipewire", "wireplumber", "pipewire-pulse", "pactl", "parec"]
        let missing = programs.filter { PulseHarness.executable(named: $0) == nil }
        if missing.isEmpty { return nil }
        return "skipped: \(missing.joined(separator: ", ")) not installed "
            + "(apt-get install pipewire pipewire-pulse wireplumber dbus-daemon pulseaudio-utils)"
    }()

    /// The harness's private directory.
    public let directory: String
    /// pipewire-pulse's socket: give this to `PulseAudioSink(server:)`.
    public var serverAddress: String { "unix:\(directory)/runtime/pulse/native" }
    private var socketPath: String { "\(directory)/runtime/pulse/native" }
    private var busPath: String { "\(directory)/bus" }

    /// The processes started, in start order (stopped in reverse).
    private let processes = NIOLockedValueBox<[ChildProcess]>([])

    /// Makes the private directory; nothing is started yet (see `start`).
    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/chirper-pipewire.XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw HarnessError.failed("mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        for sub in ["runtime", "state", "config/pipewire/pipewire.conf.d", "home"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(sub)", withIntermediateDirectories: true)
        }
        // PipeWire refuses a runtime directory others can read.
        chmod("\(directory)/runtime", 0o700)
    }

    deinit {
        for process in processes.withLockedValue({ $0 }).reversed() { process.kill() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Environment for the servers and the command-line clients: everything inside `directory`.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "PULSE_RUNTIME_PATH", "PULSE_STATE_PATH", "PIPEWIRE_REMOTE"] {
            environment[name] = nil
        }
        environment["XDG_RUNTIME_DIR"] = "\(directory)/runtime"
        environment["XDG_CONFIG_HOME"] = "\(directory)/config"
        environment["XDG_STATE_HOME"] = "\(directory)/state"
        environment["HOME"] = "\(directory)/home"
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(busPath)"
        environment["PULSE_SERVER"] = serverAddress
        return environment
    }

    /// Starts the bus, PipeWire, wireplumber and pipewire-pulse, then a null sink at this rate and channel
    /// count. Returns when the sink exists; throws with the stage that failed.
    public func start(sampleRate: Int = 44100, channels: Int = 2) async throws {
        await stop()
        // The graph's clock at the test's rate: the monitor then carries the samples played, unresampled.
        let clock =
            "context.properties = {\n  default.clock.rate = \(sampleRate)\n"
            + "  default.clock.allowed-rates = [ \(sampleRate) ]\n}\n"
        try clock.write(
            toFile: "\(directory)/config/pipewire/pipewire.conf.d/chirper-rate.conf", atomically: true, encoding: .utf8)
        try launch("dbus-daemon", ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(busPath)"])
        try await waitFor("dbus-daemon to listen") { FileManager.default.fileExists(atPath: self.busPath) }
        try launch("pipewire", [])
        try await waitFor("pipewire to listen") {
            FileManager.default.fileExists(atPath: "\(self.directory)/runtime/pipewire-0")
        }
        try launch("wireplumber", [])
        try launch("pipewire-pulse", [])
        try await waitFor("pipewire-pulse to answer") {
            guard FileManager.default.fileExists(atPath: self.socketPath) else { return false }
            return await self.pactl(["info"]).status == 0
        }
        let channelMap = channels == 1 ? "mono" : "front-left,front-right"
        let loaded = await pactl([
            "load-module", "module-null-sink", "sink_name=\(Self.sinkName)", "rate=\(sampleRate)",
            "channels=\(channels)", "channel_map=\(channelMap)",
        ])
        guard loaded.status == 0 else { throw HarnessError.failed("pipewire-pulse refused the null sink") }
        _ = await pactl(["set-default-sink", Self.sinkName])
        try await waitFor("the null sink to appear") {
            (await self.pactl(["list", "short", "sinks"])).output.contains(Self.sinkName)
        }
    }

    /// Stops what this harness started (SIGTERM to each of its own processes, newest first).
    public func stop() async {
        let started = processes.withLockedValue { value in
            defer { value = [] }
            return value
        }
        for process in started.reversed() {
            process.terminate()
            await process.waitForExit()
        }
    }

    /// Runs `pactl` against this server; returns its exit status and output.
    public func pactl(_ arguments: [String]) async -> (status: Int32, output: String) {
        await client.pactl(arguments)
    }

    /// Starts `parec` on the null sink's monitor and returns once audio (silence at first) is flowing.
    public func startRecording(sampleRate: Int, channels: Int) async throws -> MonitorRecorder {
        try await client.startRecording(sampleRate: sampleRate, channels: channels)
    }

    private var client: SoundServerClient {
        SoundServerClient(
            serverAddress: serverAddress, environment: environment, unavailableReason: Self.unavailableReason)
    }

    private func launch(_ program: String, _ arguments: [String]) throws {
        guard let path = PulseHarness.executable(named: program) else {
            throw HarnessError.failed(Self.unavailableReason ?? "\(program) missing")
        }
        let process = try ChildProcess(
            executable: path, arguments: arguments, environment: environment, captureOutput: false)
        processes.withLockedValue { $0.append(process) }
    }

    /// Polls `condition` (a local file or a pactl answer) for up to 30 s; throws, naming what did not
    /// happen and which of the started programs exited, if it never holds.
    private func waitFor(_ what: String, _ condition: @Sendable () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if await condition() { return }
            let exited = processes.withLockedValue { $0 }.filter { !$0.isRunning }
            if !exited.isEmpty {
                throw HarnessError.failed("waiting for \(what): a PipeWire process exited (pid \(exited[0].pid))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError.failed("waiting for \(what): no answer within 30 s")
    }
}
