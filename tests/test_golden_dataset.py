"""Golden tests over a Parquet dataset: every case of tests/test_golden.py on the tiny example store, run over
a dataset exported from that store (`tracedb export parquet`, opened as `--db DIR/`), must give the same bytes as the
store, so it is compared with the same golden files."""
import difflib
import os

import pytest

import tracedb
from tracedb.engine.rendering.html import embedded
from tracedb.engine.store.parquet import export_store
from tracedb.engine.reports.registry import render_report
from helpers import GOLDEN, needs_html, slow_beyond
from test_golden import TINY as CASES, stores, tiny_store  # noqa: F401  (fixtures: the store the dataset is from)


@pytest.fixture(scope="module")
def tiny_dataset(tiny_store, tmp_path_factory):  # noqa: F811
    folder = str(tmp_path_factory.mktemp("golden_dataset") / "ds")
    export_store(tiny_store, folder)
    con = tracedb.connect(folder + os.sep)
    yield con
    con.close()


# The default tier runs one case per report (its first in name order, every report reads the dataset
# through its own queries) and one page's data block; every format of every report runs with `-m slow`
# (formats are rendered from the same rows, checked over the store by tests/test_golden.py).
DEFAULT_CASES = {min(c for c in CASES if CASES[c][0] == report) for report, _, _ in CASES.values()} \
    | {"layers.html.json"}


@pytest.mark.parametrize("case", slow_beyond(sorted(CASES), DEFAULT_CASES))
def test_golden_over_a_dataset(case, tiny_dataset):
    report, fmt, extra = CASES[case]
    if fmt == "html":
        needs_html()       # the html extra is optional: skipped, with the reason, without it
    got = render_report(tiny_dataset, report, fmt=fmt, **extra)
    if fmt == "html":
        got = embedded(got)
    path = os.path.join(GOLDEN, case)
    assert os.path.exists(path), f"missing golden file {path}: run pytest --update-golden (tests/test_golden.py)"
    with open(path, encoding="utf-8", newline="") as f:
        want = f.read()
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), f"golden/{case}", "dataset"))
        pytest.fail(f"report over the dataset differs from golden/{case}:\n{diff}")


def test_the_dataset_has_every_table_and_view_of_the_store_with_its_types(tiny_store, tiny_dataset):  # noqa: F811
    def described(con):
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
            "AND table_catalog = current_database() ORDER BY 1").fetchall()]
        return {n: [tuple(r[:2]) for r in con.execute(f"DESCRIBE {tracedb.sql.ident(n)}").fetchall()] for n in names}
    store, ds = described(tiny_store), described(tiny_dataset)
    assert set(store) == set(ds) and len(store) > 10
    assert store == ds
