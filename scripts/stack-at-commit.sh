#!/bin/sh
# The project's types on the stack at a migration's first COMMIT: how many layers a
# command goes through to reach the database (CONTRIBUTING.md, "Public API"). Runs the
# built binary under gdb, migrating a new encrypted database with one migration file,
# stops where SQLCipher prepares the first COMMIT, and prints each frame's type, outermost
# last, then their count. x86-64 (the breakpoint reads the SQL from %rsi).
#
# usage: scripts/stack-at-commit.sh [BINARY]   (default: make check's build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/.build-tests/release/migrationkit}
command -v gdb >/dev/null || { echo "stack-at-commit: needs gdb (apt-get install gdb)" >&2; exit 1; }
[ -x "$binary" ] || { echo "stack-at-commit: $binary is not built; run make check, or name a binary" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/Migrations"
printf 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\n' >"$work/Migrations/0001_notes.sql"
condition="*(char*)\$rsi == 'C' && *((char*)\$rsi+1) == 'O' && *((char*)\$rsi+2) == 'M'"
cat >"$work/commands" <<EOF
set pagination off
set breakpoint pending on
break sqlite3_prepare_v2 if $condition
break sqlite3_prepare_v3 if $condition
run
bt
kill
quit
EOF
# A throwaway key for a throwaway database.
(cd "$work" && MIGRATIONKIT_PASSWORD=stack-at-commit timeout 120 \
    gdb -batch -x "$work/commands" --args "$binary" migrate --db-path app.db --no-backup) >"$work/gdb.out" 2>&1 || true
grep '^#' "$work/gdb.out" | sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?//; s/ \(\).*$//' >"$work/frames"
[ -s "$work/frames" ] || { echo "stack-at-commit: gdb stopped at no COMMIT (its output: $work/gdb.out)" >&2; cat "$work/gdb.out" >&2; exit 1; }
# Each frame's own type: the first module-qualified name once closures and forwarders are
# read through; a private type is named as written ("Bound"). Thunks and protocol
# witnesses are dispatch, not a type of their own (the conforming type has its frame).
swift demangle --compact <"$work/frames" |
    grep -vE '^(reabstraction thunk|protocol witness for)' |
    sed -E 's/^(partial apply forwarder for |closure #[0-9]+ .* in |static )+//' |
    grep -oE '^MigrationKit[A-Za-z]*\.(\([A-Za-z]+ in _[0-9A-F]+\)|[A-Z][A-Za-z]*)' |
    sed -E 's/\(([A-Za-z]+) in _[0-9A-F]+\)/\1/' |
    awk '!seen[$0]++' >"$work/types"
cat "$work/types"
echo "$(wc -l <"$work/types") project types on the stack at the first COMMIT"
