#!/bin/sh
# Prepares Debian sid's SQLCipher (4.19.0 on SQLite 3.53.4 when written) beside the
# system's, for running the suite on the newer SQLCipher the field will bring
# (CONTRIBUTING.md, "A newer SQLCipher than the machine's"), never installed into the
# system. Its binary packages are taken with apt-get from the machine's Debian mirror
# through a private list of sid's packages (sid's sources are not needed); sid's
# builds need glibc 2.38, so:
#
#   - libsqlcipher-dev's libsqlcipher.a (one PIC object) is relinked into
#     libsqlcipher.so.2, Debian sid's soname, with glibc 2.38's C23 entry points
#     (__isoc23_strtol and friends) supplied by a few lines of C;
#   - the sqlcipher shell (which links the library statically) runs with those entry
#     points from a small library of its own (patchelf: their symbol versions cleared,
#     the library added as NEEDED, a run path to it), and its need for GLIBC_2.38 turned
#     into one every glibc meets;
#   - a sqlcipher.pc names the library by a name only this folder has (-lsqlcipher419,
#     as scripts/sqlcipher3.sh does for 3.4.1) and carries its folder as `rpath`, which
#     scripts/swift-env.sh links the test builds with, so every binary finds it wherever
#     it is copied to.
#
#   scripts/sqlcipher-sid.sh [PREFIX]         prepares it once (default /tmp/sqlcipher-sid)
#   eval "$(scripts/sqlcipher-sid.sh --env)"  also sets PKG_CONFIG_PATH and
#                                             MIGRATIONKIT_SQLCIPHER_SHELL for `make check`
#
# Needs apt-get, dpkg-deb, gcc, python3 and patchelf (apt-get install patchelf).
set -eu

env_only=""
if [ "${1:-}" = "--env" ]; then
    env_only=1
    shift
fi
prefix=${1:-/tmp/sqlcipher-sid}
work=$prefix/apt

prepare() {
    [ -f "$prefix/ready" ] && return 0
    for tool in apt-get dpkg-deb gcc python3 patchelf; do
        command -v "$tool" >/dev/null 2>&1 || { echo "sqlcipher-sid: $tool is missing; install it (patchelf: apt-get install patchelf)." >&2; return 1; }
    done
    mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    mirror=${mirror:-http://deb.debian.org/debian}
    rm -rf "$prefix"
    mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/root" \
        "$prefix/lib" "$prefix/include/sqlcipher" "$prefix/bin" "$prefix/pkgconfig"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" >"$work/sources.list"
    apt="-o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$work/lists -o Dir::Cache=$work/cache -o Debug::NoLocking=1"
    echo "sqlcipher-sid: reading sid's package list from $mirror" >&2
    # shellcheck disable=SC2086 # apt holds options
    apt-get $apt -qq update >&2
    # shellcheck disable=SC2086
    (cd "$work/debs" && apt-get $apt -qq download libsqlcipher-dev sqlcipher 2>/dev/null) || {
        echo "sqlcipher-sid: apt-get download of sid's libsqlcipher-dev and sqlcipher failed; check the network." >&2
        return 1
    }
    for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
    version=$(awk '/^Version:/ { print $2 }' "$work/root/usr/lib/$multiarch/pkgconfig/sqlcipher.pc")

    cat >"$prefix/glibc238.c" <<'EOF'
/* glibc 2.38's C23 entry points, for Debian sid's SQLCipher on an older glibc. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
long long __isoc23_strtoll(const char *s, char **end, int base) { return strtoll(s, end, base); }
int __isoc23_sscanf(const char *s, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int result = vsscanf(s, format, arguments);
    va_end(arguments);
    return result;
}
EOF
    gcc -O2 -fPIC -c "$prefix/glibc238.c" -o "$prefix/glibc238.o"
    gcc -shared -o "$prefix/lib/libsqlcipher.so.2" -Wl,-soname,libsqlcipher.so.2 \
        -Wl,--whole-archive "$work/root/usr/lib/$multiarch/libsqlcipher.a" -Wl,--no-whole-archive \
        "$prefix/glibc238.o" -lcrypto -lm -lz -lpthread
    ln -sf libsqlcipher.so.2 "$prefix/lib/libsqlcipher419.so"
    gcc -O2 -fPIC -shared -o "$prefix/lib/libglibc238.so" "$prefix/glibc238.c"
    cp "$work/root/usr/include/sqlcipher/"*.h "$prefix/include/sqlcipher/"

    shell=$prefix/bin/sqlcipher
    cp "$work/root/usr/bin/sqlcipher" "$shell"
    for symbol in __isoc23_sscanf __isoc23_strtoll __isoc23_strtol fmod; do patchelf --clear-symbol-version "$symbol" "$shell"; done
    # One change per run: patchelf 0.14 garbles the file's strings when given several.
    patchelf --set-rpath "$prefix/lib" "$shell"
    patchelf --add-needed libglibc238.so "$shell"
    python3 - "$shell" <<'EOF'
# The shell's need for GLIBC_2.38 (whose symbols now come from libglibc238.so) made a need
# for GLIBC_2.2.5, which every x86-64 glibc has: the same entry, another name and hash.
import struct, sys
def elf_hash(name):
    h = 0
    for c in name:
        h = (h << 4) + c
        g = h & 0xf0000000
        if g:
            h ^= g >> 24
        h &= ~g
    return h & 0xffffffff
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
shoff, = struct.unpack_from('<Q', data, 0x28)
shentsize, shnum = struct.unpack_from('<HH', data, 0x3A)
sections = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
for section in sections:
    if section[1] != 0x6ffffffe:  # SHT_GNU_verneed
        continue
    strings_at, strings_size = sections[section[6]][4], sections[section[6]][5]
    strings = bytes(data[strings_at:strings_at + strings_size])
    target = strings.index(b'GLIBC_2.2.5\0')
    offset = section[4]
    for _ in range(section[7]):
        _, count, _, aux_offset, next_offset = struct.unpack_from('<HHIII', data, offset)
        aux = offset + aux_offset
        for _ in range(count):
            _, _, other, name, next_aux = struct.unpack_from('<IHHII', data, aux)
            if strings[name:].split(b'\0', 1)[0] == b'GLIBC_2.38':
                struct.pack_into('<IHHI', data, aux, elf_hash(b'GLIBC_2.2.5'), 0, other, target)
            aux += next_aux
        offset += next_offset
open(path, 'wb').write(data)
EOF
    cat >"$prefix/pkgconfig/sqlcipher.pc" <<EOF
libdir=$prefix/lib
rpath=$prefix/lib
Name: SQLCipher
Description: Debian sid's SQLCipher, relinked for this machine by scripts/sqlcipher-sid.sh
Version: $version
Libs: -L$prefix/lib -lsqlcipher419
Cflags: -I$prefix/include -I$prefix/include/sqlcipher
EOF
    "$shell" :memory: "PRAGMA cipher_version;" >"$prefix/version"
    echo "sqlcipher-sid: SQLCipher $(cat "$prefix/version") (SQLite $version) is ready in $prefix" >&2
    touch "$prefix/ready"
}

prepare
if [ -n "$env_only" ]; then
    echo "PKG_CONFIG_PATH='$prefix/pkgconfig'; export PKG_CONFIG_PATH"
    echo "MIGRATIONKIT_SQLCIPHER_SHELL='$prefix/bin/sqlcipher'; export MIGRATIONKIT_SQLCIPHER_SHELL"
fi
