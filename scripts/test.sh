#!/bin/sh
# The README's test command (`make test`): installs what is missing, then builds and
# runs every test, each configuration inside a private D-Bus session with its own
# gnome-keyring, and ends with the time each took:
#
#   sqlcipher3  Debian 12's own SQLCipher 3.4.1 (scripts/sqlcipher3.sh), all but the test
#               targets that never link SQLCipher (scripts/test-targets.py), with the
#               long tests' quick share (MIGRATIONKIT_TEST_DEPTH=quick)
#   sqlcipher4  the default: the system's SQLCipher 4 (4.6.1); after sqlcipher3, so that
#               what follows (and the next make check) finds its build
#               The two share one scratch path, .build-tests (scripts/swift-env.sh): the
#               second rebuilds only the modules that depend on SQLCipher.
#   grdb        the GRDB integration (Integrations/GRDB), a package of its own on the
#               system SQLite, in its own process: never beside libsqlcipher; then
#               GRDB's own DatabaseMigratorTests on GRDB's migrator and on the runner
#               (scripts/grdb-migrator-tests.sh), their counts printed at the end
#   grdb-sqlcipher  the same package on GRDB built on the system's SQLCipher 4
#               (Integrations/GRDBSQLCipher, scripts/grdb-sqlcipher.sh): encrypted
#               GRDB apps, never beside libsqlite3
#   docs        make docs: the library products' DocC archives, failing on any DocC
#               warning or any undocumented public symbol (scripts/docs.sh), from the
#               sqlcipher4 configuration's build
#   packaging   make install / uninstall and the Debian package, installed with apt-get
#               and purged again (scripts/test-packaging.sh; root or sudo); beside it,
#               apps that depend on the repository by URL, one per product family
#               (scripts/test-consumers.sh), using the release build make install made
#
# While the root package's tests run, the grdb and packaging configurations' builds
# run in the background in the idle scheduling class, on the cores the tests leave idle
# (warm_up below).
#
# MIGRATIONKIT_CONFIGURATIONS="sqlcipher4" runs some of them; MIGRATIONKIT_TEST_DEPTH=quick
# runs the long tests' quick share (`make check`; `make test` sets full); arguments go to
# `swift test` (for example --filter). Before anything is built, each target's declared
# dependencies are checked against its imports (scripts/check-dependencies.py); every built
# binary's linkage is checked before its tests.
set -eu
cd "$(dirname "$0")/.."
repository=$(pwd)
started=$(date +%s)
./scripts/install-deps.sh
. ./scripts/swift-env.sh
# The Python clients the tests use as other programs (sqlcipher3-binary, keyring).
eval "$(./scripts/python-tools.sh --env)"

configurations=${MIGRATIONKIT_CONFIGURATIONS:-"sqlcipher3 sqlcipher4 grdb grdb-sqlcipher docs packaging"}
MIGRATIONKIT_TEST_DEPTH=${MIGRATIONKIT_TEST_DEPTH:-full}
export MIGRATIONKIT_TEST_DEPTH
failed=""
# Each target's declared dependencies are its imports, in the root manifest and the GRDB
# integration's, which restates the root's targets (scripts/check-dependencies.py, a
# few seconds): a difference fails the run at the end, named, after the tests ran.
python3 ./scripts/check-dependencies.py || failed=" dependencies"
# Each configuration's test output is also kept here, so that the run's last lines
# (all a CI log may show) can name the tests that failed, not only the configuration;
# and each phase's time, for the table at the end.
logs=$(mktemp -d "${TMPDIR:-/tmp}/migrationkit-test-logs.XXXXXX")
warm_up_pid=""
trap 'stop_warm_up; rm -rf "$logs"' EXIT

# run_tests CONFIGURATION COMMAND...: runs the tests, their output shown and kept. A run
# whose output stops growing for 15 minutes is stalled: scripts/stall-watchdog.py names
# the tests still running, shows where each thread waits and kills the test process,
# so that a hang fails here, named, rather than at the CI's time limit.
run_tests() {
    log="$logs/$1.log"
    shift
    : >>"$log"
    python3 "$repository/scripts/stall-watchdog.py" "$log" $$ &
    watchdog=$!
    { status=0; "$@" || status=$?; echo "$status" >"$log.status"; } 2>&1 | tee -a "$log"
    kill "$watchdog" 2>/dev/null || true
    wait "$watchdog" 2>/dev/null || true
    [ "$(cat "$log.status")" = 0 ]
}

# timed CONFIGURATION PHASE COMMAND...: runs the command and records how long it took.
timed() {
    timed_line="$1 $2"
    shift 2
    timed_started=$(date +%s)
    timed_status=0
    "$@" || timed_status=$?
    echo "$timed_line $(($(date +%s) - timed_started))" >>"$logs/times"
    return $timed_status
}

