#!/bin/sh
# The README's test command (`make test`): installs what is missing, builds, and runs
# every test inside a private D-Bus session with its own gnome-keyring.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
. ./scripts/swift-env.sh
swift build --build-tests
./scripts/with-test-keyring.sh swift test --skip-build "$@"
