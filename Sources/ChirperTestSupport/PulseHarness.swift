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
    public func start(sampleRate: Int = 44100, channels: Int = 2) async throws {
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

    /// Starts `parec` on the null sink's monitor and returns once audio (silence at first) is flowing.
    public func startRecording(sampleRate: Int, channels: Int) async throws -> MonitorRecorder {
        try await client.startRecording(sampleRate: sampleRate, channels: channels)
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

/// What `parec` captured from the monitor.
public struct MonitorRecording: Sendable {
    /// Interleaved 16-bit samples.
    public var samples: [Int16]
    public var sampleRate: Int
    public var channels: Int
    /// When the first sample louder than the silence threshold arrived from `parec`.
    public var firstSoundAt: ContinuousClock.Instant?
    /// When the last data holding such a sample arrived.
    public var lastSoundAt: ContinuousClock.Instant?
}

/// A running `parec` on the harness's monitor, collecting samples as they arrive.
public final class MonitorRecorder: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var firstSoundAt: ContinuousClock.Instant?
        var lastSoundAt: ContinuousClock.Instant?
        var flowing = false
        var ended = false
        var watchers: [(condition: @Sendable (Progress) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

        var progress: Progress {
            Progress(bytes: bytes.count, heardSound: firstSoundAt != nil, ended: ended)
        }
    }

    /// What a wait can look at.
    struct Progress: Sendable {
        var bytes: Int
        var heardSound: Bool
        var ended: Bool
    }

    /// A sample whose magnitude exceeds this counts as sound.
    public static let silenceThreshold: Int16 = 64

    private let process: ChildProcess
    private let state = NIOLockedValueBox(State())
    public let sampleRate: Int
    public let channels: Int

    init(executable: String, arguments: [String], environment: [String: String], sampleRate: Int, channels: Int) throws
    {
        self.sampleRate = sampleRate
        self.channels = channels
        let state = self.state
        process = try ChildProcess(
            executable: executable,
            arguments: arguments,
            environment: environment,
            captureOutput: true,
            onOutput: { data in
                let now = ContinuousClock.now
                let ready = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
                    if data.isEmpty {
                        state.ended = true
                    } else {
                        let start = state.bytes.count
                        state.bytes.append(contentsOf: data)
                        state.flowing = true
                        // Scan the whole samples that arrived for sound.
                        var index = start - start % 2
                        while index + 1 < state.bytes.count {
                            let value = Int16(
                                bitPattern: UInt16(state.bytes[index]) | UInt16(state.bytes[index + 1]) << 8)
                            if abs(Int(value)) > Int(MonitorRecorder.silenceThreshold) {
                                if state.firstSoundAt == nil { state.firstSoundAt = now }
                                state.lastSoundAt = now
                                break
                            }
                            index += 2
                        }
                    }
                    let progress = state.progress
                    let ready = state.watchers.filter { progress.ended || $0.condition(progress) }
                    state.watchers.removeAll { progress.ended || $0.condition(progress) }
                    return ready.map(\.continuation)
                }
                for continuation in ready { continuation.resume() }
            }
        )
    }

    deinit {
        process.kill()
    }

    /// Returns once `parec` delivers data (it is connected and recording).
    func waitUntilFlowing() async throws {
        await wait { $0.bytes > 0 }
        if state.withLockedValue({ $0.bytes.isEmpty }) {
            throw HarnessError.failed("parec exited before recording")
        }
    }

    /// Returns when `condition` holds for what has arrived (checked as data arrives), or parec has ended.
    private func wait(_ condition: @escaping @Sendable (Progress) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state in
                let progress = state.progress
                if progress.ended || condition(progress) { return true }
                state.watchers.append((condition, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Returns once a non-silent sample has arrived.
    public func waitForSound() async {
        await wait { $0.heardSound }
    }

    /// Returns once `seconds` more audio (sound or silence) has been recorded: the monitor's own clock,
    /// so a test can capture a tail without sleeping.
    public func waitForMore(seconds: Double) async {
        let target = state.withLockedValue { $0.bytes.count } + Int(seconds * Double(sampleRate)) * channels * 2
        await wait { $0.bytes >= target }
    }

    /// Seconds recorded so far.
    public var recordedSeconds: Double {
        Double(state.withLockedValue { $0.bytes.count } / 2 / channels) / Double(sampleRate)
    }

    /// When the first non-silent sample arrived, if one has.
    public var firstSoundAt: ContinuousClock.Instant? { state.withLockedValue { $0.firstSoundAt } }

    /// When the last data holding a non-silent sample arrived.
    public var lastSoundAt: ContinuousClock.Instant? { state.withLockedValue { $0.lastSoundAt } }

    /// Stops `parec` and returns everything it recorded.
    public func stop() async -> MonitorRecording {
        process.terminate()
        await process.waitForExit()
        let (bytes, first, last) = state.withLockedValue { ($0.bytes, $0.firstSoundAt, $0.lastSoundAt) }
        let count = bytes.count / 2
        var samples = [Int16](repeating: 0, count: count)
        for index in 0..<count {
            samples[index] = Int16(bitPattern: UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8)
        }
        return MonitorRecording(
            samples: samples,
            sampleRate: sampleRate,
            channels: channels,
            firstSoundAt: first,
            lastSoundAt: last
        )
    }
}

/// A child process this harness started with `posix_spawn`, ended only through its own pid.
///
/// Not Foundation's `Process`: it watches a child through an inherited descriptor, and `pulseaudio` closes
/// inherited descriptors at start, which makes `Process` block in `waitpid` for a child that is still running.
final class ChildProcess: Sendable {
    let pid: pid_t
    private let status = NIOLockedValueBox<Int32?>(nil)
    private let collected = NIOLockedValueBox<[UInt8]>([])
    private let outputDone = NIOLockedValueBox<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(
        executable: String,
        arguments: [String],
        environment: [String: String],
        captureOutput: Bool,
        onOutput: (@Sendable ([UInt8]) -> Void)? = nil
    ) throws {
        let capture = captureOutput || onOutput != nil
        var pipeEnds: [Int32] = [-1, -1]
        if capture {
            guard pipe(&pipeEnds) == 0 else {
                throw HarnessError.failed("pipe: \(String(cString: strerror(errno)))")
            }
            // Neither end may leak into other children (the write end would keep the pipe open).
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        let pid: pid_t
        do {
            pid = try spawnChild(executable, arguments: arguments, environment: environment) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
                if capture {
                    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
                } else {
                    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                }
            }
        } catch {
            if capture { close(pipeEnds[0]) }
            if capture { close(pipeEnds[1]) }
            throw HarnessError.failed(error.description)
        }
        if capture { close(pipeEnds[1]) }
        self.pid = pid
        if capture {
            // A plain thread doing blocking reads: simple, and it sees the end of the output for certain.
            let descriptor = pipeEnds[0]
            let collected = self.collected
            let outputDone = self.outputDone
            let keep = onOutput == nil
            let thread = Thread {
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    let data = Array(buffer[0..<count])
                    if keep { collected.withLockedValue { $0.append(contentsOf: data) } }
                    onOutput?(data)
                }
                close(descriptor)
                onOutput?([])
                let waiters = outputDone.withLockedValue { state in
                    state.done = true
                    defer { state.waiters.removeAll() }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume() }
            }
            thread.start()
        } else {
            outputDone.withLockedValue { $0.done = true }
        }
    }

    deinit {
        kill()
    }

    /// Whether the child still runs (reaps it once it has exited).
    var isRunning: Bool {
        status.withLockedValue { status in
            if status != nil { return false }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                status = raw
                return false
            }
            return true
        }
    }

    /// The exit code once exited (-1 while running or when killed by a signal).
    var exitStatus: Int32 {
        guard !isRunning, let raw = status.withLockedValue({ $0 }) else { return -1 }
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : -1
    }

    var output: [UInt8] { collected.withLockedValue { $0 } }

    /// SIGTERM.
    func terminate() {
        if isRunning { _ = Glibc.kill(pid, SIGTERM) }
    }

    /// SIGKILL and reap, for clean-up paths that cannot wait.
    func kill() {
        if isRunning {
            _ = Glibc.kill(pid, SIGKILL)
            status.withLockedValue { status in
                var raw: Int32 = 0
                if status == nil, waitpid(pid, &raw, 0) == pid { status = raw }
            }
        }
    }

    /// Waits for the child to exit and for its output to be read to the end.
    func waitForExit() async {
        while isRunning {
            try? await Task.sleep(for: .milliseconds(5))
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = outputDone.withLockedValue { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}
