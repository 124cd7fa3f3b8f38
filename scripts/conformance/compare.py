#!/usr/bin/env python3
"""Compares the port's result lines with expected.txt (docs/conformance.md, "CI").

expected.txt lists, one per line, `<module> <RESULT>` for every module whose result is not PASS
today (RESULT: FAIL, WARNING or SKIPPED); a module not listed is expected to PASS. The run fails
(exit 1) when a module FAILs that is not expected to (a regression), when a module expected to FAIL
no longer does (an unexpected pass: remove its line), or when a module has no result at all. Other
differences (a new WARNING, a WARNING gone) are printed and do not fail the run.
"""
import sys

RESULTS = {"PASS", "FAIL", "WARNING", "SKIPPED"}


def read_expected(path: str) -> dict[str, str]:
    expected: dict[str, str] = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or parts[1] not in RESULTS:
                raise SystemExit(f"{path}:{number}: expected '<module> FAIL|WARNING|SKIPPED', got {line!r}")
            expected[parts[0]] = parts[1]
    return expected


def read_results(path: str) -> dict[str, str]:
    results: dict[str, str] = {}
    with open(path) as f:
        for line in f:
            parts = line.split(maxsplit=2)
            if len(parts) >= 2 and parts[0] in RESULTS:
                results[parts[1]] = parts[0]
    return results


def main(expected_path: str, results_path: str) -> int:
    expected = read_expected(expected_path)
    results = read_results(results_path)
    errors, notes = [], []
    for module in sorted(set(expected) - set(results)):
        errors.append(f"{module}: listed in expected.txt but has no result (renamed, or the port stopped?)")
    for module, result in sorted(results.items()):
        want = expected.get(module, "PASS")
        if result == want:
            continue
        if result == "FAIL":
            errors.append(f"{module}: FAIL, expected {want} (a regression)")
        elif want == "FAIL":
            errors.append(f"{module}: {result}, expected FAIL (an unexpected pass: remove or update its line in expected.txt)")
        else:
            notes.append(f"{module}: {result}, expected {want} (update expected.txt and docs/conformance.md)")
    counts = {r: sum(1 for v in results.values() if v == r) for r in ("PASS", "WARNING", "FAIL", "SKIPPED")}
    for note in notes:
        print(f"conformance note: {note}")
    for error in errors:
        print(f"conformance ERROR: {error}")
    summary = ", ".join(f"{n} {r}" for r, n in counts.items())
    if errors:
        print(f"== conformance: {summary}; {len(errors)} result(s) differ from expected.txt")
        return 1
    print(f"== conformance: {summary}; every FAIL is one expected.txt lists")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: compare.py expected.txt results.txt")
    sys.exit(main(sys.argv[1], sys.argv[2]))
