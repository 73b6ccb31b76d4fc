import CSQLCipher
import Foundation
import MigrationKit
import MigrationKitFiles

/// One open SQLCipher connection, as handed to migration closures.
///
/// Deliberately not `Sendable`: a connection must be used by one thread at a time, and
/// `SQLCipherWriter` is the only way to get one, inside its serialized `write`/`read`
/// closures. Like GRDB's `Database`, do not keep it past the closure.
public final class SQLCipherDatabase {
    /// The C connection. Only this class and `SQLCipherStatement` touch it: keys,
    /// copies and closing are methods here.
    let handle: OpaquePointer
    /// The file this connection opened, for error messages: the user's database, also
    /// when the connection reads its private copy (`PrivateDatabaseCopy`).
    public internal(set) var path: String
    /// The file SQLite has open: `path`, or the private copy the connection reads. A
    /// second connection to what this one reads opens this file.
    let file: String
    /// What must live as long as the connection: the private copy it reads, if any.
    var keptAlive: AnyObject?
    /// Prepared single statements by SQL text, reused across calls: a migration run
    /// executes the same dozen bookkeeping statements for every step.
    private var statementCache: [String: SQLCipherStatement] = [:]
    private static let statementCacheLimit = 64
    /// The cipher settings this connection was opened with: the ones given, or those
    /// of the format its key was found to decrypt. Connections opened later to the same
    /// file (backups, scratch copies, the proof after a rekey) use them, so they derive
    /// the key once and never write another format.
    internal(set) var cipherSettings = CipherSettings()
    /// Whether this connection created the file.
    var createdFile = false
    /// While true, SQLite's commit hook turns every COMMIT into a rollback (see
    /// `forbiddingCommits`).
    fileprivate var commitsForbidden = false
    /// The tables written while `recordingWrittenTables` runs, as the authorizer spelled
    /// them; nil otherwise.
    var writtenTables: Set<String>?
    /// Whether a statement prepared while recording renames a table (a rename rewrites
    /// the foreign keys of the tables pointing at it, which are not written).
    var renamesTable = false
    /// While recording: whether the authorizer's last action other than a read, a
    /// function or an update was an `ALTER TABLE` (see `noteTableRename`).
    var preparingAlterTable = false
    /// While `prepare` runs with write tracking on: the tables the statement writes,
    /// kept with it, so a cached statement run again still names them.
    var preparingWrites: Set<String>?
    /// Whether the authorizer that notes written tables is installed. It stays, once
    /// installed: installing it expires every prepared statement, and doing so for
    /// every step made each re-prepare its statements.
    private(set) var tracksWrites = false

    /// Whether `close()` ran: the handle is gone. Every call that would reach it
    /// throws `.misuse` instead, and the state properties answer as for no connection.
    private(set) var isClosed = false

    /// How this connection waits for another's lock (see `BusyWait`); the C handler
    /// reaches it through an unretained pointer, so the connection keeps it.
    private let busyWait: BusyWait
    /// The observer `traceStatements` installed; the C callback reaches it through an
    /// unretained pointer, so the connection keeps it.
    private var statementTrace: StatementTrace?

    /// Takes ownership of an open handle; `close()` or `deinit` closes it.
    private init(handle: OpaquePointer, path: String, busyWait: BusyWait) {
        self.handle = handle
        self.path = path
        self.file = path
        self.busyWait = busyWait
        // The connection owns the handle, so `self` outlives every call of the hook.
        sqlite3_commit_hook(handle, vetoForbiddenCommit, Unmanaged.passUnretained(self).toOpaque())
        sqlite3_busy_handler(handle, waitWhileBusy, Unmanaged.passUnretained(busyWait).toOpaque())
        // Every 1,000 virtual-machine steps, a running statement asks whether the
        // process was asked to stop (`Interruption`); a lock and a read per check.
        sqlite3_progress_handler(handle, 1000, stopIfAsked, nil)
    }

