#!/bin/sh
# `make bench`: builds migrationkit in release mode and the key-derivation counter,
# then runs Benchmarks/bench.py (see Benchmarks/README.md for what it measures and
# the BENCH_* overrides). Results: Benchmarks/results/results.md and results.json.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# What the benchmark itself needs beyond the build: the shell it compares against,
# GNU time for peak memory, gcc for the LD_PRELOAD counter.
missing=""
for package in sqlcipher time gcc libc6-dev python3; do
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

echo "bench: building migrationkit (release) into .build-bench" >&2
swift build -c release --product migrationkit --scratch-path .build-bench >&2
mkdir -p Benchmarks/results
gcc -O2 -Wall -Wextra -shared -fPIC -o Benchmarks/results/kdfcount.so Benchmarks/kdfcount.c -ldl

exec python3 Benchmarks/bench.py
