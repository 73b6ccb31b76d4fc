/// SQL the linked SQLite is too old to run.
///
/// Each feature of `SQLFeature.catalog` carries the release that added it; a
/// statement using a feature newer than the linked library gets one error per
/// feature, naming the feature, that release and the library, with the portable
/// rewrite as the fix. On SQLCipher 3.4.1 (SQLite 3.15.2) all of them apply; on
/// SQLCipher 4.x most do not.
struct UnsupportedSQLRule: LintRule {
    static let id = "unsupported-sql"

    var checksDownSections: Bool { true }

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        let linked = scope.context.sqliteVersion
        return SQLFeature.catalog.compactMap { feature in
            guard feature.addedIn > linked, let index = feature.firstUse(statement) else { return nil }
            return scope.finding(Self.id, .error, at: statement.token(index), in: statement,
                                 message: "\(feature.name) needs SQLite \(feature.addedIn) or later, but migrations run on \(scope.context.libraryDescription).",
                                 fix: feature.fix)
        }
    }
}
