#!/usr/bin/env python3
"""How wide each module's API is: its public and its package declarations.

    scripts/api-surface.py [MODULE...]

Prints one line per module of Sources/ (or per MODULE named), then the totals.

Counting rule (the same for every run, so that two counts compare): a declaration is a
line of a `.swift` file under Sources/MODULE/ whose first word, after any attributes
(`@inlinable`, `@discardableResult`, `@_cdecl("…")`), is an access modifier: `public` or
`open` counts as public, `package` as package. An `import` line is not a declaration.
One line is one declaration: `public private(set) var` counts once, as public; the
members of a public type count only where they say `public` themselves (enum cases and
protocol requirements never do).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ATTRIBUTES = r"(?:@[A-Za-z_][A-Za-z0-9_]*(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?\s+)*"
DECLARATION = re.compile(r"^\s*" + ATTRIBUTES + r"(public|open|package)\s+(?!import\b)")


def count(module):
    counts = {"public": 0, "package": 0}
    for folder, _, names in os.walk(os.path.join(ROOT, "Sources", module)):
        for name in names:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                for line in handle:
                    match = DECLARATION.match(line)
                    if match:
                        counts["package" if match.group(1) == "package" else "public"] += 1
    return counts


def main():
    modules = sys.argv[1:] or sorted(
        name for name in os.listdir(os.path.join(ROOT, "Sources"))
        if any(file.endswith(".swift") for _, _, files in os.walk(os.path.join(ROOT, "Sources", name)) for file in files))
    width = max(len(module) for module in modules + ["total"])
    totals = {"public": 0, "package": 0}
    print(f"{'module':<{width}}  {'public':>6}  {'package':>7}")
    for module in modules:
        counts = count(module)
        for key in totals:
            totals[key] += counts[key]
        print(f"{module:<{width}}  {counts['public']:>6}  {counts['package']:>7}")
    print(f"{'total':<{width}}  {totals['public']:>6}  {totals['package']:>7}")


if __name__ == "__main__":
    main()
