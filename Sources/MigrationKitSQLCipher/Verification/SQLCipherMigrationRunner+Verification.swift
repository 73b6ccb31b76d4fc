import MigrationKit

/// The verification after every migrate and rollback: the host's checks where it has
/// them, the default verifier otherwise.
extension SQLCipherMigrationRunner {
    /// Verifies the database as after a migration: the host's closures where given,
    /// the default verifier otherwise. Throws the first problem.
    public func runPostMigrationChecks(in writer: SQLCipherWriter) throws {
        try writer.writeWithoutTransaction { try runVerification(in: $0, foreignKeys: .strict) }
    }

    /// Every check, passed or failed, for reports.
    public func verificationReport(in writer: SQLCipherWriter) throws -> VerificationReport {
        try writer.writeWithoutTransaction { db in
            var checks: [VerificationCheck] = []
            if let custom = host.verifyIntegrity {
                checks.append(Self.hostCheck("host integrity", part: .integrity) { try custom(db) })
            } else {
                checks += verifier.integrityChecks(db)
            }
            if let custom = host.verifyPostMigration {
                checks.append(Self.hostCheck("host post-migration", part: .postMigration) { try custom(db) })
            } else {
                checks += verifier.postMigrationChecks(db)
            }
            return VerificationReport(checks: checks)
        }
    }

    /// Verifies with the host's closures where given, the default verifier otherwise,
    /// and returns what was checked, in words (`MigrationReport.verification`).
    ///
    /// - Parameter changed: the tables the run wrote, to check only them (quick_check;
    ///   their foreign keys were checked by each transaction, with the run's graph,
    ///   which names them here without reading every table's foreign keys again); nil
    ///   checks the whole file.
    @discardableResult
    func runVerification(in db: SQLCipherDatabase, foreignKeys: ForeignKeyVerification,
                         changed change: (tables: ChangedTables, graph: ForeignKeyGraph)? = nil) throws -> [String] {
        observer?(.willVerify)
        let clock = ContinuousClock()
        let start = clock.now
        var checked: [String] = []
        if let custom = host.verifyIntegrity {
            do { try custom(db) } catch { throw HostVerificationError(part: .integrity, underlying: error) }
            checked.append("the app's integrity checks")
        } else if let change {
            let tables = try change.tables.existing(in: db)
            if !tables.isEmpty {
                let checks = verifier.changedTableIntegrityChecks(db, tables: tables)
                if let failure = checks.lazy.compactMap(\.failure).first { throw failure }
                checked.append(SQLCipherLibrary.hasTableQuickCheck ? "quick_check of \(Self.count(tables.count, "changed table"))" : "quick_check")
            }
        } else {
            let checks = verifier.integrityChecks(db)
            if let failure = checks.lazy.compactMap(\.failure).first { throw failure }
            checked += checks.map(\.name)
        }
        if let custom = host.verifyPostMigration {
            do { try custom(db) } catch { throw HostVerificationError(part: .postMigration, underlying: error) }
            checked.append("the app's post-migration checks")
        } else {
            if let change {
                // Checked by the transactions; named here, as they saw them.
                try verifier.verifyPostMigration(db, foreignKeys: .checkedByTransaction)
                let scope = try change.tables.foreignKeyScope(using: change.graph, in: db)
                if !scope.isEmpty { checked.append("foreign keys of \(Self.count(scope.count, "table"))") }
            } else {
                try verifier.verifyPostMigration(db, foreignKeys: foreignKeys)
                checked.append("foreign keys")
            }
            if !verifier.requiredIndexes.isEmpty {
                checked.append(Self.count(verifier.requiredIndexes.count, "required index", plural: "required indexes"))
            }
        }
        observer?(.didVerify(duration: clock.now - start))
        return checked
    }

    private static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) " + (number == 1 ? noun : plural ?? noun + "s")
    }

    private static func hostCheck(_ name: String, part: HostVerificationError.Part, _ body: () throws -> Void) -> VerificationCheck {
        do {
            try body()
            return .passed(name, detail: "ok")
        } catch {
            return .failed(name, HostVerificationError(part: part, underlying: error))
        }
    }
}
