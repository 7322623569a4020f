"""`report blame`: who made the others wait: at every collective of a job (ranks segmented alike, clocks aligned
on the collectives), the others' waiting for the last rank, charged to its kernels that ran longer than on the
others, or to its host's launch delay (the computation: engine/jobs/blame.py; docs/jobs.md)."""
from typing import Optional

from tracedb.engine.reports.declaration import MEAN_STEADY, SEGMENTED, Examples, Option, Report
from tracedb.engine.reports.shared_options import NO_ALIGN, PASS, _by

# tests/tiny_job.py's three ranks: who waits for whom is derived there
JOB = {"runs": ["job-rank*"], "profile": None, "anchor": "attn_fwd", "layers": 2, "window": "full"}


def build(con, fmt, seg, pass_spec=None, by="kernel", no_align=False, top=None):
    from tracedb.engine.jobs import blame
    from tracedb.engine.rendering import render as rnd
    # a table for reading keeps 30 rows; the formats scripts read keep every row unless told
    return blame.build(con, fmt, pass_spec, by, no_align=no_align,
                       top=(30 if fmt in rnd.READING else 0) if top is None else top, **seg)


REPORT = Report(
    "blame", "Who made the others wait: at every collective of a job (ranks segmented alike, clocks aligned on the "
    "collectives), the others' waiting for the last rank, charged to its kernels that ran longer than on the "
    "others, or to its host's launch delay; see docs/jobs.md.",
    SEGMENTED, (PASS, _by("kernel", ("kernel", "layer"), "kernel: a row per late rank, pass, layer and cause; layer: "
                          "waited time per layer and late rank."), NO_ALIGN,
                Option("top", ("--top",), Optional[int], None, "Rows kept, most waited first; the others are summed "
                       "in one '(N more)' row (0: all; default: 30 in the terminal and Markdown, all in CSV and JSON).",
                       check="count")),
    MEAN_STEADY, ("blame",), build=build, place=110,
    examples=Examples("tiny", {
        "blame.table": ("table", JOB),
        "blame.md": ("md", {**JOB, "by": "layer"}),
        "blame.csv": ("csv", JOB),
        "blame.json": ("json", {**JOB, "by": "layer"}),
        "blame.html.json": ("html", JOB),
        "blame_layer.csv": ("csv", {**JOB, "by": "layer"}),
    }, checks=(
        {"runs": ["tiny", "tiny_x2"]},                                          # two Ascend ranks
    )))
