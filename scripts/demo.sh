#!/bin/sh
# The README's demo command (`make demo`).
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
. ./scripts/swift-env.sh
chmod 600 Keys/demo.key
swift build --product migrationkit-library-demo
workdir=$(mktemp -d "${TMPDIR:-/tmp}/migrationkit-demo.XXXXXX")
trap 'rm -rf "$workdir"' EXIT
"$(swift build --show-bin-path)/migrationkit-library-demo" "$workdir/library-demo.db"
