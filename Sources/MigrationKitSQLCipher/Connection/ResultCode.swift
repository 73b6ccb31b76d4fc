// An SQLite result code is the core's `ResultCode`, the one shape both connections'
// errors carry; an app that names it through this module alone (`catch
// ResultCode.SQLITE_BUSY`, `SQLCipherError.resultCode`) still finds it here.
@_exported import struct MigrationKit.ResultCode

extension ResultCode {
    /// `catch ResultCode.SQLITE_BUSY` matches an `SQLCipherError` with that code.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? SQLCipherError else { return false }
        return pattern ~= error.resultCode
    }
}
