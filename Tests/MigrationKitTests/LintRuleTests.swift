@testable import MigrationKit
import Testing

@Suite struct NotNullColumnWithoutDefaultTests {
    private let rule = "not-null-column-without-default"

    @Test func flagsNotNullWithoutDefault() throws {
        let findings = try LintFixture.lint("ALTER TABLE users ADD COLUMN age INTEGER NOT NULL;", rule: rule)
        #expect(findings.count == 1)
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.line == 2)
        #expect(findings.first?.message.contains("users") == true)
        #expect(findings.first?.message.contains("age") == true)
        #expect(findings.first?.fix.contains("DEFAULT") == true)
    }

    @Test func defaultNullIsNoDefault() throws {
        #expect(try LintFixture.lint("ALTER TABLE t ADD c TEXT NOT NULL DEFAULT NULL;", rule: rule).count == 1)
        #expect(try LintFixture.lint("ALTER TABLE t ADD COLUMN c TEXT DEFAULT (NULL) NOT NULL;", rule: rule).count == 1)
        #expect(try LintFixture.lint("ALTER TABLE t ADD COLUMN c TEXT CONSTRAINT nn NOT NULL DEFAULT ((NULL));", rule: rule).count == 1)
    }

    @Test func aRealDefaultIsFine() throws {
        for sql in ["ALTER TABLE t ADD COLUMN c INTEGER NOT NULL DEFAULT 0;",
                    "ALTER TABLE t ADD COLUMN c TEXT NOT NULL DEFAULT '';",
                    "ALTER TABLE t ADD COLUMN c INTEGER DEFAULT -1 NOT NULL;",
                    "ALTER TABLE t ADD COLUMN c INTEGER NOT NULL DEFAULT (1 + 1);",
                    "ALTER TABLE t ADD COLUMN c TEXT NOT NULL DEFAULT 'NULL';",
                    "ALTER TABLE t ADD COLUMN c TEXT;"] {
            #expect(try LintFixture.lint(sql, rule: rule).isEmpty, "\(sql)")
        }
    }

    @Test func notNullInsideLiteralsCommentsOrChecksIsNotTheConstraint() throws {
        for sql in ["ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'NOT NULL';",
                    "ALTER TABLE t ADD COLUMN \"NOT NULL\" TEXT;",
                    "ALTER TABLE t ADD COLUMN c TEXT -- NOT NULL\n;",
                    "ALTER TABLE t ADD COLUMN c TEXT /* NOT NULL */;",
                    "ALTER TABLE t ADD COLUMN c TEXT CHECK (c IS NOT NULL);",
                    "CREATE TABLE t (a INTEGER NOT NULL);"] {
            #expect(try LintFixture.lint(sql, rule: rule).isEmpty, "\(sql)")
        }
    }

    @Test func pointsAtTheNotNullLineInTheFile() throws {
        let findings = try LintFixture.lint("SELECT 1;\nALTER TABLE t\n  ADD COLUMN c INTEGER\n  NOT NULL;", rule: rule)
        #expect(findings.map(\.line) == [5])
    }

    @Test func downSectionsAreCheckedToo() throws {
        let findings = try LintFixture.lint("SELECT 1;", rule: rule, down: "ALTER TABLE t ADD COLUMN c INTEGER NOT NULL;")
        #expect(findings.map(\.line) == [4])
    }
}

@Suite struct TransactionControlTests {
    private let rule = "transaction-control"

    @Test func flagsStatementsThatManageTheTransaction() throws {
        for keyword in ["BEGIN", "BEGIN IMMEDIATE", "COMMIT", "END TRANSACTION", "ROLLBACK", "SAVEPOINT s", "RELEASE s",
                        "VACUUM", "ATTACH 'x.db' AS x", "DETACH x", "commit"] {
            let findings = try LintFixture.lint("CREATE TABLE a (x);\n\(keyword);", rule: rule)
            #expect(findings.count == 1, "\(keyword)")
            #expect(findings.first?.line == 3, "\(keyword)")
            #expect(findings.first?.severity == .error)
            #expect(findings.first?.fix.contains("Remove it") == true, "\(keyword)")
        }
    }

