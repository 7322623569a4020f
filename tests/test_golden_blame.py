"""Golden tests of `report blame` over tests/tiny_job.py (three ranks; who waits for whom is derived there and
checked in tests/test_blame.py), in every format, compared whole with golden/<case> (for --format html, the data
block the page embeds). `pytest --update-golden` rewrites them (read every diff before committing)."""
import os

import pytest

from helpers import GOLDEN, check_golden, needs_html
from tracedb.engine.rendering.html import embedded
from tracedb.engine.reports.registry import render_report

SEG = {"runs": ["job-rank*"], "anchor": "attn_fwd", "layers": 2}
CASES = {
    # name: (format, options)
    "blame.table": ("table", {}),
    "blame.md": ("md", {"by": "layer"}),
    "blame.csv": ("csv", {}),
    "blame.json": ("json", {"by": "layer"}),
    "blame.html.json": ("html", {}),
    "blame_layer.csv": ("csv", {"by": "layer"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_blame(case, tiny_job_store, update_golden):
    fmt, extra = CASES[case]
    if fmt == "html":
        needs_html()       # the html extra is optional: skipped, with the reason, without it
    got = render_report(tiny_job_store, "blame", fmt=fmt, **{**SEG, **extra})
    if fmt == "html":
        got = embedded(got)
    check_golden(case, got, update_golden, "report")


def test_no_stray_blame_golden_files():
    stray = {f for f in os.listdir(GOLDEN) if f.startswith("blame")} - set(CASES)
    assert not stray
