#!/bin/sh
# Installs migrationkit the way a Linux tool is installed, and builds its Debian package.
#
#   scripts/package.sh build       the release binary (and the manual tool); prints its path
#   scripts/package.sh install     make install: the binary, man pages and completions
#                                  under $DESTDIR$PREFIX (PREFIX defaults to /usr/local),
#                                  with a list of what it wrote
#   scripts/package.sh uninstall   make uninstall: removes exactly what that list names
#   scripts/package.sh deb         make deb: dist/migrationkit_VERSION_ARCH.deb
#
# Both install the same tree (`stage`): the release binary with the Swift runtime linked
# in and no $ORIGIN search path, stripped; a man page per command (migrationkit(1),
# migrationkit-migrate(1), ...), generated from the
# command definitions by swift-argument-parser's generate-manual tool (the one its
# GenerateManual plugin runs, here given the release binary already built, so nothing
# is built twice); bash, zsh and fish completions from the binary itself. The version
# is the binary's own (`--version`, from MigrationKitVersion.current): one place.
set -eu
cd "$(dirname "$0")/.."

PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
# Where the list of installed files goes, relative to PREFIX; uninstall reads it.
MANIFEST=share/migrationkit/installed-files

fail() {
    echo "package: $*" >&2
    exit 1
}

# Under `sudo make install`, builds as the user who ran sudo, so the checkout's .build
# keeps its owner and their next `swift build` is not refused.
as_builder() {
    if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
        sudo -u "$SUDO_USER" env PATH="$PATH" HOME="$(getent passwd "$SUDO_USER" | cut -d: -f6)" "$@"
    else
        "$@"
    fi
}

# Builds what the tree is made from; sets BINARY and MANUAL_TOOL.
build() {
    . ./scripts/swift-env.sh
    # The same flags as `make release`, plus no $ORIGIN run path: an installed binary
    # finds its libraries where the system keeps them, never beside itself. The manual
    # tool with the very same flags, so it reuses the release build's ArgumentParser
    # and a later build of either relinks nothing.
    as_builder swift build -c release --product migrationkit $release_flags >&2
    as_builder swift build -c release --product generate-manual $release_flags >&2
    bin="$(as_builder swift build -c release $release_flags --show-bin-path)"
    BINARY="$bin/migrationkit"
    MANUAL_TOOL="$bin/generate-manual"
}

release_flags="--static-swift-stdlib --disable-local-rpath"

# stage TREE ZSH_DIR: the installed tree under TREE (TREE stands for PREFIX). zsh looks
# for a system package's completions in share/zsh/vendor-completions on Debian, and for
# a local install's in share/zsh/site-functions.
stage() {
    tree=$1
    zsh_dir=$2
    install -d "$tree/bin" "$tree/share/man/man1" "$tree/share/bash-completion/completions" \
        "$tree/$zsh_dir" "$tree/share/fish/vendor_completions.d"
    install -m 0755 "$BINARY" "$tree/bin/migrationkit"
    strip --strip-unneeded "$tree/bin/migrationkit"
    # The manual's date is the commit's, so the same source gives the same pages.
    date=$(as_builder git log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)
    "$MANUAL_TOOL" "$tree/bin/migrationkit" --multi-page --date "$date" \
        --authors "MigrationKit contributors" --output-directory "$tree/share/man/man1" >&2
    for page in "$tree/share/man/man1/"*.1; do
        name=$(basename "$page" .1 | tr . -)
        awk -f scripts/man-page.awk "$page" >"$tree/share/man/man1/$name.1.tmp"
        rm "$page"
        mv "$tree/share/man/man1/$name.1.tmp" "$tree/share/man/man1/$name.1"
        chmod 0644 "$tree/share/man/man1/$name.1"
    done
    gzip -9n "$tree/share/man/man1/"*.1
    # bash-completion sources its files: no #! line.
    "$tree/bin/migrationkit" --generate-completion-script bash | sed '1{/^#!/d}' >"$tree/share/bash-completion/completions/migrationkit"
    "$tree/bin/migrationkit" --generate-completion-script zsh >"$tree/$zsh_dir/_migrationkit"
    "$tree/bin/migrationkit" --generate-completion-script fish >"$tree/share/fish/vendor_completions.d/migrationkit.fish"
    for script in "$tree/share/bash-completion/completions/migrationkit" "$tree/$zsh_dir/_migrationkit" \
        "$tree/share/fish/vendor_completions.d/migrationkit.fish"; do
        [ -s "$script" ] || fail "the binary wrote no completion script for $script"
    done
    chmod 0644 "$tree/share/bash-completion/completions/migrationkit" \
        "$tree/$zsh_dir/_migrationkit" "$tree/share/fish/vendor_completions.d/migrationkit.fish"
}

version_of() {
    "$1" --version | head -n 1 | awk '{ print $2 }'
}

