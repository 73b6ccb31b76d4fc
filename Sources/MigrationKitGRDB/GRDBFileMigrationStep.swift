import Foundation
import GRDB
import MigrationKit

/// A statement of a migration file failed under GRDB: the file and the line of the
/// failing statement (GRDB's error names the statement), so the runner's report points
/// at it.
public typealias GRDBFileStatementError = SQLFileStatementError<DatabaseError>

extension GRDB.Database: SQLFileExecuting {
    /// Runs a migration file's section one statement at a time, cut where SQLite cuts
    /// them (`SQLStatementSplitter`), so that a failing statement is reported at the line
    /// the tool reports it at: where SQLite stopped reading it, for an error it locates
    /// (`SQLErrorPosition`), else its first token.
    public func execute(section: SQLSection) throws {
        for statement in SQLStatementSplitter.split(section.sql) {
            do {
                // With its `;`, as GRDB's error then quotes it, and the tool's does.
                try execute(sql: statement.text + (statement.isTerminated ? ";" : ""))
            } catch let error as DatabaseError {
                let message = error.message ?? ""
                let offset = SQLErrorPosition.offset(in: statement.text, message: message, reported: lastErrorOffset) { prefix in
                    do {
                        _ = try makeStatement(sql: prefix)
                        return false
                    } catch {
                        return (error as? DatabaseError)?.message == message
                    }
                }
                let line = offset.map(statement.line(atOffset:)) ?? statement.startLine
                throw GRDBFileStatementError(sourcePath: section.path, sourceLine: section.fileLine(forSectionLine: line), underlying: error)
            }
        }
    }

    /// Where SQLite stopped in the statement that failed last, from
    /// `sqlite3_error_offset` (SQLite 3.38+; -1 when the error names no token), or nil
    /// on an older SQLite, which GRDB also runs on: looked up when first used rather
    /// than linked, so that an app built on such a SQLite still links.
    private var lastErrorOffset: Int? {
        Self.errorOffsetFunction.map { Int($0(sqliteConnection)) }
    }

    private static let errorOffsetFunction: (@convention(c) (OpaquePointer?) -> Int32)? = {
        // RTLD_DEFAULT: every library the process has loaded, the one GRDB links among them.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sqlite3_error_offset") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (OpaquePointer?) -> Int32).self)
    }()
}

extension GRDBMigrationRunner {
    /// A runner for the SQL migration files of `directory`, read and ordered as
    /// `migrationkit` reads them: in `layout` (`NNNN_name.sql` with up and down sections
    /// or `.up.sql`/`.down.sql` pairs, sqlx's, golang-migrate's, goose's, Flyway's or
    /// diesel's), or in the layout its files are written in when `layout` is nil. Swift
    /// steps registered afterwards (`registerMigration`) run after them.
    public init(directory: String, layout: MigrationFolderLayout? = nil, verifier: GRDBMigrationVerifier = GRDBMigrationVerifier(),
                host: MigrationHostIntegration<GRDB.Database> = MigrationHostIntegration()) throws {
        let files = try SQLMigrationDirectory(path: directory, layout: layout).load()
        try self.init(steps: files.map { MigrationStep<GRDB.Database>(file: $0) }, verifier: verifier, host: host)
    }
}
