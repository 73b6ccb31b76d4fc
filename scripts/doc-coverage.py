#!/usr/bin/env python3
"""Fails unless every public symbol of the named modules has a doc comment.

Reads the symbol graphs `swift package generate-documentation` extracted (scripts/docs.sh
runs it first) under the scratch path given as `--scratch-path DIR` (default .build). Counted: public and open symbols declared in this repository's Sources/;
not counted: extensions themselves (their members are) and members a type only inherits
or gets synthesized, which have no source here.
"""
import glob
import json
import sys

arguments = sys.argv[1:]
scratch = ".build"
if arguments[:1] == ["--scratch-path"]:
    scratch, arguments = arguments[1], arguments[2:]

failed = False
for module in arguments:
    graphs = glob.glob(f"{scratch}/*/extracted-symbols/*/{module}/{module}*.symbols.json")
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
    for where, name in sorted(missing):
        print(f"  Sources/{where}: {name} has no doc comment", file=sys.stderr)
    failed = failed or bool(missing)
sys.exit(1 if failed else 0)
