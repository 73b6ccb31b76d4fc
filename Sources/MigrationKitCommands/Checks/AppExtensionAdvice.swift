import MigrationKit

/// What a command says about what it could not do for want of what only the database's
/// app registers (`AppExtensionNeed`): it names the tokenizer, function or collation, says
/// that this is no sign of damage, and how to bring it — the app's extension, loaded
/// with `--load-extension` (the option every command that opens a database takes), or, in
/// an app's own binary, registered by the host on the connections it opens. Never a
/// restore, never a rebuild: the database is not damaged, and a rebuild without the
/// app's tokenizer would index its text in other words.
package struct AppExtensionAdvice: Sendable {
    /// The extensions the command loaded, as given (`--load-extension`): when some were,
    /// the advice is that they do not register what was missing.
    var loaded: [String]

    package init(loaded: [String] = []) {
        self.loaded = loaded
    }

    /// How to bring what was missing, as the end of a sentence: "load the app's
    /// extension that registers it with --load-extension PATH[:ENTRY]".
    package var howToBringIt: String {
        if loaded.isEmpty {
            return "load the app's extension that registers it with --load-extension PATH[:ENTRY]"
        }
        let given = loaded.count == 1 ? "the extension loaded (\(loaded[0])) does not" : "none of the extensions loaded (\(loaded.joined(separator: ", "))) does"
        return "\(given) register it; load the app's own with --load-extension PATH[:ENTRY]"
    }

    /// "3 checks could not run without the app's tokenizer app_words, which is no sign of
    /// damage; to run them, load the app's extension …", for a verdict.
    /// - Parameter meaning: what that says of what was checked.
    package func notChecked(_ count: Int, needing needs: [AppExtensionNeed], meaning: String = "which is no sign of damage") -> String {
        "\(count) check\(count == 1 ? "" : "s") could not run without \(needs.spelledOut), \(meaning); "
            + "to run \(count == 1 ? "it" : "them"), \(howToBringIt)"
    }

    /// A warning for a command that did its work, after proving a copy with every check
    /// that could run: what it could not check, and how to.
    package func warning(notChecked checks: [VerificationCheck], of what: String) -> String? {
        guard !checks.isEmpty else { return nil }
        let needs = VerificationReport(checks: checks).unmetNeeds
        // A check that ran in part (quick_check table by table) is what "every table and
        // index read" says; the ones that did not run at all are named.
        let notRun = checks.filter { !$0.ran }.map(\.name)
        let names = notRun.isEmpty ? "" : "; not checked: \(notRun.joined(separator: ", "))"
        return "\(what) was proven by everything that can be checked without \(needs.spelledOut) (every table and index read, every row compared)\(names); "
            + "this is no sign of damage; to check \(notRun.count == 1 ? "it" : "them") too, \(howToBringIt)."
    }

    /// A warning for a migrate or rollback whose verification passed everything it could
    /// run, and could not run what needs `needs`.
    package func warning(notVerifying needs: [AppExtensionNeed]) -> String? {
        guard !needs.isEmpty else { return nil }
        return "The verification could not run every check without \(needs.spelledOut) (the report names them); this is no sign of damage; to run them, \(howToBringIt)."
    }
}
