import CSystemd
import ChirperCore
import FoundationEssentials
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What sd-bus said, as one line.
public struct DBusError: Error, Sendable, Hashable, UserFacingError {
    public var userMessage: String
}

/// One connection to the session bus: the only owner of its `sd_bus`. sd-bus is not thread-safe, so the
/// connection is used only on the thread that opened it (``MPRISServer``'s). Every call's result goes through
/// ``check``.
final class DBusConnection {
    private(set) var bus: OpaquePointer?

    /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, else the user's bus in `XDG_RUNTIME_DIR`).
    init() throws(DBusError) {
        if let missing = LazyLibrary.missing(chirper_sdbus_load, library: "libsystemd", package: "libsystemd0") {
            throw DBusError(userMessage: "D-Bus: \(missing)")
        }
        var opened: OpaquePointer?
        let code = sd_bus_open_user(&opened)
        bus = opened
        try check(code, "connect to the session bus")
    }

    deinit { close() }

    /// Safe to call twice.
    func close() {
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    /// The one error funnel: sd-bus returns a negative errno on failure.
    @discardableResult
    func check(_ code: Int32, _ what: String) throws(DBusError) -> Int32 {
        guard code < 0 else { return code }
        throw DBusError(userMessage: "D-Bus: cannot \(what): \(String(cString: strerror(-code)))")
    }

    /// Takes `name` on the bus; false when another program holds it.
    func requestName(_ name: String) throws(DBusError) -> Bool {
        let code = sd_bus_request_name(bus, name, 0)
        if code == -EEXIST { return false }
        try check(code, "take the name \(name)")
        return true
    }

    /// Runs every message that arrived; returns when there is nothing more to do now.
    func processAll() throws(DBusError) {
        while try check(sd_bus_process(bus, nil), "process a message") > 0 {}
    }

    var fileDescriptor: Int32 { sd_bus_get_fd(bus) }
    var events: Int16 { Int16(truncatingIfNeeded: sd_bus_get_events(bus)) }

    /// Microseconds until sd-bus needs to run again (nil: never).
    var timeout: UInt64? {
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return nil }
        return usec
    }

    /// Sends `message` (and releases it).
    func send(_ message: OpaquePointer?) throws(DBusError) {
        defer { sd_bus_message_unref(message) }
        try check(sd_bus_send(bus, message, nil), "send a message")
    }

    /// A new signal message.
    func signal(path: String, interface: String, member: String) throws(DBusError) -> OpaquePointer? {
        var message: OpaquePointer?
        try check(sd_bus_message_new_signal(bus, &message, path, interface, member), "make a signal")
        return message
    }
}

/// Writes D-Bus values into a message (sd-bus's non-variadic calls; Swift cannot call the variadic ones).
struct DBusWriter {
    let message: OpaquePointer?

    func string(_ value: String, type: Character = "s") {
        _ = sd_bus_message_append_basic(message, CChar(type.asciiValue!), value)
    }

    func int64(_ value: Int64) {
        var value = value
        _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "x")), &value)
    }

    func double(_ value: Double) {
        var value = value
        _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "d")), &value)
    }

    func bool(_ value: Bool) {
        var value: Int32 = value ? 1 : 0
        _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &value)
    }

    func container(_ type: Character, _ contents: String, _ body: () -> Void) {
        _ = sd_bus_message_open_container(message, CChar(type.asciiValue!), contents)
        body()
        _ = sd_bus_message_close_container(message)
    }

    func variant(_ value: DBusValue) {
        container("v", value.signature) { value.write(self) }
    }

    /// `a{sv}`.
    func dictionary(_ entries: [(String, DBusValue)]) {
        container("a", "{sv}") {
            for (key, value) in entries {
                container("e", "sv") {
                    string(key)
                    variant(value)
                }
            }
        }
    }
}

/// A value of an MPRIS property.
enum DBusValue: Sendable, Hashable {
    case string(String)
    case objectPath(String)
    case int64(Int64)
    case double(Double)
    case bool(Bool)
    case strings([String])
    case objectPaths([String])
    case dictionary([String: DBusValue])

    var signature: String {
        switch self {
        case .string: return "s"
        case .objectPath: return "o"
        case .int64: return "x"
        case .double: return "d"
        case .bool: return "b"
        case .strings: return "as"
        case .objectPaths: return "ao"
        case .dictionary: return "a{sv}"
        }
    }

    func write(_ writer: DBusWriter) {
        switch self {
        case .string(let value): writer.string(value)
        case .objectPath(let value): writer.string(value, type: "o")
        case .int64(let value): writer.int64(value)
        case .double(let value): writer.double(value)
        case .bool(let value): writer.bool(value)
        case .strings(let values): writer.container("a", "s") { values.forEach { writer.string($0) } }
        case .objectPaths(let values): writer.container("a", "o") { values.forEach { writer.string($0, type: "o") } }
        case .dictionary(let entries): writer.dictionary(entries.sorted { $0.key < $1.key })
        }
    }
}

/// Reads the arguments of a method call.
struct DBusReader {
    let message: OpaquePointer?

    func string() -> String? {
        var value: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &value) > 0, let value else { return nil }
        return String(cString: value)
    }

    func objectPath() -> String? {
        var value: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "o")), &value) > 0, let value else { return nil }
        return String(cString: value)
    }

    /// `ao`.
    func objectPaths() -> [String]? {
        guard sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "o") > 0 else { return nil }
        defer { _ = sd_bus_message_exit_container(message) }
        var paths: [String] = []
        while let path = objectPath() { paths.append(path) }
        return paths
    }

    func int64() -> Int64? {
        var value: Int64 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "x")), &value) > 0 else { return nil }
        return value
    }

    /// A variant holding a double, a string or a boolean.
    func variant() -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(message, &type, &contents) > 0, type == CChar(UInt8(ascii: "v")),
            let contents
        else { return nil }
        let signature = String(cString: contents)
        guard sd_bus_message_enter_container(message, CChar(UInt8(ascii: "v")), contents) > 0 else { return nil }
        defer { _ = sd_bus_message_exit_container(message) }
        switch signature {
        case "d":
            var value = 0.0
            return sd_bus_message_read_basic(message, CChar(UInt8(ascii: "d")), &value) > 0 ? .double(value) : nil
        case "s":
            return string().map(DBusValue.string)
        case "b":
            var value: Int32 = 0
            return sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value) > 0 ? .bool(value != 0) : nil
        default:
            return nil
        }
    }
}
