#!/bin/sh
# GRDB on the system's SQLCipher, for a package whose graph holds GRDB: an app, or this
# repository's Integrations/GRDBSQLCipher (`make grdb-sqlcipher`).
#
#   scripts/grdb-sqlcipher.sh [PACKAGE_DIR]
#   scripts/grdb-sqlcipher.sh --undo [PACKAGE_DIR]
#
# 1. Reads the GRDB release that PACKAGE_DIR (default: the current folder) resolves.
# 2. Clones that release from GRDB's own URL into PACKAGE_DIR/.build/grdb-sqlcipher/
#    GRDB.swift and applies Integrations/GRDB/SQLCipher/GRDB-SQLCipher.patch (the changes
#    GRDB's manifest calls "GRDB+SQLCipher", with libsqlcipher through pkg-config instead
#    of the Apple-only SQLCipher.swift package), committed under the release's own tag so
#    that the package's version requirement still matches. The commit's author and dates
#    are fixed: the same release and patch give the same commit every time.
# 3. Points PACKAGE_DIR's builds at it with a SwiftPM mirror (`swift package config
#    set-mirror`, kept in PACKAGE_DIR/.swiftpm/configuration/mirrors.json), which replaces
#    GRDB in the whole package graph: GRDB keeps its identity, so a second copy beside the
#    original could not build. Both spellings of GRDB's URL are mirrored (with and
#    without `.git`, as GRDB's README writes it), since SwiftPM matches a mirror by the
#    URL as written. A folder builds one flavour: its Package.resolved pins the patched
#    commit, which the original GRDB does not have.
#
# On any failure the package is left as it was found (its mirrors and Package.resolved
# restored), and the last line says so. --undo removes the mirrors and Package.resolved,
# and resolves GRDB's own release again. The project keeps only its patch and this
# script, never a copy of GRDB.
set -eu

usage() {
    echo "usage: grdb-sqlcipher.sh [--undo] [PACKAGE_DIR]" >&2
    exit 64
}

fail() {
    echo "grdb-sqlcipher: $*" >&2
    exit 1
}

package_dir=""
undo=0
while [ $# -gt 0 ]; do
    case "$1" in
    -h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --undo) undo=1; shift ;;
    -*) usage ;;
    *) [ -z "$package_dir" ] || usage; package_dir=$1; shift ;;
    esac
done
given=${package_dir:-.}
package_dir=$(cd "$given" 2>/dev/null && pwd) || fail "$given: no such folder; name the folder of the package to build on SQLCipher"
[ -f "$package_dir/Package.swift" ] \
    || fail "$package_dir has no Package.swift: name the folder of the package to build on SQLCipher"
patch="$(cd "$(dirname "$0")/.." && pwd)/Integrations/GRDB/SQLCipher/GRDB-SQLCipher.patch"
[ -f "$patch" ] || fail "$patch is missing"
pkg-config --exists sqlcipher || fail "pkg-config finds no sqlcipher: install libsqlcipher-dev (make deps)"

grdb_url=https://github.com/groue/GRDB.swift
# SwiftPM matches a mirror by the URL as a manifest writes it: both spellings.
grdb_urls="$grdb_url $grdb_url.git"
mirror_file="$package_dir/.swiftpm/configuration/mirrors.json"

unset_mirrors() {
    for url in $grdb_urls; do
        if [ -f "$mirror_file" ] && grep -qF "\"$url\"" "$mirror_file"; then
            (cd "$package_dir" && swift package config unset-mirror --original "$url")
        fi
    done
}

if [ "$undo" = 1 ]; then
    unset_mirrors
    rm -f "$package_dir/Package.resolved"
    (cd "$package_dir" && swift package resolve >/dev/null) || fail "$package_dir does not resolve with GRDB's own release"
    echo "grdb-sqlcipher: $package_dir builds GRDB's own release again, on the system's SQLite" >&2
    exit 0
fi

# What this run may change, kept so that a failure puts it back.
saved=$(mktemp -d)
for file in Package.resolved .swiftpm/configuration/mirrors.json; do
    [ -f "$package_dir/$file" ] && cp -p "$package_dir/$file" "$saved/$(basename "$file")"
done
restore() {
    status=$?
    if [ "$status" -ne 0 ]; then
        for file in Package.resolved .swiftpm/configuration/mirrors.json; do
            if [ -f "$saved/$(basename "$file")" ]; then
                mkdir -p "$(dirname "$package_dir/$file")"
                cp -p "$saved/$(basename "$file")" "$package_dir/$file"
            else
                rm -f "$package_dir/$file"
            fi
        done
        echo "grdb-sqlcipher: $package_dir is as it was (its Package.resolved and mirrors restored); nothing was changed." >&2
    fi
    rm -rf "$saved"
    exit "$status"
}
trap restore EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Resolve the release against the original again, not against an earlier patch.
if [ -f "$mirror_file" ] && grep -qF "$grdb_url" "$mirror_file"; then
    unset_mirrors
    rm -f "$package_dir/Package.resolved"
fi
# The release the package resolves (`show-dependencies` resolves first when it must).
version=$(cd "$package_dir" && swift package show-dependencies --format json | python3 -c '
import json, sys
def walk(node):
    for child in node.get("dependencies", []):
        if child["identity"] == "grdb.swift":
            return child["version"]
        found = walk(child)
        if found:
            return found
print(walk(json.load(sys.stdin)) or "")
') || fail "$package_dir: swift package show-dependencies failed"
[ -n "$version" ] || fail "$package_dir does not depend on $grdb_url"

destination="$package_dir/.build/grdb-sqlcipher/GRDB.swift"
rm -rf "$destination"
mkdir -p "$(dirname "$destination")"
git clone -q -c advice.detachedHead=false --branch "$version" "$grdb_url" "$destination" \
    || fail "could not clone GRDB $version from $grdb_url"
git -C "$destination" apply "$patch" \
    || fail "the patch does not apply to GRDB $version; it is made for GRDB 7.10"
git -C "$destination" add -A
GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
    git -C "$destination" -c user.name=MigrationKit -c user.email=migrationkit@localhost \
    -c commit.gpgsign=false commit -q -m "GRDB $version on the system's SQLCipher (MigrationKit's patch)"
git -C "$destination" tag -f "$version" >/dev/null

for url in $grdb_urls; do
    (cd "$package_dir" && swift package config set-mirror --original "$url" --mirror "$destination")
done
# Package.resolved pins the original GRDB's commit: resolve again, against the mirror.
rm -f "$package_dir/Package.resolved"
(cd "$package_dir" && swift package resolve >/dev/null) \
    || fail "$package_dir does not resolve with GRDB on SQLCipher"
echo "grdb-sqlcipher: $package_dir now builds GRDB $version on the system's libsqlcipher (undo: $0 --undo)" >&2
