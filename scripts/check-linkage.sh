#!/bin/sh
# Checks that every binary a build produced links the SQLCipher of its configuration
# and never libsqlite3: SwiftPM has been seen passing a pkg-config file's -L to test
# bundles but not to executables, which then silently linked the other SQLCipher.
#
#   scripts/check-linkage.sh SCRATCH_PATH sqlcipher4|sqlcipher3
set -eu
scratch=$1
case "$2" in
sqlcipher4) wanted=libsqlcipher.so.1; unwanted=libsqlcipher.so.0 ;;
sqlcipher3) wanted=libsqlcipher.so.0; unwanted=libsqlcipher.so.1 ;;
*) echo "check-linkage: unknown configuration $2" >&2; exit 64 ;;
esac
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
checked=0
for binary in "$bin"/migrationkit "$bin"/notes-migrate "$bin"/migrationkit-library-demo "$bin"/KeyStoreProbe "$bin"/MigrationKitPackageTests.xctest; do
    if [ ! -f "$binary" ]; then
        echo "check-linkage: $binary is missing; build first (swift build --build-tests)" >&2
        exit 1
    fi
    needed=$(readelf -d "$binary" | awk '/NEEDED/ { gsub(/[\[\]]/, "", $5); print $5 }')
    if ! echo "$needed" | grep -qx "$wanted"; then
        echo "check-linkage: $binary does not link $wanted (it needs: $(echo $needed))" >&2
        exit 1
    fi
    if echo "$needed" | grep -qx -e "$unwanted" -e 'libsqlite3\.so\.0'; then
        echo "check-linkage: $binary links $unwanted or libsqlite3 beside $wanted" >&2
        exit 1
    fi
    checked=$((checked + 1))
done
echo "check-linkage: $checked binaries in $bin link $wanted" >&2
