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
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
commit=$(git rev-parse HEAD)
# A bare clone named as the repository is, so the package's identity is `migrationkit`
# whatever this checkout's folder is called.
git clone -q --bare "$repo" "$work/MigrationKit.git"
app="$work/app"
mkdir -p "$app/Sources/sqlcipher-app" "$app/Sources/grdb-app"

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

echo "== consumers: building apps that depend on $commit by URL" >&2
(cd "$app" && swift build 2>&1 | grep -v 'prohibited flag' | tail -n 3) >&2
bin=$(cd "$app" && swift build --show-bin-path)
[ -x "$bin/sqlcipher-app" ] && [ -x "$bin/grdb-app" ] || fail "the consumer package did not build (see above)"

needed() {
    readelf -d "$1" | awk '/NEEDED/ { gsub(/[\[\]]/, "", $5); print $5 }'
}
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
