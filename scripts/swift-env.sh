# Sourced by the other scripts: finds the Swift toolchain when it is installed
# under /opt/swift but not on PATH (as on a fresh machine's non-login shell).
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    PATH="/opt/swift/usr/bin:$PATH"
    export PATH
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "MigrationKit needs a Swift 6 toolchain (swift not found on PATH or in /opt/swift)." >&2
    exit 1
fi
