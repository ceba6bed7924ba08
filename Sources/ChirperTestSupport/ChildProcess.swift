import Foundation
import Glibc
import NIOConcurrencyHelpers

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