    @Test func vacuumSaysItCannotRunInATransaction() throws {
        let finding = try LintFixture.lint("VACUUM;", rule: rule).first
        #expect(finding?.message.contains("cannot run inside a transaction") == true)
    }

    @Test func triggerBodiesConflictClausesAndRaiseAreNotTransactionControl() throws {
        let sql = """
        CREATE TABLE t (a INTEGER UNIQUE ON CONFLICT ROLLBACK);
        CREATE TRIGGER guard BEFORE DELETE ON t
        BEGIN
            SELECT RAISE(ROLLBACK, 'no deletes');
            UPDATE t SET a = CASE WHEN a > 0 THEN 1 ELSE 0 END;
        END;
        INSERT OR ROLLBACK INTO t VALUES (1);
        PRAGMA journal_mode = WAL;
        SELECT 'BEGIN; COMMIT;', "commit" FROM t; -- COMMIT;
        /* ROLLBACK; */
        """
        #expect(try LintFixture.lint(sql, rule: rule).isEmpty)
    }
}

@Suite struct DropTableWithDataTests {
    private let rule = "drop-table-with-data"

    @Test func namesTheRowCountWhenTheDatabaseHasRows() throws {
        let context = LintFixture.database(rows: ["users": 5, "one": 1])
        let findings = try LintFixture.lint("DROP TABLE users;\nDROP TABLE IF EXISTS main.\"One\";", rule: rule, context: context)
        #expect(findings.count == 2)
        #expect(findings.first?.severity == .warning)
        #expect(findings.first?.message.contains("its 5 rows") == true)
        #expect(findings.last?.message.contains("its 1 row.") == true)
        #expect(findings.map(\.line) == [2, 3])
    }

    @Test func saysWhenRowsAreUnknown() throws {
        let findings = try LintFixture.lint("DROP TABLE users;", rule: rule)
        #expect(findings.count == 1)
        #expect(findings.first?.message.contains("may hold data") == true)
        #expect(findings.first?.message.contains("no database was given") == true)
    }

    @Test func emptyTablesAreQuiet() throws {
        let context = LintFixture.database(rows: ["users": 0])
        #expect(try LintFixture.lint("DROP TABLE users;", rule: rule, context: context).isEmpty)
    }

    @Test func aTableCreatedEarlierInTheBatchIsKnownEmpty() throws {
        let files = [try LintFixture.file("0001_a", up: "CREATE TABLE scratch (a);"),
                     try LintFixture.file("0002_b", up: "SELECT 1;"),
                     try LintFixture.file("0005_c", up: "DROP TABLE scratch;")]
        #expect(MigrationLinter(context: LintFixture.debian12).lint(files).filter { $0.rule == rule }.isEmpty)
    }

