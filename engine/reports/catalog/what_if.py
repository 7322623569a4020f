"""`report what-if`: the window's time if work took less time or waits went away, by replaying the dependency
graph report critical-path reads; each edit alone, then all together (the replay: engine/reports/what_if.py
over replay.py; docs/critical-path.md)."""
from dataclasses import replace
from typing import List, Optional

from tracedb.engine.reports.catalog.critical_path import ANNOTATION, INSTANCE, JOB_FLAG, RANK, STEP
from tracedb.engine.reports.declaration import MEAN_REFUSED, SEGMENTED, Examples, Option, Report
from tracedb.engine.reports.shared_options import PEAK_TBS, PEAK_TFLOPS, _flag

WHOLE = {"profile": None, "layers": None}


def build(con, fmt, seg, kernel=None, category=None, layer_edits=None, no_gap=None, overlap_comm=False,
          roofline_pct=None, peak_tflops=None, peak_tbs=None, step=None, annotation=None, instance=None, job=False,
          rank=None, balance_ranks=False):
    from tracedb.engine.reports import critical_path, path_ranks, what_if
    seg, job, said = path_ranks.selection(con, seg, rank, job)
    edits = what_if.parse_edits(kernel, category, no_gap, overlap_comm, roofline_pct, balance_ranks, job,
                                layer=layer_edits)
    res = what_if.build(con, fmt, step, edits, seg, peak_tflops, peak_tbs, job=job,
                        mark=critical_path.annotation_window(annotation, instance, step))
    res.notes[:0] = said
    return res


REPORT = Report(
    "what-if", "The window's time if work took less time or waits went away (--kernel REGEX=PCT, --category "
    "NAME=PCT, --no-gap CATEGORY, --overlap-comm, --roofline PCT, --balance-ranks with --job), by replaying the "
    "dependency graph report critical-path reads; each edit alone, then all together (docs/critical-path.md).",
    SEGMENTED, (Option("kernel", ("--kernel",), Optional[List[str]], None, "REGEX=PCT: kernels whose name matches "
                       "at PCT % of their measured time (repeatable)."),
                Option("category", ("--category",), Optional[List[str]], None, "NAME=PCT: kernels of the profile's "
                       "category NAME (gemm, attention, communication, ...) at PCT % of their time (repeatable)."),
                Option("layer_edits", ("--layer",), Optional[List[str]], None, "L=PCT: every kernel of layer L of "
                       "each pass (as report layers numbers them; the anchor is proposed as there unless given) at "
                       "PCT % of its time (repeatable)."),
                Option("no_gap", ("--no-gap",), Optional[List[str]], None, "A gap category removed: "
                       "launch_latency, device_gap or sync_wait (repeatable)."),
                _flag("overlap_comm", "Communication fully overlapped (its time at 0 %)."),
                Option("roofline", ("--roofline",), Optional[float], None, "PCT: every kernel whose work the "
                       "trace's shapes give at PCT % of its roofline (report roofline's ideal time / PCT), where "
                       "that is faster.", check="peak_tflops", engine="roofline_pct"),
                PEAK_TFLOPS, PEAK_TBS,
                replace(STEP, help="The window: step N (as report critical-path); default: the whole trace."),
                ANNOTATION, INSTANCE,
                replace(JOB_FLAG, help="Replay the selected runs as one job (a job's ranks, clocks aligned on their "
                        "collectives): a collective ends on every member when the last has arrived, so an edit on "
                        "one rank moves the others; the default when the selected runs are the ranks of one job "
                        "that a collective aligns."),
                replace(RANK, help="Only the selected run of this rank: its window, its work edited (replayed with "
                        "its job's other ranks in the store, so that its collectives end when they arrive)."),
                _flag("balance_ranks", "With --job: each rank's compute (its kernels but communication) at most "
                      "the median rank's, as if the load were balanced.")),
    MEAN_REFUSED, ("report_what_if",), build=build, place=160,
    # the GPU trace replayed with edits (tests/test_what_if.py holds the replay to the simulator's)
    examples=Examples("tiny", {
        "what_if.table": ("table", {**WHOLE, "runs": ["gpu"], "kernel": ["gemm=50"]}),
        "what_if.md": ("md", {**WHOLE, "runs": ["gpu", "gpu_x2"], "kernel": ["flash=0"], "no_gap": ["launch_latency"]}),
        "what_if.csv": ("csv", {**WHOLE, "runs": ["gpu"], "category": ["gemm=50"], "overlap_comm": True}),
        "what_if.json": ("json", {**WHOLE, "runs": ["gpu_x2"], "no_gap": ["device_gap", "sync_wait"]}),
        "what_if.html.json": ("html", {**WHOLE, "runs": ["gpu"], "kernel": ["gemm=50"]}),
    }, checks=(
        {**WHOLE, "runs": ["gpu"], "kernel": ["gemm=50"], "no_gap": ["device_gap"]},
        {**WHOLE, "runs": ["gpu"], "roofline_pct": 80, "peak_tflops": 300, "peak_tbs": 1.6},
        {"runs": ["gpu"], "profile": "dsv3-gpu", "anchor": "flash_fwd", "layer_edits": ["1=50"], "window": "full"},
        {"runs": ["tiny", "tiny_x2"], "job": True, "balance_ranks": True},       # one job replayed
    )))
