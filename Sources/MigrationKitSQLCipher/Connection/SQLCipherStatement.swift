import CSQLCipher

/// One prepared statement, finalized when released.
///
/// Internal: callers go through `SQLCipherDatabase`, which owns the connection the
/// statement belongs to and guarantees the statement dies first.
final class SQLCipherStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let database: SQLCipherDatabase
    /// Lent out by the connection's statement cache right now.
    var isInUse = false
    /// The tables the statement writes, when it was prepared with write tracking on.
    var writes: Set<String> = []

    init(handle: OpaquePointer, sql: String, database: SQLCipherDatabase) {
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Makes the statement ready to run again, releasing any lock a partly stepped
    /// query holds, and forgets its bound values.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds positional arguments (`?`, `?NNN`). Bound values never reach an error message.
    func bind(_ arguments: [DatabaseValue]) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == arguments.count else {
            throw SQLCipherError(
                kind: .misuse, resultCode: .SQLITE_RANGE,
                message: "The statement expects \(expected) argument\(expected == 1 ? "" : "s"), but \(arguments.count) were given.",
                sql: sql)
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real):
                code = sqlite3_bind_double(handle, index, real)
            case .text(let text):
                code = sqlite3_bind_text(handle, index, text, -1, SQLITE_TRANSIENT)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), SQLITE_TRANSIENT)
                }
            }
            guard code == SQLITE_OK else { throw database.lastError(code: code, sql: sql) }
        }
    }

    /// Binds secret bytes as a blob or text without ever holding them in a Swift value.
    func bind(secret: UnsafeRawBufferPointer, asText: Bool, at index: Int32) throws {
        let base = secret.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        let code = asText
            ? sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(secret.count), SQLITE_TRANSIENT)
            : sqlite3_bind_blob(handle, index, base, Int32(secret.count), SQLITE_TRANSIENT)
        guard code == SQLITE_OK else { throw database.lastError(code: code, sql: sql) }
    }

    var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    /// Steps once; true when a row is available.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.lastError(code: code, sql: sql)
        }
    }

    func value(at column: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        default:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_blob(handle, column), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        }
    }

    func currentRow(columnNames: [String]) -> Row {
        Row(columnNames: columnNames, values: (0..<Int32(columnNames.count)).map(value(at:)))
    }
}

/// SQLite's "copy this buffer now" destructor, which Swift does not import as a constant.
let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
