"""Which tests the default tier leaves to `pytest -m slow`: the tests listed in tests/slow_tests.txt, each of
which took more than LIMIT seconds (setup, call and teardown) in a measured run of the default tier on two
cores. conftest.py marks them `slow` at collection; CI runs them in its slow step, so every test still runs
there. The default tier is what a developer runs after each change: its budget is 90 s on two cores, the
listed tests ~90 % of the suite's time.

Measure and list again (the list only grows unless --fresh; a test that became cheap leaves it with --fresh):

    TRACEDB_TEST_DATA=/path/to/traces .venv/bin/python -m pytest --durations=0 -p no:randomly > durations.txt
    .venv/bin/python tests/tiers.py durations.txt [--fresh]

A module's fixtures are timed in its first test's setup, so a run after listing can find the next test
paying for them: run the two commands again until the tier is within its budget.

Never listed, because their files tier their own cases: the golden cases (tests/test_golden.py: each report's
first example and each format's first run by default, the others are marked slow there) and the zoo's seeds
(tests/test_zoo.py: seeds 0-4 by default, or every seed TRACEDB_ZOO_SEEDS names)."""
import os
import re
import sys

LIMIT = 0.25
HERE = os.path.dirname(os.path.abspath(__file__))
LIST = os.path.join(HERE, "slow_tests.txt")
KEEP = ("tests/test_golden.py::", "tests/test_zoo.py::")
HEADER = f"""# Tests the default tier leaves to `pytest -m slow` (conftest.py marks them): each took more than {LIMIT} s
# in a measured run of the default tier on two cores. Written by tests/tiers.py, which says how to measure.
"""
# pytest --durations=0: "0.12s call     tests/test_x.py::test_y[a b]" (a parameter id may hold spaces)
LINE = re.compile(r"^(\d+\.\d+)s (setup|call|teardown)\s+(tests/\S.*?)\s*$")


def listed() -> set[str]:
    """The node ids of tests/slow_tests.txt (none when it is absent)."""
    try:
        with open(LIST, encoding="utf-8") as f:
            return {line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")}
    except FileNotFoundError:
        return set()


def costs(path: str) -> dict[str, float]:
    """Node id -> seconds of its setup, call and teardown in a `pytest --durations=0` output."""
    out: dict[str, float] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                out[m.group(3)] = out.get(m.group(3), 0.0) + float(m.group(1))
    return out


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    measured = costs(argv[0])
    if not measured:
        print(f"{argv[0]}: no durations; expected the output of pytest --durations=0", file=sys.stderr)
        return 1
    slow = {t for t, s in measured.items() if s > LIMIT and not t.startswith(KEEP)}
    before = set() if "--fresh" in argv[1:] else listed()
    both = before | slow
    with open(LIST, "w", encoding="utf-8") as f:
        f.write(HEADER + "".join(t + "\n" for t in sorted(both)))
    kept = sum(s for t, s in measured.items() if t not in both)
    print(f"{len(both)} tests listed ({len(both - before)} new); the measured tests left in the default tier "
          f"took {kept:.0f} s of {sum(measured.values()):.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
