/// The SQLite result codes the core decides on (failure explanations, exit codes),
/// as numbers: the core links no SQLite, and both connections' errors carry the code
/// SQLite returned (`ResultCode`, GRDB's `ResultCode`), whose `rawValue` these match.
package enum SQLiteResultCode {
    package static let permission: Int32 = 3
    package static let busy: Int32 = 5
    package static let locked: Int32 = 6
    package static let readOnly: Int32 = 8
    package static let interrupt: Int32 = 9
    package static let ioError: Int32 = 10
    package static let corrupt: Int32 = 11
    package static let full: Int32 = 13
    package static let cantOpen: Int32 = 14
    package static let notADatabase: Int32 = 26
    /// SQLITE_READONLY_DIRECTORY (SQLite 3.22+): the journal cannot be created because
    /// the folder is read-only.
    package static let readOnlyDirectory: Int32 = readOnly | (6 << 8)
}
