#!/bin/sh
# The `packaging` configuration of `make test`: what the README's Install section
# promises, through the real commands.
#
#   make install DESTDIR=... PREFIX=/usr/local   the binary runs and says its version and
#       SQLCipher, every man page is found and indexable, the completions complete;
#   make uninstall                               leaves nothing behind and keeps folders
#       that were there before;
#   make deb                                     lintian finds nothing; apt-get installs
#       it with its computed dependencies; the installed tool migrates a new encrypted
#       database the sqlcipher shell then reads; apt-get purges it to the last file.
#
# The Debian package part installs into the system (/usr/bin/migrationkit), so it runs
# as root or with sudo, and refuses to replace a migrationkit package it did not install.
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)

fail() {
    echo "test-packaging: FAILED: $*" >&2
    exit 1
}
pass() {
    echo "test-packaging: ok: $*" >&2
}

# The Debian package part needs root. Outside CI, without root or password-less sudo,
# it is skipped with a notice (the rest still runs); in CI that fails the run.
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
elif [ "${CI:-}" = true ]; then
    fail "the Debian package test needs root or password-less sudo (apt-get install, apt-get purge)."
else
    SUDO=unavailable
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/migrationkit-packaging.XXXXXX")
installed_package=no
cleanup() {
    # A failure after apt-get install must not leave the package behind.
    if [ "$installed_package" = yes ]; then
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q migrationkit >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
expected_version=$(sed -n 's/^ *[a-z]* *static let current = "\(.*\)"$/\1/p' Sources/MigrationKitCLI/MigrationCLI.swift)
[ -n "$expected_version" ] || fail "cannot read MigrationKitVersion.current from Sources/MigrationKitCLI/MigrationCLI.swift"
linked_cipher=$(printf 'PRAGMA cipher_version;\n' | sqlcipher -batch :memory:)

# The tool's own account of itself: first line NAME VERSION, then the SQLCipher it runs on.
check_version() {
    output=$("$1" --version)
    [ "$(echo "$output" | head -n 1)" = "migrationkit $expected_version" ] ||
        fail "$1 --version printed '$(echo "$output" | head -n 1)', not 'migrationkit $expected_version'"
    echo "$output" | sed -n 2p | grep -q "^SQLCipher $linked_cipher, SQLite 3\." ||
        fail "$1 --version does not name the linked SQLCipher $linked_cipher: $(echo "$output" | sed -n 2p)"
}

# Migrates a new encrypted database with the example migrations; the sqlcipher shell
# then reads the ledger with the same key.
check_migrates() {
    binary=$1
    database="$work/installed.db"
    rm -f "$database"
    key="$work/key"
    printf 'packaging test passphrase\n' >"$key"
    chmod 600 "$key"
    "$binary" migrate --quiet --db-path "$database" --migrations Examples/Migrations --password-file "$key" ||
        fail "$binary migrate exited $?"
    # One migration per file, or per .up.sql/.down.sql pair.
    files=$(find Examples/Migrations -name '*.sql' ! -name '*.down.sql' | wc -l)
    applied=$(printf ".output /dev/null\nPRAGMA key = 'packaging test passphrase';\n.output\nSELECT count(*) FROM grdb_migrations;\n" | sqlcipher -batch "$database")
    [ "$applied" = "$files" ] || fail "the sqlcipher shell reads $applied rows in grdb_migrations, not $files"
    if printf 'SELECT count(*) FROM sqlite_master;\n' | sqlcipher -batch "$database" >/dev/null 2>&1; then
        fail "the database the installed tool wrote opens without its key"
    fi
}

# Every page is found by name and indexable by whatis, and renders without warnings.
check_man_pages() {
    mandir=$1
    for name in migrationkit migrationkit-migrate migrationkit-key-store; do
        MANPATH=$mandir man -w "$name" >/dev/null 2>&1 || fail "man -w $name finds no page under $mandir"
    done
    count=0
    for page in "$mandir"/man1/migrationkit*.1.gz; do
        count=$((count + 1))
        lexgrog "$page" >/dev/null 2>&1 || fail "whatis cannot index $page: $(lexgrog "$page" 2>&1)"
        warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
        [ -z "$warnings" ] || fail "$page renders with warnings: $warnings"
    done
    commands=$("$2" --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | grep -c '^  [a-z]' || true)
    [ "$count" -gt "$commands" ] || fail "$count man pages for $commands commands and the tool"
}

# bash completes the command names and a command's options from the installed script.
check_bash_completion() {
    script=$1
    bash -n "$script" || fail "$script is not valid bash"
    words=$(bash -c '. "$1"; COMP_WORDS=(migrationkit mig); COMP_CWORD=1; COMP_LINE="migrationkit mig"; COMP_POINT=${#COMP_LINE}
        _migrationkit migrationkit mig migrationkit; echo "${COMPREPLY[*]}"' _ "$script")
    [ "$words" = "migrate" ] || fail "bash completes 'migrationkit mig' to '$words', not 'migrate'"
    words=$(bash -c '. "$1"; COMP_WORDS=(migrationkit migrate --db-p); COMP_CWORD=2; COMP_LINE="migrationkit migrate --db-p"; COMP_POINT=${#COMP_LINE}
        _migrationkit migrationkit --db-p migrate; echo "${COMPREPLY[*]}"' _ "$script")
    [ "$words" = "--db-path" ] || fail "bash completes 'migrationkit migrate --db-p' to '$words', not '--db-path'"
}

echo "== packaging: make install into a staging DESTDIR" >&2
destdir="$work/destdir"
mkdir -p "$destdir/usr/local/bin" "$destdir/usr/local/share/man"
touch "$destdir/usr/local/bin/another-tool"
make --no-print-directory install DESTDIR="$destdir" PREFIX=/usr/local >&2
prefix="$destdir/usr/local"
check_version "$prefix/bin/migrationkit"
readelf -d "$prefix/bin/migrationkit" | grep -q 'RUNPATH\|RPATH' && fail "the installed binary has a run path: $(readelf -d "$prefix/bin/migrationkit" | grep PATH)"
readelf -d "$prefix/bin/migrationkit" | grep -q 'libswiftCore' && fail "the installed binary loads the Swift runtime from a shared library"
check_migrates "$prefix/bin/migrationkit"
check_man_pages "$prefix/share/man" "$prefix/bin/migrationkit"
check_bash_completion "$prefix/share/bash-completion/completions/migrationkit"
[ -s "$prefix/share/zsh/site-functions/_migrationkit" ] || fail "no zsh completion under $prefix/share/zsh/site-functions"
[ -s "$prefix/share/fish/vendor_completions.d/migrationkit.fish" ] || fail "no fish completion under $prefix/share/fish/vendor_completions.d"
pass "make install: binary, $(ls "$prefix/share/man/man1" | wc -l) man pages, bash, zsh and fish completions"

make --no-print-directory uninstall DESTDIR="$destdir" PREFIX=/usr/local >&2
left=$(cd "$destdir" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$left" = "./usr ./usr/local ./usr/local/bin ./usr/local/bin/another-tool ./usr/local/share ./usr/local/share/man " ] ||
    fail "make uninstall left (or removed) more than it installed: $left"
pass "make uninstall: removed what it installed, kept what was there"

echo "== packaging: make deb" >&2
if [ "$SUDO" = unavailable ]; then
    echo "test-packaging: SKIPPED the Debian package (apt-get install and purge need root or password-less sudo); run make test as root, or with CI=true to make this a failure" >&2
    exit 0
fi
# dpkg's record of the package: empty or not-installed when there is none.
package_status() {
    dpkg-query -W -f='${db:Status-Status}' migrationkit 2>/dev/null || true
}
case "$(package_status)" in
"" | not-installed) ;;
*) fail "dpkg has a migrationkit package ($(package_status)); this test installs and purges its own. Remove it first (apt-get purge migrationkit)." ;;
esac
make --no-print-directory deb >"$work/deb.txt" 2>&1 || fail "make deb: $(tail -n 5 "$work/deb.txt")"
deb=$(tail -n 1 "$work/deb.txt")
[ -f "$deb" ] || fail "make deb printed '$deb', which is not a file"
case "$(basename "$deb")" in
"migrationkit_${expected_version}_$(dpkg --print-architecture).deb") ;;
*) fail "make deb wrote $(basename "$deb"), not migrationkit_${expected_version}_$(dpkg --print-architecture).deb" ;;
esac
depends=$(dpkg-deb -f "$deb" Depends)
# The package of the SQLCipher the binary links: Debian names libsqlcipher.so.N's package
# libsqlcipherN (0: SQLCipher 3.4.1; 1: 4.x up to 4.6.1; 2: sid's 4.19).
dpkg-deb -x "$deb" "$work/deb-root"
soname=$(readelf -d "$work/deb-root/usr/bin/migrationkit" | sed -n 's/.*(NEEDED).*\[\(libsqlcipher\.so\.[0-9][0-9]*\)\].*/\1/p')
[ -n "$soname" ] || fail "the packaged binary links no libsqlcipher: $(readelf -d "$work/deb-root/usr/bin/migrationkit" | grep NEEDED)"
echo "$depends" | tr ',' '\n' | grep -Eq "^ *libsqlcipher${soname#libsqlcipher.so.}( |$)" ||
    fail "Depends does not name libsqlcipher${soname#libsqlcipher.so.}, the package of $soname that the binary links: $depends"
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "$recommends" | grep -q 'libsecret-1-0' || fail "Recommends does not name libsecret-1-0: $recommends"
if echo "$depends" | grep -q 'libsecret\|libglib'; then fail "Depends names libsecret or GLib, which the binary loads only for a keyring: $depends"; fi
lintian --fail-on warning --tag-display-limit 0 "$deb" >"$work/lintian.txt" 2>&1 ||
    fail "lintian: $(grep -v 'root privileges' "$work/lintian.txt")"
