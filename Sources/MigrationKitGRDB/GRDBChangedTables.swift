import Foundation
import GRDB
import MigrationKit

/// Which tables a run through GRDB's migrator changed, for a verification limited to
/// them, learned without SQLite's authorizer (GRDB keeps it): the tables GRDB says each
/// statement writes, which it asks its transaction observers about before the statement
/// runs (`observes(eventsOfKind:)`, answered no, so that no change is observed row by
/// row), and the tables whose schema the run made or changed (a table created, an index
/// built, a table rebuilt and renamed), from `sqlite_master` before and after.
final class GRDBChangedTables: TransactionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var written: Set<String> = []
    /// The table the last statement wrote: a step's statements mostly write one table
    /// over and over (a row at a time), and GRDB asks before each one runs.
    private var lastWritten: String?
    /// Each schema object before the run ("type name"), with its SQL.
    private let schemaBefore: [String: String]

    /// Starts watching `db`'s statements, inside the run's first transaction, before
    /// its first step. The observer lives as long as this object (GRDB holds it weakly).
    init(watching db: Database) throws {
        schemaBefore = try Self.objects(in: db).mapValues(\.sql)
        db.add(transactionObserver: self, extent: .observerLifetime)
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        let table = eventKind.tableName
        lock.withLock {
            guard table != lastWritten else { return }
            written.insert(table)
            lastWritten = table
        }
        return false
    }

    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}

    /// The tables the run changed that exist now, as the schema spells them, sorted.
    func tables(in db: Database) throws -> [String] {
        var changed = ChangedTables()
        changed.add(lock.withLock { written })
        let made = try Self.objects(in: db).filter { schemaBefore[$0.key] != $0.value.sql }.map(\.value.table)
        changed.add(Set(made))
        return try changed.existing(in: db)
    }

    /// Every schema object with its table and SQL, by "type name".
    private static func objects(in db: Database) throws -> [String: (table: String, sql: String)] {
        var objects: [String: (table: String, sql: String)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL") {
            let type: String = row[0]
            let name: String = row[1]
            objects["\(type) \(name)"] = (row[2], row[3])
        }
        return objects
    }
}