    /// The finding names the statement that filled the table, which may sit in another
    /// file written long before: its migration, its kind, its file and line.
    @Test func butNotOnceTheBatchPutRowsInIt() throws {
        let files = [try LintFixture.file("0001_a", up: "CREATE TABLE scratch (a);\n\ninsert INTO scratch VALUES (1);"),
                     SQLMigrationFile(identifier: "0002_more", form: .upDownFiles,
                                      up: SQLSection(sql: "INSERT INTO scratch VALUES (2);", path: "migrations/0002_more.up.sql", startLine: 1), down: nil),
                     try LintFixture.file("0003_b", up: "DROP TABLE scratch;")]
        let findings = MigrationLinter(context: LintFixture.debian12).lint(files).filter { $0.rule == rule }
        #expect(findings.count == 1)
        #expect(findings.first?.path == "migrations/0003_b.sql")
        // The first statement that put rows in it, not a later one.
        #expect(findings.first?.message == "DROP TABLE scratch deletes the rows put in it by migration \"0001_a\" (the INSERT at migrations/0001_a.sql:4).")
        let fromUpFile = MigrationLinter(context: LintFixture.debian12).lint([
            try LintFixture.file("0001_a", up: "CREATE TABLE scratch (a);"),
            SQLMigrationFile(identifier: "0003_seed", form: .upDownFiles,
                             up: SQLSection(sql: "SELECT 1;\nREPLACE INTO scratch VALUES (1);", path: "migrations/0003_seed.up.sql", startLine: 1), down: nil),
            try LintFixture.file("0004_b", up: "DROP TABLE scratch;"),
        ]).filter { $0.rule == rule }
        #expect(fromUpFile.map(\.message) == ["DROP TABLE scratch deletes the rows put in it by migration \"0003_seed\" (the REPLACE at migrations/0003_seed.up.sql:2)."])
        let copied = try LintFixture.lint("CREATE TABLE c AS SELECT * FROM users;\nDROP TABLE c;", rule: rule,
                                          context: LintFixture.database(rows: ["users": 0]))
        #expect(copied.map(\.message) == ["DROP TABLE c deletes the rows put in it by migration \"0001_test\" (the CREATE TABLE … AS SELECT at migrations/0001_test.sql:2)."])
        let column = try LintFixture.lint("CREATE TABLE c AS SELECT * FROM users;\nALTER TABLE c DROP COLUMN a;", rule: "drop-column-with-data",
                                          context: LintFixture.database(rows: ["users": 0], version: SQLiteVersion(3, 45, 0)))
        #expect(column.map(\.message) == ["ALTER TABLE c DROP COLUMN a deletes the column's values in the rows put in it by migration \"0001_test\" (the CREATE TABLE … AS SELECT at migrations/0001_test.sql:2)."])
    }

    @Test func theTwelveStepRecreationCopiesTheRowsFirstSoItIsQuiet() throws {
        let context = LintFixture.database(rows: ["books": 8])
        let twelveStep = """
            CREATE TABLE books_new (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            INSERT INTO books_new (id, title) SELECT id, title FROM main."Books";
            DROP TABLE books;
            ALTER TABLE books_new RENAME TO books;
            """
        #expect(try LintFixture.lint(twelveStep, rule: rule, context: context).isEmpty)
        let viaCreateAs = "CREATE TABLE keep AS SELECT * FROM books;\nDROP TABLE books;"
        #expect(try LintFixture.lint(viaCreateAs, rule: rule, context: context).isEmpty)
        // Copying other rows out does not count, and nor does a copy made before the
        // table was recreated and filled again.
        let wrongTable = "INSERT INTO archive SELECT * FROM authors;\nDROP TABLE books;"
        #expect(try LintFixture.lint(wrongTable, rule: rule, context: context).count == 1)
        let stale = """
            INSERT INTO archive SELECT * FROM books;
            DROP TABLE books;
            CREATE TABLE books (a);
            INSERT INTO books VALUES (1);
            DROP TABLE books;
            """
        #expect(try LintFixture.lint(stale, rule: rule, context: context).map(\.line) == [6])
    }

    @Test func followsRenamesAndDropsWithinTheBatch() throws {
        let context = LintFixture.database(rows: ["old": 2])
        let renamed = try LintFixture.lint("ALTER TABLE old RENAME TO new;\nDROP TABLE new;", rule: rule, context: context)
        #expect(renamed.count == 1)
        #expect(renamed.first?.message.contains("2 rows") == true)
        let twice = try LintFixture.lint("DROP TABLE old;\nDROP TABLE IF EXISTS old;", rule: rule, context: context)
        #expect(twice.map(\.line) == [2])
    }

    @Test func createIfNotExistsDoesNotHideExistingRows() throws {
        let context = LintFixture.database(rows: ["users": 3])
        let findings = try LintFixture.lint("CREATE TABLE IF NOT EXISTS users (a);\nDROP TABLE users;", rule: rule, context: context)
        #expect(findings.count == 1)
    }

    @Test func dropTableInLiteralsCommentsViewsOrDownSectionsIsQuiet() throws {
        let context = LintFixture.database(rows: ["users": 5])
        let sql = """
        SELECT 'DROP TABLE users;';
        -- DROP TABLE users;
        /* DROP TABLE users; */
        DROP VIEW users;
        """
        #expect(try LintFixture.lint(sql, rule: rule, context: context, down: "DROP TABLE users;").isEmpty)
    }

