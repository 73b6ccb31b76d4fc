/// Something a database's schema needs that only the app that made it registers on its
/// connections: a full-text tokenizer (Signal Desktop's `signal_tokenizer`, Thunderbird's
/// `mozporter`), a SQL function its triggers and views call (calibre's `title_sort`, a
/// GeoPackage's `ST_IsEmpty`), a collation, or a virtual-table module. Without it SQLite
/// cannot run what uses it — an index's own check, a trigger, a view, `ALTER TABLE`'s
/// test of the whole schema — though nothing is damaged: a check that meets one is "not
/// checked, because the app's tokenizer X is missing", never a failure, and never a
/// reason to restore a backup.
///
/// SQLite names what it lacks only in its message, with SQLITE_ERROR as the code, so the
/// message is what is read (`init?(sqliteMessage:)`).
package struct AppExtensionNeed: Hashable, Sendable, CustomStringConvertible {
    /// What kind of thing the app registers.
    package enum Kind: String, Sendable, CaseIterable {
        case tokenizer
        case function
        case collation
        case module
    }

    package let kind: Kind
    /// The name as SQLite spelled it.
    package let name: String

    package init(_ kind: Kind, _ name: String) {
        self.kind = kind
        self.name = name
    }

    /// "the app's tokenizer app_words".
    package var description: String { "the app's \(kind.rawValue) \(name)" }

    /// What SQLite says when it lacks one, anywhere in `message` (a trigger's failure
    /// wraps it: "error in trigger t: no such tokenizer: x"): FTS5's "no such tokenizer:
    /// X", FTS3/4's "unknown tokenizer: X", "no such function: X", "no such collation
    /// sequence: X", "no such module: X". Nil for any other message.
    package init?(sqliteMessage message: String) {
        for (phrase, kind) in Self.phrases {
            guard let range = message.range(of: phrase) else { continue }
            let name = message[range.upperBound...].prefix { !$0.isWhitespace && $0 != "," && $0 != ";" && $0 != ")" }
            guard !name.isEmpty else { continue }
            self.init(kind, String(name))
            return
        }
        return nil
    }

    /// What a failed statement needed, when SQLite said so: a step's (`MigrationStepError`)
    /// or any statement's the database layer ran (`DatabaseStatementError`). Nil for any
    /// other error.
    package init?(error: any Error) {
        let statement = (error as? MigrationStepError)?.underlying ?? error
        guard let failure = statement as? any DatabaseStatementError,
              let need = AppExtensionNeed(sqliteMessage: failure.sqliteMessage) else { return nil }
        self = need
    }

    /// SQLite's words for each kind, as its sources write them (`fts5_config.c`,
    /// `fts3_tokenizer.c`, `resolve.c`, `callback.c`, `vtab.c`).
    private static let phrases: [(String, Kind)] = [
        ("no such tokenizer: ", .tokenizer),
        ("unknown tokenizer: ", .tokenizer),
        ("no such function: ", .function),
        ("no such collation sequence: ", .collation),
        ("no such module: ", .module),
    ]
}

extension Sequence<AppExtensionNeed> {
    /// "the app's tokenizer app_words and function app_sort": each kind named once,
    /// in the order met.
    package var spelledOut: String {
        var seen: Set<AppExtensionNeed> = []
        let unique = filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return "" }
        let parts = unique.map { "\($0.kind.rawValue) \($0.name)" }
        let joined = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
        return "the app's " + joined
    }
}
