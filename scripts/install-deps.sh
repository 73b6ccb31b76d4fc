#!/bin/sh
# Installs the Debian packages MigrationKit builds and tests with, when missing.
# Runs apt-get as root, or through sudo otherwise. Safe to run repeatedly: it does
# nothing (and needs no network) when everything is already installed.
#
# SQLCipher: the default platform is SQLCipher 4 (4.6.1 on Debian 12's backports and
# Debian 13). When the machine's own suites offer only SQLCipher 3 (Debian 12), the
# backports suite is added, with the mirror taken from the machine's existing apt
# sources, and libsqlcipher-dev and the sqlcipher shell come from there. Debian 12's
# own SQLCipher 3.4.1 runtime (libsqlcipher0) installs beside SQLCipher 4's
# (libsqlcipher1); scripts/sqlcipher3.sh unpacks its headers for the second build.
# gdb is for a stalled test run: scripts/stall-watchdog.py prints where its threads wait.
# libsqlite3-mod-spatialite is a real extension for --load-extension's tests (a
# GeoPackage's R*Tree triggers call its functions).
set -eu

PACKAGES="
libsecret-1-dev
libsecret-tools
libglib2.0-bin
gnome-keyring
keepassxc
pass
gnupg
age
dbus
dbus-bin
dbus-daemon
pkg-config
libssl-dev
make
python3
python3-venv
binutils
strace
gdb
libsqlite3-dev
jq
dpkg-dev
man-db
lintian
libsqlite3-mod-spatialite
"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    SUDO="unavailable"
fi

as_root() {
    if [ "$SUDO" = "unavailable" ]; then
        echo "install-deps: packages are missing and neither root nor sudo is available; run scripts/install-deps.sh as root." >&2
        exit 1
    fi
    $SUDO "$@"
}

apt_get() {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get "$@"
}

installed_version() {
    dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null | awk '$3 == "installed" { print $4 }'
}

is_installed() {
    [ -n "$(installed_version "$1")" ]
}

# The major version of an installed package ("4" for 4.6.1-2~bpo12+1), or nothing.
installed_major() {
    installed_version "$1" | sed -e 's/^[0-9]*://' -e 's/\..*//'
}

updated=""
update_once() {
    if [ -z "$updated" ]; then
        apt_get update -qq
        updated=1
    fi
}

missing=""
for package in $PACKAGES; do
    is_installed "$package" || missing="$missing $package"
done
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing" >&2
    update_once
    # shellcheck disable=SC2086
    apt_get install -y -qq --no-install-recommends $missing >/dev/null
fi

# --- SQLCipher 4: libsqlcipher-dev and the sqlcipher shell --------------------------

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")

# The first mirror the machine's own sources use for its release: deb822 files
# (URIs:/Suites: stanzas) and one-line sources.list entries alike.
release_mirror() {
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk -v release="$codename" '
            BEGIN { RS = ""; FS = "\n" }
            {
                uris = ""; suites = ""; enabled = 1
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
                    if ($i ~ /^Suites:/) { suites = " " $i " " }
                    if ($i ~ /^Enabled:[ \t]*no/) { enabled = 0 }
                }
                if (enabled && uris != "" && suites ~ (" " release " ")) { split(uris, u, " "); print u[1]; exit }
            }' "$file"
    done
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$file" ] || continue
        awk -v release="$codename" '
            $1 == "deb" {
                i = 2
                if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                if ($(i + 1) == release) { print $i; exit }
            }' "$file"
    done
}

# The keyring the release's own sources are signed with, so the backports stanza is
# trusted exactly as the release is.
release_keyring() {
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk -v release="$codename" '
            BEGIN { RS = ""; FS = "\n" }
            {
                key = ""; suites = ""
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^Signed-By:/) { key = $i; sub(/^Signed-By:[ \t]*/, "", key) }
                    if ($i ~ /^Suites:/) { suites = " " $i " " }
                }
                if (key != "" && key !~ /^-/ && suites ~ (" " release " ")) { print key; exit }
            }' "$file"
    done | head -n 1
}

ensure_backports() {
    if apt-cache policy 2>/dev/null | grep -q " $codename-backports/"; then
        return
    fi
    mirror=$(release_mirror | head -n 1)
    if [ -z "$mirror" ]; then
        echo "install-deps: SQLCipher 4 comes from $codename-backports, but no apt source for $codename was found to take its mirror from; add $codename-backports to your apt sources, then run this again." >&2
        exit 1
    fi
    keyring=$(release_keyring)
    echo "install-deps: adding $codename-backports from $mirror (for SQLCipher 4)" >&2
    {
        echo "# Added by MigrationKit's scripts/install-deps.sh for SQLCipher 4."
        echo "Types: deb"
        echo "URIs: $mirror"
        echo "Suites: $codename-backports"
        echo "Components: main"
        if [ -n "$keyring" ]; then echo "Signed-By: $keyring"; fi
    } | as_root tee /etc/apt/sources.list.d/migrationkit-backports.sources >/dev/null
    updated=""
}

if [ "$(installed_major libsqlcipher-dev)" != "4" ] || [ "$(installed_major sqlcipher)" != "4" ]; then
    update_once
    candidate=$(apt-cache policy libsqlcipher-dev 2>/dev/null | awk '/Candidate:/ { print $2 }' | sed -e 's/^[0-9]*://' -e 's/\..*//')
    if [ "$candidate" = "4" ]; then
        echo "install-deps: installing SQLCipher 4 (libsqlcipher-dev, sqlcipher)" >&2
        apt_get install -y -qq --no-install-recommends libsqlcipher-dev sqlcipher >/dev/null
    else
        ensure_backports
        update_once
        echo "install-deps: installing SQLCipher 4 from $codename-backports (libsqlcipher-dev, sqlcipher)" >&2
        apt_get install -y -qq --no-install-recommends -t "$codename-backports" libsqlcipher-dev sqlcipher >/dev/null
    fi
fi

# --- SQLCipher 3.4.1's runtime, for the second configuration (Debian 12 only) ------

if ! is_installed libsqlcipher0; then
    update_once
    if apt-cache show libsqlcipher0 >/dev/null 2>&1; then
        echo "install-deps: installing libsqlcipher0 (SQLCipher 3.4.1's runtime, beside SQLCipher 4's)" >&2
        apt_get install -y -qq --no-install-recommends libsqlcipher0 >/dev/null
    fi
fi