    @Test func dropColumnWarnsAboutItsValues() throws {
        let context = LintFixture.database(rows: ["users": 3], version: SQLiteVersion(3, 45, 0))
        let findings = try LintFixture.lint("ALTER TABLE users DROP COLUMN age;", context: context)
        #expect(findings.map(\.rule) == ["drop-column-with-data"])
        #expect(findings.first?.severity == .warning)
        #expect(findings.first?.message.contains("age") == true)
        #expect(findings.first?.message.contains("3 rows") == true)
        // On 3.15.2 DROP COLUMN does not exist either.
        let old = try LintFixture.lint("ALTER TABLE users DROP COLUMN age;", context: LintFixture.database(rows: ["users": 3]))
        #expect(Set(old.map(\.rule)) == ["drop-column-with-data", "unsupported-sql"])
        let empty = try LintFixture.lint("ALTER TABLE users DROP age;", rule: "drop-column-with-data",
                                         context: LintFixture.database(rows: ["users": 0]))
        #expect(empty.isEmpty)
        let mentioned = try LintFixture.lint("SELECT 'ALTER TABLE users DROP COLUMN age'; -- ALTER TABLE users DROP COLUMN age\nALTER TABLE \"users\" RENAME TO people;",
                                             context: context)
        #expect(mentioned.isEmpty, "\(mentioned)")
    }
}

@Suite struct PragmaForeignKeysTests {
    private let rule = "pragma-foreign-keys"

    @Test func flagsEveryFormOfThePragma() throws {
        for sql in ["PRAGMA foreign_keys = OFF;", "PRAGMA main.foreign_keys = OFF;", "pragma FOREIGN_KEYS;",
                    "PRAGMA foreign_keys(0);", "PRAGMA \"foreign_keys\" = ON;"] {
            let findings = try LintFixture.lint(sql, rule: rule)
            #expect(findings.count == 1, "\(sql)")
            #expect(findings.first?.severity == .warning)
            #expect(findings.first?.message.contains("does nothing inside a transaction") == true)
        }
    }

    @Test func otherPragmasAndMentionsAreQuiet() throws {
        let sql = """
        PRAGMA foreign_key_check;
        PRAGMA defer_foreign_keys = ON;
        PRAGMA foreign_key_list(t);
        SELECT 'PRAGMA foreign_keys = OFF';
        -- PRAGMA foreign_keys = OFF;
        """
        #expect(try LintFixture.lint(sql, rule: rule).isEmpty)
    }
}

@Suite struct RenameTableReferencedByViewTests {
    private let rule = "rename-table-referenced-by-view"

    @Test func namesTheDatabasesViews() throws {
        let context = LintFixture.database(views: ["users": ["active_users", "admins"]])
        let findings = try LintFixture.lint("ALTER TABLE users RENAME TO people;", rule: rule, context: context)
        #expect(findings.count == 1)
        #expect(findings.first?.severity == .warning)
        #expect(findings.first?.message.contains("\"active_users\", \"admins\" refer to users") == true)
        #expect(findings.first?.message.contains("before 3.25") == true)
        #expect(findings.first?.fix.contains("Drop the views first") == true)
        #expect(findings.first?.fix.contains("referring to people") == true)
    }

    @Test func countsViewsCreatedEarlierInTheBatch() throws {
        let files = [try LintFixture.file("0001_a", up: "CREATE VIEW recent AS SELECT * FROM \"Users\" WHERE id > 10;"),
                     try LintFixture.file("0002_b", up: "ALTER TABLE users RENAME TO people;")]
        let findings = MigrationLinter(context: LintFixture.debian12).lint(files).filter { $0.rule == rule }
        #expect(findings.count == 1)
        #expect(findings.first?.message.contains("\"recent\"") == true)
    }

    @Test func viewsDroppedEarlierInTheBatchNoLongerCount() throws {
        let context = LintFixture.database(views: ["users": ["active_users"]])
        let sql = "DROP VIEW active_users;\nALTER TABLE users RENAME TO people;\nCREATE VIEW active_users AS SELECT * FROM people;"
        #expect(try LintFixture.lint(sql, rule: rule, context: context).isEmpty)
    }

