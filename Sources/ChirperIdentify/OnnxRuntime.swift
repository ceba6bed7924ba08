import COnnxRuntime
import ChirperCore
import ChirperSystem
import FoundationEssentials
import Synchronization

/// What went wrong with ONNX Runtime or a model, as one line: what happened, then what to do.
public struct OnnxRuntimeError: UserFacingError, Hashable, CustomStringConvertible {
    public var message: String
    /// What the user can do about it, where `message` does not say.
    public var remedy: String?

    public init(message: String, remedy: String? = nil) {
        self.message = message
        self.remedy = remedy
    }

    public var userMessage: String { message + (remedy.map { "; \($0)" } ?? "") }
    public var description: String { "onnxruntime: \(message)" }
}

/// ONNX Runtime, loaded: its table of functions and the one `OrtEnv` of the process's models.
///
/// Every `OrtStatus` any call returns goes through ``check(_:_:)``, the one place that turns it into an error
/// (with ONNX Runtime's message) and releases it. Sendable: the table is read-only, and ONNX Runtime documents its
/// environment and sessions as safe to use from several threads.
public final class OnnxRuntime: @unchecked Sendable {
    /// The version `make ort` fetches, and so the folder the library is looked for in.
    public static let version = "1.32.0"

    let api: UnsafePointer<OrtApi>
    let environment: OrtEnvironment

    /// Loads the library at `path` (``defaultLibraryPath(environment:)`` unless told otherwise).
    public init(libraryPath path: String) throws(OnnxRuntimeError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard let api = chirper_onnxruntime_load(path, &reason, reason.count) else {
            let why = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw OnnxRuntimeError(
                message: "cannot load ONNX Runtime (\(why))", remedy: "run `make model`, which fetches it")
        }
        self.api = api
        environment = try OrtEnvironment(api)
    }

    /// `$CHIRPER_LIBONNXRUNTIME` if set, else where `make ort` puts the library:
    /// `$XDG_DATA_HOME/chirper-play/onnxruntime/VERSION/`, or `~/.local/share/chirper-play/onnxruntime/VERSION/`.
    public static func defaultLibraryPath(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let named = environment["CHIRPER_LIBONNXRUNTIME"], !named.isEmpty { return named }
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? PathText.homeDirectory) + "/.local/share"
        return data + "/chirper-play/onnxruntime/\(version)/libonnxruntime.so.\(version)"
    }

    /// The one error funnel: nil is success; any other status becomes an error saying what could not be done,
    /// with ONNX Runtime's message, and is released.
    func check(_ status: OpaquePointer?, _ action: @autoclosure () -> String) throws(OnnxRuntimeError) {
        try Self.check(api, status, action())
    }

    /// A handle made by `create` (which returns a status and writes the handle), owned from here on.
    func handle(
        _ action: @autoclosure () -> String, release: (@convention(c) (OpaquePointer?) -> Void)?,
        _ create: (UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    ) throws(OnnxRuntimeError) -> OrtHandle {
        try Self.handle(api, action(), release: release, create)
    }

    private static func handle(
        _ api: UnsafePointer<OrtApi>, _ action: @autoclosure () -> String,
        release: (@convention(c) (OpaquePointer?) -> Void)?,
        _ create: (UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
    ) throws(OnnxRuntimeError) -> OrtHandle {
        var made: OpaquePointer?
        try check(api, create(&made), action())
        guard let made, let release else { throw OnnxRuntimeError(message: "cannot \(action()): no handle returned") }
        return OrtHandle(made, release: release)
    }

    static func check(
        _ api: UnsafePointer<OrtApi>, _ status: OpaquePointer?, _ action: @autoclosure () -> String
    ) throws(OnnxRuntimeError) {
        guard let status else { return }
        defer { api.pointee.ReleaseStatus(status) }
        let text = api.pointee.GetErrorMessage(status).map { String(cString: $0) } ?? "no message"
        throw OnnxRuntimeError(message: "cannot \(action()): \(TerminalText.sanitize(text))")
    }
}

/// The one owner of one reference to ONNX Runtime's environment, of which a process has one: taken when a runtime
/// starts, given back when it goes.
///
/// ONNX Runtime deletes the environment after letting go of its own lock, so one made on a thread while another
/// gives back the last reference fails ("Only one instance of LoggingManager … can exist"): a model loaded as
/// another is dropped. Ours are taken and given back under one lock of our own, which covers that deletion.
final class OrtEnvironment {
    private static let lock = Mutex(())
    let pointer: OpaquePointer
    private let api: UnsafePointer<OrtApi>

    init(_ api: UnsafePointer<OrtApi>) throws(OnnxRuntimeError) {
        self.api = api
        // Its warnings would land on the user's terminal: what matters comes back as a status.
        let (status, made) = Self.lock.withLock { _ -> (OpaquePointer?, OpaquePointer?) in
            var made: OpaquePointer?
            return (api.pointee.CreateEnv(ORT_LOGGING_LEVEL_FATAL, "chirper-play", &made), made)
        }
        try OnnxRuntime.check(api, status, "start ONNX Runtime")
        guard let made else { throw OnnxRuntimeError(message: "cannot start ONNX Runtime: no environment returned") }
        pointer = made
    }

    deinit {
        let (api, pointer) = (api, pointer)
        Self.lock.withLock { _ in api.pointee.ReleaseEnv(pointer) }
    }
}

/// The one owner of one ONNX Runtime handle: released exactly once, when the owner goes.
final class OrtHandle {
    let pointer: OpaquePointer
    private let release: @convention(c) (OpaquePointer?) -> Void

    init(_ pointer: OpaquePointer, release: @escaping @convention(c) (OpaquePointer?) -> Void) {
        self.pointer = pointer
        self.release = release
    }

    deinit { release(pointer) }
}
