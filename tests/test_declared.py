"""The reports' declarations (engine/reports/declared.py) held to what they declare: each report's columns, read
from its SQL file's header (engine/reports/declaration.py), are what this test's own reading of the header
gives, its chart layouts exist and read declared columns, docs/reports.md shows today's
columns tables; and `tracedb report NAME` and tracedb.report(con, NAME), both made from the declarations,
print the same report for every report with its default options (on the golden tests' tiny traces)."""
import importlib.util
import os

import pytest

import tiny_job
import tiny_kineto
import tiny_pipeline
import tiny_swimlane
import tiny_trace
import tracedb
from helpers import ROOT, cli
from test_sql_headers import Header
from tracedb import sql
from tracedb.engine.rendering import charts
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
        assert chart.layout in charts.LAYOUTS
        assert chart.needs <= have, f"{chart.layout}: {sorted(chart.needs - have)} in none of {report.sql}"


def test_every_chart_layout_is_declared():
    from tracedb.engine.advise import advise
    assert {c.layout for r in declared.REPORTS for c in r.charts} | {advise.CHART.layout} == set(charts.LAYOUTS)


def test_docs_columns_tables_are_current():
    spec = importlib.util.spec_from_file_location("gen_reports", os.path.join(ROOT, "docs", "gen_reports.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    text = gen.DOC.read_text(encoding="utf-8")
    assert gen.updated(text) == text, f"docs/reports.md is stale: regenerate it with `{gen.REGENERATE}`"


# per report: the run selection (and segmentation) each call gives; every option of the report's own is left
# to its default
TINY = {"run": "tiny", "profile": "qwen3-npu", "layers": 2}
JOB = {"run": "job-rank*", "anchor": "attn_fwd", "layers": 2}
SELECTION = {"passes": TINY, "layers": TINY, "kernels": TINY, "timeline": TINY, "breakdown": TINY,
             "compare": {**TINY, "run": ["tiny", "tiny_x2"]}, "modules": {"run": "gpu"}, "launches": {"run": "gpu"},
             "cores": {"run": "cores"}, "ranks": JOB, "blame": JOB, "collectives": {"run": "job-rank*"},
             "pipeline": {"tag": "job=pp"}, "roofline": TINY, "critical-path": {"run": "gpu"},
             "what-if": {"run": "gpu", "kernel": "gemm=50"}}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("declared")
    path = str(d / "s.duckdb")
    con = tracedb.connect(path)
    tracedb.ingest_trace(con, tiny_trace.write(d / "kernel_details.csv"), name="tiny")
    tracedb.ingest_trace(con, tiny_trace.write(d / "slow.csv", dur_factor=2), name="tiny_x2")
    tracedb.ingest_trace(con, tiny_kineto.write(d / "trace.json"), name="gpu")
    tracedb.ingest_trace(con, tiny_swimlane.write(d / "swimlane.json"), name="cores")
    tiny_job.ingest(con, d)
    tiny_pipeline.ingest(con, d)
    con.close()
    return path


def _args(selection: dict) -> list[str]:
    out = []
    for key, value in selection.items():
        for v in value if isinstance(value, list) else [value]:
            out += ["--" + key.replace("_", "-"), str(v)]
    return out


def test_every_report_has_a_selection():
    assert set(SELECTION) == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_cli_and_api_give_the_same_report(store, name):
    """JSON: the rows, the title, the notes and the parameters, defaults included (compare: by layer)."""
    selection = SELECTION[name]
    printed = cli("report", name, "--db", store, *_args(selection), "--format", "json").stdout
    api = tracedb.report(store, name, **selection).text("json")
    assert '"rows"' in api and printed.rstrip("\n") == api.rstrip("\n")
