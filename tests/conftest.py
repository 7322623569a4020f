"""Fixtures and pytest hooks; the helpers tests import (cli, real_trace, write_csv, ...) are in helpers.py."""
import signal

import pytest

# A test run started in the background of a script (`.ci/run &`, nohup) inherits SIGINT ignored, and every
# tracedb process it starts would too: Ctrl-C would do nothing, and the tests that send SIGINT to an ingest
# would see it run to the end (exit 0). Taken back here, the processes the tests start get the default.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="Rewrite golden/ files from the current output (review every diff before committing); "
                          "the golden cases the default tier leaves to the slow one run too.")


@pytest.hookimpl(tryfirst=True)   # before pytest's own hook deselects by -m
def pytest_collection_modifyitems(config, items):
    """The tests tests/slow_tests.txt lists (measured above tests/tiers.py's limit) are `slow`: left out of the
    default tier, run by `pytest -m slow` and CI."""
    import tiers
    update = config.getoption("--update-golden")
    slow = tiers.listed()
    for item in items:
        if update and "update_golden" in getattr(item, "fixturenames", ()):
            # a golden file is written by whichever tier runs its case: with the flag, every case runs
            item.own_markers = [m for m in item.own_markers if m.name != "slow"]
        elif item.nodeid in slow:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "store.duckdb")


@pytest.fixture
def con(db_path):
    import tracedb
    c = tracedb.connect(db_path)
    yield c
    c.close()


@pytest.fixture(scope="module")
def tiny_job_store(tmp_path_factory):
    """tests/tiny_job.py's three ranks, ingested as runs job-rank0..2 (tag job=job) into a store of the module's
    own: an open connection."""
    import tiny_job
    import tracedb
    d = tmp_path_factory.mktemp("tiny_job")
    con = tracedb.connect(str(d / "j.duckdb"))
    tiny_job.ingest(con, d)
    yield con
    con.close()
