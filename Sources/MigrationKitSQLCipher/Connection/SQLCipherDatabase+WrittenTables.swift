import CSQLCipher
import Foundation

extension SQLCipherDatabase {
    /// Runs `body` and returns, with its result, the tables of the main database its
    /// statements may write: rows inserted, updated or deleted (triggers' statements
    /// included), tables created, dropped or altered, indexes made or dropped.
    /// Spelled as SQLite hands them to the authorizer: the schema's own spelling for a
    /// table that exists, the statement's for one it creates; `ChangedTables` folds them.
    ///
    /// Learned from SQLite's authorizer, which is asked about every table a statement
    /// touches while the statement is prepared (and prepared again after a schema
    /// change). A statement from the connection's cache brings the tables it named when
    /// it was prepared (`trackWrites`). This is what lets verification look at what a
    /// migration changed instead of the whole file.
    ///
    /// - Returns: also whether a statement renamed a table (`ALTER TABLE … RENAME TO`).
    package func recordingWrittenTables<T>(_ body: () throws -> T) throws -> (result: T, tables: Set<String>, renamesTable: Bool) {
        trackWrites(recordWrite)
        let outer = (tables: writtenTables, renamesTable: renamesTable)
        writtenTables = []
        renamesTable = false
        preparingAlterTable = false
        defer {
            let recorded = writtenTables ?? []
            writtenTables = outer.tables.map { $0.union(recorded) }
            renamesTable = renamesTable || outer.renamesTable
        }
        let result = try body()
        return (result, writtenTables ?? [], renamesTable)
    }
}

/// The authorizer: notes the table each writing action names, and allows everything.
private func recordWrite(_ context: UnsafeMutableRawPointer?, _ action: Int32, _ first: UnsafePointer<CChar>?,
                         _ second: UnsafePointer<CChar>?, _ database: UnsafePointer<CChar>?, _ trigger: UnsafePointer<CChar>?) -> Int32 {
    guard let context else { return SQLITE_OK }
    let db = Unmanaged<SQLCipherDatabase>.fromOpaque(context).takeUnretainedValue()
    noteTableRename(action, first, second, database, in: db)
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
    guard db.writtenTables != nil || db.preparingWrites != nil else { return SQLITE_OK }
    let name = String(cString: table)
    db.writtenTables?.insert(name)
    db.preparingWrites?.insert(name)
    return SQLITE_OK
}

/// Notes an `ALTER TABLE … RENAME TO` while recording (`renamesTable`). SQLite asks the
/// authorizer about the statements it runs for an `ALTER TABLE` too, right after the
/// `SQLITE_ALTER_TABLE` action: a table rename updates the schema table's `name` and
/// `tbl_name`, where adding, renaming or dropping a column updates only its `sql`. The
/// schema table's `name` is also updated by every `CREATE TABLE` and `CREATE VIEW`,
/// which is why only an update that follows an `ALTER TABLE`, with nothing but reads,
/// functions and updates between them, counts.
private func noteTableRename(_ action: Int32, _ first: UnsafePointer<CChar>?, _ second: UnsafePointer<CChar>?,
                             _ database: UnsafePointer<CChar>?, in db: SQLCipherDatabase) {
    guard db.writtenTables != nil else { return }
    switch action {
    case SQLITE_ALTER_TABLE:
        db.preparingAlterTable = true
    case SQLITE_UPDATE:
        guard db.preparingAlterTable, let first, let second, let database, strcmp(database, "main") == 0 else { return }
        let schemaTable = strcmp(first, "sqlite_master") == 0 || strcmp(first, "sqlite_schema") == 0
        if schemaTable && (strcmp(second, "name") == 0 || strcmp(second, "tbl_name") == 0) { db.renamesTable = true }
    case SQLITE_READ, SQLITE_FUNCTION:
        break
    default:
        db.preparingAlterTable = false
    }
}
