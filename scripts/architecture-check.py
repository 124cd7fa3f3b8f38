#!/usr/bin/env python3
"""docs/architecture.md against the code (issue 57: the document must match what it describes).

Checks, reading the source as text (no build needed):
- every target and plugin of Package.swift is named in the module map's table, and every name
  there is a target;
- the table "Store roles of the engine's parts" lists exactly the store roles each part of
  Sources/OAuthEngine holds as stored properties (`let x: any SessionStore`, …), and no part
  outside BrokerEngine holds the whole store (`any BrokerStore` or `StoreRoles`).

`--print` prints the roles table as the code has it, to paste into the document.
Exit 1 with the differences when the document and the code disagree.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "architecture.md")
ROLES_HEADING = "### Store roles of the engine's parts"


def package_targets():
    text = open(os.path.join(ROOT, "Package.swift")).read()
    return set(re.findall(r'\.(?:target|executableTarget|testTarget|systemLibrary|plugin)\(\s*name:\s*"(\w+)"', text))


def documented_targets(doc):
    start = doc.index("## Module map")
    end = min(i for i in (doc.find(ROLES_HEADING, start), doc.index("## Where to add")) if i > 0)
    section = doc[start:end]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            names |= set(re.findall(r"`(\w+)`", first))
    return names


def engine_roles():
    """Part type → sorted role protocols it holds, from Sources/OAuthEngine."""
    parts = {}
    whole = []
    for folder, _, files in os.walk(os.path.join(ROOT, "Sources", "OAuthEngine")):
        for name in files:
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            text = open(path).read()
            for match in re.finditer(r"(?:public )?(?:final class|struct) (\w+)[^{]*\{(.*?)\n\}", text, re.S):
                part, body = match.group(1), match.group(2)
                roles = set(re.findall(r"^    (?:public )?let \w+: any (\w+Store)\b", body, re.M))
                if re.search(r"^    (?:public )?let \w+: (?:any BrokerStore|StoreRoles)\b", body, re.M) and part != "BrokerEngine":
                    whole.append(part)
                if roles:
                    parts[part] = sorted(roles)
    return parts, whole


def roles_table(parts):
    lines = ["| part | store roles |", "|---|---|"]
    for part in sorted(parts):
        lines.append(f"| `{part}` | {', '.join(f'`{role}`' for role in parts[part])} |")
    return "\n".join(lines)


def documented_roles_table(doc):
    if ROLES_HEADING not in doc:
        return None
    section = doc[doc.index(ROLES_HEADING):]
    table = [line for line in section.splitlines()[1:] if line.startswith("|")]
    end = 0
    for line in section.splitlines()[1:]:
        if line.startswith("|"):
            end += 1
        elif end:
            break
    return "\n".join(table[:end])


def main():
    parts, whole = engine_roles()
    if "--print" in sys.argv:
        print(roles_table(parts))
        return
    doc = open(DOC).read()
    problems = []
    targets, named = package_targets(), documented_targets(doc)
    for missing in sorted(targets - named):
        problems.append(f"target {missing} is not in the module map of docs/architecture.md")
    for extra in sorted(named - targets):
        problems.append(f"the module map names {extra}, which Package.swift does not have")
    for part in whole:
        problems.append(f"{part} holds the whole store; only BrokerEngine.init may see it")
    documented = documented_roles_table(doc)
    if documented is None:
        problems.append(f"docs/architecture.md has no '{ROLES_HEADING}' table (scripts/architecture-check.py --print makes it)")
    elif documented.strip() != roles_table(parts).strip():
        problems.append("the store roles table differs from the code; the code has:\n" + roles_table(parts))
    if problems:
        for problem in problems:
            print(f"architecture-check: {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"architecture-check: OK ({len(targets)} targets in the module map, {len(parts)} engine parts with their store roles)")


if __name__ == "__main__":
    main()
