#!/bin/sh
# GRDB's own DatabaseMigratorTests as the judge of GRDBMigrationRunner
# (Integrations/GRDB/DatabaseMigratorTests/README.md): runs them, already built, once on
# GRDB's DatabaseMigrator and once through the runner, side by side, in the package
# folder given; prints one line with both counts (also appended to COUNTS_FILE when
# given, for the end of `make test`); fails when the runner fails a test, passes fewer
# than GRDB's migrator passes, or when no test ran at all (the links into GRDB's
# checkout did not resolve).
#
#   scripts/grdb-migrator-tests.sh PACKAGE_DIR NAME COUNTS_FILE|- [swift test arguments]
#
# NAME names the run in the line (the configuration: grdb, grdb-sqlcipher). Extra
# arguments go to `swift test` (the build flags, --traits).
set -eu
package_dir=$1
name=$2
counts_file=$3
[ "$counts_file" != - ] || counts_file=""
shift 3
cd "$package_dir"
work=$(mktemp -d "${TMPDIR:-/tmp}/migrationkit-grdb-migrator.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Both at once: on SQLCipher each of GRDB's test databases derives its key from a
# passphrase, which is the whole of their time, on one core each. SwiftPM locks the
# scratch path for the whole of a `swift test`, --skip-build or not: without
# --ignore-lock the second waits for the first to end (34 s instead of 18 here). Neither
# builds, so neither writes there.
for target in DatabaseMigratorTestsOnGRDB DatabaseMigratorTestsOnRunner; do
    (swift test --skip-build --ignore-lock "$@" --filter "^$target\\." >"$work/$target.log" 2>&1; echo $? >"$work/$target.status") &
done
wait

# "Executed 35 tests, with 11 tests skipped and 0 failures (0 unexpected)": executed,
# skipped, failed.
counts() {
    grep -E "Executed [0-9]+ tests?, with [0-9]+ tests? skipped and [0-9]+ failures?" "$work/$1.log" | tail -n 1 |
        sed -E 's/.*Executed ([0-9]+) tests?, with ([0-9]+) tests? skipped and ([0-9]+) failures?.*/\1 \2 \3/'
}
grdb=$(counts DatabaseMigratorTestsOnGRDB)
runner=$(counts DatabaseMigratorTestsOnRunner)
status=0
for target in DatabaseMigratorTestsOnGRDB DatabaseMigratorTestsOnRunner; do
    if [ "$(cat "$work/$target.status")" != 0 ] || [ -z "$(counts "$target")" ]; then
        echo "grdb-migrator-tests: $target failed or did not run:" >&2
        failures=$(grep -E "error|failed|Test Case .* failed|Executed" "$work/$target.log" | head -n 40 || true)
        if [ -n "$failures" ]; then echo "$failures" >&2; else tail -n 40 "$work/$target.log" >&2; fi
        status=1
    fi
done
[ "$status" = 0 ] || exit 1

set -- $grdb
grdb_executed=$1 grdb_skipped=$2 grdb_failed=$3
set -- $runner
runner_executed=$1 runner_skipped=$2 runner_failed=$3
grdb_passed=$((grdb_executed - grdb_skipped - grdb_failed))
runner_passed=$((runner_executed - runner_skipped - runner_failed))
line="$name: GRDB's DatabaseMigratorTests pass $runner_passed of $runner_executed through GRDBMigrationRunner ($runner_skipped skipped), as on GRDB's own DatabaseMigrator ($grdb_passed passed, $grdb_skipped skipped)"
echo "$line"
[ -z "$counts_file" ] || echo "  $line" >>"$counts_file"
if [ "$grdb_passed" -eq 0 ] || [ "$runner_passed" -lt "$grdb_passed" ] || [ "$runner_failed" -ne 0 ]; then
    echo "grdb-migrator-tests: the runner must pass every test GRDB's migrator passes" >&2
    exit 1
fi
