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

    /// A feature the library is too old for, or known to be built without, is an error.
    /// One that depends on a compile option of a build nobody here can see (under
    /// `--min-sqlite`) is a warning: Debian 12's SQLCipher lacks FTS5, Ubuntu 24.04's
    /// has it, and only the app's author knows which machines it ships to.
    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        let context = scope.context
        return SQLFeature.features(cuedBy: statement).compactMap { feature in
            let available = feature.isAvailable(in: context.sqliteVersion, options: context.compileOptions)
            guard available != true, let index = feature.firstUse(statement) else { return nil }
            let token = statement.token(index)
            if feature.addedIn > context.sqliteVersion {
                return scope.finding(Self.id, .error, at: token, in: statement,
                                     message: "\(feature.name) needs SQLite \(feature.addedIn) or later, but migrations run on \(context.libraryDescription).",
                                     fix: feature.fix)
            }
            let option = feature.compileOption ?? "?"
            let builtIn = feature.builtInFrom.map { " (built in from SQLite \($0))" } ?? ""
            if available == false {
                return scope.finding(Self.id, .error, at: token, in: statement,
                                     message: "\(feature.name) needs a SQLite built with \(option)\(builtIn), and \(context.libraryDescription) was built without it.",
                                     fix: feature.fix)
            }
            return scope.finding(Self.id, .warning, at: token, in: statement,
                                 message: "\(feature.name) needs a SQLite built with \(option)\(builtIn); \(context.libraryDescription) may lack it (Debian 12's SQLCipher 3.4.1 does), so check the SQLCipher builds the app ships to.",
                                 fix: feature.fix)
        }
    }
}
