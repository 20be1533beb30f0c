"""Runs CPython's own test_plistlib (the installed interpreter's test/test_plistlib.py, never copied here) with
plistlib replaced by ictkit.plistlib, skipping the tests listed in cpython_test_plistlib_exclusions.txt.

Exit status 0 when every other test passes. A listed test that passes is reported (the list is then stale) and
fails the run too, so the list only holds tests that really differ.
"""

import sys
import unittest
from pathlib import Path

import ictkit.plistlib

sys.modules["plistlib"] = ictkit.plistlib
import test.test_plistlib as suite  # noqa: E402  (after the replacement, so the suite imports ours)

assert suite.plistlib is ictkit.plistlib

EXCLUSIONS = Path(__file__).with_name("cpython_test_plistlib_exclusions.txt")


def excluded():
    """Test ids (Class.test_name) from the list, each with its reason after ' -- '."""
    names = {}
    for line in EXCLUSIONS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" -- ")
            if not reason.strip():
                raise SystemExit(f"{EXCLUSIONS.name}: {name.strip()} has no reason")
            names[name.strip()] = reason.strip()
    return names


def tests(suite_or_case):
    if isinstance(suite_or_case, unittest.TestSuite):
        for child in suite_or_case:
            yield from tests(child)
    else:
        yield suite_or_case


def main():
    listed = excluded()
    loaded = unittest.defaultTestLoader.loadTestsFromModule(suite)
    kept, skipped = unittest.TestSuite(), unittest.TestSuite()
    for case in tests(loaded):
        name = f"{type(case).__name__}.{case._testMethodName}"
        (skipped if name in listed else kept).addTest(case)
    unknown = set(listed) - {f"{type(c).__name__}.{c._testMethodName}" for c in tests(loaded)}
    if unknown:
        print("listed but not in test_plistlib:", ", ".join(sorted(unknown)))
        return 1
    result = unittest.TextTestRunner(verbosity=1).run(kept)
    stale = []
    for case in tests(skipped):
        check = unittest.TestResult()
        case.run(check)
        if check.wasSuccessful() and not check.skipped:
            stale.append(f"{type(case).__name__}.{case._testMethodName}")
    if stale:
        print("listed as failing but passing (remove from the list):", ", ".join(stale))
    print(f"test_plistlib with ictkit.plistlib: {result.testsRun} run, {len(result.failures)} failures, "
          f"{len(result.errors)} errors, {len(result.skipped)} skipped; {len(listed)} listed")
    return 0 if result.wasSuccessful() and not stale else 1


if __name__ == "__main__":
    sys.exit(main())
