#!/usr/bin/env python3
"""Fails when a target's declared dependencies and its imports part.

    scripts/check-dependencies.py [PACKAGE_DIR ...]     (default: . Integrations/GRDB)

For each package, reads the manifest as SwiftPM evaluates it (`swift package
dump-package`, so no hand-written parser of Package.swift) and the `import` lines of
each Swift target's folder, and names every difference:

- a module a target imports that it does not declare: it builds only while another
  target happens to build that module first, and breaks a partial build;
- a dependency a target declares and never imports: it links and builds what the
  target does not use (a C library's flags among them).

Not counted as unused: an executable a test target depends on (built so the tests can
run it, never imported), and the pairs in `BUILT_NOT_IMPORTED`, each with its reason.
Toolchain modules (Foundation, Glibc, Testing, ...) need no declaration.

Then, since the GRDB integration's package (Integrations/GRDB) builds the root's
sources again through symbolic links, each target it restates must be the root's:
the same folder and the same dependencies. Its own targets (tests, the example) are
checked as above.
"""
import json
import os
import re
import subprocess
import sys

# Modules that come with the toolchain or an Apple SDK (GRDB's own test files import
# SQLite3 and Combine under `#if` for Apple platforms): imported without a declared dependency.
TOOLCHAIN_MODULES = {
    "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "FoundationXML", "Glibc", "Musl", "Darwin", "Android", "WinSDK", "Dispatch", "XCTest", "Testing",
    "Synchronization", "_Concurrency", "_StringProcessing", "RegexBuilder", "Observation", "Distributed",
    "SQLite3", "Combine",
}

# A product whose modules are not just the one of its name. GRDB's product carries its
# C module: GRDBSQLite on the system SQLite, SQLCipher on GRDB built on SQLCipher
# (scripts/grdb-sqlcipher.sh), which the GRDB modules import to reach the C API.
PRODUCT_MODULES = {
    "GRDB": {"GRDB", "GRDBSQLite", "SQLCipher"},
}

# (target, dependency): declared so that it is built, never imported, and why.
BUILT_NOT_IMPORTED = {
    ("MigrationKitKeysTests", "CLibSecretInterfaceCheck"):
        "a C target compiled only to check CLibSecretLoader's declarations against libsecret's headers",
}

IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def dump(package):
    """The manifest of PACKAGE as SwiftPM evaluates it."""
    result = subprocess.run(["swift", "package", "--package-path", package, "dump-package"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        sys.exit(f"check-dependencies: swift package dump-package failed in {package}")
    return json.loads(result.stdout)


def folder(package, target):
    """The folder of TARGET's sources, as SwiftPM finds it."""
    if target.get("path"):
        return os.path.join(package, target["path"])
    return os.path.join(package, "Tests" if target["type"] == "test" else "Sources", target["name"])


def swift_files(root, excluded):
    """The Swift files under ROOT (through symbolic links), but those under EXCLUDED."""
    excluded = [os.path.normpath(os.path.join(root, path)) for path in excluded]
    for directory, subdirectories, files in os.walk(root, followlinks=True):
        subdirectories[:] = sorted(name for name in subdirectories
                                   if os.path.normpath(os.path.join(directory, name)) not in excluded)
        for name in sorted(files):
            path = os.path.join(directory, name)
            if name.endswith(".swift") and os.path.normpath(path) not in excluded:
                yield path


def imports(paths):
    """The modules the files import, in any `#if` branch; what multi-line string
    literals hold (a test's Python script) is text, not an import."""
    modules = set()
    for path in paths:
        in_string = False
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if not in_string:
                    match = IMPORT.match(line)
                    if match:
                        modules.add(match.group(1))
                if line.count('"""') % 2 == 1:
                    in_string = not in_string
    return modules


def declared(target, local_targets):
    """TARGET's dependencies: {name as written: the modules it provides}."""
    dependencies = {}
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        name = value[0]
        if kind in ("target", "byName") and name in local_targets:
            dependencies[name] = {name}
        else:
            dependencies[name] = PRODUCT_MODULES.get(name, {name})
    return dependencies


def check_package(package):
    """The differences between declared dependencies and imports in PACKAGE."""
    manifest = dump(package)
    targets = {target["name"]: target for target in manifest["targets"]}
    problems = []
    for name, target in targets.items():
        if target["type"] not in ("regular", "executable", "test"):
            continue
        files = list(swift_files(folder(package, target), target.get("exclude", [])))
        if not files:
            continue  # a C target: its headers are its imports
        unresolved = [path for path in files if not os.path.exists(path)]
        if unresolved:
            # GRDB's own tests, linked into the checkout a build resolves.
            print(f"check-dependencies: {package}: {name} not checked: {unresolved[0]} links into a checkout not resolved yet",
                  file=sys.stderr)
            continue
        dependencies = declared(target, targets)
        provided = set().union(*dependencies.values()) if dependencies else set()
        used = imports(files) - {name}
        for module in sorted(used - provided - TOOLCHAIN_MODULES):
            problems.append(f"{package}: {name} imports {module} but does not declare it")
        for dependency, modules in sorted(dependencies.items()):
            if modules & used:
                continue
            if targets.get(dependency, {}).get("type") == "executable":
                continue
            if (name, dependency) in BUILT_NOT_IMPORTED:
                continue
            problems.append(f"{package}: {name} declares {dependency} but never imports it")
    return manifest, problems


def check_restated(root, root_manifest, package, manifest):
    """PACKAGE's targets that the root package has too: the root's folder and dependencies."""
    root_targets = {target["name"]: target for target in root_manifest["targets"]}
    problems = []
    for target in manifest["targets"]:
        name = target["name"]
        original = root_targets.get(name)
        if original is None:
            continue
        if os.path.realpath(folder(package, target)) != os.path.realpath(folder(root, original)):
            problems.append(f"{package}: {name} is not the root's {name}: its folder is not {folder(root, original)}")
        mine = set(declared(target, {t["name"] for t in manifest["targets"]}))
        theirs = set(declared(original, root_targets))
        for dependency in sorted(theirs - mine):
            problems.append(f"{package}: {name} lacks {dependency}, which the root's {name} declares")
        for dependency in sorted(mine - theirs):
            problems.append(f"{package}: {name} declares {dependency}, which the root's {name} does not")
    return problems


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    packages = sys.argv[1:] or [".", "Integrations/GRDB"]
    root_manifest, problems = check_package(packages[0])
    for package in packages[1:]:
        manifest, found = check_package(package)
        problems += found + check_restated(packages[0], root_manifest, package, manifest)
    for problem in problems:
        print(f"check-dependencies: {problem}", file=sys.stderr)
    if problems:
        sys.exit(f"check-dependencies: {len(problems)} difference(s) between Package.swift and the imports; make them agree")
    print(f"check-dependencies: every target's dependencies are its imports ({', '.join(packages)})", file=sys.stderr)


main()
