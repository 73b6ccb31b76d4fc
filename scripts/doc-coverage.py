#!/usr/bin/env python3
"""Fails unless every public symbol of the named modules has a doc comment.

The symbols still undocumented when this check began are listed, by module and name, in
scripts/doc-coverage-gaps.txt: the check fails on any other undocumented symbol, and on a
listed one that now has its comment (strike it from the list), so the list only shrinks.

Reads the symbol graphs `swift package generate-documentation` extracted (scripts/docs.sh
runs it first). Counted: public and open symbols declared in this repository's Sources/;
not counted: extensions themselves (their members are) and members a type only inherits
or gets synthesized, which have no source here.
"""
import glob
import json
import sys

GAPS = "scripts/doc-coverage-gaps.txt"
with open(GAPS) as handle:
    known_gaps = {line.strip() for line in handle if line.strip() and not line.startswith("#")}

failed = False
for module in sys.argv[1:]:
    graphs = glob.glob(f".build/*/extracted-symbols/*/{module}/{module}*.symbols.json")
    if not graphs:
        print(f"doc-coverage: no symbol graph for {module}; run scripts/docs.sh", file=sys.stderr)
        sys.exit(1)
    total = 0
    missing = set()
    for path in graphs:
        with open(path) as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if symbol["kind"]["identifier"] == "swift.extension":
                continue
            location = symbol.get("location", {})
            if "/Sources/" not in location.get("uri", ""):
                continue
            total += 1
            if not symbol.get("docComment"):
                where = location["uri"].split("/Sources/")[-1] + ":" + str(location["position"]["line"] + 1)
                missing.add((where, ".".join(symbol["pathComponents"])))
    print(f"doc-coverage: {module}: {total - len(missing)} of {total} public symbols documented", file=sys.stderr)
    names = {f"{module} {name}" for _, name in missing}
    for where, name in sorted(missing):
        if f"{module} {name}" not in known_gaps:
            print(f"  Sources/{where}: {name} has no doc comment", file=sys.stderr)
            failed = True
    for gap in sorted(g for g in known_gaps if g.startswith(module + " ") and g not in names):
        print(f"  {gap} is documented now (or gone): remove it from {GAPS}", file=sys.stderr)
        failed = True
sys.exit(1 if failed else 0)