pass "make deb: $(basename "$deb"), Depends: $depends, Recommends: $recommends; lintian clean"

installed_package=yes
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$repo/$deb" >"$work/apt.txt" 2>&1 ||
    fail "apt-get install ./$deb: $(tail -n 5 "$work/apt.txt")"
# /usr/bin and /usr/share/man by name: a developer's make install under /usr/local
# comes first on PATH and MANPATH.
[ "$(dpkg -S /usr/bin/migrationkit 2>/dev/null | cut -d: -f1)" = migrationkit ] ||
    fail "after apt-get install, dpkg does not own /usr/bin/migrationkit"
check_version /usr/bin/migrationkit
[ "$(MANPATH=/usr/share/man man -w migrationkit)" = "/usr/share/man/man1/migrationkit.1.gz" ] ||
    fail "man -w migrationkit: $(MANPATH=/usr/share/man man -w migrationkit 2>&1)"
check_migrates /usr/bin/migrationkit
check_man_pages /usr/share/man /usr/bin/migrationkit
files=$(dpkg -L migrationkit | sort)
pass "apt-get install: /usr/bin/migrationkit migrates; man -w migrationkit finds its page"

$SUDO env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q migrationkit >"$work/apt.txt" 2>&1 ||
    fail "apt-get purge migrationkit: $(tail -n 5 "$work/apt.txt")"
installed_package=no
case "$(package_status)" in
"" | not-installed) ;;
*) fail "dpkg still has migrationkit after purge: $(package_status)" ;;
esac
for file in $files; do
    [ -d "$file" ] && continue
    [ -e "$file" ] && fail "apt-get purge left $file"
done
pass "apt-get purge: every file the package installed is gone"
echo "test-packaging: passed" >&2
