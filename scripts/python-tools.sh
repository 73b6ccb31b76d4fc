#!/bin/sh
# The Python clients the tests use as other programs would: PyPI's sqlcipher3-binary
# (SQLCipher 4.12, bundled: files another SQLCipher than the system's wrote) and
# Python's keyring (how Python apps read the Secret Service), in a virtual environment
# of the project's own, .build-python, never the system's site-packages.
#
#   scripts/python-tools.sh          creates or completes it, then prints its python
#   scripts/python-tools.sh --env    prints MIGRATIONKIT_TEST_PYTHON=... for eval
#
# Safe to run repeatedly: once the pinned versions are installed it needs no network.
set -eu
cd "$(dirname "$0")/.."
venv=.build-python
requirements=scripts/python-requirements.txt

if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        echo "python-tools: python3 cannot create a virtual environment; install python3-venv (scripts/install-deps.sh does)." >&2
        exit 1
    fi
fi
# The installed set is compared with the pins, so a changed pin reinstalls.
if ! cmp -s "$requirements" "$venv/installed-requirements.txt"; then
    echo "python-tools: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
    cp "$requirements" "$venv/installed-requirements.txt"
fi
python="$(pwd)/$venv/bin/python"
if [ "${1:-}" = "--env" ]; then
    echo "MIGRATIONKIT_TEST_PYTHON='$python'; export MIGRATIONKIT_TEST_PYTHON"
else
    echo "$python"
fi
