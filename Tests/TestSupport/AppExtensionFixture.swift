import Foundation

/// A SQLite extension standing in for an app's own (`Tests/Fixtures/AppExtension/app_extension.c`):
/// the FTS5 and FTS3/4 tokenizer `app_words`, the functions `app_sort` and `app_concat`,
/// the collation `app_nocase`. Compiled once per test process with the C compiler,
/// against the headers of the SQLCipher the run is on (`pkg-config --cflags sqlcipher`,
/// which `scripts/test.sh` points at SQLCipher 3.4.1's for that configuration), into a
/// private folder that lives as long as the process.
public enum AppExtensionFixture {
    /// The extension's path (`libappextension.so`: SQLite's own entry point name for it
    /// is `sqlite3_appextension_init`); its other entry point is `entryPoint`.
    public static var path: String {
        get throws { try built.get() }
    }

    /// A second entry point, for `--load-extension PATH:ENTRY`.
    public static let entryPoint = "app_extension_entry"

    /// What the databases in these tests need of it: FTS5's tokenizer where FTS5 exists.
    public static let tokenizer = "app_words"

    private static let folder = Result { try TemporaryDirectory() }

    private static let built: Result<String, any Error> = Result {
        // The real folder, also from a package that links this one (Integrations/GRDB).
        let source = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/AppExtension/app_extension.c").path
        let flags = try ChildProcess.run(["/usr/bin/env", "pkg-config", "--cflags", "sqlcipher"], timeout: 30)
        guard flags.status == 0 else { throw BuildFailure(output: "pkg-config: " + flags.output) }
        let output = try folder.get().path("libappextension.so")
        let cflags = flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        let compiled = try ChildProcess.run(["/usr/bin/env", "cc", "-shared", "-fPIC", "-O1", "-Wall", "-Werror"] + cflags + ["-o", output, source], timeout: 120)
        guard compiled.status == 0 else { throw BuildFailure(output: compiled.output) }
        return output
    }

    /// The compiler's words when the fixture does not build.
    public struct BuildFailure: Error, CustomStringConvertible {
        public let output: String
        public var description: String { "the app extension fixture does not build: \(output)" }
    }
}
