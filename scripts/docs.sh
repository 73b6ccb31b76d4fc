#!/bin/sh
# `make docs`: the DocC documentation of the library products, each module's catalog
# (Sources/MODULE/MODULE.docc) and its symbols, into .build/docs/MODULE.doccarchive.
# Fails on any DocC warning (a broken symbol link, an undocumented parameter) and on
# any public symbol without a doc comment (scripts/doc-coverage.py).
set -eu
cd "$(dirname "$0")/.."
. ./scripts/swift-env.sh
modules="MigrationKit MigrationKitSecrets MigrationKitSQLCipher MigrationKitKeys"
# In the tests' scratch path on the default SQLCipher, whose build is the plugin's (the
# same flags, every trait: scripts/swift-env.sh): after `make test`'s tests, only the
# plugin's tools are left to build; the same for the GRDB-on-SQLCipher package below.
scratch=$test_scratch
prepare_test_scratch
mkdir -p .build/docs

# document PACKAGE_DIR SCRATCH MODULE...: the modules' archives into .build/docs, or the
# DocC log's end and a failure. One run of the plugin for all of a package's modules:
# each run builds the plugin's tools and brings the package's build up to date before it
# extracts any symbols, so one run pays that once, and converts the modules side by side.
document() {
    package_dir=$1
    package_scratch=$2
    shift 2
    echo "== docs: $*" >&2
    log=$PWD/.build/docs/$(echo "$*" | tr ' ' '+').log
    targets=""
    for module in "$@"; do
        targets="$targets --target $module"
        rm -rf ".build/docs/$module.doccarchive"
    done
    # With more than one target the plugin writes MODULE.doccarchive inside the output
    # path; with one, the output path is the archive.
    output=$PWD/.build/docs
    [ $# -gt 1 ] || output=$PWD/.build/docs/$1.doccarchive
    # shellcheck disable=SC2086 # test_build_flags and $targets are lists
    if ! (cd "$package_dir" && swift package --scratch-path "$package_scratch" $test_build_flags generate-documentation $targets \
        --warnings-as-errors --output-path "$output") >"$log" 2>&1; then
        grep -v -e '^\[' -e 'prohibited flag' "$log" | tail -n 40 >&2
        echo "docs: DocC failed for $* (full log: $log)" >&2
        exit 1
    fi
    for module in "$@"; do
        [ -d ".build/docs/$module.doccarchive" ] || { echo "docs: DocC wrote no archive for $module (full log: $log)" >&2; exit 1; }
    done
}

# shellcheck disable=SC2086 # $modules is a list
document . "$scratch" $modules
python3 scripts/doc-coverage.py --scratch-path "$scratch" $modules

# MigrationKitGRDB on GRDB built on SQLCipher (the grdb-sqlcipher configuration's
# package), so that its encrypted path (useKey, GRDBCipherFormat, openQueue(key:)) is
# documented and checked, not compiled out.
grdb=Integrations/GRDBSQLCipher
grep -qs "groue/GRDB" "$grdb/.swiftpm/configuration/mirrors.json" || ./scripts/grdb-sqlcipher.sh "$grdb"
document "$grdb" .build MigrationKitGRDB
python3 scripts/doc-coverage.py --scratch-path "$grdb/.build" MigrationKitGRDB
echo "docs: built .build/docs/{$(echo $modules | tr ' ' ','),MigrationKitGRDB}.doccarchive" >&2
