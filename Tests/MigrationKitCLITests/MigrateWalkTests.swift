import Foundation
@testable import MigrationKit
@testable import MigrationKitCLI
@testable import MigrationKitCommands
@testable import MigrationKitSQLCipher
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The walk of one `migrate` from the command line to its first step, seen from the
/// database's connection: what it reads before it changes anything, and how often.
@Suite struct MigrateWalkTests {
    /// The SQL the connection started, in order.
    private final class StatementLog: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [String] = []

        func append(_ sql: String) { lock.withLock { recorded.append(sql) } }
        var statements: [String] { lock.withLock { recorded } }
    }

    /// The tool's host, whose writers log every statement they start into `log`.
    private static func host(tracingInto log: StatementLog) -> MigrationCLIHost {
        MigrationCLIHost(
            openWriter: { settings in
                let writer = try MigrationCLIHost.defaultOpenWriter(settings)
                try writer.writeWithoutTransaction { $0.traceStatements { log.append($0) } }
                return writer
            },
            hardensProcess: false, cipherMemorySecurity: false, stopsGracefully: false)
    }

    /// Lint's pending files, the backup decision and the engine's first plan go by one
    /// read of the ledger; under the write lock the engine only compares `data_version`.
    @Test func migrateReadsTheLedgerOnceBeforeItsFirstStep() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["-q"]).status == 0)
        try workspace.migration("0003_shelves.sql", """
            -- migrate:up
            CREATE TABLE shelves (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
            -- migrate:down
            DROP TABLE shelves;
            """)

        let log = StatementLog()
        let host = Self.host(tracingInto: log)
        let console = ConsoleCapture()
        let input = open("/dev/null", O_RDONLY)
        defer { close(input) }
        let status = try MigrationCLI.run(host: host, arguments: ["migrate"] + workspace.options(), in: CommandSurroundings(
            environment: Tool.environment(), standardInput: input, console: console, workingDirectory: workspace.root))
        #expect(status == 0, "\(console.standardError)")
        // Lint ran and the backup was decided on, from the same reading.
        #expect(console.standardOutput.contains("Backup: "), "\(console.standardOutput)")
        #expect(console.standardOutput.contains("Applied 0003_shelves"), "\(console.standardOutput)")

        let statements = log.statements
        let firstStep = try #require(statements.firstIndex { $0.contains("CREATE TABLE shelves") }, "\(statements)")
        let ledgerReads = statements[..<firstStep].filter { $0 == MigrationLedgerTable.selectIdentifiersSQL }
        #expect(ledgerReads.count == 1, "\(statements[..<firstStep].joined(separator: "\n"))")
    }

    /// A session answers every question a command asks before it changes the database
    /// from one reading of the ledger, holds the change lock from its open, and reads
    /// the ledger afresh once it has written (a migration, a baseline).
    @Test func aSessionAnswersFromOneReadingUntilItWrites() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["-q", "--to", "0001_authors"]).status == 0)
        try workspace.migration("0003_shelves.sql", "-- migrate:up\nCREATE TABLE shelves (id INTEGER PRIMARY KEY);\n")

        let log = StatementLog()
        let host = Self.host(tracingInto: log)
        let layer = SQLCipherCommandLayer(host: host)
        let world = CommandWorld(layer: layer, root: RootCommand.self)
        let files = try SQLMigrationDirectory(path: workspace.migrations).load()
        let request = OpenRequest(path: workspace.database, key: workspace.databaseKey, access: .change, lockTimeout: .seconds(5))
        #expect(!request.isNew)
        let session = try MigrationSession.open(request, migrations: try layer.migrations(over: files, requiredIndexes: []), in: world)
        defer { try? session.close() }
        #expect(world.locks.holds(workspace.database))
        func ledgerReads() -> Int { log.statements.filter { $0 == MigrationLedgerTable.selectIdentifiersSQL }.count }

        #expect(try session.status().pending == ["0002_books", "0003_shelves"])
        #expect(try session.pending(among: files).map(\.identifier) == ["0002_books", "0003_shelves"])
        #expect(try session.changesAnything(upTo: "0002_books", options: MigrateOptions()))
        #expect(ledgerReads() == 1)

        #expect(try session.migrate(upTo: "0002_books", options: MigrateOptions()).identifiers == ["0002_books"])
        #expect(try session.status().pending == ["0003_shelves"])
        #expect(try !session.changesAnything(upTo: "0002_books", options: MigrateOptions()))
        #expect(ledgerReads() == 2)

        // The baseline reads the ledger under its own write lock; the session then
        // reads it once more for the status, which shows what the baseline recorded.
        #expect(try session.baseline(upTo: "0003_shelves") == ["0003_shelves"])
        let afterBaseline = ledgerReads()
        #expect(try session.status().pending.isEmpty)
        #expect(ledgerReads() == afterBaseline + 1)
    }
}
