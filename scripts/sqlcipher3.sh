#!/bin/sh
# Prepares the second supported platform, Debian 12's own SQLCipher 3.4.1, beside the
# default SQLCipher 4: its -dev package (headers, the libsqlcipher.so link) and its
# sqlcipher shell are unpacked into .build/sqlcipher-3.4.1/root (the two -dev
# packages cannot be installed together; their runtimes, libsqlcipher0 and
# libsqlcipher1, can), with a pkg-config file pointing there.
#
#   scripts/sqlcipher3.sh                   unpacks once
#   eval "$(scripts/sqlcipher3.sh --env)"   also sets what a build and test run need:
#       PKG_CONFIG_PATH                 finds this sqlcipher.pc before the system's
#       MIGRATIONKIT_SQLCIPHER3_LIBDIR  where its libsqlcipher.so.0 is
#       MIGRATIONKIT_SQLCIPHER_SHELL    the 3.4.1 shell, the tests' second client
set -eu

sqlcipher3_root=$(cd "$(dirname "$0")/.." && pwd)/.build/sqlcipher-3.4.1

sqlcipher3_prepare() {
    if [ -f "$sqlcipher3_root/ready" ]; then
        return 0
    fi
    if ! dpkg-query -W -f='${Status}' libsqlcipher0 2>/dev/null | grep -q "install ok installed"; then
        echo "sqlcipher3: SQLCipher 3.4.1's runtime (libsqlcipher0) is not installed; run scripts/install-deps.sh (Debian 12)." >&2
        return 1
    fi
    version=$(dpkg-query -W -f='${Version}' libsqlcipher0)
    rm -rf "$sqlcipher3_root"
    mkdir -p "$sqlcipher3_root/debs" "$sqlcipher3_root/root" "$sqlcipher3_root/pkgconfig"
    echo "sqlcipher3: unpacking SQLCipher $version's headers and shell into .build/sqlcipher-3.4.1" >&2
    (cd "$sqlcipher3_root/debs" && apt-get download -qq "libsqlcipher-dev=$version" "sqlcipher=$version" "libsqlcipher0=$version" 2>/dev/null) || {
        echo "sqlcipher3: apt-get download of SQLCipher $version's packages failed; check the network and apt sources." >&2
        return 1
    }
    for deb in "$sqlcipher3_root"/debs/*.deb; do
        dpkg-deb -x "$deb" "$sqlcipher3_root/root"
    done
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
    libdir="$sqlcipher3_root/root/usr/lib/$multiarch"
    [ -e "$libdir/libsqlcipher.so.0" ] || { echo "sqlcipher3: $libdir/libsqlcipher.so.0 is missing after unpacking." >&2; return 1; }
    # A name only this folder has: SwiftPM puts other packages' -L/usr/lib/<multiarch>
    # (libsecret's, glib's) before this file's -L, so -lsqlcipher would find the
    # system's SQLCipher 4. The link's NEEDED entry is still the SONAME, libsqlcipher.so.0.
    ln -sf libsqlcipher.so.0 "$libdir/libsqlcipher341.so"
    # -I the include folder itself: the shim includes <sqlcipher/sqlite3.h>, which
    # must resolve here before /usr/include's SQLCipher 4 headers.
    cat > "$sqlcipher3_root/pkgconfig/sqlcipher.pc" <<EOF
prefix=$sqlcipher3_root/root/usr
libdir=$libdir
includedir=\${prefix}/include

Name: SQLCipher
Description: SQLCipher 3.4.1 unpacked from Debian 12 for MigrationKit's second configuration
Version: 3.15.2
Libs: -L\${libdir} -lsqlcipher341
Cflags: -I\${includedir} -I\${includedir}/sqlcipher
EOF
    touch "$sqlcipher3_root/ready"
}

sqlcipher3_prepare

if [ "${1:-}" = "--env" ]; then
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
    echo "PKG_CONFIG_PATH='$sqlcipher3_root/pkgconfig'; export PKG_CONFIG_PATH"
    echo "MIGRATIONKIT_SQLCIPHER3_LIBDIR='$sqlcipher3_root/root/usr/lib/$multiarch'; export MIGRATIONKIT_SQLCIPHER3_LIBDIR"
    echo "MIGRATIONKIT_SQLCIPHER_SHELL='$sqlcipher3_root/root/usr/bin/sqlcipher'; export MIGRATIONKIT_SQLCIPHER_SHELL"
fi
