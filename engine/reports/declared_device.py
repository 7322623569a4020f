"""The reports of a run's device time and its causes, each declared once (engine/reports/declared.py lists them all):
breakdown, launches, roofline, critical-path and what-if."""
from dataclasses import replace
from typing import List, Optional

from tracedb.engine.reports.declaration import (MEAN_REFUSED, SEGMENTED,
                                                Option, Report, charts)
from tracedb.engine.reports.shared_options import (PASS, PEAK_TBS, PEAK_TFLOPS,
                                                   _by, _flag)

BREAKDOWN = Report(
    "breakdown", "Where device time goes: span, computing, communication, overlapped, not-overlapped communication "
    "and free time per run, step, pass or layer (the Ascend profiler's step_trace_time.csv columns).",
    SEGMENTED, (_by("run", ("run", "step", "pass", "layer"),
                    "run, step (Ascend Step Id; Kineto ProfilerStep#N), pass or layer (these two segment like report "
                    "layers; --profile sets what is communication for all)."), PASS),
    MEAN_REFUSED, ("report_breakdown",),
    charts(("computing_us free_us", "breakdown")))

LAUNCHES = Report(
    "launches", "Host-side cost of device work (GPU traces with host events): launch calls, launch-to-start delay, "
    "and idle time host-bound (before the next kernel's launch call) or not, per kernel name, run, step, pass or "
    "layer.",
    SEGMENTED, (_by("kernel", ("kernel", "run", "step", "pass", "layer"),
                    "kernel: a row per kernel name (per pass and layer with an anchor); run, step, pass or layer: a "
                    "row per unit, its idle time adding up to report breakdown's free_us."), PASS),
    MEAN_REFUSED, ("report_launches_kernels", "report_launches"),
    charts(("name host_bound_idle_us other_idle_us unknown_idle_us", "launches_kernels"),
           ("host_bound_idle_us other_idle_us unknown_idle_us", "launches")))

ROOFLINE = Report(
    "roofline", "How far from the hardware: FLOPs and bytes per kernel from the trace's own shapes, achieved TFLOP/s "
    "and TB/s, % of the device's peak (compute or memory bound) and MFU, per kernel name, category, layer, pass or "
    "run (docs/roofline.md).",
    SEGMENTED, (_by("kernel", ("kernel", "category", "layer", "pass", "run"),
                    "kernel (a row per kernel name), category, layer, pass or run."), PASS, PEAK_TFLOPS, PEAK_TBS),
    MEAN_REFUSED, ("report_roofline",),
    charts(("intensity tflops_s", "roofline")))

CRITICAL_PATH = Report(
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
                Option("step", ("--step",), Optional[int], None, "The window: step N (its ProfilerStep#N from its "
                       "start to the end of the device work launched inside it; Step Id N in kernel_details.csv); "
                       "default: the whole trace.", check="count"),
                Option("annotation", ("--annotation",), Optional[str], None, "The window: the host annotation "
                       "named NAME exactly (a record_function, NVTX range or other host op, not its GPU-side copy), "
                       "from its start to the end of the device work launched inside it, as --step; its first "
                       "instance, or with --instance N its N-th."),
                Option("instance", ("--instance",), Optional[int], None, "With --annotation: which of its "
                       "instances, from 0 in time order (default 0).", check="count"),
                _flag("job", "One path across the selected runs (a job's ranks, clocks aligned on their "
                      "collectives): a collective's end continues the path on the rank that arrived last; the "
                      "default when the selected runs are the ranks of one job that a collective aligns."),
                Option("rank", ("--rank",), Optional[int], None, "Only the selected run of this rank: its own "
                       "path (a collective's wait for the job's other ranks is comm_wait).", check="count"),
                Option("pass_", ("--pass",), str, "all", "The window: pass N (its kernels' first start to last "
                       "end, as report layers' wall); all: the step or the whole trace.", check="pass",
                       engine="pass_spec"),
                Option("layer", ("--layer",), Optional[int], None, "With --pass N: only that layer of it.",
                       check="layer")),
    MEAN_REFUSED, ("report_critical_path", "report_critical_path_by", "report_critical_path_slack"))

WHAT_IF = Report(
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
                replace(CRITICAL_PATH.option("step"), help="The window: step N (as report critical-path); "
                        "default: the whole trace."),
                CRITICAL_PATH.option("annotation"), CRITICAL_PATH.option("instance"),
                replace(CRITICAL_PATH.option("job"), help="Replay the selected runs as one job (a job's ranks, "
                        "clocks aligned on their collectives): a collective ends on every member when the last "
                        "has arrived, so an edit on one rank moves the others; the default when the selected runs "
                        "are the ranks of one job that a collective aligns."),
                replace(CRITICAL_PATH.option("rank"), help="Only the selected run of this rank: its window, its "
                        "work edited (replayed with its job's other ranks in the store, so that its collectives "
                        "end when they arrive)."),
                _flag("balance_ranks", "With --job: each rank's compute (its kernels but communication) at most "
                      "the median rank's, as if the load were balanced.")),
    MEAN_REFUSED, ("report_what_if",))
