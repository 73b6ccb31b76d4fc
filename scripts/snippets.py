#!/usr/bin/env python3
"""The Swift snippets of the documentation, as targets of a package that compiles them.

    scripts/snippets.py PACKAGE_DIR

Every ```swift block of README.md, docs/, Keys/README.md, Examples/*/README.md and the
DocC catalogs (Sources/*/*.docc) becomes an executable target of the package in
PACKAGE_DIR (scripts/test-consumers.sh's, which depends on this repository by URL):
its main.swift is the block exactly, so it compiles with exactly the imports it shows.
What a block only names, as prose would (`dbQueue`, `secret`), is declared in a second
file of the target, Context.swift, with imports of its own, which Swift keeps to that
file. The target depends on the products its imports name.

Left out, with the reason printed: a fragment of a manifest (its first line starts
with `.package(`), and a block marked as a recipe (`<!-- recipe: … -->`, built by the
recipe's own package). Prints the target names, one a line, on standard output; writes
PACKAGE_DIR/snippets.json (the targets and their dependencies) for the caller.
"""
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The products of this repository, and the package of every other module a block may import.
PRODUCTS = {"MigrationKit", "MigrationKitSecrets", "MigrationKitSQLCipher", "MigrationKitKeys",
            "MigrationKitCommands", "MigrationKitCLI", "MigrationKitGRDB", "MigrationKitGRDBCLI"}
OTHER = {"GRDB": "GRDB.swift"}
SYSTEM = {"Foundation", "Glibc"}

# Names the documentation uses without declaring them, declared for the compiler only:
# the module whose presence makes the name meaningful, and its declaration.
CONTEXT = [
    ("GRDB", "dbQueue", "import GRDB\nlet dbQueue = try! DatabaseQueue()\n"),
    ("MigrationKitGRDBCLI", "runner", "import MigrationKitGRDB\nlet runner: GRDBMigrationRunner? = nil\n"),
    (None, "secret", "let secret = \"the app's passphrase\"\n"),
    ("GRDB", "titleSort", "import GRDB\nlet titleSort = DatabaseFunction(\"title_sort\", argumentCount: 1, pure: true) { $0[0] }\n"),
    (None, "registerTitleSort", "func registerTitleSort(on connection: OpaquePointer) throws {}\n"),
]


def documents():
    paths = ["README.md", "Keys/README.md"]
    for folder, _, names in sorted(os.walk(os.path.join(REPO, "docs"))):
        paths += [os.path.relpath(os.path.join(folder, name), REPO) for name in sorted(names) if name.endswith(".md")]
    for name in sorted(os.listdir(os.path.join(REPO, "Examples"))):
        readme = os.path.join("Examples", name, "README.md")
        if os.path.exists(os.path.join(REPO, readme)):
            paths.append(readme)
    for module in sorted(os.listdir(os.path.join(REPO, "Sources"))):
        catalog = os.path.join("Sources", module, module + ".docc")
        if os.path.isdir(os.path.join(REPO, catalog)):
            paths += [os.path.join(catalog, name) for name in sorted(os.listdir(os.path.join(REPO, catalog))) if name.endswith(".md")]
    return paths


def blocks(path):
    """(line, text, is_recipe) of each ```swift block."""
    lines = open(os.path.join(REPO, path), encoding="utf-8").read().split("\n")
    found = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```swift":
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            recipe = any(lines[back].startswith("<!-- recipe:") for back in range(max(0, index - 2), index))
            found.append((start, "\n".join(lines[start:end]) + "\n", recipe))
            index = end
        index += 1
    return found


def main():
    package = sys.argv[1]
    targets = []
    for path in documents():
        for line, text, recipe in blocks(path):
            first = next((l.strip() for l in text.split("\n") if l.strip() and not l.strip().startswith("//")), "")
            where = f"{path}:{line}"
            if first.startswith(".package("):
                print(f"snippets: {where}: a manifest fragment, not compiled", file=sys.stderr)
                continue
            if recipe:
                print(f"snippets: {where}: a recipe, built by its own package", file=sys.stderr)
                continue
            imports = re.findall(r"^\s*import\s+(\w+)", text, re.M)
            unknown = [m for m in imports if m not in PRODUCTS and m not in OTHER and m not in SYSTEM]
            if unknown:
                sys.exit(f"snippets: {where} imports {unknown}, which this test does not know")
            name = "snippet-" + re.sub(r"[^A-Za-z0-9]+", "-", path.replace(".md", "")).strip("-") + f"-{line}"
            folder = os.path.join(package, "Sources", name)
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "main.swift"), "w", encoding="utf-8") as handle:
                handle.write(f"// {where}, exactly as written\n" + text)
            context = "".join(declaration for module, used, declaration in CONTEXT
                              if re.search(r"\b" + used + r"\b", text) and not re.search(r"\b(let|var)\s+" + used + r"\b", text)
                              and (module is None or module in imports))
            with open(os.path.join(folder, "Context.swift"), "w", encoding="utf-8") as handle:
                handle.write("// What the snippet only names, declared for the compiler.\n" + context)
            products = [m for m in imports if m in PRODUCTS]
            others = [m for m in imports if m in OTHER]
            targets.append({"name": name, "where": where, "products": products, "others": others})
            print(name)
    with open(os.path.join(package, "snippets.json"), "w") as handle:
        json.dump(targets, handle, indent=1)


main()
