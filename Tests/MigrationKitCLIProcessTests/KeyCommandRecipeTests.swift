import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Keys/README.md's key command recipes, run by `sh` as written: each store's first
/// block puts the key file's key into the store, its second opens the database with what
/// the store gives back. The clients Debian packages (`pass` with `gpg`, `age`,
/// `systemd-creds`, `keepassxc-cli`, `secret-tool`) are the real ones; a recipe whose
/// client is missing fails under `CI=true` (`scripts/install-deps.sh` installs them) and
/// is left out otherwise. Vault, AWS KMS, sops, 1Password and Bitwarden run against
/// stand-ins here that take exactly the documented arguments and refuse any other.
@Suite struct KeyCommandRecipeTests {
    /// The programs each real store's recipes need, besides `sh`'s.
    private static let clients: [String: [String]] = [
        "pass": ["pass", "gpg", "gpgconf"], "age": ["age", "age-keygen"], "systemd-creds": ["systemd-creds"],
        "keepassxc": ["keepassxc-cli"], "secret-tool": ["secret-tool"], "sops": ["age-keygen"],
    ]

    /// Every store the recipes cover, so a recipe dropped from the README is noticed.
    private static let stores = ["pass", "age", "systemd-creds", "keepassxc", "secret-tool", "vault", "kms", "sops", "1password", "bitwarden"]

