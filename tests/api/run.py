"""run.py - runs the API lane: every tests/api/test_*.py in one process.

  python3 tests/api/run.py                       every test of every file
  python3 tests/api/run.py --tsan                those marked @tsan (harness.py)
  python3 tests/api/run.py test_runs.RunsTest    the tests named (module.Class.test)

A new test_*.py file is picked up without being listed anywhere.
Exit status: 0 when every test passed, 1 otherwise, 77 with no binary.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import BIN  # noqa: E402


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def for_tsan(test):
    """Marked for the TSan lane, or a file that failed to load (which must
    fail the lane, not vanish from it)."""
    if type(test).__module__ == "unittest.loader":
        return True
    method = getattr(type(test), test._testMethodName, None)
    return getattr(method, "tsan", False) or getattr(type(test), "tsan", False)


def main(argv):
    tsan_only = "--tsan" in argv
    names = [a for a in argv if a != "--tsan"]
    if not os.access(BIN, os.X_OK):
        print("SKIP: no numalab binary at '%s' (set NUMALAB_BIN)" % BIN)
        return 77
    loader = unittest.TestLoader()
    if names:
        suite = loader.loadTestsFromNames(names)
    else:
        suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    # a flat list in load order keeps each class's tests together, so
    # setUpClass still runs once per class
    tests = list(flatten(suite))
    if tsan_only:
        tests = [t for t in tests if for_tsan(t)]
    if not tests:
        print("no API tests selected", file=sys.stderr)
        return 1
    result = unittest.TextTestRunner(verbosity=2).run(unittest.TestSuite(tests))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
