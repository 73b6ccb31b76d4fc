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
# here), and the suite runs over a thousand commands. Not optimised: -O makes the build
# more than twice as long, far more than its faster commands give back. Without debug
# information (Swift's -gnone, C and C++'s -g0): unoptimised code's debug information is
# a third of a fresh build's time; a failure still names its test, file and line, a
# crash's backtrace its functions. To step through a test, build it with `swift build`.
# (The shipped binary is make release's, whose -g costs nothing measurable.) Each module
# written by the job that compiles it (-no-emit-module-separately-wmo): SwiftPM's own
# separate job type-checks every declaration a second time (the tests' @Test and @Suite
# macros too) so that dependents may start sooner, which two cores rarely use: a seventh
# of a fresh test build's CPU. (Benchmarks/README.md, "Build times", has the figures.) With
# --disable-sandbox, as the DocC plugin's builds are (make docs must run it so; on Linux
# there is no sandbox to disable, only a compiler flag that differs), so that make docs
# finds the tests' build and compiles nothing again.
test_build_flags="-c release -Xswiftc -Onone -Xswiftc -enable-testing -Xswiftc -gnone -Xcc -g0 -Xcxx -g0 -Xswiftc -no-emit-module-separately-wmo --disable-sandbox"

# Where the root package's tests are built, on either SQLCipher (scripts/test.sh's
# sqlcipher4 and sqlcipher3, make check, make docs): one scratch path, so that moving to
# the other SQLCipher rebuilds only what depends on it (its flags change), not the
# dependencies and the modules without SQLite.
test_scratch=.build-tests

# sqlcipher_run_path_flags: for a SQLCipher outside the system's library folders (a newer
# one prepared for the tests, CONTRIBUTING.md: scripts/sqlcipher-sid.sh), whose
# sqlcipher.pc names its folder as `rpath`, the linker flags that give every binary a run
# path to it, so that each finds the library wherever it runs from (a test copies the
# binary to a folder of its own). SwiftPM refuses -Wl,-rpath in a .pc file's Libs, so it
# is given here. Nothing for the system's SQLCipher or SQLCipher 3.4.1's (whose runtime is
# installed): their .pc files have no `rpath`.
sqlcipher_run_path_flags() {
    run_path=$(pkg-config --variable=rpath sqlcipher 2>/dev/null || true)
    [ -n "$run_path" ] && printf ' -Xlinker -rpath -Xlinker %s' "$run_path"
    return 0
}

# How the root package's tests are built and run there: with every trait of the package
# enabled, as the DocC plugin builds it (the root's only trait, GRDBSQLCipher, names a
# GRDB flavour and changes nothing the root's tests build).
root_test_flags="$test_build_flags --scratch-path $test_scratch --enable-all-traits$(sqlcipher_run_path_flags)"

# prepare_test_scratch: run before every build in $test_scratch, with PKG_CONFIG_PATH
# naming the SQLCipher to build on. Clang's module cache checks the headers a module was
# built from, not the search paths that found them: after a build on the other
# SQLCipher's headers it would keep that CSQLCipher module (and the link fails, or
# worse). So when the SQLCipher differs from the last build's, the cache goes; clang
# rebuilds what it needs of it in seconds.
prepare_test_scratch() {
    prepared_sqlcipher=$(pkg-config --cflags --libs sqlcipher) || return 1
    prepared_stamp="$test_scratch/sqlcipher-flags"
    if [ ! -f "$prepared_stamp" ] || [ "$(cat "$prepared_stamp")" != "$prepared_sqlcipher" ]; then
        rm -rf "$test_scratch/release/ModuleCache"
        mkdir -p "$test_scratch"
        printf '%s\n' "$prepared_sqlcipher" >"$prepared_stamp"
    fi
}
