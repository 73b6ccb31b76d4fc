#!/usr/bin/env python3
"""Names the root package's test targets that never reach a given target.

    scripts/test-targets.py --without CSQLCipher

prints, one a line, each test target none of whose dependencies (followed through the
package's own targets, as `swift package dump-package` reads the manifest) is the named
one. `scripts/test.sh` runs those once, on the default SQLCipher: they do not link
SQLCipher, so the other configuration would run the same code again.
"""
import json
import subprocess
import sys

if len(sys.argv) != 3 or sys.argv[1] != "--without":
    sys.exit("usage: scripts/test-targets.py --without TARGET")
avoided = sys.argv[2]
manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True,
                                     capture_output=True, text=True).stdout)
targets = {target["name"]: target for target in manifest["targets"]}


def local_dependencies(target):
    """The names of this package's targets that a target depends on directly."""
    for dependency in target["dependencies"]:
        for kind in ("byName", "target"):
            if kind in dependency and dependency[kind][0] in targets:
                yield dependency[kind][0]


def reaches(name, seen=None):
    seen = set() if seen is None else seen
    if name == avoided:
        return True
    if name in seen:
        return False
    seen.add(name)
    return any(reaches(dependency, seen) for dependency in local_dependencies(targets[name]))


if avoided not in targets:
    sys.exit(f"test-targets: the manifest has no target {avoided}")
for name, target in sorted(targets.items()):
    if target["type"] == "test" and not reaches(name):
        print(name)