    @Test func fromSQLite325ViewsFollowARenameSoAPlainRenameIsFine() throws {
        let context = LintFixture.database(views: ["users": ["active_users"]], version: SQLiteVersion(3, 40, 1))
        #expect(try LintFixture.lint("ALTER TABLE users RENAME TO people;", rule: rule, context: context).isEmpty)
    }

    @Test func fromSQLite325ARenameFailsWhileAViewLostItsTable() throws {
        // The 12-step procedure without dropping the views first.
        let twelveStep = """
        CREATE TABLE new_users (id INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO new_users SELECT id, name FROM users;
        DROP TABLE users;
        ALTER TABLE new_users RENAME TO users;
        """
        let modern = LintFixture.database(rows: ["users": 4], views: ["users": ["active_users"]], version: SQLiteVersion(3, 40, 1))
        let findings = try LintFixture.lint(twelveStep, rule: rule, context: modern)
        #expect(findings.map(\.line) == [5])
        #expect(findings.first?.message.contains("\"active_users\" still refers to users") == true)
        #expect(findings.first?.message.contains("no such table: main.users") == true)
        #expect(findings.first?.fix.contains("before dropping users") == true)
        // Dropping the view first, as the fix says, is quiet.
        let fixed = "DROP VIEW active_users;\n" + twelveStep + "\nCREATE VIEW active_users AS SELECT * FROM users;"
        #expect(try LintFixture.lint(fixed, rule: rule, context: modern).isEmpty)
        // SQLite 3.15.2 renames without looking at views: the view works again afterwards.
        let legacy = LintFixture.database(rows: ["users": 4], views: ["users": ["active_users"]])
        #expect(try LintFixture.lint(twelveStep, rule: rule, context: legacy).isEmpty)
    }

    /// A view follows a rename (3.25+), so after `t` became `t2` a 12-step rebuild of
    /// `t2` leaves it without its table, as surely as one of `t` would have.
    @Test func aViewThatFollowedAnEarlierRenameStillCounts() throws {
        let modern = LintFixture.database(rows: ["t": 3], views: ["t": ["v"]], version: SQLiteVersion(3, 46, 1))
        let files = [try LintFixture.file("0003_rename", up: "ALTER TABLE t RENAME TO t2;"),
                     try LintFixture.file("0004_rebuild", up: "CREATE TABLE t_new (x);\nINSERT INTO t_new SELECT x FROM t2;\nDROP TABLE t2;\nALTER TABLE t_new RENAME TO t2;")]
        let findings = MigrationLinter(context: modern).lint(files).filter { $0.rule == rule }
        #expect(findings.count == 1 && findings.first?.message.contains("\"v\" still refers to t2") == true, "\(findings)")
    }

    /// With --min-sqlite the linked SQLite is still one the migrations meet: its own
    /// risk is reported beside the older one's.
    @Test func aMinimumVersionKeepsTheLinkedVersionsFinding() throws {
        let twelveStep = "CREATE TABLE new_users (id);\nINSERT INTO new_users SELECT id FROM users;\nDROP TABLE users;\nALTER TABLE new_users RENAME TO users;"
        let modern = LintFixture.database(rows: ["users": 4], views: ["users": ["active_users"]], version: SQLiteVersion(3, 46, 1))
        let findings = try LintFixture.lint(twelveStep, rule: rule, context: modern.judgedAgainst(minimum: SQLiteVersion(3, 15, 2)))
        #expect(findings.contains { $0.message.contains("no such table: main.users") }, "\(findings)")
    }

    @Test func mentionsInsideLiteralsOrOfOtherTablesDoNotCount() throws {
        let sql = """
        CREATE VIEW labels AS SELECT 'users' AS kind FROM other; -- users
        ALTER TABLE users RENAME TO people;
        ALTER TABLE other RENAME COLUMN kind TO sort;
        """
        #expect(try LintFixture.lint(sql, rule: rule).isEmpty)
    }
}

@Suite struct MissingDownTests {
    private let rule = "missing-down"