install_tree() {
    build
    # One scratch folder for the staged tree and its lists, removed however this ends.
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    staging="$scratch/tree"
    stage "$staging" share/zsh/site-functions
    target="$DESTDIR$PREFIX"
    if [ -e "$target/$MANIFEST" ]; then
        echo "package: replacing the migrationkit installed under $target" >&2
        remove_tree
    fi
    (cd "$staging" && find . -type f | sed 's|^\./||' | sort) >"$scratch/files"
    # Never over a file this install did not put there (another install's, a package's):
    # uninstall would remove it.
    while IFS= read -r file; do
        if [ -e "$target/$file" ] || [ -L "$target/$file" ]; then
            fail "$target/$file exists and is not from make install; remove it, or install under another PREFIX."
        fi
    done <"$scratch/files"
    # The list, written before anything is copied so that an install stopped half way
    # can still be uninstalled: every file, then every folder this install creates
    # (ending in /), so uninstall never removes a folder that was there before.
    for file in $(cat "$scratch/files") "$MANIFEST"; do
        dir=$(dirname "$file")
        while [ "$dir" != "." ] && [ ! -d "$target/$dir" ]; do
            echo "$dir/"
            dir=$(dirname "$dir")
        done
    done | sort -u >"$scratch/dirs"
    install -d "$target/$(dirname "$MANIFEST")"
    cat "$scratch/files" "$scratch/dirs" >"$target/$MANIFEST"
    chmod 0644 "$target/$MANIFEST"
    while IFS= read -r file; do
        install -d "$target/$(dirname "$file")"
        install -m "$(stat -c %a "$staging/$file")" "$staging/$file" "$target/$file"
    done <"$scratch/files"
    echo "installed migrationkit $(version_of "$target/bin/migrationkit") under $target ($(wc -l <"$scratch/files") files, listed in $target/$MANIFEST)"
}

remove_tree() {
    target="$DESTDIR$PREFIX"
    [ -f "$target/$MANIFEST" ] || fail "nothing to uninstall: $target/$MANIFEST, the list make install writes, does not exist."
    while IFS= read -r file; do
        case "$file" in
        "" | /* | *..*) fail "$target/$MANIFEST names '$file', which is not a path inside $target; remove it by hand." ;;
        */) ;;
        *) rm -f "$target/$file" ;;
        esac
    done <"$target/$MANIFEST"
    # Then the folders it created, deepest first, each only if nothing else is in it.
    dirs=$(grep '/$' "$target/$MANIFEST" | awk -F/ '{ print NF "\t" $0 }' | sort -rn | cut -f2-)
    rm -f "$target/$MANIFEST"
    for dir in $dirs; do
        rmdir "$target/$dir" 2>/dev/null || true
    done
}

uninstall_tree() {
    remove_tree
    echo "uninstalled migrationkit from $DESTDIR$PREFIX"
}

build_deb() {
    build
    repo=$(pwd)
    version=$(version_of "$BINARY")
    arch=$(dpkg --print-architecture)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    root="$work/migrationkit"
    stage "$root/usr" share/zsh/vendor-completions
    docs="$root/usr/share/doc/migrationkit"
    install -d "$docs"
    install -m 0644 scripts/debian/copyright "$docs/copyright"
    sed "s/@VERSION@/$version/; s/@DATE@/$(date -u -R -d "$(as_builder git log -1 --format=%cI 2>/dev/null || date -u -R)")/" \
        scripts/debian/changelog | gzip -9n >"$docs/changelog.gz"
    chmod 0644 "$docs/changelog.gz"
    # Depends: from the libraries the binary really loads (its NEEDED entries), through
    # the symbols files of the packages that ship them: libsqlcipher1, libsqlcipher0 or
    # (Debian sid's SQLCipher 4.19, libsqlcipher.so.2) libsqlcipher2, whichever SQLCipher
    # this binary was built on. libsecret is not among them: it is loaded when a keyring
    # is first used, and the control file recommends it. A binary built on a library no
    # package installed (a SQLCipher built from source) has no package to depend on.
    install -d "$root/DEBIAN"
    depends=$(cd "$work" && mkdir -p debian && cp "$repo/scripts/debian/control.in" debian/control &&
        dpkg-shlibdeps -O -e"migrationkit/usr/bin/migrationkit" 2>"$work/shlibdeps.txt" | sed -n 's/^shlibs:Depends=//p') || true
    [ -n "$depends" ] || fail "dpkg-shlibdeps found no packages for the binary's libraries (is dpkg-dev installed, and was the binary built on packaged libraries?): $(grep -m 1 'error' "$work/shlibdeps.txt" || tail -n 1 "$work/shlibdeps.txt")"
    size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
    sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" -e "s/@SIZE@/$size/" \
        scripts/debian/control >"$root/DEBIAN/control"
    mkdir -p dist
    output="dist/migrationkit_${version}_${arch}.deb"
    dpkg-deb --root-owner-group -Zxz --build "$root" "$output" >&2
    echo "$output"
}

case "${1:-}" in
build) build && echo "$BINARY" ;;
install) install_tree ;;
uninstall) uninstall_tree ;;
deb) build_deb ;;
*) fail "usage: scripts/package.sh build|install|uninstall|deb (PREFIX and DESTDIR as for make install)" ;;
esac
