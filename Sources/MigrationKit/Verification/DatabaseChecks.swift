import Foundation

/// The verifier's SQL, written once for every database layer: `quick_check`, the
/// foreign-key check and the required-index check, each answered as a
/// `VerificationCheck` whose detail says what was found. A check that cannot even run
/// (a page too damaged to read) is a failed check, not a raw database error.
package enum DatabaseChecks {
    /// `PRAGMA quick_check` of the whole file, or of one table and its indexes (SQLite
    /// 3.33+).
    ///
    /// SQLite 3.44+ also asks each full-text index it has loaded to check itself, and a
    /// contentless FTS3/FTS4 index (`content=''`) answers that it cannot ("unable to
    /// validate the inverted index …"): it keeps no text to compare with. That answer is
    /// no finding, and is left out (`virtualTableChecks` says the index was not checked).
    /// So, in the whole file's check, is an external-content FTS4 index's "malformed
    /// inverted index": its check compares it with every row of its table, which the
    /// app's triggers may fill in part on purpose, and `virtualTableChecks` runs that
    /// check again and says how the index differs, and what to do (never a restore: the
    /// file's pages are sound).
    ///
    /// To load a full-text index SQLite needs its tokenizer, so where the index uses one
    /// only the app registers, the whole file's check cannot even start ("no such
    /// tokenizer"), though nothing is damaged. Then every table (the index's own storage
    /// tables among them) and its indexes are checked one by one, which needs no
    /// tokenizer, and the check says what it could not run (`AppExtensionNeed`);
    /// `virtualTableChecks` names the indexes. A SQLite before 3.33, which cannot check
    /// one table, never checks the indexes there, so never needs their tokenizers.
    package static func quickCheck(_ db: some SQLQuerying, table: String? = nil) -> VerificationCheck {
        let name = table.map { "quick_check(\($0))" } ?? "quick_check"
        do {
            // The whole file's check needs them first, for its limit; one table's only to
            // read an answer other than "ok" (a verification after a run checks each table
            // it changed, and each would otherwise read the schema again).
            let contentlessBefore = table == nil ? try contentlessFTS4Tables(db) : []
            let external = table == nil ? try externalContentFTS4Tables(db) : []
            // One finding, after as many lines as the indexes checked apart may answer.
            let sql = table.map { "PRAGMA quick_check(\(quoteIdentifier($0)))" } ?? "PRAGMA quick_check(\(1 + contentlessBefore.count + external.count))"
            let answer: [String]
            do {
                answer = try db.textColumn(sql: sql)
            } catch let error where table == nil && appExtensionNeed(of: error, in: db) != nil {
                return quickCheckTableByTable(db, because: appExtensionNeed(of: error, in: db)!)
            }
            let contentless = table == nil || answer == ["ok"] ? contentlessBefore : try contentlessFTS4Tables(db)
            func isFinding(_ line: String) -> Bool {
                !(line.hasPrefix("unable to validate the inverted index for FTS") && contentless.contains { line.contains(" table main.\($0):") })
                    && !(line.hasPrefix("malformed inverted index for FTS") && external.contains { line.hasSuffix(" table main.\($0)") })
            }
            let findings = answer.filter(isFinding)
            let result = findings.isEmpty && !answer.isEmpty ? "ok" : findings.prefix(1).joined(separator: "; ")
            guard result == "ok" else {
                return .failed(name, MigrationKitError.quickCheckFailed(result: oneLine(result.isEmpty ? "no answer" : result)))
            }
            return .passed(name, detail: "ok")
        } catch {
            if let need = appExtensionNeed(of: error, in: db) { return .notChecked(name, needing: need) }
            return .failed(name, MigrationKitError.quickCheckFailed(result: oneLine(type(of: db).message(of: error))))
        }
    }

    /// The checks of `tables`, each "ok", from one `quick_check` of the whole file, where
    /// that costs less than checking them one by one and answers "ok"; nil otherwise, for
    /// the checks one table at a time, which then say what they find.
    ///
    /// Each table's check has a price of its own (a statement prepared and run, the
    /// schema looked up: about as much as reading a few pages), so a run that changed
    /// hundreds of small tables (an app's history of small steps, run at once on a new
    /// database) paid more for its checks than for its steps. The whole file's check
    /// reads every b-tree, the changed tables' and their indexes' among them, so its
    /// "ok" is each of theirs. It is tried only where the file has at most
    /// `pagesPerTableCheck` pages for each changed table, so that reading the tables
    /// the run left alone costs at most a few table checks' worth; and never for a
    /// virtual table, whose own check only one table at a time says it could not run.
    /// Any other answer (an error, a finding, a full-text index that cannot check
    /// itself, something only the app registers) is not taken for anyone's: the tables
    /// are checked one by one, as without this, so a damaged table the run did not
    /// change fails nothing, as before.
    package static func quickCheckAtOnce(_ tables: [String], _ db: some SQLQuerying) -> [VerificationCheck]? {
        guard tables.count > 1 else { return nil }
        do {
            guard let pages = try db.textColumn(sql: "PRAGMA main.page_count").first.flatMap({ Int($0) }),
                  pages <= tables.count * pagesPerTableCheck else { return nil }
            let virtual = Set(try db.textColumn(sql: "SELECT name FROM main.sqlite_master WHERE type = 'table' AND rootpage = 0"))
            guard !tables.contains(where: virtual.contains),
                  try db.textColumn(sql: "PRAGMA main.quick_check(1)") == ["ok"] else { return nil }
        } catch {
            return nil
        }
        return tables.map { .passed("quick_check(\($0))", detail: "ok") }
    }

    /// How many pages of the file `quickCheckAtOnce` reads in place of one table's check.
    static let pagesPerTableCheck = 4

    /// `quick_check` of each table with its indexes, one by one (SQLite 3.33+), for a
    /// database whose whole-file check needs `need` (a full-text index's tokenizer only
    /// the app registers): every b-tree a table or index keeps is read and checked, the
    /// full-text indexes' storage tables included; what the whole-file check adds (each
    /// index's own check, pages no b-tree uses) is not. A table whose check needs
    /// something else the app registers (an index's collation) is named as not checked.
    private static func quickCheckTableByTable(_ db: some SQLQuerying, because need: AppExtensionNeed) -> VerificationCheck {
        let name = "quick_check"
        guard let version = try? db.textColumn(sql: "SELECT sqlite_version()").first.flatMap(SQLiteVersion.init), version >= .tableQuickCheck else {
            return .notChecked(name, needing: need)
        }
        do {
            var unmet = [need]
            var skipped: [String] = []
            for table in try db.textColumn(sql: "SELECT name FROM main.sqlite_master WHERE type = 'table' AND rootpage > 0 ORDER BY rowid") {
                let answer: [String]
                do {
                    answer = try db.textColumn(sql: "PRAGMA main.quick_check(\(quoteIdentifier(table)))")
                } catch let error where appExtensionNeed(of: error, in: db) != nil {
                    unmet.append(appExtensionNeed(of: error, in: db)!)
                    skipped.append(table)
                    continue
                }
                guard answer == ["ok"] else {
                    return .failed(name, MigrationKitError.quickCheckFailed(result: oneLine(answer.first ?? "no answer")))
                }
            }
            let notChecked = skipped.isEmpty ? "" : "; not checked: \(skipped.joined(separator: ", "))"
            return .passed(name, detail: "ok, table by table (the whole file's check needs \(need))\(notChecked)", notChecking: unmet)
        } catch {
            return .failed(name, MigrationKitError.quickCheckFailed(result: oneLine(type(of: db).message(of: error))))
        }
    }

    /// What only the app registers that `error` says the connection lacks: an ordinary
    /// failure (SQLITE_ERROR) naming a tokenizer, function, collation or module.
    /// Damage (SQLITE_CORRUPT) never is one, whatever its words.
    package static func appExtensionNeed(of error: any Error, in db: some SQLQuerying) -> AppExtensionNeed? {
        appExtensionNeed(of: error, as: type(of: db))
    }

    /// `appExtensionNeed(of:in:)` for a layer's errors, without a connection at hand.
    package static func appExtensionNeed<Layer: SQLQuerying>(of error: any Error, as layer: Layer.Type) -> AppExtensionNeed? {
        let code = layer.resultCode(of: error)?.primaryResultCode
        guard code == nil || code == .SQLITE_ERROR else { return nil }
        return AppExtensionNeed(sqliteMessage: layer.message(of: error))
    }

    /// Why a backup may not take a database's place (`restore`), in one sentence, from its
    /// `quick_check` (`quickCheck`: table by table, where the whole file's check needs
    /// what only the app registers); nil when it passed. Both connections' restores prove
    /// a backup with it, after opening it read-only with the database's key.
    package static func backupRefusal(_ check: VerificationCheck) -> String? {
        guard let failure = check.failure else { return nil }
        var result = check.detail
        if case MigrationKitError.quickCheckFailed(let found)? = failure as? MigrationKitError { result = found }
        return "The backup fails its integrity check (\(result)); choose another backup."
    }

    /// Each full-text (FTS3, FTS4, FTS5) and R*Tree index checked by its own command,
    /// which `quick_check` never runs: FTS's `integrity-check` (FTS5's with rank 1, which
    /// also compares an external-content index with its table's rows, where a copy that
    /// moved rowids shows), R*Tree's `rtreecheck()` (SQLite 3.24+). A check the database
    /// cannot run here does not apply, and says why: FTS's command is an `INSERT` that
    /// writes nothing, which a read-only connection refuses; an index may need a module
    /// or tokenizer only the app registers, or a newer SQLite.
    package static func virtualTableChecks(_ db: some SQLQuerying) -> [VerificationCheck] {
        let tables: [(name: String, module: String)]
        let contentless: Set<String>
        do {
            contentless = Set(try contentlessFTS4Tables(db))
            tables = try db.textRows(sql: "SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name")
                .compactMap { row in
                    guard let name = row[0], let module = row[1].flatMap(TableDefinition.init(sql:))?.module else { return nil }
                    return (name, module)
                }
        } catch {
            return [.failed("virtual tables", MigrationKitError.quickCheckFailed(result: oneLine(type(of: db).message(of: error))))]
        }
        let external = (try? ExternalContentIndex.all(in: db)) ?? [:]
        return tables.compactMap { table in
            let name = quoteIdentifier(table.name)
            let indexing = external[table.name.lowercased()]
            switch table.module {
            case "fts5":
                // An index the app fills in part: its own structure only (rank 0), as
                // comparing it with every row of its table would fail by design.
                if let indexing, case .someRows = indexing.filling {
                    return partlyFilledIndexCheck(db, indexing, sql: "INSERT INTO \(name)(\(name), rank) VALUES ('integrity-check', 0)")
                }
                return virtualTableCheck(db, table: table.name, module: "FTS5",
                                         sql: "INSERT INTO \(name)(\(name), rank) VALUES ('integrity-check', 1)", answersOK: false, indexing: indexing)
            case "fts3", "fts4":
                guard !contentless.contains(table.name) else {
                    return .notApplicable("\(table.module.uppercased()) index \(table.name)",
                                          reason: "not checked: a contentless index (content='') keeps no text to check its index against")
                }
                if let indexing, case .someRows = indexing.filling { return partlyFilledIndexCheck(db, indexing, sql: nil) }
                return virtualTableCheck(db, table: table.name, module: table.module.uppercased(),
                                         sql: "INSERT INTO \(name)(\(name)) VALUES ('integrity-check')", answersOK: false, indexing: indexing)
            case "rtree", "rtree_i32":
                return virtualTableCheck(db, table: table.name, module: "R*Tree",
                                         sql: "SELECT rtreecheck(\(quoteLiteral(table.name)))", answersOK: true)
            default:
                return nil
            }
        }
    }

    /// One index's own check: `sql` fails on a damaged index (FTS's commands, with
    /// SQLITE_CORRUPT), or answers "ok" or what is wrong (`rtreecheck`). An
    /// external-content index (`indexing`) that fails is named with how it differs from
    /// its table, and a rebuild advised only where the app's triggers index every row.
    private static func virtualTableCheck(_ db: some SQLQuerying, table: String, module: String, sql: String, answersOK: Bool,
                                          indexing: ExternalContentIndex? = nil) -> VerificationCheck {
        let name = "\(module) index \(table)"
        do {
            let answer = try allowingStatementsThatWriteNothing(db) { try db.textColumn(sql: sql).joined(separator: "; ") }
            guard !answersOK || answer == "ok" else {
                return .failed(name, MigrationKitError.virtualTableIndexDamaged(table: table, module: module, result: oneLine(answer)))
            }
            return .passed(name, detail: "ok")
        } catch {
            switch type(of: db).resultCode(of: error) ?? .SQLITE_OK {
            case .SQLITE_CORRUPT:
                if let indexing, let difference = indexing.difference(in: db) {
                    return .failed(name, FullTextIndexDifference(index: indexing, difference: difference))
                }
                // SQLite's words here are only "database disk image is malformed".
                return .failed(name, MigrationKitError.virtualTableIndexDamaged(table: table, module: module, result: "its integrity-check fails"))
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return .notApplicable(name, reason: "not checked: another connection is changing the database")
            case .SQLITE_READONLY:
                return .notApplicable(name, reason: "not checked: the database is open read-only, and \(module)'s check is a statement SQLite runs only where it may write (it writes nothing)")
            default:
                if let need = appExtensionNeed(of: error, in: db) { return .notChecked(name, needing: need) }
                return .notApplicable(name, reason: "not checked: this SQLite cannot run \(module)'s check here (\(oneLine(type(of: db).message(of: error))))")
            }
        }
    }

    /// An external-content index the app's triggers fill with only some of its table's
    /// rows: not compared with that table, which would fail by design. FTS5's check of
    /// its own structure (`sql`, rank 0) still runs; FTS4 has none apart (`sql` nil).
    private static func partlyFilledIndexCheck(_ db: some SQLQuerying, _ indexing: ExternalContentIndex, sql: String?) -> VerificationCheck {
        guard case .someRows(let condition) = indexing.filling else { preconditionFailure("an index filled with every row") }
        let held = indexing.difference(in: db).map { "; it \($0)" } ?? ""
        let why = "not compared with \(indexing.contentTable): the app's triggers index only the rows where \(condition)\(held)"
        guard let sql else { return .notApplicable("\(indexing.module) index \(indexing.table)", reason: why) }
        let checked = virtualTableCheck(db, table: indexing.table, module: indexing.module, sql: sql, answersOK: false)
        guard checked.passed, checked.ran else { return checked }
        return .passed(checked.name, detail: "ok (its own structure; \(why))")
    }

    /// The external-content FTS4 indexes (`ExternalContentIndex`), whose whole-file check
    /// SQLite 3.44+ reports as "malformed" where they differ from their table's rows.
    private static func externalContentFTS4Tables(_ db: some SQLQuerying) throws -> [String] {
        try ExternalContentIndex.all(in: db).values.filter { $0.module == "FTS4" }.map(\.table)
    }

    /// The contentless FTS3 and FTS4 indexes (`content=''`) of the main database.
    private static func contentlessFTS4Tables(_ db: some SQLQuerying) throws -> [String] {
        try db.textColumn(sql: "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
            .compactMap(TableDefinition.init(sql:))
            .filter { ["fts3", "fts4"].contains($0.module) && $0.isContentless }
            .map(\.name)
    }

    /// Runs `body` with `PRAGMA query_only` off, when it was on: a look at a database
    /// (`verify`, `status`) reads a writable file through a connection with `query_only`
    /// on, which also refuses FTS's `integrity-check`, an `INSERT` that writes nothing.
    /// A file opened read-only still refuses it.
    private static func allowingStatementsThatWriteNothing<T>(_ db: some SQLQuerying, _ body: () throws -> T) throws -> T {
        guard try db.textColumn(sql: "PRAGMA query_only").first == "1" else { return try body() }
        try db.forEachTextRow(sql: "PRAGMA query_only = 0", arguments: []) { _ in }
        defer { try? db.forEachTextRow(sql: "PRAGMA query_only = 1", arguments: []) { _ in } }
        return try body()
    }

    /// `PRAGMA cipher_integrity_check`: every page's HMAC, passed or failed, naming the
    /// damaged pages (which `quick_check`, reading the b-trees, cannot). Only where
    /// `cipherPageChecking` says it applies, and outside a write transaction: the pragma reads the
    /// pages in the file, so it names each page a transaction has spilled or grown the
    /// file by as failing.
    package static func cipherIntegrityCheck(_ db: some SQLQuerying) -> VerificationCheck {
        let name = "cipher_integrity_check"
        do {
            let problems = try db.textColumn(sql: "PRAGMA cipher_integrity_check")
            guard problems.isEmpty else {
                let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; and \(problems.count - 3) more" : "")
                return .failed(name, MigrationKitError.quickCheckFailed(result: oneLine(shown)))
            }
            return .passed(name, detail: "ok")
        } catch {
            return .failed(name, MigrationKitError.quickCheckFailed(result: oneLine(type(of: db).message(of: error))))
        }
    }

    /// Whether every page of the file reads: `cipher_integrity_check` (every page's
    /// HMAC, the free ones too) where it applies (`cipherPageChecking`), else
    /// `quick_check`. What a command that is about to write on a database it did not
    /// just verify asks first, so damage is refused before anything is written.
    package static func everyPageReads(_ db: some SQLQuerying) -> VerificationCheck {
        cipherPageChecking(db) == .applies ? cipherIntegrityCheck(db) : quickCheck(db)
    }

    /// Whether `cipher_integrity_check` can say something about this database.
    package enum CipherPageChecking: Equatable {
        /// Encrypted, with an HMAC on every page, by SQLCipher 4.2 or later.
        case applies
        /// Encrypted without page HMACs (SQLCipher 1's format, or `cipher_use_hmac =
        /// OFF`): there is nothing to check, and the pragma's "HMAC is not enabled"
        /// is no finding. `quick_check` still reads every page.
        case noPageHMAC
        /// Not encrypted, or a SQLCipher before 4.2 (which ignores the pragma, answering
        /// nothing, which would read as a pass), or a plain SQLite: the question does
        /// not arise.
        case unavailable
    }

    /// What `cipher_integrity_check` means on this connection: it is encrypted
    /// (`PRAGMA cipher_provider` answers only once a key is set) by SQLCipher 4.2 or
    /// later, with page HMACs (`PRAGMA cipher_use_hmac`, the open database's setting).
    package static func cipherPageChecking(_ db: some SQLQuerying) -> CipherPageChecking {
        guard let version = try? db.textColumn(sql: "PRAGMA cipher_version").first.flatMap(SQLCipherVersion.init(parsing:)),
              SQLCipherFeature.integrityCheck.isAvailable(in: version),
              (try? db.textColumn(sql: "PRAGMA cipher_provider").isEmpty == false) ?? false
        else { return .unavailable }
        return (try? db.textColumn(sql: "PRAGMA cipher_use_hmac").first) == "0" ? .noPageHMAC : .applies
    }

    /// `cipher_integrity_check` reported as not applying to a file without page HMACs.
    static let noPageHMACCheck = VerificationCheck.notApplicable(
        "cipher_integrity_check",
        reason: "not applicable: the database has no per-page HMAC (SQLCipher 1's format, or cipher_use_hmac off), so only quick_check reads its pages")

    /// `PRAGMA foreign_key_check` of `tables` (nil: every table).
    /// - Parameters:
    ///   - db: the connection to check through.
    ///   - tables: the tables whose rows are checked; nil checks every table.
    ///   - tolerated: violations that pass (the database had them before a migration);
    ///     nil tolerates any. Found violations are named in the detail either way.
    ///   - pragmaFunctions: with `tables`, the SQLite has `pragma_foreign_key_check()`
    ///     (3.20+), so one statement checks each table with the name bound.
    static func foreignKeyCheck(_ db: some SQLQuerying, tables: [String]? = nil, tolerating tolerated: ForeignKeyViolations? = ForeignKeyViolations(),
                                       pragmaFunctions: Bool = false) -> VerificationCheck {
        do {
            guard try foreignKeyViolationCount(in: db, tables: tables, pragmaFunctions: pragmaFunctions) > 0 else {
                return .passed("foreign_key_check", detail: "no violations")
            }
            let found = try foreignKeyViolations(in: db, tables: tables, pragmaFunctions: pragmaFunctions)
            let rows = "\(found.count) row\(found.count == 1 ? "" : "s") reference\(found.count == 1 ? "s" : "") a missing parent (\(found.summary()))"
            if tolerated.map(found.isWithin) ?? true {
                return .passed("foreign_key_check", detail: rows + ", all there before the migration")
            }
            let error = MigrationKitError.foreignKeyViolations(count: found.count)
            return VerificationCheck(name: "foreign_key_check", failure: error, detail: rows + "; " + orphanAdvice)
        } catch {
            return .failed("foreign_key_check", error)
        }
    }

    /// Whether the index `spec` names exists on its table (names compared as SQLite
    /// compares them, ignoring ASCII case).
    static func indexCheck(_ spec: RequiredIndexSpec, _ db: some SQLQuerying) -> VerificationCheck {
        let name = "index \(spec)"
        do {
            let found = try !db.textColumn(
                sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = ? COLLATE NOCASE AND name = ? COLLATE NOCASE",
                arguments: [spec.table, spec.index]).isEmpty
            guard found else { return .failed(name, MigrationKitError.missingIndex(table: spec.table, index: spec.index)) }
            return .passed(name, detail: "present")
        } catch {
            return .failed(name, error)
        }
    }

    /// Counts `PRAGMA foreign_key_check` rows without holding them in memory.
    static func foreignKeyViolationCount(in db: some SQLQuerying, tables: [String]? = nil, pragmaFunctions: Bool = false) throws -> Int {
        var count = 0
        for (sql, arguments) in foreignKeyCheckStatements(tables, pragmaFunctions: pragmaFunctions) {
            try db.forEachTextRow(sql: sql, arguments: arguments) { _ in count += 1 }
        }
        return count
    }

    /// Every violation, grouped (a few row ids per group are kept).
    static func foreignKeyViolations(in db: some SQLQuerying, tables: [String]? = nil, pragmaFunctions: Bool = false) throws -> ForeignKeyViolations {
        var result = ForeignKeyViolations()
        for (sql, arguments) in foreignKeyCheckStatements(tables, pragmaFunctions: pragmaFunctions) {
            try db.forEachTextRow(sql: sql, arguments: arguments) { row in
                result.add(table: row[0] ?? "?", rowID: row[1].flatMap { Int64($0) }, parent: row[2] ?? "?",
                           foreignKey: row[3].flatMap { Int($0) } ?? 0)
            }
        }
        return result
    }

    /// The statements that check `tables` (nil: every table). With pragma functions, one
    /// statement with the table bound, prepared once for the run (a `PRAGMA` naming the
    /// table is prepared afresh for every table and step).
    private static func foreignKeyCheckStatements(_ tables: [String]?, pragmaFunctions: Bool) -> [(sql: String, arguments: [String])] {
        guard let tables else { return [("PRAGMA foreign_key_check", [])] }
        if pragmaFunctions {
            return tables.map { ("SELECT * FROM pragma_foreign_key_check(?)", [$0]) }
        }
        return tables.map { ("PRAGMA foreign_key_check(\(quoteIdentifier($0)))", []) }
    }

    /// What to do about rows whose parent is missing.
    static let orphanAdvice = "delete the orphan rows, or restore their parents, in a migration "
        + "(e.g. DELETE FROM child WHERE parentId NOT IN (SELECT id FROM parent))"

    /// quick_check answers with several lines for several problems; keep them on one.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
    }
}
