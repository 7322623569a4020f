"""`report critical-path`: the chain of work that set the window's end time, each activity's binding
predecessor the one released last, tiling the window exactly (the walk: engine/reports/critical_path.py;
across a job's ranks: path_ranks.py; docs/critical-path.md)."""
from typing import Optional

from tracedb.engine.reports.declaration import MEAN_REFUSED, SEGMENTED, Examples, Option, Report
from tracedb.engine.reports.shared_options import _by, _flag

WHOLE = {"runs": ["gpu"], "profile": None, "layers": None}
LAYERED = {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd", "layers": 2}
JOB = {"runs": [], "profile": None, "layers": None, "window": "full"}


def build(con, fmt, seg, by="segment", step=None, annotation=None, instance=None, job=False, rank=None,
          pass_spec=None, layer=None):
    from tracedb.engine.reports import critical_path, path_ranks
    seg, job, said = path_ranks.selection(con, seg, rank, job)
    res = critical_path.build(con, fmt, by, step, seg, job=job, pass_spec=pass_spec, layer=layer,
                              mark=critical_path.annotation_window(annotation, instance, step))
    res.notes[:0] = said
    return res


STEP = Option("step", ("--step",), Optional[int], None, "The window: step N (its ProfilerStep#N from its start to the "
              "end of the device work launched inside it; Step Id N in kernel_details.csv); default: the whole "
              "trace.", check="count")
ANNOTATION = Option("annotation", ("--annotation",), Optional[str], None, "The window: the host annotation named NAME "
                    "exactly (a record_function, NVTX range or other host op, not its GPU-side copy), from its start "
                    "to the end of the device work launched inside it, as --step; its first instance, or with "
                    "--instance N its N-th.")
INSTANCE = Option("instance", ("--instance",), Optional[int], None, "With --annotation: which of its instances, from "
                  "0 in time order (default 0).", check="count")
JOB_FLAG = _flag("job", "One path across the selected runs (a job's ranks, clocks aligned on their collectives): a "
                 "collective's end continues the path on the rank that arrived last; the default when the selected "
                 "runs are the ranks of one job that a collective aligns.")
RANK = Option("rank", ("--rank",), Optional[int], None, "Only the selected run of this rank: its own path (a "
              "collective's wait for the job's other ranks is comm_wait).", check="count")

REPORT = Report(
    "critical-path", "The chain of work that set the window's end time (each activity's binding predecessor, the "
    "one released last): device work, launch latency, device and host gaps, syncs, tiling the window (the whole "
    "trace, --step, or --pass and --layer; --job: one path across a job's ranks); per segment, category, kernel, "
    "layer, stage, module, step or rank, or each kernel's slack (docs/critical-path.md).",
    SEGMENTED, (_by("segment", ("segment", "category", "kernel", "layer", "stage", "module", "step", "rank",
                                "slack"),
                    "segment: the path, a row per segment in time order; category, kernel, layer, stage, module, "
                    "step, rank: the path's time per key, adding up to the window's wall time (stage: in its layer; "
                    "module: the launching nn.Module, as report modules; rank: with --job, which ranks the path "
                    "runs through); slack: per kernel, how much later its activities could end before the "
                    "window's end moves."),
                STEP, ANNOTATION, INSTANCE, JOB_FLAG, RANK,
                Option("pass_", ("--pass",), str, "all", "The window: pass N (its kernels' first start to last "
                       "end, as report layers' wall); all: the step or the whole trace.", check="pass",
                       engine="pass_spec"),
                Option("layer", ("--layer",), Optional[int], None, "With --pass N: only that layer of it.",
                       check="layer")),
    MEAN_REFUSED, ("report_critical_path", "report_critical_path_by", "report_critical_path_slack"),
    build=build, place=150,
    examples=Examples("tiny", {
        "critical_path.table": ("table", WHOLE),
        "critical_path.md": ("md", {**WHOLE, "by": "category"}),
        "critical_path.csv": ("csv", LAYERED),
        "critical_path.json": ("json", {**LAYERED, "by": "layer"}),
        "critical_path_kernel.csv": ("csv", {**WHOLE, "runs": ["gpu", "gpu_x2"], "by": "kernel"}),
        "critical_path.html.json": ("html", {**WHOLE, "by": "category"}),
        "critical_path_slack.csv": ("csv", {**WHOLE, "by": "slack"}),
        # two Ascend ranks as one job: one path across them (tests/test_critical_path_job.py holds it to a simulator)
        "critical_path_job.csv": ("csv", {"runs": ["tiny", "tiny_x2"], "job": True}),
    }, checks=(
        {**LAYERED, "profile": "dsv3-gpu", "window": "full"},
        {**JOB, "tags": ["job=ar"], "rank": 0, "by": "category"},    # a rank's own: its peers' arrivals
        {**JOB, "tags": ["job=pp"], "by": "category"},               # the ranks of one job: their one path
    )))
