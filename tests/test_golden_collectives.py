"""Golden tests of `report collectives` over a small fixed job made by bench/gen_job.py (3 ranks of one TP
group, 2 layers, 2 passes, rank 1 late by 25 µs at the group's collective 1, clock offsets 0, +100 and -50 µs;
seeded, so the same bytes every time), in every format, compared whole with golden/<case> (for --format html,
the data block the page embeds). A missing or different golden file fails with a unified diff;
`pytest --update-golden` rewrites them (read every diff before committing)."""
import importlib.util
import os

import pytest

import tracedb
from helpers import GOLDEN, ROOT, check_golden, needs_html
from tracedb.engine.rendering.html import embedded
from tracedb.engine.reports.registry import render_report

GEN_JOB = os.path.join(ROOT, "bench", "gen_job.py")
JOB = {"ranks": 3, "layers": 2, "passes": 2, "late": [{"rank": 1, "coll": 1, "ns": 25_000}],
       "offsets_us": ["0", "100", "-50"], "jitter_ns": 0, "seed": 1}
SEL = {"runs": [], "tags": ["job=job"]}
CASES = {
    # name: (format, options)
    "collectives.table": ("table", {}),
    "collectives.md": ("md", {}),
    "collectives.csv": ("csv", {}),
    "collectives.json": ("json", {}),
    "collectives.html.json": ("html", {}),
    "collectives_raw.csv": ("csv", {"no_align": True}),
    "collectives_per_rank.csv": ("csv", {"per_rank": True}),
    "collectives_per_rank.md": ("md", {"per_rank": True, "no_align": True}),
    "collectives_per_rank.html.json": ("html", {"per_rank": True}),
}


@pytest.fixture(scope="module")
def job_store(tmp_path_factory):
    if not os.path.exists(GEN_JOB):
        pytest.skip("bench/gen_job.py is not in this checkout")
    spec = importlib.util.spec_from_file_location("gen_job", GEN_JOB)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    d = tmp_path_factory.mktemp("golden_collectives")
    gen.generate(str(d / "job"), **JOB)
    con = tracedb.connect(str(d / "g.duckdb"))
    for r in range(JOB["ranks"]):
        tracedb.ingest_trace(con, str(d / "job" / f"rank{r}.pt.trace.json"), name=f"job-rank{r}", tags=["job=job"])
    yield con
    con.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_collectives(case, job_store, update_golden):
    fmt, extra = CASES[case]
    if fmt == "html":
        needs_html()       # the html extra is optional: skipped, with the reason, without it
    got = render_report(job_store, "collectives", fmt=fmt, **{**SEL, **extra})
    if fmt == "html":
        got = embedded(got)
    check_golden(case, got, update_golden, "report")


def test_every_format_has_a_golden_case():
    from test_golden import FORMATS
    assert {f for f, _ in CASES.values()} == set(FORMATS)


def test_no_stray_collectives_golden_files():
    stray = {f for f in os.listdir(GOLDEN) if f.startswith("collectives")} - set(CASES)
    assert not stray
