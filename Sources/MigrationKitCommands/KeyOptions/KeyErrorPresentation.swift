import MigrationKit
import MigrationKitKeys

extension ErrorPresentation {
    /// A key that could not be obtained, for every command line that reads keys: the
    /// sentence, and the code and kind `ExitCodeDecision` gives it (5; a prompt a signal
    /// interrupted is a stopped run instead, 129, 130 or 143, which the command line then
    /// ends by that signal, as a Ctrl-C at any other moment does, so a shell loop over
    /// databases stops too). GLib's domain and code behind a Secret Service failure are
    /// the diagnosis, which only `--verbose` shows.
    package static func forKeyError(_ error: KeyError, wording: RemedyWording) -> ErrorPresentation {
        ErrorPresentation(of: error, message: error.sentence(wording), diagnosis: error.glibError.map { "GLib error \($0)" })
    }
}
