#!/bin/sh
# Part of the `packaging` configuration of `make test`: an app depends on MigrationKit by
# URL, as the README says, and gets the right SQLite.
#
# One throwaway package depends on this repository through a file:// git URL at the
# commit under test (so it sees what is committed, as a user would), with two apps:
#   sqlcipher-app  the SQLCipher products: migrates an encrypted database that the
#                  sqlcipher shell then reads with the key; links libsqlcipher, never
#                  libsqlite3;
#   grdb-app       the GRDB products: migrates a database through GRDBMigrationRunner,
#                  then runs the GRDB commands' status on it; links libsqlite3, never
#                  libsqlcipher.
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
. ./scripts/swift-env.sh

fail() {
    echo "test-consumers: FAILED: $*" >&2
    exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/migrationkit-consumers.XXXXXX")
# A failure ends the script only once the README's recipe, running beside, is done with $work.
trap '[ -z "${recipe_pid:-}" ] || wait "$recipe_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
commit=$(git rev-parse HEAD)
# A bare clone named as the repository is, so the package's identity is `migrationkit`
# whatever this checkout's folder is called.
git clone -q --bare "$repo" "$work/MigrationKit.git"
app="$work/app"
mkdir -p "$app/Sources/sqlcipher-app" "$app/Sources/grdb-app"
# Every Swift snippet of the documentation, as a target of its own with exactly the
# imports it shows (scripts/snippets.py), built with the apps.
snippets=$(python3 scripts/snippets.py "$app") || fail "scripts/snippets.py could not read the documentation's snippets"
snippet_targets=$(python3 - "$app/snippets.json" <<'PY'
import json, sys
for target in json.load(open(sys.argv[1])):
    dependencies = [f'.product(name: "{name}", package: "MigrationKit")' for name in target["products"]]
    dependencies += [f'.product(name: "{name}", package: "GRDB.swift")' for name in target["others"]]
    print(f'        .executableTarget(name: "{target["name"]}", dependencies: [{", ".join(dependencies)}]),')
PY
)

cat >"$app/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ConsumerApps",
    dependencies: [
        .package(url: "file://$work/MigrationKit.git", revision: "$commit"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(name: "sqlcipher-app", dependencies: [
            .product(name: "MigrationKitSQLCipher", package: "MigrationKit"),
        ]),
        .executableTarget(name: "grdb-app", dependencies: [
            .product(name: "MigrationKitGRDB", package: "MigrationKit"),
            .product(name: "MigrationKitGRDBCLI", package: "MigrationKit"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
$snippet_targets
    ]
)
EOF

cat >"$app/Sources/sqlcipher-app/main.swift" <<'EOF'
import MigrationKitSQLCipher

let writer = try SQLCipherWriter(path: CommandLine.arguments[1], key: .passphrase("consumer passphrase"))
let runner = try SQLCipherMigrationRunner(steps: [
    SQLCipherMigrationStep(
        identifier: "0001_create_notes",
        apply: { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)") },
        rollback: { db in try db.execute(sql: "DROP TABLE notes") }),
])
try runner.migrate(in: writer)
print(try runner.appliedIdentifiers(in: writer).joined(separator: ","))
EOF

cat >"$app/Sources/grdb-app/main.swift" <<'EOF'
import Foundation
import GRDB
import MigrationKit
import MigrationKitGRDB
import MigrationKitGRDBCLI

let path = CommandLine.arguments[1]
let runner = try GRDBMigrationRunner(steps: [
    MigrationStep<Database>(
        identifier: "0001_create_items",
        sourceFile: #fileID,
        apply: { db in try db.create(table: "items") { t in t.column("id", .integer).primaryKey() } },
        rollback: { db in try db.drop(table: "items") }),
])
try runner.migrate(in: try DatabaseQueue(path: path))
let host = GRDBMigrationCLIHost(runner: runner, commandName: "grdb-app")
exit(GRDBMigrationCLI.run(host: host, arguments: ["status", "--db-path", path, "--exit-code"]))
EOF

needed() {
    readelf -d "$1" | awk '/NEEDED/ { gsub(/[\[\]]/, "", $5); print $5 }'
}

# The README's encrypted GRDB recipe runs beside the consumer apps' build: a debug
# build of its own, with git and SwiftPM's resolution between, where the apps' build
# compiles whole modules one at a time; side by side they keep both cores busy. Its
# output is shown once both are done.
readme_recipe() {
    # The README's encrypted GRDB recipe, exactly as written: its build lines run in a package
    # of their own (a folder builds one GRDB flavour), its Swift block is the app, and the
    # proof is the README's too: a key from the Secret Service (a private keyring), then the
    # sqlcipher shell and `migrationkit status` on the file the app migrated.
    recipe() {
        awk -v marker="<!-- recipe: $1 " '
            index($0, marker) == 1 { found = 1; next }
            found && /^```/ { if (inside) exit; inside = 1; next }
            inside { print }' README.md
    }
    encrypted="$work/encrypted-grdb-app"
    mkdir -p "$encrypted/Sources/encrypted-grdb-app" "$encrypted/Sources/encrypted-grdb-commands" "$encrypted/run/Migrations"
    # With the README's GRDBSQLCipher trait, so that the commands in the app's binary take
    # the key options (encrypted-grdb-commands).
    cat >"$encrypted/Package.swift" <<EOF
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "EncryptedGRDBApp",
    dependencies: [
        .package(url: "file://$work/MigrationKit.git", revision: "$commit", traits: ["GRDBSQLCipher"]),
        // Spelled as GRDB's README spells it, with .git (MigrationKit's manifest has none).
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(name: "encrypted-grdb-app", dependencies: [
            .product(name: "MigrationKitGRDB", package: "MigrationKit"),
            .product(name: "MigrationKitKeys", package: "MigrationKit"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .executableTarget(name: "encrypted-grdb-commands", dependencies: [
            .product(name: "MigrationKitGRDBCLI", package: "MigrationKit"),
        ]),
    ]
)
EOF
    cat >"$encrypted/Sources/encrypted-grdb-commands/main.swift" <<'EOF'
import MigrationKitGRDBCLI

GRDBMigrationCLI.main(host: GRDBMigrationCLIHost(commandName: "encrypted-grdb-commands"))
EOF
    recipe "grdb-sqlcipher app" >"$encrypted/Sources/encrypted-grdb-app/main.swift"
    recipe "grdb-sqlcipher build" >"$work/build-recipe.sh"
    [ -s "$encrypted/Sources/encrypted-grdb-app/main.swift" ] && [ -s "$work/build-recipe.sh" ] \
        || fail "README.md has no grdb-sqlcipher recipe blocks"
    echo "== consumers: the README's encrypted GRDB recipe" >&2
    (cd "$encrypted" && sh -eu "$work/build-recipe.sh") >"$work/recipe.log" 2>&1 \
        || { tail -n 20 "$work/recipe.log" >&2; fail "the README's grdb-sqlcipher build lines failed"; }
    app_binary="$(cd "$encrypted" && swift build --show-bin-path)/encrypted-grdb-app"
    commands_binary="$(dirname "$app_binary")/encrypted-grdb-commands"
    # The app and the commands built with the GRDBSQLCipher trait: SQLCipher 4 alone, as
    # the grdb-sqlcipher configuration's binaries (scripts/check-linkage.sh decides).
    "$repo/scripts/check-linkage.sh" --binaries grdb-sqlcipher "$app_binary" "$commands_binary" 2>"$work/linkage.txt" \
        || fail "the encrypted GRDB app or commands: $(cat "$work/linkage.txt")"

    printf -- '-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\nINSERT INTO notes (body) VALUES (%s);\n' \
        "'first'" >"$encrypted/run/Migrations/0001_notes.sql"
    # The release binary make install ships (built once for the packaging configuration).
    migrationkit=$(./scripts/package.sh build 2>/dev/null) || fail "scripts/package.sh build failed"
    # Inside a private D-Bus session and keyring: $1 migrationkit, $2 the app's folder, $3 the app.
    ./scripts/with-test-keyring.sh sh -eu -c '
        [ "${MIGRATIONKIT_TEST_KEYRING:-}" = 1 ] || { echo "no private Secret Service" >&2; exit 1; }
        passphrase="consumer-grdb-passphrase"
        printf %s "$passphrase" | "$1" key store --keychain-service myapp --keychain-account db --quiet
        cd "$2"
        "$3"
        read_back=$(printf ".output /dev/null\nPRAGMA key = '"'"'%s'"'"';\n.output\nSELECT identifier FROM grdb_migrations;\nSELECT body FROM notes;\n" "$passphrase" | sqlcipher -batch app.db)
        [ "$read_back" = "$(printf "0001_notes\nfirst")" ] || { echo "the sqlcipher shell reads: $read_back" >&2; exit 1; }
        "$1" status --db-path app.db --migrations Migrations --keychain-service myapp --keychain-account db | grep -qx "1 applied, 0 pending."
        # The README: with the GRDBSQLCipher trait, the commands in the app take the key options.
        "$4" status --db-path app.db --migrations Migrations --keychain-service myapp --keychain-account db | grep -qx "  format:  sqlcipher4"
    ' sh "$migrationkit" "$encrypted/run" "$app_binary" "$commands_binary" \
        || fail "the README's encrypted GRDB app did not migrate a file that the sqlcipher shell and migrationkit status read"
    [ "$(head -c 15 "$encrypted/run/app.db")" != "SQLite format 3" ] || fail "the README's encrypted GRDB app wrote a plaintext file"
    [ "$(stat -c %a "$encrypted/run/app.db")" = 600 ] || fail "the README's encrypted GRDB app created app.db with mode $(stat -c %a "$encrypted/run/app.db"), not 0600"
    # A run that fails part-way (here the patch, through a git that refuses to apply it)
    # leaves the package as it found it, and says so.
    script="$encrypted/.build/checkouts/MigrationKit/scripts/grdb-sqlcipher.sh"
    mkdir -p "$work/failing-git"
    printf '#!/bin/sh\n[ "$3" = apply ] && exit 1\nexec %s "$@"\n' "$(command -v git)" >"$work/failing-git/git"
    chmod +x "$work/failing-git/git"
    cp "$encrypted/Package.resolved" "$work/resolved.before"
    cp "$encrypted/.swiftpm/configuration/mirrors.json" "$work/mirrors.before"
    if PATH="$work/failing-git:$PATH" "$script" "$encrypted" >"$work/failed-run.log" 2>&1; then
        fail "grdb-sqlcipher.sh succeeded although the patch could not be applied"
    fi
    tail -n 1 "$work/failed-run.log" | grep -q "is as it was" || fail "a failed grdb-sqlcipher.sh does not say the package is as it was: $(tail -n 2 "$work/failed-run.log")"
    cmp -s "$work/resolved.before" "$encrypted/Package.resolved" && cmp -s "$work/mirrors.before" "$encrypted/.swiftpm/configuration/mirrors.json" \
        || fail "a failed grdb-sqlcipher.sh changed the package's Package.resolved or mirrors"
    # The README's undo: without the mirrors, the package resolves GRDB's own release again.
    (cd "$encrypted" && "$script" --undo .) >>"$work/recipe.log" 2>&1 \
        || { tail -n 20 "$work/recipe.log" >&2; fail "the README's undo of the GRDB mirror failed"; }
    [ ! -e "$encrypted/.build/checkouts/GRDB.swift/Sources/SQLCipher" ] || fail "after the README's undo, the package still resolves the patched GRDB"
    ! grep -q "groue/GRDB" "$encrypted/.swiftpm/configuration/mirrors.json" 2>/dev/null || fail "after the README's undo, a GRDB mirror is still set"
    echo "test-consumers: ok: the README's encrypted GRDB recipe (GRDB spelled with .git) builds GRDB on libsqlcipher alone and migrates a 0600 file the shell and the tool read; a failed run leaves the package as it was; its undo restores GRDB" >&2
}
readme_recipe >"$work/readme-recipe.log" 2>&1 &
recipe_pid=$!

echo "== consumers: building apps that depend on $commit by URL" >&2
# Built as the tests are (scripts/swift-env.sh: whole modules, unoptimised), sooner than
# SwiftPM's debug configuration compiles file by file; the debug configuration would
# compile nothing else of MigrationKit (Sources/ has no `#if DEBUG`). The README's
# recipe, beside it, builds exactly as its lines say.
# shellcheck disable=SC2086 # test_build_flags is a list of flags
(cd "$app" && swift build $test_build_flags 2>&1 | grep -v 'prohibited flag' >"$work/build.log") || true
tail -n 3 "$work/build.log" >&2
# shellcheck disable=SC2086
bin=$(cd "$app" && swift build $test_build_flags --show-bin-path)
if ! [ -x "$bin/sqlcipher-app" ] || ! [ -x "$bin/grdb-app" ]; then
    # Each compiler error with the lines that show where, not only the build's last lines.
    grep -B2 -A6 'error:' "$work/build.log" | head -n 80 >&2
    fail "the consumer package did not build (see above)"
fi

needed "$bin/sqlcipher-app" | grep -q '^libsqlcipher\.so' || fail "sqlcipher-app does not link libsqlcipher: $(needed "$bin/sqlcipher-app" | tr '\n' ' ')"
needed "$bin/sqlcipher-app" | grep -q '^libsqlite3\.so' && fail "sqlcipher-app links libsqlite3 beside libsqlcipher"
needed "$bin/grdb-app" | grep -q '^libsqlite3\.so' || fail "grdb-app does not link libsqlite3: $(needed "$bin/grdb-app" | tr '\n' ' ')"
needed "$bin/grdb-app" | grep -q '^libsqlcipher\.so' && fail "grdb-app links libsqlcipher beside libsqlite3"

applied=$("$bin/sqlcipher-app" "$work/encrypted.db") || fail "sqlcipher-app exited $?"
[ "$applied" = "0001_create_notes" ] || fail "sqlcipher-app reports '$applied' applied"
read_back=$(printf ".output /dev/null\nPRAGMA key = 'consumer passphrase';\n.output\nSELECT identifier FROM grdb_migrations;\n" | sqlcipher -batch "$work/encrypted.db")
[ "$read_back" = "0001_create_notes" ] || fail "the sqlcipher shell reads '$read_back' from the consumer's database"

status=$("$bin/grdb-app" "$work/plain.db") || fail "grdb-app's status --exit-code exited $? after migrating: $status"
echo "$status" | grep -q '0001_create_items' || fail "grdb-app's status does not list its migration: $status"
echo "test-consumers: ok: by URL, the SQLCipher products link only libsqlcipher and the GRDB products only libsqlite3; both migrate" >&2
count=$(echo "$snippets" | grep -c . || true)
[ "$count" -gt 0 ] || fail "scripts/snippets.py found no Swift snippet in the documentation"
for name in $snippets; do
    [ -x "$bin/$name" ] || fail "the documentation snippet $name did not compile (see the build above; scripts/snippets.py names its file and line)"
done
echo "test-consumers: ok: the documentation's $count Swift snippets compile with exactly the imports they show" >&2

recipe_status=0
wait "$recipe_pid" || recipe_status=$?
recipe_pid=""
cat "$work/readme-recipe.log" >&2
[ "$recipe_status" = 0 ] || exit 1
