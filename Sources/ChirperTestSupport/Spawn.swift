import Foundation
import Glibc

/// Why `spawnChild` failed: the errno-style code `posix_spawn` returned.
public struct SpawnError: Error, CustomStringConvertible {
    public var executable: String
    public var code: Int32
    public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
}

/// Starts `executable` with `posix_spawn`, the way every child of these tests must start:
/// - `files` arranges descriptors 0–2; nothing else is inherited (another test's pipe, or Foundation's
///   process-exit socket, held open by a child would keep that test waiting for an end of file);
/// - the signal mask is cleared and the usual signals get their default actions (threads of the Swift runtime
///   block most signals, and a child inherits the mask: SIGTERM would never end it);
/// - with `newSession`, the child leads a new session (a terminal it opens becomes its controlling terminal).
public func spawnChild(
    _ executable: String,
    arguments: [String],
    environment: [String: String],
    newSession: Bool = false,
    files: (inout posix_spawn_file_actions_t) -> Void
) throws(SpawnError) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    files(&actions)
    closeInheritedDescriptors(&actions)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU] {
        sigaddset(&defaults, signal)
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    let setSession: Int32 = 0x80  // POSIX_SPAWN_SETSID, which Swift's Glibc module does not export
    posix_spawnattr_setflags(
        &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (newSession ? setSession : 0)))

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard result == 0 else { throw SpawnError(executable: executable, code: result) }
    return pid
}

/// Adds "close every descriptor from 3 up" to `actions`: glibc's posix_spawn_file_actions_addclosefrom_np (2.34),
/// looked up at run time because Swift's Glibc module does not declare GNU extensions; else each descriptor open now.
private func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        if closeFrom(&actions, 3) == 0 { return }
    }
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
        posix_spawn_file_actions_addclose(&actions, descriptor)
    }
}