# build_root: what the root package's tests run, built as its tests are built
# (`root_test_flags`, scripts/swift-env.sh) on the SQLCipher PKG_CONFIG_PATH names: the
# test bundle with the binaries it runs, and the library example, whose linkage is
# checked too. Nothing else: the GRDB products are the GRDB configurations'.
build_root() {
    prepare_test_scratch &&
        # shellcheck disable=SC2086 # root_test_flags is a list of flags
        swift build $root_test_flags --product MigrationKitPackageTests &&
        swift build $root_test_flags --product migrationkit-library-demo
}

# build_tool: the migrationkit binary alone, on the default SQLCipher, where build_root
# builds it (nothing left to do after the sqlcipher4 configuration).
build_tool() {
    prepare_test_scratch &&
        # shellcheck disable=SC2086 # root_test_flags is a list of flags
        swift build $root_test_flags --product migrationkit
}

# root_configuration CONFIGURATION [swift test arguments]: the root package's tests on
# one SQLCipher.
root_configuration() {
    root_name=$1
    shift
    echo "== $root_name: building (scratch path $test_scratch)" >&2
    timed "$root_name" build build_root || return 1
    ./scripts/check-linkage.sh "$test_scratch" "$root_name" || return 1
    echo "== $root_name: testing" >&2
    # shellcheck disable=SC2086
    timed "$root_name" test run_tests "$root_name" ./scripts/with-test-keyring.sh \
        swift test $root_test_flags --skip-build "$@" || return 1
}

# build_grdb_package PACKAGE [TRAITS...]: a GRDB package's tests and examples, as its
# configuration builds them (in its own .build).
build_grdb_package() {
    grdb_package=$1
    shift
    # shellcheck disable=SC2086 # test_build_flags is a list of flags
    (cd "$grdb_package" && swift build $test_build_flags --build-tests "$@")
}

# Warming up: while the root package's tests run, the cores are idle a sixth of the time
# (the tests wait on the processes they start, on locks and on the keyring). The builds
# of two later configurations, which share nothing with the root's scratch path, run
# then in the background in Linux's idle scheduling class (SCHED_IDLE, which the
# compilers inherit; SwiftPM's build system starts them at nice 0 whatever its own
# niceness), so that they take only what the tests leave: the GRDB package's tests (the
# grdb configuration) and the release binary (packaging). Each configuration still runs
# its own build, which finds the work done; it waits for its warm-up first, at full
# speed then, as nothing else runs. A warm-up that fails, or that cannot enter the idle
# class, does nothing more: the configuration's own build does the work, or shows the
# error.
warm_up_steps=""
case " $configurations " in
*" sqlcipher3 "* | *" sqlcipher4 "*)
    for step in grdb packaging; do
        case " $configurations " in *" $step "*) warm_up_steps="$warm_up_steps $step" ;; esac
    done
    ;;
esac

warm_up() {
    (
        trap ': >"$logs/warm-up.ended"' EXIT
        read -r warm_up_self _ </proc/self/stat
        chrt --idle -p 0 "$warm_up_self" >/dev/null 2>&1 || exit 0
        for step in $warm_up_steps; do
            case "$step" in
            grdb) build_grdb_package Integrations/GRDB ;;
            packaging) ./scripts/package.sh build ;;
            esac >"$logs/warm-up-$step.log" 2>&1 || true
            : >"$logs/warm-up-$step.done"
        done
    ) &
    warm_up_pid=$!
}

# wait_for_warm_up STEP: returns once the warm-up has done STEP (or stopped).
wait_for_warm_up() {
    [ -n "$warm_up_pid" ] || return 0
    case " $warm_up_steps " in *" $1 "*) ;; *) return 0 ;; esac
    until [ -e "$logs/warm-up-$1.done" ] || [ -e "$logs/warm-up.ended" ] ||
        ! kill -0 "$warm_up_pid" 2>/dev/null; do
        sleep 1
    done
}

# stop_warm_up: on the way out (a failure, Ctrl-C), the builds still warming up stop
# too, compilers first: a background job of a script ignores the terminal's SIGINT.
stop_warm_up() {
    [ -n "$warm_up_pid" ] && kill -0 "$warm_up_pid" 2>/dev/null || return 0
    terminate_tree "$warm_up_pid"
    wait "$warm_up_pid" 2>/dev/null || true
}

# terminate_tree PID: SIGTERM to a process's descendants, the deepest first, then to it
# (its children as Linux lists them per thread: a fresh Debian has no pgrep).
terminate_tree() {
    for terminated_child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        terminate_tree "$terminated_child"
    done
    kill "$1" 2>/dev/null || true
}

# packaging_checks: the Debian package checks (scripts/test-packaging.sh) beside the
# consumer apps (scripts/test-consumers.sh). The first is mostly one core's work (xz,
# lintian, apt-get, man), which alone leaves a core idle; the second builds on both. Its output
# is shown when both are done, after the consumers'.
packaging_checks() {
    packaging_log="$logs/test-packaging.log"
    ./scripts/test-packaging.sh >"$packaging_log" 2>&1 &
    packaging_pid=$!
    consumers_status=0
    ./scripts/test-consumers.sh || consumers_status=$?
    packaging_status=0
    wait "$packaging_pid" || packaging_status=$?
    cat "$packaging_log" >&2
    [ "$consumers_status" = 0 ] && [ "$packaging_status" = 0 ]
}

