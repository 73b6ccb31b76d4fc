#!/bin/sh
# `make bench`: for each SQLCipher configuration (sqlcipher4, the default, and
# sqlcipher3, Debian 12's own 3.4.1; BENCH_CONFIGS picks), builds migrationkit in
# release mode against it, then runs Benchmarks/bench.py with the sqlcipher shell of
# the same version (see Benchmarks/README.md for what it measures and the BENCH_*
# overrides). Results: Benchmarks/results/results-<configuration>.md and .json.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# What the benchmark itself needs beyond the build: GNU time for peak memory, gcc for
# the LD_PRELOAD key-derivation counter.
missing=""
for package in time gcc libc6-dev python3; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "bench: installing$missing" >&2
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
. ./scripts/swift-env.sh
mkdir -p Benchmarks/results
gcc -O2 -Wall -Wextra -shared -fPIC -o Benchmarks/results/kdfcount.so Benchmarks/kdfcount.c -ldl

# Case 10, GRDB apps: GRDB's own DatabaseMigrator against GRDBMigrationRunner in one
# process on the same GRDB (the system's SQLite), built in release mode in the GRDB
# package (Integrations/GRDB).
case ",${BENCH_CASES:-1,2,3,4,5,6,7,8,9,10}," in
*,10,*)
    echo "bench: building grdb-migrator-bench (release) in Integrations/GRDB" >&2
    (cd Integrations/GRDB && swift build -c release --product grdb-migrator-bench >&2)
    Integrations/GRDB/.build/release/grdb-migrator-bench "${BENCH_RUNS:-5}" | tee Benchmarks/results/results-grdb.md
    ;;
esac

for configuration in ${BENCH_CONFIGS:-sqlcipher4 sqlcipher3}; do
    (
        case "$configuration" in
        sqlcipher4)
            scratch=.build-bench
            shell=/usr/bin/sqlcipher
            ;;
        sqlcipher3)
            eval "$(./scripts/sqlcipher3.sh --env)"
            scratch=.build-bench-sqlcipher3
            shell=$MIGRATIONKIT_SQLCIPHER_SHELL
            ;;
        *)
            echo "bench: unknown configuration $configuration" >&2
            exit 64
            ;;
        esac
        echo "bench: building migrationkit (release, static Swift runtime) for $configuration into $scratch" >&2
        swift build -c release --product migrationkit --static-swift-stdlib --scratch-path "$scratch" >&2
        # The same code on the shared Swift runtime, for case 6's start-up comparison.
        echo "bench: building migrationkit (release, shared Swift runtime) into $scratch-dynamic" >&2
        swift build -c release --product migrationkit --scratch-path "$scratch-dynamic" >&2
        BENCH_CONFIG=$configuration BENCH_SQLCIPHER=$shell BENCH_MIGRATIONKIT="$PWD/$scratch/release/migrationkit" \
            BENCH_DYNAMIC="$PWD/$scratch-dynamic/release/migrationkit" python3 Benchmarks/bench.py
    )
done
