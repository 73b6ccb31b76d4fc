import MigrationKit

/// An SQLite result code, as this connection's errors carry it (`SQLCipherError.resultCode`,
/// `catch ResultCode.SQLITE_BUSY`): the core's `SQLiteResultCode`, the one shape both
/// connections' errors carry, under the name GRDB gives it.
public typealias ResultCode = SQLiteResultCode

extension ResultCode {
    /// `catch ResultCode.SQLITE_BUSY` matches an `SQLCipherError` with that code.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? SQLCipherError else { return false }
        return pattern ~= error.resultCode
    }
}
