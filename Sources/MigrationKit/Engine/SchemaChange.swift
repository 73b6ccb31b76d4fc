/// Why a development database's history no longer matches the registered steps, for
/// erase-on-schema-change (`MigrationEngine.schemaChange`).
package struct SchemaChange: Sendable, CustomStringConvertible {
    /// One way the database's history and the registered steps disagree.
    package enum Reason: Hashable, Sendable, CustomStringConvertible {
        /// Applied identifiers no registered step has: removed or renamed steps.
        case removedOrRenamed([String])
        /// Applied steps whose checksum changed: edited steps.
        case edited([String])
        /// The schema the applied steps produce today differs from the database's.
        case schemaDrift(expected: String, actual: String)

        package var description: String {
            switch self {
            case .removedOrRenamed(let identifiers):
                return "applied but no longer registered (removed or renamed): \(identifiers.joined(separator: ", "))"
            case .edited(let identifiers):
                return "edited since applied: \(identifiers.joined(separator: ", "))"
            case .schemaDrift:
                return "the schema differs from what the applied migrations produce today"
            }
        }
    }

    /// Every disagreement found; never empty. Schema drift is only looked for when no
    /// applied step was removed, renamed or edited.
    let reasons: [Reason]
    /// What erasing removes: every table, view, index and trigger, by name.
    package let objectsToErase: [String]

    package var description: String {
        reasons.map(\.description).joined(separator: "; ")
    }
}

extension MigrationEngine {
    /// Whether the database's history no longer matches the registered steps, and why:
    /// applied steps removed or renamed, applied steps edited, or a schema that differs
    /// from what the applied steps produce, which `replay` gives (the schema of the steps
    /// it is handed, applied to an empty database, as GRDB does), compared as `diff`
    /// compares schemas (`SchemaDifference`). Nil when the history matches.
    ///
    /// - Parameter decided: true when the caller decided already that the history no
    ///   longer matches (GRDB's `hasSchemaChanges`, for the GRDB runner): only the reasons
    ///   are looked for, and a change is returned even when they are not found (the
    ///   schema then differs in what the canonical dump leaves out).
    package func schemaChange(_ db: Database, decided: Bool = false,
                              replay: ([MigrationStep<Database>]) throws -> [SchemaDump.Object]) throws -> SchemaChange? {
        let analysis = try analysis(of: db)
        var reasons: [SchemaChange.Reason] = []
        if !analysis.unknown.isEmpty { reasons.append(.removedOrRenamed(analysis.unknown)) }
        if !decided, !analysis.modified.isEmpty { reasons.append(.edited(analysis.modified)) }
        if reasons.isEmpty {
            let actual = try SchemaDump.objects(in: db)
            let expected = try replay(analysis.appliedSteps)
            if decided || !SchemaDifference.between(expected: expected, actual: actual).isEmpty {
                reasons.append(.schemaDrift(expected: SchemaDump.canonicalSQL(of: expected), actual: SchemaDump.canonicalSQL(of: actual)))
            }
        }
        guard !reasons.isEmpty else { return nil }
        let objects = try SchemaDump.objects(in: db, includingBookkeeping: true).map { "\($0.type) \($0.name)" }
        return SchemaChange(reasons: reasons, objectsToErase: objects)
    }
}
