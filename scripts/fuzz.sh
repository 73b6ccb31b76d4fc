#!/bin/sh
# Fuzzes MigrationKit's SQL text handling (tokenizer, statement splitter, dbmate
# section parser, linter) with libFuzzer for a bounded time.
#
#   scripts/fuzz.sh [seconds]      default 60
#
# Builds the MigrationKitFuzz target with the fuzzer and address sanitizers into
# .build-fuzz (apart from the normal .build), starts from the seed corpus in
# Tests/Fuzz/corpus with the SQL words of Tests/Fuzz/sql.dict, and keeps what it
# learns in .build-fuzz/corpus. A crashing input is written to
# .build-fuzz/artifacts/; replay it with a normal build:
#   swift build --product MigrationKitFuzz && .build/debug/MigrationKitFuzz FILE
# then add it as a regression case to Tests/MigrationKitTests/SQLTextRobustnessTests.swift.
set -eu
cd "$(dirname "$0")/.."
. ./scripts/swift-env.sh

seconds="${1:-60}"
case "$seconds" in
    ''|*[!0-9]*) echo "usage: scripts/fuzz.sh [seconds]" >&2; exit 2 ;;
esac

mkdir -p .build-fuzz/corpus .build-fuzz/artifacts
# Release for throughput (bounds and overflow checks stay on); gold's "Cannot export
# local symbol __asan_…" warnings are noise and are filtered from the log.
if ! swift build --scratch-path .build-fuzz -c release --product MigrationKitFuzz \
    -Xswiftc -sanitize=fuzzer,address \
    -Xswiftc -DMIGRATIONKIT_LIBFUZZER >.build-fuzz/build.log 2>&1; then
    grep -v 'Cannot export local symbol' .build-fuzz/build.log >&2
    exit 1
fi
# The learned corpus first: libFuzzer adds new inputs to the first folder only, so
# the checked-in seeds stay as they are.
exec .build-fuzz/release/MigrationKitFuzz .build-fuzz/corpus Tests/Fuzz/corpus \
    -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -dict=Tests/Fuzz/sql.dict -print_final_stats=1 -artifact_prefix=.build-fuzz/artifacts/
