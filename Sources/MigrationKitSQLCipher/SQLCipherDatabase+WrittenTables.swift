import CSQLCipher
import Foundation

extension SQLCipherDatabase {
    /// Runs `body` and returns, with its result, the tables of the main database its
    /// statements may write: rows inserted, updated or deleted (triggers' statements
    /// included), tables created, dropped or altered, indexes made or dropped.
    /// Lowercased, as SQL names compare.
    ///
    /// Learned from SQLite's authorizer, which is asked about every table a statement
    /// touches while the statement is prepared. Setting the authorizer expires every
    /// prepared statement, so a cached statement run inside `body` is prepared again,
    /// and reported, too. This is what lets verification look at what a migration
    /// changed instead of the whole file.
    func recordingWrittenTables<T>(_ body: () throws -> T) throws -> (result: T, tables: Set<String>) {
        let outer = writtenTables
        writtenTables = []
        sqlite3_set_authorizer(handle, recordWrite, Unmanaged.passUnretained(self).toOpaque())
        defer {
            let recorded = writtenTables ?? []
            writtenTables = outer.map { $0.union(recorded) }
            if outer == nil { sqlite3_set_authorizer(handle, nil, nil) }
        }
        let result = try body()
        return (result, writtenTables ?? [])
    }
}

/// The authorizer: notes the table each writing action names, and allows everything.
private func recordWrite(_ context: UnsafeMutableRawPointer?, _ action: Int32, _ first: UnsafePointer<CChar>?,
                         _ second: UnsafePointer<CChar>?, _ database: UnsafePointer<CChar>?, _ trigger: UnsafePointer<CChar>?) -> Int32 {
    guard let context else { return SQLITE_OK }
    let table: UnsafePointer<CChar>?
    switch action {
    case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE, SQLITE_CREATE_TABLE, SQLITE_DROP_TABLE:
        table = first
    case SQLITE_CREATE_INDEX, SQLITE_DROP_INDEX:
        table = second
    case SQLITE_ALTER_TABLE:
        // The first argument is the schema here ("main"), the second the table.
        guard let first, strcmp(first, "main") == 0 else { return SQLITE_OK }
        table = second
    default:
        return SQLITE_OK
    }
    // Temporary tables and attached databases are not the file being verified.
    if let database, strcmp(database, "main") != 0 { return SQLITE_OK }
    guard let table else { return SQLITE_OK }
    let db = Unmanaged<SQLCipherDatabase>.fromOpaque(context).takeUnretainedValue()
    db.writtenTables?.insert(String(cString: table).lowercased())
    return SQLITE_OK
}
