#!/usr/bin/env python3
"""How many error types the sources declare, and where exit codes and `--json` kinds are decided.

    scripts/error-types.py [--list]

Counting rules (the same for every run, so that two counts compare):

- An error protocol is a protocol whose inheritance clause names `Error`,
  `LocalizedError` or another error protocol.
- An error type is a struct, enum, class or actor whose declaration, or an extension of
  it under Sources/, names `Error`, `LocalizedError` or an error protocol in its
  inheritance clause. A type counts once (a nested type by its file and name); a
  typealias is no type; GRDB's `DatabaseError`, which Sources/ extends, is GRDB's.
- A decision of an exit code or a `--json` kind is a line under Sources/ that names a
  literal kind (`kind: "…"`, `kind: x ? "…" : …`, `(kind, message) = (…)`), passes a
  literal code (`exitCode: .…`), builds a row of the table (`FailureRow(`), or declares a
  function or property giving a `CLIExitCode` or a `jsonKind` that does not only ask the
  table (`ExitCodeDecision.`); `CLIExitCode.swift`, where the codes themselves are
  declared, is not counted. Lines are counted per file: the table's
  own file, `Run/ExitCodeDecision.swift`, should be the only one.

With --list, every error type and decision is listed with its place.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "Sources")
DECLARATION = re.compile(
    r"^([ \t]*)(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*"
    r"(struct|enum|class|actor|protocol|extension)\s+([\w.]+)(?:<[^>]*>)?\s*:\s*([^{]*?)\s*(?:where [^{]*)?\{",
    re.M)
DECISION = re.compile(r'\bkind: (?!Kind\b)[^,]*"|\(kind, message\) = |exitCode: \.|FailureRow\(|-> CLIExitCode|: CLIExitCode \{|var jsonKind')
ASKS_THE_TABLE = re.compile(r'-> CLIExitCode|: CLIExitCode \{|var jsonKind')


def swift_files():
    for folder, _, names in os.walk(SOURCES):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(folder, name)


def main():
    listing = "--list" in sys.argv[1:]
    found = []
    decisions = {}
    for path in sorted(swift_files()):
        relative = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        code = re.sub(r"//[^\n]*", "", text)
        for match in DECLARATION.finditer(code):
            indent, kind, name, inherited = match.groups()
            line = code[:match.start(2)].count("\n") + 1
            found.append((kind, name, bool(indent), [part.strip() for part in inherited.split(",")], f"{relative}:{line}"))
        if os.path.basename(path) == "CLIExitCode.swift":
            continue
        for number, line in enumerate(code.split("\n"), 1):
            if DECISION.search(line) and not (ASKS_THE_TABLE.search(line) and "ExitCodeDecision." in line):
                decisions.setdefault(relative, []).append(number)

    bases = {"Error", "LocalizedError"}
    protocols = set()
    grew = True
    while grew:
        grew = False
        for kind, name, _, inherited, _ in found:
            if kind == "protocol" and name not in protocols and any(part in bases | protocols for part in inherited):
                protocols.add(name)
                grew = True
    types = {}
    for kind, name, nested, inherited, place in found:
        if kind == "protocol" or name == "DatabaseError" or not any(part in bases | protocols for part in inherited):
            continue
        key = place.split(":")[0] + "#" + name if nested else name
        if kind != "extension" or key not in types:
            types.setdefault(key, (name, place))
            if kind != "extension":
                types[key] = (name, place)

    print(f"error protocols: {len(protocols)} ({', '.join(sorted(protocols))})")
    print(f"error types: {len(types)}")
    if listing:
        for name, place in sorted(types.values(), key=lambda entry: entry[1]):
            print(f"  {name:28} {place}")
    total = sum(len(lines) for lines in decisions.values())
    print(f"exit-code and --json kind decisions: {total} lines in {len(decisions)} files")
    for relative, lines in sorted(decisions.items()):
        print(f"  {relative}: {len(lines)}" + (f" (lines {', '.join(map(str, lines))})" if listing else ""))


if __name__ == "__main__":
    main()
