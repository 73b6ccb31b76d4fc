/// A statement that will meet what only the database's app registers, which the
/// connection lacks (`AppExtensionInventory`): a write to a table whose triggers call
/// the app's functions or fill a full-text index with its tokenizer, a statement naming
/// such an index or a view calling such a function, an index built with the app's
/// collation, or a rename or dropped column, after which SQLite parses every trigger
/// again. It fails when it runs, in an up section at `migrate` and in a down section only
/// at the rollback that needs it, so lint says it first, naming the piece and the
/// setting that brings it (`load-extension`). A warning: the app's own binary
/// registers it, and a run with the extension loaded finds nothing to say.
struct AppExtensionNeededRule: LintRule {
    static let id = "needs-app-extension"

    var checksDownSections: Bool { true }

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        let inventory = scope.context.appExtensions
        guard !inventory.isEmpty else { return [] }
        var uses: [AppExtensionInventory.Use] = []
        var why = ""
        if let (verb, table) = write(statement) {
            let written = inventory.onWrite[table.key, default: []].filter { $0.isMet(by: verb) }
            if !written.isEmpty {
                uses += written
                why = "\(verb) on \(table.name) runs \(Self.objects(written))"
            }
        }
        if case .alterTable(_, let action) = statement.shape, !inventory.onSchemaCheck.isEmpty {
            switch action {
            case .renameTable, .renameColumn, .dropColumn:
                uses += inventory.onSchemaCheck
                why = (why.isEmpty ? "" : why + ", and ")
                    + "after it SQLite parses every trigger again, \(Self.objects(inventory.onSchemaCheck)) among them"
            default:
                break
            }
        }
        let named = inventory.onUse.filter { statement.words.contains($0.key) }.sorted { $0.key < $1.key }.flatMap(\.value)
            .filter { use in !uses.contains(use) }
        if !named.isEmpty {
            uses += named
            why = (why.isEmpty ? "it uses " : why + ", and it uses ") + Self.objects(named)
        }
        guard !uses.isEmpty else { return [] }
        let needs = uses.map(\.need).spelledOut
        let when = scope.isDown ? "the rollback that runs this down section" : "the migration"
        return [scope.finding(Self.id, .warning, at: statement.token(0), in: statement,
                              message: "This statement needs \(needs), which only the app registers and \(scope.context.libraryDescription) lacks here: \(why); \(when) would fail on it.",
                              fix: "Load the app's extension into the connection that runs it (the `load-extension` setting loads one into every connection a command opens), or run it through the app, which registers it.")]
    }

    /// The write (`INSERT`, `UPDATE`, `DELETE`; a `REPLACE` is an insert) and the table
    /// it writes.
    private func write(_ statement: StatementReader) -> (verb: String, table: NameReference)? {
        if case .insert(let table) = statement.shape { return ("INSERT", table) }
        var index = 0
        guard let verb = statement.token(0) else { return nil }
        if verb.isWord("UPDATE") {
            index = 1
            if statement.token(1)?.isWord("OR") == true { index = 3 }
        } else if verb.isWord("DELETE"), statement.token(1)?.isWord("FROM") == true {
            index = 2
        } else {
            return nil
        }
        if statement.token(index + 1)?.isSymbol(".") == true { index += 2 }
        guard let name = statement.token(index)?.nameValue else { return nil }
        return (verb.isWord("UPDATE") ? "UPDATE" : "DELETE", NameReference(name: name, tokenIndex: index))
    }

    /// "the trigger or view \"a\", \"b\"" as the schema's objects are named.
    private static func objects(_ uses: [AppExtensionInventory.Use]) -> String {
        var seen: Set<String> = []
        let names = uses.map(\.object).filter { seen.insert($0.lowercased()).inserted }
        return names.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}
