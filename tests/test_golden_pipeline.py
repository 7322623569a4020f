"""Golden tests of `report pipeline` over the generated 1F1B jobs of tests/tiny_pipeline.py (2 stages, 2
micro-batches; its own figures are held to the schedule in tests/test_pipeline.py), in every format, compared
whole with golden/<case> (for --format html, the data block the page embeds), with a job whose stages are
unknown and a run that is no pipeline stage. A missing or different golden file fails with a unified diff;
`pytest --update-golden` rewrites them (read every diff before committing)."""
import os

import pytest

import tiny_pipeline
import tiny_trace
import tracedb
from helpers import GOLDEN, check_golden, needs_html
from tracedb.engine.rendering.html import embedded
from tracedb.engine.reports.registry import render_report

SEL = {"runs": [], "tags": ["job=pp"]}
CASES = {
    # name: (format, options)
    "pipeline.table": ("table", {}),
    "pipeline.md": ("md", {}),
    "pipeline.csv": ("csv", {}),
    "pipeline.json": ("json", {}),
    "pipeline.html.json": ("html", {}),
    "pipeline_steps.csv": ("csv", {"tags": ["job=steps"]}),
    "pipeline_unknown.csv": ("csv", {"tags": ["job=nogroups"]}),
    "pipeline_none.table": ("table", {"runs": ["tiny"], "tags": []}),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("golden_pipeline")
    con = tracedb.connect(str(d / "g.duckdb"))
    tiny_pipeline.ingest(con, d, name="pp")
    (d / "steps").mkdir()
    tiny_pipeline.ingest(con, d / "steps", name="steps", stages=4, micro=4, steps=2)
    (d / "nogroups").mkdir()
    tiny_pipeline.ingest(con, d / "nogroups", name="nogroups", groups=False)
    tracedb.ingest_trace(con, tiny_trace.write(d / "kernel_details.csv"), name="tiny")
    yield con
    con.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_pipeline(case, store, update_golden):
    fmt, extra = CASES[case]
    if fmt == "html":
        needs_html()       # the html extra is optional: skipped, with the reason, without it
    got = render_report(store, "pipeline", fmt=fmt, **{**SEL, **extra})
    if fmt == "html":
        got = embedded(got)
    check_golden(case, got, update_golden, "report")


def test_every_format_has_a_golden_case():
    from test_golden import FORMATS
    assert {f for f, _ in CASES.values()} == set(FORMATS)


def test_no_stray_pipeline_golden_files():
    stray = {f for f in os.listdir(GOLDEN) if f.startswith("pipeline")} - set(CASES)
    assert not stray
