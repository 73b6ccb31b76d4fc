#!/bin/sh
# `make docs`: the DocC documentation of the library products, each module's catalog
# (Sources/MODULE/MODULE.docc) and its symbols, into .build/docs/MODULE.doccarchive.
# Fails on any DocC warning (a broken symbol link, an undocumented parameter) and on
# any public symbol without a doc comment (scripts/doc-coverage.py).
set -eu
cd "$(dirname "$0")/.."
. ./scripts/swift-env.sh
modules="MigrationKit MigrationKitSecrets MigrationKitSQLCipher MigrationKitKeys MigrationKitGRDB"
# Built as the tests are, in the sqlcipher4 configuration's scratch path: after `make
# test`'s tests, only GRDB and the plugin's tools are left to build.
scratch=.build-sqlcipher4
mkdir -p .build/docs
for module in $modules; do
    echo "== docs: $module" >&2
    log=.build/docs/$module.log
    # shellcheck disable=SC2086 # test_build_flags is a list of flags
    if ! swift package --scratch-path "$scratch" $test_build_flags --disable-sandbox generate-documentation --target "$module" \
        --warnings-as-errors --output-path ".build/docs/$module.doccarchive" >"$log" 2>&1; then
        grep -v -e '^\[' -e 'prohibited flag' "$log" | tail -n 40 >&2
        echo "docs: DocC failed for $module (full log: $log)" >&2
        exit 1
    fi
done
python3 scripts/doc-coverage.py --scratch-path "$scratch" $modules
echo "docs: built .build/docs/{$(echo $modules | tr ' ' ',')}.doccarchive" >&2
