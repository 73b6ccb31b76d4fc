#!/bin/sh
# The table `make test` ends with: each configuration's build and test time, its total,
# and the budget CONTRIBUTING.md keeps for it (its "Time" table), marked when over; then
# the whole run's. A measurement, not a test: nothing fails on it.
#
#   scripts/test-times.sh TIMES_FILE TOTAL_SECONDS "CONFIGURATIONS"
#
# TIMES_FILE holds lines "CONFIGURATION PHASE SECONDS" (PHASE: build or test), as
# scripts/test.sh writes them.
set -eu
cd "$(dirname "$0")/.."
times=$1
total=$2
configurations=$3

# The budget column of CONTRIBUTING.md's row for a configuration (| `name` | … | m:ss |),
# in seconds; nothing when it has none.
budget() {
    awk -F'|' -v name="\`$1\`" '
        $2 ~ "^ *" name " *$" { gsub(/ /, "", $(NF - 1)); print $(NF - 1); exit }' CONTRIBUTING.md |
        awk -F: 'NF == 2 { print $1 * 60 + $2 }'
}

# m:ss, or nothing for no value (a phase a configuration does not have counts nothing).
minutes() {
    if [ -n "$1" ] && [ "$1" != 0 ]; then printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); fi
}

sum() {
    awk -v name="$1" -v phase="$2" '$1 == name && (phase == "" || $2 == phase) { s += $3 } END { print s + 0 }' "$times"
}

echo "test: time per configuration (budgets from CONTRIBUTING.md):"
printf '  %-16s %7s %7s %7s %7s\n' configuration build test total budget
for configuration in $configurations; do
    build=$(sum "$configuration" build)
    test=$(sum "$configuration" test)
    all=$((build + test))
    limit=$(budget "$configuration")
    mark=""
    if [ -n "$limit" ] && [ "$all" -gt "$limit" ]; then mark="  over budget"; fi
    printf '  %-16s %7s %7s %7s %7s%s\n' "$configuration" "$(minutes "$build")" "$(minutes "$test")" "$(minutes "$all")" \
        "$(minutes "$limit")" "$mark"
done
limit=$(budget "make test")
mark=""
if [ -n "$limit" ] && [ "$total" -gt "$limit" ]; then mark="  over budget"; fi
printf '  %-16s %7s %7s %7s %7s%s\n' "whole run" "" "" "$(minutes "$total")" "$(minutes "$limit")" "$mark"
