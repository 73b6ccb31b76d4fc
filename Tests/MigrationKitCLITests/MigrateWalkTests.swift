import Foundation
import MigrationKit
@testable import MigrationKitCLI
@testable import MigrationKitCommands
import MigrationKitSQLCipher
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
        let host = MigrationCLIHost(
            openWriter: { settings in
                let writer = try MigrationCLIHost.defaultOpenWriter(settings)
                try writer.writeWithoutTransaction { $0.traceStatements { log.append($0) } }
                return writer
            },
            hardensProcess: false, cipherMemorySecurity: false, stopsGracefully: false)
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
}
