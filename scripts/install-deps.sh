#!/bin/sh
# Installs the Debian packages MigrationKit builds and tests with, when missing.
# Runs apt-get as root, or through sudo otherwise. Safe to run repeatedly: it does
# nothing (and needs no network) when everything is already installed.
set -eu

PACKAGES="
libsqlcipher-dev
sqlcipher
libsecret-1-dev
libsecret-tools
libglib2.0-bin
gnome-keyring
dbus
dbus-bin
dbus-daemon
pkg-config
make
python3
"

missing=""
for package in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-deps: these packages are missing and neither root nor sudo is available:$missing" >&2
    exit 1
fi

echo "install-deps: installing$missing" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
