#!/bin/sh
# Runs a command inside a private D-Bus session with a fresh, unlocked gnome-keyring,
# so tests exercise a real Secret Service without ever touching a person's keyring:
# HOME and every XDG directory point into a temporary folder that is removed after.
#
#   scripts/with-test-keyring.sh swift test
#
# Inside, MIGRATIONKIT_TEST_KEYRING=1 tells tests the Secret Service is theirs, and
# MIGRATIONKIT_TEST_KEYRING_PASSWORD is the login keyring's password (for lock/unlock
# tests). If the keyring cannot be started, the script fails when CI=true and
# otherwise runs the command with MIGRATIONKIT_TEST_KEYRING unset, so keyring tests
# report themselves as not run rather than silently passing.
set -eu

if [ "${MIGRATIONKIT_INSIDE_TEST_KEYRING:-}" != "1" ]; then
    sandbox=$(mktemp -d "${TMPDIR:-/tmp}/migrationkit-keyring.XXXXXX")
    trap 'rm -rf "$sandbox"' EXIT INT TERM
    mkdir -p "$sandbox/home" "$sandbox/config" "$sandbox/data" "$sandbox/cache" "$sandbox/runtime"
    chmod 700 "$sandbox/runtime"
    if ! command -v dbus-run-session >/dev/null 2>&1 || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
        echo "with-test-keyring: dbus-run-session or gnome-keyring-daemon is missing; run scripts/install-deps.sh" >&2
        if [ "${CI:-}" = "true" ]; then exit 1; fi
        exec "$@"
    fi
    status=0
    env HOME="$sandbox/home" XDG_CONFIG_HOME="$sandbox/config" XDG_DATA_HOME="$sandbox/data" \
        XDG_CACHE_HOME="$sandbox/cache" XDG_RUNTIME_DIR="$sandbox/runtime" \
        MIGRATIONKIT_INSIDE_TEST_KEYRING=1 \
        dbus-run-session -- "$0" "$@" || status=$?
    exit $status
fi

# Inside the private session bus from here on.
MIGRATIONKIT_TEST_KEYRING_PASSWORD="migrationkit-test-keyring"
export MIGRATIONKIT_TEST_KEYRING_PASSWORD
unset GNOME_KEYRING_CONTROL SSH_AUTH_SOCK
if printf '%s' "$MIGRATIONKIT_TEST_KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 \
    && printf 'probe' | secret-tool store --label="MigrationKit test probe" migrationkit-test probe >/dev/null 2>&1 \
    && [ "$(secret-tool lookup migrationkit-test probe 2>/dev/null)" = "probe" ]; then
    secret-tool clear migrationkit-test probe >/dev/null 2>&1 || true
    MIGRATIONKIT_TEST_KEYRING=1
    export MIGRATIONKIT_TEST_KEYRING
else
    echo "with-test-keyring: the private gnome-keyring did not start or does not answer." >&2
    if [ "${CI:-}" = "true" ]; then
        echo "with-test-keyring: CI=true, so this fails the run instead of skipping keyring tests." >&2
        exit 1
    fi
    unset MIGRATIONKIT_TEST_KEYRING
fi
exec "$@"