    private static func isInstalled(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            access("\($0)/\(program)", X_OK) == 0
        }
    }

    /// Why `store`'s recipes cannot run here, or nil.
    private static func missing(_ store: String) -> String? {
        if let absent = clients[store, default: []].first(where: { !isInstalled($0) }) { return "\(absent) is not installed" }
        if store == "secret-tool", !hasTestKeyring { return "the private gnome-keyring that `make test` starts is not running" }
        if store == "systemd-creds", geteuid() != 0 { return "systemd-creds encrypts with the host key only as root" }
        return nil
    }

    @Test func everyStoreRecipeOpensTheDatabaseWithTheKeyItWasGiven() throws {
        let recipes = try KeyRecipeTests.recipes().filter { $0.kind.hasPrefix("command") }
        let named = Set(recipes.compactMap(\.name))
        #expect(named == Set(Self.stores), "\(named)")
        for store in Self.stores {
            if let reason = Self.missing(store) {
                if isCI { Issue.record("CI=true but the \(store) recipe cannot run: \(reason)") }
                continue
            }
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            let key = TestKey.raw()
            try workspace.write("db.key", key.text + "\n", mode: 0o600)
            let created = try Tool.run(["migrate", "--db-path", "app.db", "--password-file", "db.key", "--migrations", "Migrations"],
                                       directory: workspace.root)
            try #require(created.status == 0, "\(created.output)")
            let environment = try Self.prepare(store, in: workspace)
            defer { Self.cleanUp(store, in: workspace, environment: environment) }
            let service = "org.migrationkit.tests.command-recipes.\(UUID().uuidString)"
            defer { _ = try? Tool.run(["key", "delete", "--keychain-service", service, "--keychain-account", "notes.db"]) }
            let run = { (recipe: KeyRecipeTests.Recipe) in
                try KeyRecipeTests.run(recipe, in: workspace.root, service: service, path: [workspace.path("stand-ins")], environment: environment)
            }
            // A pipeline's status is its last command's: what the store said is kept for a failure below.
            var storing = ""
            for recipe in recipes where recipe.name == store && recipe.kind == "command-store" {
                let stored = try run(recipe)
                #expect(stored.status == 0, "\(recipe): \(stored.output)")
                storing += stored.output
            }
            let uses = recipes.filter { $0.name == store && $0.kind == "command" }
            #expect(uses.count == 1, "\(store)")
            for recipe in uses {
                let opened = try run(recipe)
                #expect(opened.status == 0 && opened.stdout.contains("applied  0002_books"), "\(recipe): \(opened.output)\nstoring said: \(storing)")
                #expect(!opened.output.contains(key.secret), "\(recipe)")
            }
            for recipe in recipes where recipe.name == store && recipe.kind == "command-rotate" {
                let rotated = try run(recipe)
                #expect(rotated.status == 0 && rotated.stdout.contains("Rekeyed app.db"), "\(recipe): \(rotated.output)")
                #expect(!rotated.output.contains(key.secret), "\(recipe)")
                // The latest version opens the database; the first, the old key, no longer does.
                #expect(try SQLCipherShell.run(workspace.database, key: key, "SELECT count(*) FROM sqlite_master;").status != 0)
                for use in uses {
                    let reopened = try run(use)
                    #expect(reopened.status == 0, "after \(recipe): \(reopened.output)")
                }
            }
        }
    }

    /// Keys/README.md's fleet rotation through `pass`, run by `sh` as written (`--jobs 2`)
    /// on a store kept in git: every tenant ends on the key of its new entry, and every
    /// key the rotation stored is committed, git's tree clean: the store commands ran one
    /// at a time, where two `pass insert` at once collide on git's lock and leave a key
    /// uncommitted while `pass` exits 0.
    @Test func theFleetRotationThroughAPassStoreInGitCommitsEveryKey() throws {
        if let reason = Self.missing("pass") {
            if isCI { Issue.record("CI=true but the pass recipe cannot run: \(reason)") }
            return
        }
        let recipe = try #require(try KeyRecipeTests.recipes().first { $0.kind == "command-rotate-fleet" && $0.name == "pass" })
        let fleet = try Fleet(8)
        let workspace = fleet.workspace
        var environment = try Self.prepare("pass", in: workspace)
        defer { Self.cleanUp("pass", in: workspace, environment: environment) }
        for (name, value) in ["GIT_AUTHOR_NAME": "Key rotation", "GIT_AUTHOR_EMAIL": "keys@example.com",
                              "GIT_COMMITTER_NAME": "Key rotation", "GIT_COMMITTER_EMAIL": "keys@example.com"] {
            environment[name] = value
        }
        let inserts = fleet.paths.indices.map { "pass insert --multiline db/tenant\($0) < keys/tenant\($0).key" }.joined(separator: " && ")
        let setup = try KeyRecipeTests.run(.init(kind: "setup", script: "pass git init && " + inserts), in: workspace.root, service: "", environment: environment)
        try #require(setup.status == 0, "\(setup.output)")
        let rotated = try KeyRecipeTests.run(recipe, in: workspace.root, service: "", environment: environment)
        #expect(rotated.status == 0 && rotated.stdout.contains("8 done"), "\(rotated.output)")
        let status = try KeyRecipeTests.run(.init(kind: "check", script: "pass git status --porcelain"), in: workspace.root, service: "", environment: environment)
        #expect(status.status == 0 && status.stdout.isEmpty, "keys stored but not committed: \(status.output)")
        for index in fleet.paths.indices {
            let shown = try KeyRecipeTests.run(.init(kind: "check", script: "pass show db/tenant\(index).next"), in: workspace.root, service: "", environment: environment)
            let key = TestKey(text: shown.stdout.trimmingCharacters(in: .newlines))
            #expect(try fleet.rows(index, key: key) == 1, "tenant\(index) is not on its new entry's key")
            #expect(!rotated.output.contains(key.secret))
        }
    }

    /// What a store needs before its recipe (a reader has it already): a gpg key and a
    /// `pass` store, a KeePassXC database, the stand-ins; and the variables its recipes
    /// run with.
    private static func prepare(_ store: String, in workspace: Workspace) throws -> [String: String] {
        let home = workspace.path("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        var environment = ["HOME": home, "GNUPGHOME": home + "/.gnupg", "PASSWORD_STORE_DIR": home + "/.password-store",
                           "STANDIN_STATE": workspace.path("stand-in-state")]
        try FileManager.default.createDirectory(atPath: workspace.path("stand-in-state"), withIntermediateDirectories: false)
        try writeStandIns(in: workspace)
        let setup: String
        switch store {
        case "pass":
            setup = "gpg --batch --passphrase '' --quick-gen-key 'Database keys <db@example.com>' default default never && pass init db@example.com"
        case "keepassxc":
            environment["KEEPASS_PASSWORD"] = "keepass \(UUID().uuidString.prefix(8))"
            setup = "printf '%s\\n%s\\n' \"$KEEPASS_PASSWORD\" \"$KEEPASS_PASSWORD\" | keepassxc-cli db-create --set-password keys.kdbx"
        case "bitwarden":
            // Stored in the app or with `bw create item`, which the README leaves to Bitwarden's documentation.
            environment["BW_SESSION"] = "stand-in session"
            setup = "mkdir -p \"$STANDIN_STATE/bw\" && cp db.key \"$STANDIN_STATE/bw/app-db\""
        default:
            return environment
        }
        let done = try KeyRecipeTests.run(.init(kind: "setup", script: setup), in: workspace.root, service: "", environment: environment)
        try #require(done.status == 0, "\(store): \(done.output)")
        return environment
    }

    private static func cleanUp(_ store: String, in workspace: Workspace, environment: [String: String]) {
        if store == "pass" {
            _ = try? KeyRecipeTests.run(.init(kind: "cleanup", script: "gpgconf --kill gpg-agent"), in: workspace.root, service: "", environment: environment)
        }
    }

    /// Stand-ins for the clients no Debian package gives: each keeps its store in
    /// `$STANDIN_STATE`, takes the README's arguments only, and fails on any other.
    private static func writeStandIns(in workspace: Workspace) throws {
        try FileManager.default.createDirectory(atPath: workspace.path("stand-ins"), withIntermediateDirectories: true)
        let refuse = "*) echo \"stand-in: unexpected arguments: $*\" >&2; exit 2 ;;"
        let scripts: [String: String] = [
            // Vault's key/value store, with versions.
            "vault": """
                store="$STANDIN_STATE/vault/secret"
                case "$*" in
                "kv put -mount=secret "*" key=-") mkdir -p "$store/$4"; n=$(( $(ls "$store/$4" | wc -l) + 1 )); cat > "$store/$4/$n" ;;
                "kv get -mount=secret -field=key "*) cat "$store/$5/$(ls "$store/$5" | sort -n | tail -n 1)" ;;
                "kv get -mount=secret -version="*" -field=key "*) cat "$store/$6/${4#-version=}" ;;
                \(refuse)
                esac
                """,
            // A KMS whose "encryption" is a marked envelope: the recipes' base64 and files are real.
            "aws": """
                case "$*" in
                "kms encrypt --key-id alias/app-db --plaintext fileb://"*" --query CiphertextBlob --output text") { printf 'KMS-ENVELOPE:'; cat "${6#fileb://}"; } | base64 -w0; echo ;;
                "kms decrypt --ciphertext-blob fileb://"*" --query Plaintext --output text")
                    [ "$(head -c 13 "${4#fileb://}")" = "KMS-ENVELOPE:" ] || exit 254
                    tail -c +14 "${4#fileb://}" | base64 -w0; echo ;;
                \(refuse)
                esac
                """,
            // sops to an age recipient: decrypts only with the identity whose recipient it names.
            "sops": """
                case "$*" in
                "--encrypt --age "*" --input-type binary --output-type json "*) printf '{\\n  "recipient": "%s",\\n  "data": "%s"\\n}\\n' "$3" "$(base64 -w0 < "$8")" ;;
                "--decrypt --input-type json --output-type binary "*)
                    [ "$(age-keygen -y "$SOPS_AGE_KEY_FILE")" = "$(sed -n 's/.*"recipient": "\\(.*\\)",/\\1/p' "$6")" ] || exit 128
                    sed -n 's/.*"data": "\\(.*\\)"/\\1/p' "$6" | base64 -d ;;
                \(refuse)
                esac
                """,
            "op": """
                case "$*" in
                "document create "*" --title app-db --vault Private") mkdir -p "$STANDIN_STATE/op/Private"; cp "$3" "$STANDIN_STATE/op/Private/app-db" ;;
                "document get app-db --vault Private") cat "$STANDIN_STATE/op/Private/app-db" ;;
                \(refuse)
                esac
                """,
            "bw": """
                [ -n "${BW_SESSION:-}" ] || { echo "You are not logged in." >&2; exit 1; }
                case "$*" in
                "get password app-db") cat "$STANDIN_STATE/bw/app-db" ;;
                \(refuse)
                esac
                """,
        ]
        for (name, body) in scripts {
            try writeExecutableScript(workspace.path("stand-ins/\(name)"), "#!/bin/sh\nset -eu\n" + body + "\n", mode: 0o755)
        }
    }
}