    /// Opens a connection to `path` (read-only, or read-write), with extended result
    /// codes on and the busy timeout set before anything reads: even the read that
    /// proves the key can meet another connection's commit, and must wait for it
    /// rather than fail. The file is neither keyed nor read yet.
    ///
    /// - Parameters:
    ///   - readOnly: open with SQLite's read-only flag, which the connection also gives
    ///     every database it attaches.
    ///   - attachingWritable: with `readOnly`, open the file read-only through a
    ///     `mode=ro` URI instead (`SQLiteFileURI`), on a connection that may write: the
    ///     file itself cannot be written, and a database the connection attaches (the
    ///     copy an export writes) can.
    ///   - givesWayToChanges: a reader that meets another process's change (a
    ///     migrate holding the database's write lock while it holds the change lock)
    ///     gives up after a moment instead of waiting out `busyTimeout`, so the command
    ///     can say at once who is changing the database.
    static func open(path: String, readOnly: Bool, attachingWritable: Bool = false, busyTimeout: Duration,
                     givesWayToChanges: Bool = false) throws -> SQLCipherDatabase {
        let readOnlyURI = readOnly && attachingWritable
        let flags = (readOnly && !readOnlyURI ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | (readOnlyURI ? SQLITE_OPEN_URI : 0)
        return try open(filename: readOnlyURI ? SQLiteFileURI.readOnly(path) : path, flags: flags, path: path,
                        busyWait: BusyWait(path: path, timeout: busyTimeout, givesWayToChanges: givesWayToChanges))
    }

    /// Opens `path` immutable (`SQLiteFileURI.immutable`): read as it is, unlocked, and
    /// nothing created beside it, whatever its header says. Only for reading whether a
    /// key decrypts the file's header, never for reading data another process may be
    /// changing.
    static func openImmutable(path: String) throws -> SQLCipherDatabase {
        try open(filename: SQLiteFileURI.immutable(path), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path: path,
                 busyWait: BusyWait(path: path, timeout: .zero, givesWayToChanges: false))
    }

    private static func open(filename: String, flags: Int32, path: String, busyWait: BusyWait) throws -> SQLCipherDatabase {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(filename, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            // Another user's file is said as its writable twin is: whose it is, and who may.
            if let why = FileProbe.whyNotReadable(path) {
                throw SQLCipherError(kind: .cannotOpen, resultCode: ResultCode(rawValue: code), message: "The database file cannot be read by this user: \(why).")
            }
            throw SQLCipherError(kind: .cannotOpen, resultCode: ResultCode(rawValue: code),
                                 message: "The database cannot be opened (\(message)); check the path and its permissions.")
        }
        sqlite3_extended_result_codes(handle, 1)
        return SQLCipherDatabase(handle: handle, path: path, busyWait: busyWait)
    }

    /// A private in-memory connection, for questions about the library itself
    /// (`SQLCipherLibrary`): no file, no key, no key derivation.
    static func inMemory() throws -> SQLCipherDatabase {
        try open(path: ":memory:", readOnly: false, busyTimeout: .zero)
    }

    /// The linked SQLite's version ("3.15.2") and its number (3015002).
    static var libraryVersion: (text: String, number: Int) {
        (String(cString: sqlite3_libversion()), Int(sqlite3_libversion_number()))
    }

    /// SQLite's English words for a result code ("database or disk is full").
    static func words(for code: Int32) -> String {
        String(cString: sqlite3_errstr(code))
    }

    /// Closes the connection now rather than when the last reference goes, as GRDB's
    /// `Database.close()` does: the cached statements are finalized first, so the
    /// close is immediate. Later calls throw `.misuse`. Closing twice does nothing.
    func close() {
        guard !isClosed else { return }
        statementCache.removeAll()
        // v2: if a statement somehow outlived the cache, the close is deferred instead
        // of failing and leaking the connection.
        sqlite3_close_v2(handle)
        isClosed = true
    }

    /// Drops the pages this connection caches that nothing holds (outside a
    /// transaction: all of them); the next read decrypts them from the file again.
    func releaseCachedPages() {
        guard !isClosed else { return }
        sqlite3_db_release_memory(handle)
    }

    /// The error every call on a closed connection throws.
    func closedError(sql: String? = nil) -> SQLCipherError {
        SQLCipherError(kind: .misuse, resultCode: .SQLITE_MISUSE, message: "The database connection is closed.", sql: sql)
    }

    /// Runs `body` with every commit refused: a COMMIT or END inside it fails and rolls
    /// the whole transaction back, and after a ROLLBACK inside it any statement that
    /// would autocommit fails too. The migration runner runs each step this way, because
    /// a step that ends the runner's transaction would otherwise commit half its work and
    /// then have its ledger row autocommitted as if it had succeeded.
    func forbiddingCommits<T>(_ body: () throws -> T) rethrows -> T {
        commitsForbidden = true
        defer { commitsForbidden = false }
        return try body()
    }

    /// The safety net for a connection nobody closed.
    deinit { close() }

    // MARK: - Executing

    /// Runs every statement in `sql`, in order.
    ///
    /// On failure the error's `location` names the failing statement (1-based index,
    /// line of its first token), so a migration file's error can be reported as
    /// `file:line`. Statements before the failing one have run: wrap the call in a
    /// transaction (the runner always does) to make the whole text atomic.
    public func execute(sql: String) throws {
        try forEachStatement(in: sql) { statement in
            while try statement.step() {}
        }
    }

    /// Runs one statement with bound arguments (`?` placeholders).
    public func execute(sql: String, arguments: [DatabaseValue]) throws {
        try withStatement(sql) { statement in
            try statement.bind(arguments)
            while try statement.step() {}
        }
    }

    /// Streams the rows of a query without holding the result set in memory.
    public func forEachRow(sql: String, arguments: [DatabaseValue] = [], _ body: (Row) throws -> Void) throws {
        try withStatement(sql) { statement in
            try statement.bind(arguments)
            let names = statement.columnNames
            while try statement.step() {
                try body(statement.currentRow(columnNames: names))
            }
        }
    }

    /// Every row of a query. Use `forEachRow` for results that may be large.
    public func fetchAll(sql: String, arguments: [DatabaseValue] = []) throws -> [Row] {
        var rows: [Row] = []
        try forEachRow(sql: sql, arguments: arguments) { rows.append($0) }
        return rows
    }

    /// The first row of a query, if any.
    public func fetchOne(sql: String, arguments: [DatabaseValue] = []) throws -> Row? {
        try withStatement(sql) { statement in
            try statement.bind(arguments)
            guard try statement.step() else { return nil }
            return statement.currentRow(columnNames: statement.columnNames)
        }
    }

    /// The first column of the first row, or nil when there is no row.
    public func fetchValue(sql: String, arguments: [DatabaseValue] = []) throws -> DatabaseValue? {
        try fetchOne(sql: sql, arguments: arguments)?.values.first
    }

    /// The first column of the first row as an integer (nil for no row or NULL).
    public func fetchInt(sql: String, arguments: [DatabaseValue] = []) throws -> Int? {
        try fetchValue(sql: sql, arguments: arguments)?.int
    }

    /// The first column of the first row as text (nil for no row or NULL).
    public func fetchString(sql: String, arguments: [DatabaseValue] = []) throws -> String? {
        try fetchValue(sql: sql, arguments: arguments)?.string
    }

    /// The first column of every row, as text; NULLs and non-text values are skipped.
    public func fetchStrings(sql: String, arguments: [DatabaseValue] = []) throws -> [String] {
        var result: [String] = []
        try forEachRow(sql: sql, arguments: arguments) { row in
            if let text = row[0].string { result.append(text) }
        }
        return result
    }

    // MARK: - Connection state

    /// Rows changed by the latest INSERT, UPDATE or DELETE.
    public var changesCount: Int { isClosed ? 0 : Int(sqlite3_changes(handle)) }

    /// The rowid of the latest successful INSERT.
    public var lastInsertedRowID: Int64 { isClosed ? 0 : sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open on this connection.
    public var isInsideTransaction: Bool { !isClosed && sqlite3_get_autocommit(handle) == 0 }

    /// Whether the connection enforces foreign keys. `PRAGMA foreign_keys` is a no-op
    /// inside a transaction, which is why the runner switches it outside.
    package func foreignKeysEnabled() throws -> Bool {
        try fetchInt(sql: "PRAGMA foreign_keys") == 1
    }

    /// Turns foreign-key enforcement on or off for this connection. Call it outside a
    /// transaction: inside one, SQLite ignores it.
    func setForeignKeysEnabled(_ enabled: Bool) throws {
        try execute(sql: "PRAGMA foreign_keys = \(enabled ? "ON" : "OFF")", arguments: [])
    }

    /// Runs `body` with this connection's triggers and foreign-key actions off, then puts
    /// both back as they were: for a job that writes rows as they already are elsewhere
    /// (copying a table again into a copy of the database), where a trigger would write
    /// a second time what the copy already holds and an `ON DELETE CASCADE` would empty
    /// other tables. Outside a transaction: SQLite ignores the foreign-key setting
    /// within one.
    func withTriggersAndForeignKeysOff<T>(_ body: () throws -> T) throws -> T {
        guard !isClosed else { throw closedError() }
        var previous: [(Int32, Int32)] = []
        defer {
            for (setting, value) in previous.reversed() {
                var now: Int32 = 0
                _ = migrationkit_db_config_flag(handle, setting, value, &now)
            }
        }
        for setting in [SQLITE_DBCONFIG_ENABLE_TRIGGER, SQLITE_DBCONFIG_ENABLE_FKEY] {
            var was: Int32 = 0
            var now: Int32 = 0
            guard migrationkit_db_config_flag(handle, setting, -1, &was) == SQLITE_OK else { throw lastError(code: SQLITE_MISUSE) }
            previous.append((setting, was))
            guard migrationkit_db_config_flag(handle, setting, 0, &now) == SQLITE_OK, now == 0 else { throw lastError(code: SQLITE_MISUSE) }
        }
        return try body()
    }

    /// Registers `standIn`'s ordering under the name of a collation only the app
    /// registers (`SQLCipherConfiguration.collationStandIns`).
    func registerCollation(_ name: String, standingIn standIn: CollationStandIn) throws {
        guard !isClosed else { throw closedError() }
        let kind: Int32
        switch standIn {
        case .binary: kind = 0
        case .nocase: kind = 1
        case .rtrim: kind = 2
        }
        let code = migrationkit_register_stand_in_collation(handle, name, kind)
        guard code == SQLITE_OK else { throw lastError(code: code) }
    }

    /// Loads `library` into this connection through SQLite's C API, with extension loading
    /// turned on for this call only (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`, which leaves
    /// SQL's `load_extension()` refused) and off again after it, whatever happened.
    func loadExtension(_ library: LoadableExtension) throws {
        guard !isClosed else { throw closedError() }
        var now: Int32 = 0
        guard migrationkit_db_config_flag(handle, Self.enableLoadExtension, 1, &now) == SQLITE_OK, now == 1 else {
            throw lastError(code: SQLITE_MISUSE)
        }
        defer { _ = migrationkit_db_config_flag(handle, Self.enableLoadExtension, 0, &now) }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_load_extension(handle, library.path, library.entryPoint, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            let words = message.map { String(cString: $0) } ?? "error \(code)"
            throw SQLCipherError(kind: .extensionNotLoaded, resultCode: ResultCode(rawValue: code),
                                 message: "The SQLite extension \(library) could not be loaded: \(words); check its path (a name without a / is looked for where the system looks for libraries) and its entry point (after the colon).")
        }
    }

    /// `SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` (SQLite 3.13+): the C API only.
    private static let enableLoadExtension: Int32 = 1005

    /// The C connection (`sqlite3 *`), for an app's `prepareDatabase` to register what
    /// only the app has through SQLCipher's C API: its SQL functions
    /// (`sqlite3_create_function_v2`), collations (`sqlite3_create_collation_v2`),
    /// full-text tokenizers (FTS5's `fts5_api`, FTS3's `fts3_tokenizer`), or its own
    /// extension. Valid while this connection is; never close it, key it or change its
    /// settings through it.
    public var sqliteConnection: OpaquePointer { handle }

    /// The linked SQLCipher version as `PRAGMA cipher_version` reports it
    /// ("3.4.1", "4.6.1 community"), or nil when the library is not SQLCipher.
    package var cipherVersion: String? {
        SQLCipherLibrary.cipherVersionString
    }

    /// The SQLite version SQLCipher is built on ("3.15.2").
    package var sqliteVersion: String { SQLCipherLibrary.sqliteVersion }

    /// Whether SQLite opened the file read-only (it may fall back to that when the
    /// file cannot be written, though read-write was asked for).
    var isReadOnly: Bool { !isClosed && sqlite3_db_readonly(handle, "main") == 1 }

    // MARK: - Keys and copies

    /// `sqlite3_key`: the key SQLCipher derives this connection's cipher key from, given
    /// before the first read. The material is read in place, from the key's wiped
    /// storage, and never copied.
    func applyKey(_ key: DatabaseKey) throws {
        guard !isClosed else { throw closedError() }
        let code = key.withKeyText { material in
            sqlite3_key(handle, material.baseAddress, Int32(material.count))
        }
        guard code == SQLITE_OK else {
            throw SQLCipherError(kind: .invalidKey, resultCode: ResultCode(rawValue: code), message: "SQLCipher refused the key.")
        }
    }

    /// `sqlite3_rekey`: encrypts every page of the file again, with `key`.
    func rekey(to key: DatabaseKey) throws {
        guard !isClosed else { throw closedError() }
        // New keys are derived here, with the salt mask of this file's format.
        let code = SaltMaskGuard.deriving(cipherSettings, on: self) {
            key.withKeyText { material in
                sqlite3_rekey(handle, material.baseAddress, Int32(material.count))
            }
        }
        guard code == SQLITE_OK else { throw lastError(code: code) }
    }

    /// Copies every page of this database into `target`, a connection keyed as this
    /// one, in one step of SQLite's online backup API.
    func backup(to target: SQLCipherDatabase) throws {
        guard !isClosed, !target.isClosed else { throw closedError() }
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw target.lastError(code: sqlite3_errcode(target.handle))
        }
        // In slices, so a stop asked meanwhile ends the copy (which is then discarded).
        var stepCode = SQLITE_OK
        while stepCode == SQLITE_OK {
            if Interruption.isStopping { break }
            stepCode = sqlite3_backup_step(backup, 4096)
        }
        let finishCode = sqlite3_backup_finish(backup)
        try Interruption.check()
        guard stepCode == SQLITE_DONE, finishCode == SQLITE_OK else {
            throw target.lastError(code: finishCode == SQLITE_OK ? stepCode : finishCode)
        }
    }

    // MARK: - Statements

    /// Lends a prepared statement for `sql`, from the cache when possible, and resets it
    /// afterwards: a statement left mid-way would keep its read lock and block writers.
    /// A statement already in use (a query run again inside its own row loop) gets a
    /// fresh, uncached one. Statements from `sqlite3_prepare_v2` re-prepare themselves
    /// after a schema change, so a cached one never runs against an old schema.
    private func withStatement<T>(_ sql: String, _ body: (SQLCipherStatement) throws -> T) throws -> T {
        try refuseNewWorkAfterStop(sql)
        let statement: SQLCipherStatement
        if let cached = statementCache[sql], !cached.isInUse {
            statement = cached
            writtenTables?.formUnion(cached.writes)
        } else {
            statement = try prepare(sql)
            if statementCache[sql] == nil, statementCache.count < Self.statementCacheLimit {
                statementCache[sql] = statement
            }
        }
        statement.isInUse = true
        defer {
            statement.reset()
            statement.isInUse = false
        }
        return try body(statement)
    }

    func prepare(_ sql: String) throws -> SQLCipherStatement {
        guard !isClosed else { throw closedError(sql: sql) }
        try refuseNewWorkAfterStop(sql)
        var statement: OpaquePointer?
        if tracksWrites { preparingWrites = [] }
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        let writes = preparingWrites ?? []
        preparingWrites = nil
        guard code == SQLITE_OK else { throw lastError(code: code, sql: sql) }
        guard let statement else {
            throw SQLCipherError(kind: .misuse, message: "The SQL text holds no statement.", sql: sql)
        }
        let prepared = SQLCipherStatement(handle: statement, sql: sql, database: self)
        prepared.writes = writes
        return prepared
    }

    /// Installs the authorizer that notes the tables statements write
    /// (`recordingWrittenTables`), once per connection. The statement cache is emptied
    /// at the same time, so every cached statement is prepared again through
    /// `prepare`, which keeps the tables it writes with it.
    func trackWrites(_ authorizer: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                   UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32) {
        guard !tracksWrites, !isClosed else { return }
        statementCache.removeAll()
        sqlite3_set_authorizer(handle, authorizer, Unmanaged.passUnretained(self).toOpaque())
        tracksWrites = true
    }

    /// Prepares each statement of a multi-statement text in turn, with SQLite's own
    /// parser deciding where statements end (so `;` inside strings, comments and
    /// trigger bodies is handled exactly as SQLite handles it). Where a statement's
    /// first token is, and the failing statement's text, come from the same tokenizer
    /// and splitter the linter uses.
    func forEachStatement(in sql: String, _ body: (SQLCipherStatement) throws -> Void) throws {
        guard !isClosed else { throw closedError() }
        let text = Array(sql.utf8CString)
        try text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let end = buffer.count - 1  // the terminating NUL
            var cursor = base
            var statementIndex = 0
            var lineCounter = LineCounter(text: buffer)
            while cursor.pointee != 0 {
                try refuseNewWorkAfterStop(nil)
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let start = cursor - base
                let code = sqlite3_prepare_v2(handle, cursor, -1, &statementHandle, &tail)
                // The text this statement covers: up to its tail, or on failure the rest.
                let stop = code == SQLITE_OK ? (tail.map { $0 - base } ?? end) : end
                let piece = String(decoding: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[start..<stop])), as: UTF8.self)
                guard let firstToken = SQLTokenizer(piece).first(where: { !$0.isTrivia }) else {
                    // Only blanks and comments: nothing to run.
                    guard code == SQLITE_OK, let tail, tail > cursor else { return }
                    cursor = tail
                    continue
                }
                let tokenStart = start + firstToken.offset
                guard code == SQLITE_OK else {
                    let failing = SQLStatementSplitter.split(piece).first.map { $0.text + ($0.isTerminated ? ";" : "") }
                    let error = lastError(code: code, sql: failing)
                    // The line SQLite points at, not the statement's first.
                    let stopped = start + (errorOffset(in: piece, message: error.message) ?? firstToken.offset)
                    throw SQLCipherError(
                        kind: error.kind, resultCode: error.resultCode, message: error.message, sql: failing,
                        location: SQLLocation(statementIndex: statementIndex + 1, line: lineCounter.line(at: stopped), offset: tokenStart))
                }
                let location = SQLLocation(
                    statementIndex: statementIndex + 1,
                    line: lineCounter.line(at: tokenStart),
                    offset: tokenStart)
                guard let tail, tail > cursor else { return }
                cursor = tail
                guard let statementHandle else { continue }
                statementIndex += 1
                // The piece starts at its first token, so only trailing blanks remain.
                // (Foundation's trimming bridges through NSString: about 35,000
                // instructions per statement, measured with callgrind.)
                var trimmed = Substring(String(decoding: piece.utf8.dropFirst(firstToken.offset), as: UTF8.self))
                while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
                let statementText = String(trimmed)
                let statement = SQLCipherStatement(handle: statementHandle, sql: statementText, database: self)
                do {
                    try body(statement)
                } catch let error as SQLCipherError {
                    throw SQLCipherError(
                        kind: error.kind, resultCode: error.resultCode, message: error.message,
                        sql: statementText, location: location, path: error.path)
                }
            }
        }
    }

    /// Once the process was asked to stop (`Interruption`), nothing new starts but a
    /// rollback, which is what puts the database back as it was.
    private func refuseNewWorkAfterStop(_ sql: String?) throws {
        guard Interruption.isStopping else { return }
        if let sql, sql.hasPrefix("ROLLBACK") { return }
        guard let message = Interruption.stoppedMessage else { return }
        throw SQLCipherError(kind: .interrupted, resultCode: .SQLITE_INTERRUPT, message: message, sql: sql)
    }

    /// How SQLite reads one statement, without running it (`parse`).
    enum ParseOutcome {
        case parses
        /// Text SQLite cannot parse, and where it stopped.
        case syntaxError(SQLParseProblem)
        /// It fails for a table it names that is not there (`no such table: main.t`;
        /// the name, when SQLite gave it).
        case missingTable(String?)
        /// It fails for something else it names (a column, a function, a module), which
        /// depends on the schema.
        case unknownName
    }

    /// How SQLite reads one statement, without running it. Lint's `syntax-error` rule
    /// asks a connection to an in-memory database (`SQLParser`).
    func parse(_ sql: String) -> ParseOutcome {
        guard !isClosed else { return .parses }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        sqlite3_finalize(statement)
        guard code != SQLITE_OK else { return .parses }
        let message = String(cString: sqlite3_errmsg(handle))
        if message.hasPrefix("no such table: ") {
            let name = message.dropFirst("no such table: ".count)
            // `main.t`: the table's own name is after the schema's.
            return .missingTable(name.hasPrefix("main.") ? String(name.dropFirst(5)) : String(name))
        }
        guard SQLErrorPosition.isSyntaxError(message) else { return .unknownName }
        return .syntaxError(SQLParseProblem(message: message, offset: errorOffset(in: sql, message: message)))
    }

    /// The UTF-8 offset in `sql` of the token where the last prepare of it failed with
    /// `message` (`SQLErrorPosition`, the same for every connection).
    private func errorOffset(in sql: String, message: String) -> Int? {
        SQLErrorPosition.offset(in: sql, message: message, reported: Int(migrationkit_error_offset(handle))) { prefix in
            var statement: OpaquePointer?
            let code = sqlite3_prepare_v2(handle, prefix, -1, &statement, nil)
            sqlite3_finalize(statement)
            return code != SQLITE_OK && String(cString: sqlite3_errmsg(handle)) == message
        }
    }

    /// The connection's current error as an `SQLCipherError`.
    func lastError(code: Int32, sql: String? = nil, location: SQLLocation? = nil) -> SQLCipherError {
        let extended = sqlite3_extended_errcode(handle)
        // Prefer the extended code when it refines the code the call returned.
        let resultCode = ResultCode(rawValue: (extended & 0xff) == (code & 0xff) ? extended : code)
        let message = String(cString: sqlite3_errmsg(handle))
        let kind: SQLCipherError.Kind
        switch resultCode.primaryResultCode {
        case .SQLITE_BUSY: kind = .busy
        case .SQLITE_INTERRUPT: kind = .interrupted
        default: kind = .sqlite
        }
        let text = kind == .busy
            ? (busyWait.gaveWay
                ? "Another process is changing the database and holds its write lock."
                : "The database is locked by another connection, and it stayed locked for longer than the busy timeout.")
            : message
        return SQLCipherError(kind: kind, resultCode: resultCode, message: text, sql: sql, location: location)
    }
}

