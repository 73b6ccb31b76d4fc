/// One way two schemas differ: an object (table, index, view, trigger) that one has and
/// the other has not, or has with other SQL. Objects are matched by kind and name (as
/// SQLite compares names) and compared in their canonical spelling (`SchemaDump`), so
/// the spelling, spacing and quoting of the statements that made them never count.
///
/// What `migrationkit diff` reports as drift: the database's schema (`actual`) against
/// what its applied migrations make on an empty database (`expected`). Over any
/// `SQLQuerying`, so a GRDB app can compare its own writer's schema too.
public struct SchemaDifference: Hashable, Sendable, Codable {
    /// How the object differs.
    public enum Change: String, Hashable, Sendable, Codable {
        /// Only the actual schema has it (an index added by hand on a production copy).
        case added
        /// Only the expected schema has it (dropped by hand, or never created).
        case missing
        /// Both have it, with different SQL (a column an old app version added).
        case changed
    }

    /// The object's kind: "table", "index", "view" or "trigger".
    public let type: String
    /// Its name, as the schema that has it spells it.
    public let name: String
    /// Added, missing or changed, seen from the actual schema.
    public let change: Change
    /// Its canonical SQL in the expected schema, or nil when missing there.
    public let expected: String?
    /// Its canonical SQL in the actual schema, or nil when missing there.
    public let actual: String?

    /// The differences between two schemas, in canonical order (tables, indexes, views,
    /// triggers, then by name); empty when they are the same schema.
    package static func between(expected: [SchemaDump.Object], actual: [SchemaDump.Object]) -> [SchemaDifference] {
        func keyed(_ objects: [SchemaDump.Object]) -> [Key: SchemaDump.Object] {
            Dictionary(objects.map { (Key($0), $0) }, uniquingKeysWith: { first, _ in first })
        }
        let expectedByKey = keyed(expected)
        let actualByKey = keyed(actual)
        var differences: [SchemaDifference] = []
        for key in Set(expectedByKey.keys).union(actualByKey.keys).sorted() {
            let wanted = expectedByKey[key].map { SQLCanonicalText.canonical($0.sql) }
            let found = actualByKey[key].map { SQLCanonicalText.canonical($0.sql) }
            guard wanted != found else { continue }
            let name = actualByKey[key]?.name ?? expectedByKey[key]?.name ?? key.name
            let change: Change = wanted == nil ? .added : found == nil ? .missing : .changed
            differences.append(SchemaDifference(type: key.type, name: name, change: change, expected: wanted, actual: found))
        }
        return differences
    }

    /// The differences between the schemas two connections read (bookkeeping tables
    /// left out, as `SchemaDump` leaves them out).
    package static func between(expected: some SQLQuerying, actual: some SQLQuerying) throws -> [SchemaDifference] {
        between(expected: try SchemaDump.objects(in: expected), actual: try SchemaDump.objects(in: actual))
    }

    private enum CodingKeys: String, CodingKey {
        case type, name, change, expected, actual
    }

    /// Every field, `null` where there is no SQL: a JSON reader sees the same keys on
    /// every difference.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(name, forKey: .name)
        try container.encode(change, forKey: .change)
        try container.encode(expected, forKey: .expected)
        try container.encode(actual, forKey: .actual)
    }

    /// One line for people: "index items_name: only in the database".
    public var summary: String {
        switch change {
        case .added: return "\(type) \(name): only in the database (\(actual ?? ""))"
        case .missing: return "\(type) \(name): missing from the database (the migrations make \(expected ?? ""))"
        case .changed: return "\(type) \(name): differs (the database has \(actual ?? ""); the migrations make \(expected ?? ""))"
        }
    }

    /// Objects match by kind and by name as SQLite compares names (ASCII case folded).
    private struct Key: Hashable, Comparable {
        let kind: Int
        let type: String
        let name: String

        init(_ object: SchemaDump.Object) {
            type = object.type
            kind = SchemaDump.kindOrder[object.type] ?? 9
            name = object.name.lowercased()
        }

        static func < (lhs: Key, rhs: Key) -> Bool {
            if lhs.kind != rhs.kind { return lhs.kind < rhs.kind }
            if lhs.type != rhs.type { return lhs.type < rhs.type }
            return lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8)
        }
    }
}