    @Test func flagsASectionsFileWithoutDownAtItsUpLine() throws {
        let file = try SQLMigrationFileParser.parseSections("-- a comment\n\n-- migrate:up\nCREATE TABLE t (a);\n",
                                                            identifier: "0001_t", path: "m/0001_t.sql")
        let findings = MigrationLinter(context: LintFixture.debian12).lint([file]).filter { $0.rule == rule }
        #expect(findings.count == 1)
        #expect(findings.first?.line == 3)
        #expect(findings.first?.severity == .warning)
        #expect(findings.first?.message.contains("0001_t") == true)
        #expect(findings.first?.fix.contains("-- migrate:down") == true)
    }

    @Test func flagsAnUpFileWithoutDownFile() throws {
        let file = try SQLMigrationFileParser.parseUpDown(upText: "CREATE TABLE t (a);", upPath: "m/0001_t.up.sql",
                                                          downText: nil, downPath: nil, identifier: "0001_t")
        let findings = MigrationLinter(context: LintFixture.debian12).lint([file]).filter { $0.rule == rule }
        #expect(findings.map(\.line) == [1])
        #expect(findings.first?.fix.contains("0001_t.down.sql") == true)
    }

    /// A down section counts when it holds a statement: one that changes nothing
    /// (`SELECT 1;`) says there is nothing to undo.
    @Test func aDownSectionCountsWhenItHoldsAStatement() throws {
        #expect(try LintFixture.lint("CREATE TABLE t (a);", rule: rule, down: "DROP TABLE t;").isEmpty)
        #expect(try LintFixture.lint("CREATE TABLE t (a);", rule: rule, down: "SELECT 1; -- nothing to undo").isEmpty)
    }

    /// Blank, comments alone (diesel's generated `down.sql`, an unfilled `new`
    /// template) or `;` alone undo nothing: no down section, flagged at the
    /// `-- migrate:down` line.
    @Test(arguments: ["", "\n  \t\n", "-- nothing to undo", "-- This file should undo anything in up.sql\n", "/* later */ ;\n;"])
    func aDownSectionWithoutStatementIsFlaggedAtItsLine(_ down: String) throws {
        let findings = try LintFixture.lint("CREATE TABLE t (a);", rule: rule, down: down)
        #expect(findings.map(\.line) == [3], "\(findings)")
        #expect(findings.first?.message.contains("holds no statement") == true)
        #expect(findings.first?.fix.contains("`SELECT 1;`") == true)
    }

    @Test func aDownFileWithoutStatementIsFlaggedInThatFile() throws {
        let file = try SQLMigrationFileParser.parseUpDown(upText: "CREATE TABLE t (a);", upPath: "m/0001_t.up.sql",
                                                          downText: "-- This file should undo anything in up.sql\n", downPath: "m/0001_t.down.sql",
                                                          identifier: "0001_t")
        #expect(file.down == nil && file.emptyDown?.path == "m/0001_t.down.sql")
        let findings = MigrationLinter(context: LintFixture.debian12).lint([file]).filter { $0.rule == rule }
        #expect(findings.map { "\($0.path):\($0.line)" } == ["m/0001_t.down.sql:1"])
    }
}

@Suite struct NonConstantDefaultTests {
    private let rule = "non-constant-default"

    @Test func flagsDefaultsSQLiteRefusesOnTablesWithRows() throws {
        for sql in ["ALTER TABLE t ADD COLUMN created TEXT DEFAULT CURRENT_TIMESTAMP;",
                    "ALTER TABLE t ADD COLUMN d TEXT DEFAULT current_date;",
                    "ALTER TABLE t ADD c INTEGER DEFAULT (1 + 1);",
                    "ALTER TABLE t ADD COLUMN r INTEGER DEFAULT (random());"] {
            let findings = try LintFixture.lint(sql, rule: rule, context: LintFixture.modern)
            #expect(findings.count == 1 && findings.first?.severity == .error, "\(sql)")
            #expect(findings.first?.fix.contains("UPDATE t SET") == true)
        }
    }

