import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// In MigrationKit's own layout migrations apply in byte-wise order of their names, so
/// numbers of different widths (`V1__…` to `V10__…`, unpadded `1_…` to `10_…`) would
/// apply out of the order they are numbered in, and `baseline --to V9__…` would record `V10__…`
/// without running it. A folder whose numbers order differently as text and as numbers
/// is refused by every command that reads it (exit 7, naming two files and the renaming
/// that fixes it), before anything is touched; zero-padded numbers and timestamps of one
/// width apply as ever.
@Suite struct NumberedOrderTests {
    /// The reporter's folder: `V1__create_t` to `V9__add_c9` applied, then
    /// `V10__index_c9` added.
    @Test func aFlywayNumberedFolderIsRefusedByEveryCommandThatReadsIt() throws {
        let workspace = try Workspace()
        try workspace.migration("V1__create_t.sql", "-- migrate:up\nCREATE TABLE t (c1);\n-- migrate:down\nDROP TABLE t;\n")
        for column in 2...9 {
            try workspace.migration("V\(column)__add_c\(column).sql", "-- migrate:up\nALTER TABLE t ADD COLUMN c\(column);\n-- migrate:down\nSELECT 1;\n")
        }
        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 9 migrations"), "\(migrate.output)")
        try workspace.migration("V10__index_c9.sql", "-- migrate:up\nCREATE INDEX t_c9 ON t(c9);\n-- migrate:down\nDROP INDEX t_c9;\n")
        // With a second database, the fleet form; the refusal comes before either is opened.
        let fleet = ["--db-path", workspace.path("tenant.db")]

        let before = try TreeSnapshot(workspace.root)
        let sentence = "\(workspace.migrations)/V10__index_c9.sql: This file applies before \(workspace.migrations)/V1__create_t.sql "
            + "(migrations apply in byte-wise order of their names) though its number is larger, so databases would run them out of "
            + "their numbered order; give the numbers one width (V01__create_t.sql, and the others alike), starting a renamed file "
            + "with `-- migrate:merging V1__create_t` where databases applied it under its old name."
        for (command, extra) in [("migrate", []), ("migrate", fleet), ("baseline", ["--to", "V9__add_c9"]), ("rollback", []),
                                 ("status", []), ("check", []), ("lint", []), ("diff", [])] {
            let result = command == "check" ? try Tool.run(["check", "--migrations", workspace.migrations])
                : try workspace.run(command, extra)
            #expect(result.exitCode == .refused, "\(command) \(extra): \(result.output)")
            #expect(result.stderr.contains(sentence), "\(command) \(extra): \(result.stderr)")
            try expectUnchanged(before, "\(command) \(extra)")
        }
        let ledger = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM grdb_migrations;")
        #expect(ledger.stdout == "9\n")
    }

    /// golang-migrate's unpadded numbers in `.up.sql`/`.down.sql` pairs: in
    /// golang-migrate's layout (found from the files) they apply in the order of their
    /// numbers, `10_j` last; read in MigrationKit's own (named), which orders by name,
    /// they are refused before a database is made, and the same files zero-padded apply
    /// in their numbered order there.
    @Test func unpaddedPairsApplyByNumberInGolangMigratesLayoutAndAreRefusedInMigrationKitsOwn() throws {
        let workspace = try Workspace()
        func write(_ number: String, _ table: String) throws {
            try workspace.migration("\(number)_\(table).up.sql", "CREATE TABLE \(table) (x);\n")
            try workspace.migration("\(number)_\(table).down.sql", "DROP TABLE \(table);\n")
        }
        let tables = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
        for (index, table) in tables.enumerated() { try write(String(index + 1), table) }
        let before = try TreeSnapshot(workspace.root)
        let refused = try workspace.run("migrate", ["--layout", "migrationkit"])
        #expect(refused.exitCode == .refused, "\(refused.output)")
        #expect(refused.stderr.contains("\(workspace.migrations)/10_j.up.sql: This file applies before \(workspace.migrations)/1_a.up.sql ")
                && refused.stderr.contains("(01_a.up.sql, and the others alike)"), "\(refused.stderr)")
        try expectUnchanged(before, "migrate --layout migrationkit")
        #expect(!FileManager.default.fileExists(atPath: workspace.database))

        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 10 migrations"), "\(migrate.output)")
        let applied = migrate.stdout.split(separator: "\n").filter { $0.hasPrefix("Applied ") && $0.hasSuffix(")") }.map { $0.split(separator: " ")[1] }
        #expect(applied == tables.enumerated().map { "\($0.offset + 1)_\($0.element)"[...] }, "\(migrate.stdout)")
        let ledger = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT group_concat(identifier) FROM (SELECT identifier FROM grdb_migrations ORDER BY rowid);")
        #expect(ledger.stdout == "1_a,2_b,3_c,4_d,5_e,6_f,7_g,8_h,9_i,10_j\n")
        let status = try workspace.run("status")
        #expect(status.stdout.contains("  migrations: \(workspace.migrations), golang-migrate layout (detected from its files)\n"), "\(status.output)")
        let rollback = try workspace.run("rollback", ["--to", "9_i"])
        #expect(rollback.status == 0 && rollback.stdout.contains("Rolled back 10_j"), "\(rollback.output)")