/// How a connection waits for another connection's lock: as SQLite's own busy timeout
/// does (short sleeps, growing, until `timeout`), except that it stops at once when the
/// process was asked to stop, and, for a reader that gives way to changes, after a
/// moment (a commit takes less) when another process holds the database's change lock
/// (`LockHolder`): such a change can last minutes, and the reader says who instead.
private final class BusyWait: @unchecked Sendable {
    private static let delays: [UInt32] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
    private static let moment: Duration = .milliseconds(250)

    let path: String
    let timeout: Duration
    let givesWayToChanges: Bool
    private var started = ContinuousClock.now
    /// Whether the last wait ended because another process was changing the database.
    private(set) var gaveWay = false

    init(path: String, timeout: Duration, givesWayToChanges: Bool) {
        self.path = path
        self.timeout = timeout
        self.givesWayToChanges = givesWayToChanges
    }

    /// SQLite's busy handler: true to wait and retry, false to fail with SQLITE_BUSY.
    func shouldRetry(attempt: Int32) -> Bool {
        let now = ContinuousClock.now
        if attempt == 0 {
            started = now
            gaveWay = false
        }
        let waited = now - started
        guard !Interruption.isStopping, waited < timeout else { return false }
        if givesWayToChanges, waited >= Self.moment, LockHolder.of(path).contains(where: { $0.kind == .changeLock }) {
            gaveWay = true
            return false
        }
        let delay = Duration.milliseconds(Int64(Self.delays[min(Int(attempt), Self.delays.count - 1)]))
        let slice = min(delay, timeout - waited)
        usleep(UInt32(max(0, slice.components.seconds * 1_000_000 + slice.components.attoseconds / 1_000_000_000_000)))
        return true
    }
}

