"""The reports' declarations (engine/reports/catalog/) held to what they declare: each report's columns, read
from its SQL file's header (engine/reports/declaration.py), are what this test's own reading of the header
gives, its chart layouts exist and read declared columns, docs/reports.md shows today's
columns tables; and `tracedb report NAME` and tracedb.report(con, NAME), both made from the declarations,
print the same report for every report's first example (on the example store it names)."""
import importlib.util
import os

import pytest

import example_stores
import tracedb
from helpers import ROOT, cli
from test_sql_headers import Header
from tracedb import sql
from tracedb.engine.reports import declared

NAMES = [r.name for r in declared.REPORTS]


def _rows_columns(file: str) -> list[tuple[str, str]]:
    """The (name, type) columns of the rows a query file's header documents."""
    header = Header(file, sql.load(file))
    assert not header.errors, f"{file}.sql: {header.errors}"
    return [c for obj, cols, _ in header.typed_outputs() if obj == "rows" for c in cols]


@pytest.mark.parametrize("name", NAMES)
def test_declared_columns_are_the_sql_header(name):
    report = declared.get(name)
    assert [(c.name, c.type) for c in report.columns] == _rows_columns(report.sql[0])
    # each description whole, its continuation lines joined: it ends where the header's item ends
    text = sql.load(report.sql[0])
    for c in report.columns:
        assert c.help and " ".join(c.help.split()) == c.help, (c.name, c.help)
        assert c.help.split()[-1] in text, c.name


def test_header_columns_joins_continuations_and_stops_at_the_next_output():
    from tracedb.engine.reports.declaration import header_columns
    cols = header_columns("report_passes")
    note = next(c for c in cols if c.name == "note")
    assert note.help.startswith("partial (") and note.help.endswith("else empty")
    assert cols[0].name == "run" and "TEMP" not in " ".join(c.help for c in cols)


@pytest.mark.parametrize("name", NAMES)
def test_chart_layouts_exist_and_read_columns_the_report_has(name):
    report = declared.get(name)
    have = {c for file in report.sql for c, _ in _rows_columns(file)}
    for chart in report.charts:
        assert callable(chart.layout)
        assert chart.needs <= have, f"{chart.layout.__name__}: {sorted(chart.needs - have)} in none of {report.sql}"


@pytest.mark.parametrize("name", NAMES)
def test_every_layout_of_a_report_module_is_declared(name):
    """A layout function a report module defines (`*_chart`) and does not declare would never be drawn."""
    import sys
    report = declared.get(name)
    module = sys.modules[report.build.__module__]
    defined = {f for n, f in vars(module).items() if n.endswith("_chart") and callable(f)}
    assert defined == {c.layout for c in report.charts}


def test_docs_columns_tables_are_current():
    spec = importlib.util.spec_from_file_location("gen_reports", os.path.join(ROOT, "docs", "gen_reports.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    text = gen.DOC.read_text(encoding="utf-8")
    assert gen.updated(text) == text, f"docs/reports.md is stale: regenerate it with `{gen.REGENERATE}`"


@pytest.fixture(scope="module")
def store_paths(tmp_path_factory):
    return example_stores.Stores(tmp_path_factory)


def _call(name: str, options: dict) -> tuple[dict, list[str]]:
    """A report's example options (build_report keywords) as the Python API's keywords and the command line's
    arguments: those the report takes (api.OPTIONS), None, False and [] left to their defaults."""
    from tracedb.engine.api import OPTIONS
    by_target = {target: key for key, target in OPTIONS[name].items()}
    flags = {o.key: o.flags[0] for o in declared.get(name).options + declared.SEGMENTATION}
    flags.update(run="--run", tag="--tag")
    api, args = {}, []
    for target, value in options.items():
        key = by_target.get(target)
        if key is None or value is None or value is False or value == []:
            continue
        api[key] = value
        for v in value if isinstance(value, list) else [value]:
            args += [flags[key]] if v is True else [flags[key], str(v)]
    return api, args


@pytest.mark.parametrize("name", NAMES)
def test_cli_and_api_give_the_same_report(store_paths, name):
    """JSON of the report's first example: the rows, the title, the notes and the parameters, defaults
    included."""
    store, _, options = example_stores.first(declared.get(name))
    path = store_paths.path(store)
    api, args = _call(name, options)
    printed = cli("report", name, "--db", path, *args, "--format", "json").stdout
    text = tracedb.report(path, name, **api).text("json")
    assert '"rows": [' in text and '"rows": []' not in text and printed.rstrip("\n") == text.rstrip("\n")
