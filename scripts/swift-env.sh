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

# How tests are built (make test, make check, make soak, make docs): SwiftPM's release
# configuration without optimisation, with @testable imports. Not the debug
# configuration: there swift-argument-parser runs its DEBUG-only checks of the command
# definitions at every parse, which is 95% of a command's start (half a second of CPU
# here), and the suite runs over a thousand commands. Not optimised: -O compiles no
# faster and the tests need no speed from it. (The shipped binary is make release's.)
test_build_flags="-c release -Xswiftc -Onone -Xswiftc -enable-testing"
