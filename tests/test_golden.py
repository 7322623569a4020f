"""Golden tests: every case every report declares among its examples (its module of
tracedb/engine/reports/catalog/), run on the example store it names (tests/example_stores.py: tiny generated
traces whose figures tests/ derive), compared whole with golden/<case> (for --format html, the data block the
page embeds: golden/*.html.json). A missing or different golden file fails with a unified diff;
`pytest --update-golden` rewrites them (read every diff before committing); `pytest -m slow` runs the cases the
default tier leaves out."""
import os

import pytest

import example_stores
from helpers import GOLDEN, check_golden, needs_html, slow_beyond
from tracedb.engine.rendering import render
from tracedb.engine.rendering.html import embedded
from tracedb.engine.reports.registry import render_report

# golden file name -> (report, store, format, options), from the reports' declarations
CASES = example_stores.cases()
TINY = {name: (report, fmt, options) for name, (report, store, fmt, options) in CASES.items() if store == "tiny"}


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    opened = example_stores.Stores(tmp_path_factory)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def tiny_store(stores):
    """The tiny example store, an open connection (the dataset and browser tests read it too)."""
    return stores["tiny"]


def _by_default() -> set:
    """The cases the default tier runs: each report's first and each format's first; `pytest -m slow` runs
    every case."""
    from tracedb.engine.reports.declared import REPORTS
    firsts = {next(iter(r.examples.cases)) for r in REPORTS}
    return firsts | {min(c for c in CASES if CASES[c][2] == fmt) for fmt in {f for _, _, f, _ in CASES.values()}}


@pytest.mark.parametrize("case", slow_beyond(sorted(CASES), _by_default()))
def test_golden(case, stores, update_golden):
    report, store, fmt, options = CASES[case]
    if fmt == "html":
        needs_html()       # the html extra is optional: skipped, with the reason, without it
    got = render_report(stores[store], report, fmt=fmt, **options)
    if fmt == "html":
        got = embedded(got)
    check_golden(case, got, update_golden, "report")


# spreadsheet is CSV with inert formula cells: checked against each CSV case below, not golden files of its own
FORMATS = tuple(f for f in render.FORMATS if f != "spreadsheet")


@pytest.mark.parametrize("case", slow_beyond(sorted(c for c in CASES if CASES[c][2] == "csv"), {0, 1, 2}))
def test_spreadsheet_is_the_csv_where_no_cell_starts_a_formula(case, stores):
    """The tiny traces' names start no formula, so `--format spreadsheet` must give the CSV byte for byte
    (it is written from the rows in Python, the CSV by DuckDB)."""
    report, store, _, options = CASES[case]
    csv = render_report(stores[store], report, fmt="csv", **options)
    assert render_report(stores[store], report, fmt="spreadsheet", **options) == csv


def test_every_report_and_format_has_a_golden_case():
    from tracedb.engine.reports.declared import REPORTS
    covered = {(report, fmt) for report, _, fmt, _ in CASES.values()}
    assert {(r.name, f) for r in REPORTS for f in FORMATS} <= covered


def test_no_stray_golden_files():
    """A golden file no case writes is a test that silently stopped running."""
    import test_golden_perfetto
    files = {f for f in os.listdir(GOLDEN) if os.path.isfile(os.path.join(GOLDEN, f))}
    stray = files - set(CASES) - set(test_golden_perfetto.CASES)
    assert not stray
