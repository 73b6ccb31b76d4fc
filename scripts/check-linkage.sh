#!/bin/sh
# Checks that every binary a test build (`test_build_flags`, scripts/swift-env.sh)
# produced links the SQLite of its configuration and no other: one SQLite per process,
# since libsqlite3 and both libsqlcipher export the same sqlite3_* symbols. SwiftPM has been seen passing a pkg-config file's -L to test bundles
# but not to executables, which then silently linked the other SQLCipher.
#
#   scripts/check-linkage.sh SCRATCH_PATH sqlcipher4|sqlcipher3|grdb|grdb-sqlcipher
#
# Run from the folder of the package the configuration builds (the repository's root, or
# Integrations/GRDB and Integrations/GRDBSQLCipher for the GRDB flavours).
set -eu
scratch=$1
root_binaries="migrationkit notes-migrate migrationkit-library-demo KeyStoreProbe MigrationKitPackageTests.xctest"
grdb_binaries="grdb-notes MigrationKitGRDBPackageTests.xctest"
sqlite=libsqlite3.so.0
sqlcipher4=libsqlcipher.so.1
sqlcipher3=libsqlcipher.so.0
case "$2" in
sqlcipher4) wanted=$sqlcipher4; unwanted="$sqlcipher3 $sqlite"; binaries=$root_binaries ;;
sqlcipher3) wanted=$sqlcipher3; unwanted="$sqlcipher4 $sqlite"; binaries=$root_binaries ;;
grdb) wanted=$sqlite; unwanted="$sqlcipher4 $sqlcipher3"; binaries=$grdb_binaries ;;
grdb-sqlcipher) wanted=$sqlcipher4; unwanted="$sqlcipher3 $sqlite"; binaries=$grdb_binaries ;;
*) echo "check-linkage: unknown configuration $2" >&2; exit 64 ;;
esac
. "$(dirname "$0")/swift-env.sh"
# shellcheck disable=SC2086 # test_build_flags is a list of flags
bin=$(swift build $test_build_flags --scratch-path "$scratch" --show-bin-path)
checked=0
for name in $binaries; do
    binary="$bin/$name"
    if [ ! -f "$binary" ]; then
        echo "check-linkage: $binary is missing; build it first, as scripts/test.sh does" >&2
        exit 1
    fi
    needed=$(readelf -d "$binary" | awk '/NEEDED/ { gsub(/[\[\]]/, "", $5); print $5 }')
    if ! echo "$needed" | grep -qx "$wanted"; then
        echo "check-linkage: $binary does not link $wanted (it needs: $(echo $needed))" >&2
        exit 1
    fi
    for library in $unwanted; do
        if echo "$needed" | grep -qx "$library"; then
            echo "check-linkage: $binary links $library beside $wanted" >&2
            exit 1
        fi
    done
    checked=$((checked + 1))
done
echo "check-linkage: $checked binaries in $bin link $wanted and no other SQLite" >&2
