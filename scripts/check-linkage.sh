#!/bin/sh
# Checks that every binary a test build (`test_build_flags`, scripts/swift-env.sh)
# produced links the SQLite of its configuration and no other: one SQLite per process,
# since libsqlite3 and every libsqlcipher export the same sqlite3_* symbols. SwiftPM has been seen passing a pkg-config file's -L to test bundles
# but not to executables, which then silently linked the other SQLCipher.
#
#   scripts/check-linkage.sh SCRATCH_PATH sqlcipher4|sqlcipher3|grdb|grdb-sqlcipher
#   scripts/check-linkage.sh --binaries CONFIGURATION FILE...   the same check of these files
#
# Run from the folder of the package the configuration builds (the repository's root, or
# Integrations/GRDB and Integrations/GRDBSQLCipher for the GRDB flavours).
#
# Each binary must link exactly one SQLite (libsqlite3 or a libsqlcipher), one its
# configuration takes, and every binary of a run the same one. SQLCipher 4 comes under
# more than one soname: Debian's libsqlcipher1 (libsqlcipher.so.1, SQLCipher 4 up to
# 4.6.1) and, from SQLCipher 4.19 in Debian sid, libsqlcipher2 (libsqlcipher.so.2). The
# soname is the distribution's name for its build, not a file format or an API: the
# binaries call the same sqlite3_* functions, and the tests check what the library they
# load says of itself (PlatformTests, theHeadersCompiledAgainstAreTheLinkedLibrarys). A
# soname not listed here is refused until it has been built and tested the same way
# (CONTRIBUTING.md, "A newer SQLCipher than the machine's").
set -eu
sqlite=libsqlite3.so.0
sqlcipher4="libsqlcipher.so.1 libsqlcipher.so.2"
sqlcipher3=libsqlcipher.so.0

# The SQLite libraries among a binary's NEEDED entries, one a line.
sqlite_libraries() {
    readelf -d "$1" | awk '/NEEDED/ { gsub(/[\[\]]/, "", $5); print $5 }' | grep -E '^lib(sqlite3|sqlcipher)\.so' || true
}

# check_binaries CONFIGURATION FILE...: the check itself; prints how many it checked.
check_binaries() {
    newer=""
    case "$1" in
    sqlcipher4 | grdb-sqlcipher)
        taken=$sqlcipher4
        newer="; a newer SQLCipher's soname is added here once the suite has passed on it"
        ;;
    sqlcipher3) taken=$sqlcipher3 ;;
    grdb) taken=$sqlite ;;
    *) echo "check-linkage: unknown configuration $1" >&2; exit 64 ;;
    esac
    configuration=$1
    shift
    linked=""
    for binary in "$@"; do
        if [ ! -f "$binary" ]; then
            echo "check-linkage: $binary is missing; build it first, as scripts/test.sh does" >&2
            exit 1
        fi
        libraries=$(sqlite_libraries "$binary")
        count=$(echo "$libraries" | grep -c . || true)
        if [ "$count" -eq 0 ]; then
            echo "check-linkage: $binary links no SQLite (the $configuration configuration takes $(echo "$taken" | sed 's/ / or /g'))" >&2
            exit 1
        fi
        if [ "$count" -gt 1 ]; then
            echo "check-linkage: $binary links $(echo $libraries | sed 's/ / beside /g'): one process would hold two SQLites" >&2
            exit 1
        fi
        case " $taken " in
        *" $libraries "*) ;;
        *)
            echo "check-linkage: $binary links $libraries, which the $configuration configuration does not take (it takes $(echo "$taken" | sed 's/ / or /g'))$newer" >&2
            exit 1
            ;;
        esac
        if [ -n "$linked" ] && [ "$libraries" != "$linked" ]; then
            echo "check-linkage: $binary links $libraries, the binaries before it $linked: one build links one SQLCipher" >&2
            exit 1
        fi
        linked=$libraries
    done
    echo "$# $linked"
}

if [ "$1" = --binaries ]; then
    configuration=$2
    shift 2
    result=$(check_binaries "$configuration" "$@")
    echo "check-linkage: ${result%% *} binaries link ${result#* } and no other SQLite" >&2
    exit 0
fi

scratch=$1
configuration=$2
case "$configuration" in
grdb | grdb-sqlcipher) binaries="grdb-notes MigrationKitGRDBPackageTests.xctest" ;;
*) binaries="migrationkit notes-migrate migrationkit-library-demo KeyStoreProbe MigrationKitPackageTests.xctest" ;;
esac
. "$(dirname "$0")/swift-env.sh"
# shellcheck disable=SC2086 # test_build_flags is a list of flags
bin=$(swift build $test_build_flags --scratch-path "$scratch" --show-bin-path)
set --
for name in $binaries; do set -- "$@" "$bin/$name"; done
result=$(check_binaries "$configuration" "$@")
echo "check-linkage: ${result%% *} binaries in $bin link ${result#* } and no other SQLite" >&2