        // Zero-padded, the same files apply in their numbered order in MigrationKit's own layout.
        let padded = try Workspace()
        for (index, table) in tables.enumerated() {
            try padded.migration(String(format: "%02d_", index + 1) + table + ".up.sql", "CREATE TABLE \(table) (x);\n")
            try padded.migration(String(format: "%02d_", index + 1) + table + ".down.sql", "DROP TABLE \(table);\n")
        }
        let own = try padded.run("migrate", ["--layout", "migrationkit"])
        #expect(own.status == 0 && own.stdout.contains("Applied 10 migrations"), "\(own.output)")
        let paddedLedger = try SQLCipherShell.run(padded.database, key: padded.key, "SELECT group_concat(identifier) FROM (SELECT identifier FROM grdb_migrations ORDER BY rowid);")
        #expect(paddedLedger.stdout == "01_a,02_b,03_c,04_d,05_e,06_f,07_g,08_h,09_i,10_j\n")
    }

    /// Timestamps of one width order the same as text and as numbers; a shorter number
    /// among them (it sorts after them, though it is smaller) is refused, named.
    @Test func timestampsOfOneWidthApplyAndAShorterNumberAmongThemIsRefused() throws {
        let workspace = try Workspace()
        for (stamp, table) in [("20240101000000", "a"), ("20240215093000", "b"), ("20251231235959", "c")] {
            try workspace.migration("\(stamp)_\(table).sql", "-- migrate:up\nCREATE TABLE \(table) (x);\n-- migrate:down\nDROP TABLE \(table);\n")
        }
        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 3 migrations"), "\(migrate.output)")
        try workspace.migration("9_late.sql", "-- migrate:up\nCREATE TABLE late (x);\n")
        let before = try TreeSnapshot(workspace.root)
        let refused = try workspace.run("migrate")
        #expect(refused.exitCode == .refused, "\(refused.output)")
        #expect(refused.stderr.contains("\(workspace.migrations)/20251231235959_c.sql: This file applies before \(workspace.migrations)/9_late.sql ")
                && refused.stderr.contains("(00000000000009_late.sql, and the others alike)"), "\(refused.stderr)")
        try expectUnchanged(before, "migrate")
    }

    /// What the refusal says to do, done: the files renamed with numbers of one width,
    /// each starting with `-- migrate:merging OLD`, so that a database that applied them
    /// under the old names counts them as applied and its ledger takes the new names.
    @Test func renamedFilesMergingTheirOldNamesKeepADatabaseThatAppliedThem() throws {
        let workspace = try Workspace()
        try workspace.migration("1_a.sql", "-- migrate:up\nCREATE TABLE a (x);\n-- migrate:down\nDROP TABLE a;\n")
        try workspace.migration("2_b.sql", "-- migrate:up\nCREATE TABLE b (x);\n-- migrate:down\nDROP TABLE b;\n")
        #expect(try workspace.run("migrate").status == 0)
        try workspace.migration("10_c.sql", "-- migrate:up\nCREATE TABLE c (x);\n-- migrate:down\nDROP TABLE c;\n")
        let refused = try workspace.run("migrate")
        #expect(refused.exitCode == .refused && refused.stderr.contains("`-- migrate:merging 1_a`"), "\(refused.output)")

        for (old, new) in [("1_a", "01_a"), ("2_b", "02_b")] {
            let text = try String(contentsOfFile: workspace.migrations + "/\(old).sql", encoding: .utf8)
            try FileManager.default.removeItem(atPath: workspace.migrations + "/\(old).sql")
            try workspace.migration("\(new).sql", "-- migrate:merging \(old)\n" + text)
        }
        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 10_c ("), "\(migrate.output)")
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.status == 0 && status.stdout.contains("3 applied, 0 pending."), "\(status.output)")
        let ledger = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT group_concat(identifier) FROM (SELECT identifier FROM grdb_migrations ORDER BY identifier);")
        #expect(ledger.stdout == "01_a,02_b,10_c\n")
    }
}
