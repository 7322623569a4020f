"""The default tier's list of slow tests (tests/slow_tests.txt, tests/tiers.py) names tests that exist, and the
durations it is written from are read as pytest prints them."""
import os
import re

import tiers
from helpers import ROOT


def test_every_listed_test_is_a_test_function_of_its_file():
    listed = tiers.listed()
    assert len(listed) > 100
    sources = {}
    for nodeid in listed:
        path, _, rest = nodeid.partition("::")
        name = rest.split("[", 1)[0].split("::")[-1]     # a parameter id may hold "::"
        if path not in sources:
            assert os.path.isfile(os.path.join(ROOT, path)), f"{nodeid}: no file {path}; run tests/tiers.py --fresh"
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                sources[path] = f.read()
        # a def, or a name bound by assignment (test_a, test_a_deep = both_tiers(...))
        assert re.search(rf"^\s*def {name}\(|^{name}\b.*=", sources[path], re.M), \
            f"{nodeid}: {path} has no test {name}; run tests/tiers.py --fresh"


def test_durations_are_summed_per_test_parameter_ids_with_spaces_included(tmp_path):
    log = tmp_path / "durations.txt"
    log.write_text("============ slowest durations ============\n"
                   "1.50s setup    tests/test_a.py::test_x[UPDATE t SET s = '{}'-its options]\n"
                   "0.25s call     tests/test_a.py::test_x[UPDATE t SET s = '{}'-its options]\n"
                   "0.01s teardown tests/test_b.py::test_y\n"
                   "(3 durations < 0.005s hidden.  Use -vv to show these durations.)\n")
    assert tiers.costs(str(log)) == {"tests/test_a.py::test_x[UPDATE t SET s = '{}'-its options]": 1.75,
                                     "tests/test_b.py::test_y": 0.01}
