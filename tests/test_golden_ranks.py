"""Golden tests of `report ranks` over tests/tiny_job.py (three ranks, rank 2 slow in layer 1; the numbers are
derived there and checked in tests/test_ranks.py), in every format, compared whole with golden/<case> (for
--format html, the data block the page embeds). A missing or different golden file fails with a unified diff;
`pytest --update-golden` rewrites them (read every diff before committing)."""
import os

import pytest

from helpers import GOLDEN, check_golden, needs_html
from tracedb.engine.rendering.html import embedded
from tracedb.engine.reports.registry import render_report

SEG = {"runs": ["job-rank*"], "anchor": "attn_fwd", "layers": 2}
RAW = {"no_align": True}   # raw clocks: the cases do not change with the alignment's notes
CASES = {
    # name: (format, options)
    "ranks.table": ("table", {**RAW}),
    "ranks.md": ("md", {**RAW, "window": "strict"}),
    "ranks.csv": ("csv", {**RAW}),
    "ranks.json": ("json", {}),                                   # aligned on the collectives
    "ranks_per_rank.csv": ("csv", {**RAW, "per_rank": True}),
    "ranks_per_rank.md": ("md", {**RAW, "per_rank": True, "pass_spec": "1"}),
    "ranks_per_rank.json": ("json", {**RAW, "per_rank": True, "pass_spec": "0"}),
    "ranks_stragglers.csv": ("csv", {**RAW, "stragglers": True}),
    "ranks_stragglers.table": ("table", {**RAW, "stragglers": True}),
    "ranks_stragglers.json": ("json", {**RAW, "stragglers": True}),
    "ranks.html.json": ("html", {**RAW}),
    "ranks_per_rank.html.json": ("html", {**RAW, "per_rank": True}),
    "ranks_stragglers.html.json": ("html", {**RAW, "stragglers": True}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_ranks(case, tiny_job_store, update_golden):
    fmt, extra = CASES[case]
    if fmt == "html":
        needs_html()       # the html extra is optional: skipped, with the reason, without it
    got = render_report(tiny_job_store, "ranks", fmt=fmt, **{**SEG, **extra})
    if fmt == "html":
        got = embedded(got)
    check_golden(case, got, update_golden, "report")


def test_every_format_and_layout_has_a_golden_case():
    from test_golden import FORMATS
    assert {f for f, _ in CASES.values()} == set(FORMATS)
    layouts = {("per_rank" in o) + 2 * ("stragglers" in o) for _, o in CASES.values()}
    assert layouts == {0, 1, 2}


def test_no_stray_ranks_golden_files():
    stray = {f for f in os.listdir(GOLDEN) if f.startswith("ranks")} - set(CASES)
    assert not stray
