/// Rows whose parent row is missing, as `PRAGMA foreign_key_check` reports them,
/// grouped by child table, parent table and foreign key, with a few row ids each.
///
/// Apps that never turned foreign keys on often carry such orphans for years. A
/// migration must not fail because of them, only because of the ones it adds, so a
/// migration's violations are compared with the database's before it, group by group:
/// by count, not by row id, since a table recreated the 12-step way may renumber its
/// rows. Holds table names and row ids, never row values.
public struct ForeignKeyViolations: Hashable, Sendable, CustomStringConvertible {
    /// The orphan rows of one child table that break one of its foreign keys.
    public struct Group: Hashable, Sendable {
        /// The table holding the orphan rows.
        public let table: String
        /// The table their parent rows are missing from.
        public let parent: String
        /// Which of `table`'s foreign keys (`PRAGMA foreign_key_list`'s id).
        public let foreignKey: Int
        /// How many rows of `table` break this foreign key.
        public var count: Int
        /// Their row ids, up to `rowIDLimit` of them (none for a WITHOUT ROWID table):
        /// enough to tell the rows a migration added from the ones already there.
        public var sampleRowIDs: [Int64]

        /// A group of `count` orphan rows of `table`, with some of their row ids.
        init(table: String, parent: String, foreignKey: Int, count: Int, sampleRowIDs: [Int64]) {
            self.table = table
            self.parent = parent
            self.foreignKey = foreignKey
            self.count = count
            self.sampleRowIDs = sampleRowIDs
        }

        var key: Key { Key(table: table, parent: parent, foreignKey: foreignKey) }

        struct Key: Hashable {
            let table: String
            let parent: String
            let foreignKey: Int
        }
    }

    /// How many row ids each group keeps.
    static let rowIDLimit = 1000
    /// How many of them a message shows.
    static let shownRowIDs = 3

    /// The groups, in the order they were first found (or given).
    public private(set) var groups: [Group] = []

    /// No violations yet; `add(table:rowID:parent:foreignKey:)` adds them.
    init() {}

    /// Violations already grouped.
    init(groups: [Group]) {
        self.groups = groups
    }

    /// Adds one row of `PRAGMA foreign_key_check`'s answer.
    package mutating func add(table: String, rowID: Int64?, parent: String, foreignKey: Int) {
        let key = Group.Key(table: table, parent: parent, foreignKey: foreignKey)
        if let index = groups.firstIndex(where: { $0.key == key }) {
            groups[index].count += 1
            if let rowID, groups[index].sampleRowIDs.count < Self.rowIDLimit { groups[index].sampleRowIDs.append(rowID) }
        } else {
            groups.append(Group(table: table, parent: parent, foreignKey: foreignKey, count: 1, sampleRowIDs: rowID.map { [$0] } ?? []))
        }
    }

    /// Every orphan row, in all groups.
    public var count: Int { groups.reduce(0) { $0 + $1.count } }
    /// Whether there are no orphan rows at all.
    public var isEmpty: Bool { groups.isEmpty }

    /// The violations `self` has beyond `before`: for each group, the rows added. A group
    /// with as many rows as before, or fewer (orphans deleted), adds nothing.
    func added(since before: ForeignKeyViolations) -> ForeignKeyViolations {
        var earlier: [Group.Key: Group] = [:]
        for group in before.groups { earlier[group.key] = group }
        return ForeignKeyViolations(groups: groups.compactMap { group in
            let extra = group.count - (earlier[group.key]?.count ?? 0)
            guard extra > 0 else { return nil }
            var added = group
            added.count = extra
            // Name the new rows where the row ids tell them apart (they may not, after
            // a table was recreated with new row ids).
            let old = Set(earlier[group.key]?.sampleRowIDs ?? [])
            let new = group.sampleRowIDs.filter { !old.contains($0) }
            if !new.isEmpty { added.sampleRowIDs = new }
            return added
        })
    }

    /// Whether every group of `self` has at most as many rows as in `other`.
    func isWithin(_ other: ForeignKeyViolations) -> Bool {
        added(since: other).isEmpty
    }

    /// "books rowid 7, 9 → authors; notes rowid 3 → folders (and 12 more rows)", at most
    /// `limit` groups.
    public func summary(limit: Int = 5) -> String {
        var parts = groups.prefix(limit).map { group -> String in
            let shown = group.sampleRowIDs.prefix(Self.shownRowIDs)
            let rows = shown.isEmpty
                ? "\(group.count) row\(group.count == 1 ? "" : "s")"
                : "rowid " + shown.map(String.init).joined(separator: ", ")
                    + (group.count > shown.count ? " (\(group.count) rows)" : "")
            return "\(group.table) \(rows) → \(group.parent)"
        }
        let shown = groups.prefix(limit).reduce(0) { $0 + $1.count }
        if groups.count > limit { parts.append("and \(count - shown) more row\(count - shown == 1 ? "" : "s")") }
        return parts.joined(separator: "; ")
    }

    public var description: String { summary() }

    /// The warning for violations a migration found already there: whose fault they
    /// are, and what to do.
    package var preexistingWarning: String {
        "The database already had \(count) row\(count == 1 ? "" : "s") referencing a missing parent before this migration "
            + "(\(summary())); \(count == 1 ? "it was" : "they were") left as \(count == 1 ? "it was" : "they were"): the existing data is at fault, not the migration. "
            + "Delete or repair them in a migration of their own (e.g. DELETE FROM child WHERE parentId NOT IN (SELECT id FROM parent))."
    }
}