    @Test func constantsAreFine() throws {
        for sql in ["ALTER TABLE t ADD COLUMN a INTEGER DEFAULT 0;", "ALTER TABLE t ADD COLUMN a INTEGER DEFAULT -1;",
                    "ALTER TABLE t ADD COLUMN a TEXT DEFAULT 'CURRENT_TIMESTAMP';", "ALTER TABLE t ADD COLUMN a INTEGER DEFAULT (1);",
                    "ALTER TABLE t ADD COLUMN a BLOB DEFAULT x'00';", "ALTER TABLE t ADD COLUMN a TEXT DEFAULT NULL;",
                    "ALTER TABLE t ADD COLUMN a TEXT; -- DEFAULT CURRENT_TIMESTAMP",
                    "CREATE TABLE t (a TEXT DEFAULT CURRENT_TIMESTAMP);",
                    // SQLite reads DEFAULT "name" and DEFAULT name as strings (a real diesel migration's).
                    "ALTER TABLE users ADD COLUMN settings TEXT NOT NULL default \"{}\";", "ALTER TABLE t ADD COLUMN a TEXT NOT NULL DEFAULT abc;"] {
            #expect(try LintFixture.lint(sql, rule: rule, context: LintFixture.modern).isEmpty, "\(sql)")
        }
    }
}

@Suite struct JournalModeTests {
    private let rule = "journal-mode"

    @Test func settingTheJournalModeIsAnError() throws {
        for sql in ["PRAGMA journal_mode = WAL;", "PRAGMA main.journal_mode=delete;", "PRAGMA journal_mode(TRUNCATE);"] {
            let findings = try LintFixture.lint(sql, rule: rule)
            #expect(findings.count == 1 && findings.first?.severity == .error, "\(sql)")
        }
    }

    @Test func readingItOrNamingItIsNot() throws {
        for sql in ["PRAGMA journal_mode;", "SELECT 'PRAGMA journal_mode = WAL';", "PRAGMA journal_size_limit = 100;"] {
            #expect(try LintFixture.lint(sql, rule: rule).isEmpty, "\(sql)")
        }
    }
}

/// A migration declared compatible with older releases that takes away what their code
/// may use: a warning on the statement, none without the declaration, none for what only
/// adds, none in the down section (which undoes the migration).
@Suite struct CompatibleButBreakingTests {
    private let rule = "compatible-but-breaking"

    private func lint(_ up: String, declared: Bool = true, down: String = "SELECT 1;") throws -> [LintFinding] {
        let text = (declared ? "-- migrate:compatible\n" : "") + "-- migrate:up\n" + up + "\n-- migrate:down\n" + down
        let file = try SQLMigrationFileParser.parseSections(text, identifier: "0002_x", path: "migrations/0002_x.sql")
        return MigrationLinter(context: LintFixture.debian12).lint([file]).filter { $0.rule == rule }
    }

    @Test func takingAwayWhatOlderCodeUsesIsFlagged() throws {
        for (sql, change) in [("DROP TABLE notes;", "drops table notes"),
                              ("DROP VIEW recent;", "drops view recent"),
                              ("ALTER TABLE notes RENAME TO memo;", "renames table notes to memo"),
                              ("ALTER TABLE notes RENAME COLUMN body TO text;", "renames a column of notes"),
                              ("ALTER TABLE notes DROP COLUMN color;", "drops column color of notes")] {
            let findings = try lint(sql)
            #expect(findings.count == 1 && findings.first?.severity == .warning && findings.first?.line == 3, "\(sql): \(findings)")
            #expect(findings.first?.message.contains(change) == true, "\(sql): \(findings)")
            #expect(try lint(sql, declared: false).isEmpty, "\(sql)")
        }
    }

    @Test func addingIsCompatibleAndTheDownIsNotJudged() throws {
        for sql in ["CREATE TABLE tags (id INTEGER PRIMARY KEY);", "CREATE INDEX notes_body ON notes(body);",
                    "ALTER TABLE notes ADD COLUMN color TEXT NOT NULL DEFAULT 'white';"] {
            #expect(try lint(sql, down: "DROP TABLE tags; ALTER TABLE notes DROP COLUMN color;").isEmpty, "\(sql)")
        }
    }
}
