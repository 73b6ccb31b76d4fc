import CSQLCipher
import Foundation

extension SQLCipherDatabase {
    /// Runs `body` and returns, with its result, the tables of the main database its
    /// statements may write: rows inserted, updated or deleted (triggers' statements
    /// included), tables created, dropped or altered, indexes made or dropped.
    /// Folded as SQLite compares names (`sqlNameFolded`).
    ///
    /// Learned from SQLite's authorizer, which is asked about every table a statement
    /// touches while the statement is prepared (and prepared again after a schema
    /// change). A statement from the connection's cache brings the tables it named when
    /// it was prepared (`trackWrites`). This is what lets verification look at what a
    /// migration changed instead of the whole file.
    ///
    /// - Returns: also whether a statement altered a table (`ALTER TABLE`).
    func recordingWrittenTables<T>(_ body: () throws -> T) throws -> (result: T, tables: Set<String>, altersTable: Bool) {
        trackWrites(recordWrite)
        let outer = (tables: writtenTables, altersTable: altersTable)
        writtenTables = []
        altersTable = false
        defer {
            let recorded = writtenTables ?? []
            writtenTables = outer.tables.map { $0.union(recorded) }
            altersTable = altersTable || outer.altersTable
        }
        let result = try body()
        return (result, writtenTables ?? [], altersTable)
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
        let db = Unmanaged<SQLCipherDatabase>.fromOpaque(context).takeUnretainedValue()
        if db.writtenTables != nil { db.altersTable = true }
    default:
        return SQLITE_OK
    }
    // Temporary tables and attached databases are not the file being verified.
    if let database, strcmp(database, "main") != 0 { return SQLITE_OK }
    guard let table else { return SQLITE_OK }
    let db = Unmanaged<SQLCipherDatabase>.fromOpaque(context).takeUnretainedValue()
    guard db.writtenTables != nil || db.preparingWrites != nil else { return SQLITE_OK }
    let name = String(cString: table).sqlNameFolded
    db.writtenTables?.insert(name)
    db.preparingWrites?.insert(name)
    return SQLITE_OK
}
