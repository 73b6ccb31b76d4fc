#!/bin/sh
# The README's test command (`make test`): installs what is missing, then builds and
# runs every test on both supported SQLCipher platforms, each inside a private D-Bus
# session with its own gnome-keyring:
#
#   sqlcipher4  the default: the system's SQLCipher 4 (4.6.1), scratch path .build
#   sqlcipher3  Debian 12's own SQLCipher 3.4.1 (scripts/sqlcipher3.sh), scratch path
#               .build-sqlcipher3
#   grdb        the GRDB integration (Integrations/GRDB), a package of its own on the
#               system SQLite, in its own process: never beside libsqlcipher
#   grdb-sqlcipher  the same package on GRDB built on the system's SQLCipher 4
#               (Integrations/GRDBSQLCipher, scripts/grdb-sqlcipher.sh): encrypted
#               GRDB apps, never beside libsqlite3
#   packaging   make install / uninstall and the Debian package, installed with apt-get
#               and purged again (scripts/test-packaging.sh; root or sudo); apps that
#               depend on the repository by URL, one per product family
#               (scripts/test-consumers.sh)
#   docs        make docs: the library products' DocC archives, failing on any DocC
#               warning or any undocumented public symbol (scripts/docs.sh)
#
# MIGRATIONKIT_CONFIGURATIONS="sqlcipher4" runs one of them; arguments go to
# `swift test` (for example --filter). Every built binary's linkage is checked first.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
. ./scripts/swift-env.sh

configurations=${MIGRATIONKIT_CONFIGURATIONS:-"sqlcipher4 sqlcipher3 grdb grdb-sqlcipher packaging docs"}
failed=""
# Each configuration's test output is also kept here, so that the run's last lines
# (all a CI log may show) can name the tests that failed, not only the configuration.
logs=$(mktemp -d "${TMPDIR:-/tmp}/migrationkit-test-logs.XXXXXX")
trap 'rm -rf "$logs"' EXIT

# run_tests CONFIGURATION COMMAND...: runs the tests, their output shown and kept.
run_tests() {
    log="$logs/$1.log"
    shift
    { status=0; "$@" || status=$?; echo "$status" >"$log.status"; } 2>&1 | tee "$log"
    [ "$(cat "$log.status")" = 0 ]
}
for configuration in $configurations; do
    # Each configuration runs even when the one before failed; the run fails at the end.
    if ! (
        case "$configuration" in
        sqlcipher4)
            scratch=.build
            MIGRATIONKIT_EXPECTED_SQLCIPHER=4
            ;;
        grdb | grdb-sqlcipher)
            if [ "$configuration" = grdb ]; then
                package=Integrations/GRDB
                MIGRATIONKIT_GRDB_FLAVOUR=sqlite
                traits=
            else
                package=Integrations/GRDBSQLCipher
                MIGRATIONKIT_GRDB_FLAVOUR=sqlcipher
                # The commands' key options (MigrationKitGRDBCLI), as an encrypted app enables them.
                traits="--traits GRDBSQLCipher"
                ./scripts/grdb-sqlcipher.sh "$package" || exit 1
                # The tool, for the tests where it and the app share one encrypted file.
                swift build --product migrationkit || exit 1
                MIGRATIONKIT_BINARY="$(swift build --show-bin-path)/migrationkit"
                export MIGRATIONKIT_BINARY
            fi
            export MIGRATIONKIT_GRDB_FLAVOUR
            cd "$package" || exit 1
            echo "== $configuration: building ($package/.build)" >&2
            # shellcheck disable=SC2086 # $traits is empty or one option and its value
            swift build --build-tests $traits || exit 1
            ../../scripts/check-linkage.sh .build "$configuration" || exit 1
            echo "== $configuration: testing" >&2
            # shellcheck disable=SC2086
            run_tests "$configuration" ../../scripts/with-test-keyring.sh swift test --skip-build $traits "$@" || exit 1
            exit 0
            ;;
        docs)
            ./scripts/docs.sh || exit 1
            exit 0
            ;;
        packaging)
            ./scripts/test-packaging.sh || exit 1
            ./scripts/test-consumers.sh || exit 1
            exit 0
            ;;
        sqlcipher3)
            environment=$(./scripts/sqlcipher3.sh --env) || exit 1
            eval "$environment"
            scratch=.build-sqlcipher3
            MIGRATIONKIT_EXPECTED_SQLCIPHER=3
            ;;
        *)
            echo "test: unknown configuration $configuration (use sqlcipher4, sqlcipher3, grdb, grdb-sqlcipher, packaging or docs)" >&2
            exit 64
            ;;
        esac
        export MIGRATIONKIT_EXPECTED_SQLCIPHER
        # Inside `if`, errexit is off: every step says its own `|| exit`.
        echo "== $configuration: building (scratch path $scratch)" >&2
        swift build --build-tests --scratch-path "$scratch" || exit 1
        ./scripts/check-linkage.sh "$scratch" "$configuration" || exit 1
        echo "== $configuration: testing" >&2
        run_tests "$configuration" ./scripts/with-test-keyring.sh swift test --skip-build --scratch-path "$scratch" "$@" || exit 1
    ); then
        failed="$failed $configuration"
    fi
done
if [ -n "$failed" ]; then
    for configuration in $failed; do
        [ -f "$logs/$configuration.log" ] || continue
        echo "test: what failed on $configuration:" >&2
        # swift-testing's issues and failures, XCTest's, and crashes: at most 60 lines.
        grep -E '✘|: error: -\[|Fatal error|Test Case .* failed|Exited with' "$logs/$configuration.log" \
            | cut -c1-400 | head -n 60 >&2 || true
    done
    echo "test: failed on:$failed" >&2
    exit 1
fi
echo "test: passed on: $configurations" >&2
