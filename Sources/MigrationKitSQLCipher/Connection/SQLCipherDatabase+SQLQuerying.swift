import MigrationKit

extension SQLCipherDatabase: SQLQuerying {
    public func forEachTextRow(sql: String, arguments: [String], _ body: ([String?]) throws -> Void) throws {
        try forEachRow(sql: sql, arguments: arguments.map { .text($0) }) { row in
            try body(row.values.map(\.text))
        }
    }

    /// SQLite's message alone, without the file and code `SQLCipherError` adds.
    public static func message(of error: any Error) -> String {
        (error as? SQLCipherError)?.message ?? String(describing: error)
    }

    public static func resultCode(of error: any Error) -> ResultCode? {
        (error as? SQLCipherError)?.resultCode
    }
}

extension DatabaseValue {
    /// The value as SQLite's text for it (an integer as its digits), nil for NULL or a
    /// blob.
    var text: String? {
        switch self {
        case .text(let value): return value
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .null, .blob: return nil
        }
    }
}

extension SQLCipherDatabase: BookkeepingExecuting {
    /// Runs one of the ledger's or the history's statements, with its arguments bound.
    package func execute(_ statement: BookkeepingStatement) throws {
        try execute(sql: statement.sql, arguments: statement.arguments.map { value in
            switch value {
            case .text(let text): return .text(text)
            case .integer(let integer): return .integer(integer)
            case .null: return .null
            }
        })
    }
}