/// SQLite's progress handler: non-zero interrupts the running statement.
private func stopIfAsked(_ context: UnsafeMutableRawPointer?) -> Int32 {
    Interruption.isStopping ? 1 : 0
}

private func waitWhileBusy(_ context: UnsafeMutableRawPointer?, _ attempt: Int32) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().shouldRetry(attempt: attempt) ? 1 : 0
}

/// SQLite's commit hook: a non-zero answer turns the commit into a rollback.
private func vetoForbiddenCommit(_ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<SQLCipherDatabase>.fromOpaque(context).takeUnretainedValue().commitsForbidden ? 1 : 0
}

/// Turns byte offsets into 1-based line numbers, counting newlines incrementally so
/// that a long script costs one pass, not one pass per statement.
private struct LineCounter {
    let text: UnsafeBufferPointer<CChar>
    private var scannedUpTo = 0
    private var line = 1

    init(text: UnsafeBufferPointer<CChar>) {
        self.text = text
    }

    mutating func line(at offset: Int) -> Int {
        while scannedUpTo < offset {
            if text[scannedUpTo] == 0x0A { line += 1 }
            scannedUpTo += 1
        }
        return line
    }
}

// MARK: - Tracing

extension SQLCipherDatabase {
    /// Tells `observer` the SQL text of every statement this connection starts
    /// (`sqlite3_trace_v2`'s `SQLITE_TRACE_STMT`), until it closes: for a test that pins
    /// what a command reads, and how often (the ledger, once per `migrate`).
    func traceStatements(_ observer: @escaping (String) -> Void) {
        let trace = StatementTrace(observer)
        statementTrace = trace
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, _, text in
            guard let context, let text else { return 0 }
            Unmanaged<StatementTrace>.fromOpaque(context).takeUnretainedValue()
                .observer(String(cString: text.assumingMemoryBound(to: CChar.self)))
            return 0
        }, Unmanaged.passUnretained(trace).toOpaque())
    }
}

/// What `traceStatements` calls, kept by the connection for the C callback.
private final class StatementTrace {
    let observer: (String) -> Void

    init(_ observer: @escaping (String) -> Void) {
        self.observer = observer
    }
}
