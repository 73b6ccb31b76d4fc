import GRDB
import MigrationKit

/// The checks run after every migrate and rollback of a GRDB database: the core's
/// `MigrationVerifier`, under the name this module's runner gives it.
public typealias GRDBMigrationVerifier = MigrationVerifier

extension GRDB.Database: SQLQuerying {
    public func forEachTextRow(sql: String, arguments: [String], _ body: ([String?]) throws -> Void) throws {
        let rows = try Row.fetchCursor(self, sql: sql, arguments: StatementArguments(arguments))
        while let row = try rows.next() {
            try body((0..<row.count).map { index in
                switch (row[index] as DatabaseValue).storage {
                case .string(let text): return text
                case .int64(let value): return String(value)
                case .double(let value): return String(value)
                case .null, .blob: return nil
                }
            })
        }
    }

    /// SQLite's message alone, without the code and statement GRDB adds.
    public static func message(of error: any Error) -> String {
        (error as? DatabaseError)?.message ?? String(describing: error)
    }

    public static func resultCode(of error: any Error) -> SQLiteResultCode? {
        (error as? DatabaseError)?.migrationKitResultCode
    }
}
