import ChirperTestSupport
import Foundation

/// The built `chirper-play`, run as a child process with its standard streams on pipes.
enum ChirperBinary {
    /// Beside the test bundle (SwiftPM puts every product of a build in one folder).
    static var path: String {
        if let override = ProcessInfo.processInfo.environment["CHIRPER_BINARY"] { return override }
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("chirper-play").path
    }

    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The variables that send chirper-play through a proxy (or around one).
    static let proxyVariables = [
        "https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]

    /// A process for the binary with `arguments`, run from the repository's root, in this environment without
    /// an API key, plus `environment`.
    static func process(_ arguments: [String], environment: [String: String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["XENO_CANTO_API_KEY"] = nil
        for name in proxyVariables { env[name] = nil }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.currentDirectoryURL = packageRoot
        return process
    }

    /// The repository's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}

/// What a finished run printed.
struct ChirperRun: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// Lines starting with `prefix`.
    func lines(_ prefix: String) -> [String] { lines.filter { $0.hasPrefix(prefix) } }
}

enum ChirperProcessError: Error, CustomStringConvertible {
    case timedOut(String)
    var description: String {
        switch self {
        case .timedOut(let output): "chirper-play did not finish in time; it printed:\n\(output)"
        }
    }
}

/// Runs chirper-play with `arguments`, writes `input` (one command a line) to its standard input, closes it,
/// and waits for the exit, killing it after `timeout`.
func runChirper(
    _ arguments: [String],
    input: [String],
    environment: [String: String] = [:],
    timeout: Duration = .seconds(90)
) async throws -> ChirperRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ChirperBinary.path)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["XENO_CANTO_API_KEY"] = nil
    env["NO_COLOR"] = nil
    // The loopback servers are reached directly, whatever proxy the machine running the tests is behind.
    for name in ChirperBinary.proxyVariables { env[name] = nil }
    // A fresh play cache and save folder for every run: no run sees another's cached recordings.
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-xdg-\(UUID())")
    defer { try? FileManager.default.removeItem(at: scratch) }
    env["XDG_CACHE_HOME"] = scratch.path + "/cache"
    env["XDG_DATA_HOME"] = scratch.path + "/data"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    process.currentDirectoryURL = ChirperBinary.packageRoot
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    // Each pipe is read to its end on a thread of its own (not the cooperative pool, which blocking would starve).
    let out = readAll(stdout.fileHandleForReading)
    let err = readAll(stderr.fileHandleForReading)
    let exited = AsyncStream.makeStream(of: Int32.self)
    process.terminationHandler = { process in
        exited.continuation.yield(process.terminationStatus)
        exited.continuation.finish()
    }
    try process.run()
    let text = input.map { $0 + "\n" }.joined()
    try stdin.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    try stdin.fileHandleForWriting.close()
    let status = try await withThrowingTaskGroup(of: Int32?.self) { group in
        group.addTask {
            var iterator = exited.stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try await Task.sleep(for: timeout)  // a deadline for a hung child, not a synchronisation
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
    guard let status else {
        process.terminate()
        throw ChirperProcessError.timedOut(String(decoding: await out.value, as: UTF8.self))
    }
    return ChirperRun(
        status: status,
        stdout: String(decoding: await out.value, as: UTF8.self),
        stderr: String(decoding: await err.value, as: UTF8.self)
    )
}

/// Reads `handle` to its end on a thread of its own (`startBlocking`).
func readAll(_ handle: FileHandle) -> Task<Data, Never> {
    Task {
        await withCheckedContinuation { continuation in
            startBlocking("child-io") {
                continuation.resume(returning: (try? handle.readToEnd()) ?? Data())
            }
        }
    }
}

/// chirper-play running as a child process, its standard input held open: a test types lines, waits for what
/// it prints, and signals it.
final class LiveChirper: @unchecked Sendable {
    // @unchecked: `printed` and `waiters` are read and written only with `lock` held; the rest is immutable.
    private let process: Process
    private let input = Pipe()
    private let lock = NSLock()
    private var printed = ""
    private var waiters: [(String, CheckedContinuation<Void, Never>)] = []
    private let exited: AsyncStream<Int32>
    private let exitSink: AsyncStream<Int32>.Continuation

    init(_ arguments: [String], environment: [String: String]) throws {
        (exited, exitSink) = AsyncStream.makeStream(of: Int32.self)
        process = ChirperBinary.process(arguments, environment: environment)
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            self?.received(handle.availableData)
        }
        let sink = exitSink
        process.terminationHandler = { process in
            sink.yield(process.terminationStatus)
            sink.finish()
        }
        try process.run()
    }

    var output: String { lock.withLock { printed } }

    func type(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Returns once a printed line starts with `prefix`; throws with what was printed after `deadline` (a
    /// deadline for a hung child, not a synchronisation).
    func waitForLine(_ prefix: String, deadline: Duration = testDeadline) async throws {
        let timer = Task {
            try await Task.sleep(for: deadline)
            self.giveUp()
        }
        defer { timer.cancel() }
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> Bool in
                if Self.has(printed, prefix) { return true }
                waiters.append((prefix, continuation))
                return false
            }
            if done { continuation.resume() }
        }
        guard Self.has(output, prefix) else {
            signal(SIGKILL)
            throw ChirperProcessError.timedOut("no line '\(prefix)'; it printed:\n" + output)
        }
    }

    /// The deadline passed: every waiter returns.
    private func giveUp() {
        let all = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            defer { waiters = [] }
            return waiters.map(\.1)
        }
        all.forEach { $0.resume() }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// The files it has mapped now (`/proc/PID/maps`): its executable and the shared libraries it loaded.
    func mappedFiles() throws -> Set<String> {
        // Read to its end: /proc files have no size, and a read by size stops at the first page.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        return Set(maps.split(separator: "\n").compactMap { line in line.split(separator: " ").last.map(String.init) })
    }

    /// The names of its threads now (`/proc/PID/task/*/comm`).
    func threadNames() throws -> [String] {
        let tasks = "/proc/\(process.processIdentifier)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { task in
            try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The exit status (128 + n for a signal the program handled by leaving).
    func waitForExit() async -> Int32? {
        var iterator = exited.makeAsyncIterator()
        return await iterator.next()
    }

    private func received(_ data: Data) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            printed += String(decoding: data, as: UTF8.self)
            let (met, waiting) = (
                waiters.filter { Self.has(printed, $0.0) }, waiters.filter { !Self.has(printed, $0.0) }
            )
            waiters = waiting
            return met.map(\.1)
        }
        ready.forEach { $0.resume() }
    }

    private static func has(_ text: String, _ prefix: String) -> Bool {
        text.split(separator: "\n").contains { $0.hasPrefix(prefix) }
    }
}