[ -z "$warm_up_steps" ] || warm_up
for configuration in $configurations; do
    # Each configuration runs even when the one before failed; the run fails at the end.
    if ! (
        case "$configuration" in
        sqlcipher4)
            MIGRATIONKIT_EXPECTED_SQLCIPHER=4
            export MIGRATIONKIT_EXPECTED_SQLCIPHER
            root_configuration sqlcipher4 "$@" || exit 1
            ;;
        sqlcipher3)
            environment=$(./scripts/sqlcipher3.sh --env) || exit 1
            eval "$environment"
            MIGRATIONKIT_EXPECTED_SQLCIPHER=3
            # The long tests' quick share: their repetitions (kills, races, fuzz cases)
            # hunt timing windows in MigrationKit's own code, the same on either
            # SQLCipher, and run at full depth on the default. Every test still runs.
            MIGRATIONKIT_TEST_DEPTH=quick
            export MIGRATIONKIT_EXPECTED_SQLCIPHER MIGRATIONKIT_TEST_DEPTH
            # The test targets that never link SQLCipher run once, on the default.
            once=$(python3 ./scripts/test-targets.py --without CSQLCipher) || exit 1
            root_configuration sqlcipher3 --skip "^($(echo "$once" | paste -sd '|' -))\." "$@" || exit 1
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
                timed "$configuration" build ./scripts/grdb-sqlcipher.sh "$package" || exit 1
                # The tool, for the tests where it and the app share one encrypted file:
                # the sqlcipher4 configuration's build (made now if that did not run).
                timed "$configuration" build build_tool || exit 1
                # shellcheck disable=SC2086
                MIGRATIONKIT_BINARY="$(swift build $root_test_flags --show-bin-path)/migrationkit"
                export MIGRATIONKIT_BINARY
            fi
            export MIGRATIONKIT_GRDB_FLAVOUR
            echo "== $configuration: building ($package/.build)" >&2
            timed "$configuration" build wait_for_warm_up "$configuration"
            # shellcheck disable=SC2086 # $traits is a list
            timed "$configuration" build build_grdb_package "$package" $traits || exit 1
            cd "$package" || exit 1
            ../../scripts/check-linkage.sh .build "$configuration" || exit 1
            echo "== $configuration: testing" >&2
            # GRDB's own DatabaseMigratorTests run apart (scripts/grdb-migrator-tests.sh),
            # once on GRDB's migrator and once on the runner, to compare their counts.
            # shellcheck disable=SC2086
            timed "$configuration" test run_tests "$configuration" ../../scripts/with-test-keyring.sh \
                swift test $test_build_flags --skip-build $traits --skip '^DatabaseMigratorTestsOn' "$@" || exit 1
            if [ $# -eq 0 ]; then
                # shellcheck disable=SC2086
                timed "$configuration" test run_tests "$configuration" \
                    ../../scripts/grdb-migrator-tests.sh . "$configuration" "$logs/grdb-migrator" $test_build_flags $traits || exit 1
            fi
            ;;
        docs)
            timed docs test ./scripts/docs.sh || exit 1
            ;;
        packaging)
            # The release binary make install, make deb and the consumer test use: built
            # once, mostly by the warm-up; the time here is what was left of it.
            timed packaging build wait_for_warm_up packaging
            timed packaging build ./scripts/package.sh build || exit 1
            timed packaging test packaging_checks || exit 1
            ;;
        *)
            echo "test: unknown configuration $configuration (use sqlcipher4, sqlcipher3, grdb, grdb-sqlcipher, docs or packaging)" >&2
            exit 64
            ;;
        esac
    ); then
        failed="$failed $configuration"
    fi
done

./scripts/test-times.sh "$logs/times" "$(($(date +%s) - started))" "$configurations" >&2
if [ -f "$logs/grdb-migrator" ]; then
    echo "test: GRDB's own migrator tests, on GRDB's DatabaseMigrator and on GRDBMigrationRunner:" >&2
    cat "$logs/grdb-migrator" >&2
fi

if [ -n "$failed" ]; then
    for configuration in $failed; do
        [ -f "$logs/$configuration.log" ] || continue
        echo "test: what failed on $configuration:" >&2
        # swift-testing's issues and failures, XCTest's, and crashes: at most 60 lines.
        grep -E '✘|: error: -\[|Fatal error|Test Case .* failed|Exited with|^stall-watchdog:|^    #' "$logs/$configuration.log" \
            | cut -c1-400 | head -n 60 >&2 || true
    done
    echo "test: failed on:$failed" >&2
    exit 1
fi
echo "test: passed on: $configurations" >&2
