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
    // Each pipe is read to its end on a GCD thread (not the cooperative pool, which blocking would starve).
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

/// Reads `handle` to its end on a GCD thread.
func readAll(_ handle: FileHandle) -> Task<Data, Never> {
    Task {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: (try? handle.readToEnd()) ?? Data())
            }
        }
    }
}
