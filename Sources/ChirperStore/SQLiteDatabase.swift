import CSQLite
import ChirperCore
import FoundationEssentials
import ChirperSystem

/// What SQLite said, as one line for the user.
public struct StoreError: Error, Sendable, Hashable, UserFacingError {
    /// SQLite's result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
    public var code: Int32
    public var message: String

    public var userMessage: String { message }

    /// The store is held by another program, or damaged: answers cannot be kept.
    public var isLockedOrCorrupt: Bool {
        [SQLITE_BUSY, SQLITE_LOCKED, SQLITE_CORRUPT, SQLITE_NOTADB].contains(code & 0xff)
    }
}

/// One SQLite connection: the only owner of its `sqlite3` handle. Opened in WAL mode, so that a program killed
/// at any moment leaves every committed transaction whole; every call's result code goes through ``check``.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    let path: String

    /// - Parameter busyTimeout: how long a statement waits for another program's lock before it is refused.
    init(path: String, busyTimeout: Int32 = 2000) throws(StoreError) {
        self.path = path
        if let missing = LazyLibrary.missing(chirper_sqlite_load, library: "libsqlite3", package: "libsqlite3-0") {
            throw StoreError(code: SQLITE_ERROR, message: "the quiz store \(path) cannot open: \(missing)")
        }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(
            path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
        handle = opened
        do {
            try check(code, "open")
            // Another program holding the store is waited for a while, then the answer is refused, not the quiz.
            try check(sqlite3_busy_timeout(handle, busyTimeout), "set the busy timeout")
            try execute("PRAGMA journal_mode=WAL")
            // WAL with NORMAL: a commit survives the program's death (not a power cut's last commits).
            try execute("PRAGMA synchronous=NORMAL")
            try execute("PRAGMA foreign_keys=ON")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Safe to call twice.
    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// The one error funnel: a result code that is not success becomes a ``StoreError`` naming what failed.
    func check(_ code: Int32, _ what: String) throws(StoreError) {
        guard code != SQLITE_OK, code != SQLITE_ROW, code != SQLITE_DONE else { return }
        let detail =
            handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
        let reason: String
        switch code & 0xff {
        case SQLITE_BUSY, SQLITE_LOCKED: reason = "it is locked by another program"
        case SQLITE_CORRUPT, SQLITE_NOTADB: reason = "it is damaged (\(detail))"
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN: reason = "it cannot be written (\(detail))"
        case SQLITE_FULL: reason = "the disk is full"
        default: reason = detail
        }
        throw StoreError(code: code, message: "the quiz store \(path) cannot \(what): \(reason)")
    }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(StoreError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), "run \(sql.prefix(40))")
    }

    /// Runs `body` in one transaction: all of it is kept, or none.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `sql` with `values` bound in order; returns every row, each as its columns.
    @discardableResult
    func query(_ sql: String, _ values: [SQLiteValue] = []) throws(StoreError) -> [[SQLiteValue]] {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), "prepare \(sql.prefix(40))")
        defer { sqlite3_finalize(statement) }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(statement, position)
            case .integer(let number): code = sqlite3_bind_int64(statement, position, number)
            case .real(let number): code = sqlite3_bind_double(statement, position, number)
            case .text(let text):
                code = chirper_sqlite3_bind_text_copy(statement, position, text, Int32(text.utf8.count))
            }
            try check(code, "bind a value")
        }
        var rows: [[SQLiteValue]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                try check(code, "run \(sql.prefix(40))")
                break
            }
            let count = sqlite3_column_count(statement)
            rows.append(
                (0..<count).map { column in
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
                    case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
                    case SQLITE_NULL: return .null
                    default:
                        return .text(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
                    }
                })
        }
        return rows
    }
}

/// A value bound to or read from SQLite.
enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    var int: Int? {
        switch self {
        case .integer(let value): return Int(value)
        case .real(let value): return value.isFinite ? Int(exactly: value.rounded()) : nil
        default: return nil
        }
    }

    var double: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        default: return nil
        }
    }

    var string: String {
        switch self {
        case .text(let value): return value
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .null: return ""
        }
    }
}
