#!/bin/sh
# `make docs`: the DocC documentation of the library products, each module's catalog
# (Sources/MODULE/MODULE.docc) and its symbols, into .build/docs/MODULE.doccarchive.
# Fails on any DocC warning (a broken symbol link, an undocumented parameter) and on
# any public symbol without a doc comment (scripts/doc-coverage.py).
set -eu
cd "$(dirname "$0")/.."
. ./scripts/swift-env.sh
modules="MigrationKit MigrationKitSecrets MigrationKitSQLCipher MigrationKitKeys"
# Built as the tests are, in the sqlcipher4 configuration's scratch path: after `make
# test`'s tests, only the plugin's tools are left to build.
scratch=.build-sqlcipher4
mkdir -p .build/docs

# document PACKAGE_DIR SCRATCH MODULE: the module's archive into .build/docs, or the
# DocC log's end and a failure.
document() {
    echo "== docs: $3" >&2
    log=$PWD/.build/docs/$3.log
    # shellcheck disable=SC2086 # test_build_flags is a list of flags
    if ! (cd "$1" && swift package --scratch-path "$2" $test_build_flags --disable-sandbox generate-documentation --target "$3" \
        --warnings-as-errors --output-path "$OLDPWD/.build/docs/$3.doccarchive") >"$log" 2>&1; then
        grep -v -e '^\[' -e 'prohibited flag' "$log" | tail -n 40 >&2
        echo "docs: DocC failed for $3 (full log: $log)" >&2
        exit 1
    fi
}

for module in $modules; do
    document . "$scratch" "$module"
done
python3 scripts/doc-coverage.py --scratch-path "$scratch" $modules

# MigrationKitGRDB on GRDB built on SQLCipher (the grdb-sqlcipher configuration's
# package), so that its encrypted path (useKey, GRDBCipherFormat, openQueue(key:)) is
# documented and checked, not compiled out.
grdb=Integrations/GRDBSQLCipher
grep -qs "groue/GRDB" "$grdb/.swiftpm/configuration/mirrors.json" || ./scripts/grdb-sqlcipher.sh "$grdb"
document "$grdb" .build MigrationKitGRDB
python3 scripts/doc-coverage.py --scratch-path "$grdb/.build" MigrationKitGRDB
echo "docs: built .build/docs/{$(echo $modules | tr ' ' ','),MigrationKitGRDB}.doccarchive" >&2
