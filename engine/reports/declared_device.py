"""The reports of a run's device time and its causes, each declared once (engine/reports/declared.py lists them all):
breakdown, launches, roofline, critical-path and what-if."""
from dataclasses import replace
from typing import List, Optional

from tracedb.engine.reports.declaration import (MEAN_REFUSED, SEGMENTED,
                                                Option, Report, charts, columns)
from tracedb.engine.reports.shared_options import (PASS, PEAK_TBS, PEAK_TFLOPS,
                                                   _by, _flag)

BREAKDOWN = Report(
    "breakdown", "Where device time goes: span, computing, communication, overlapped, not-overlapped communication "
    "and free time per run, step, pass or layer (the Ascend profiler's step_trace_time.csv columns).",
    SEGMENTED, (_by("run", ("run", "step", "pass", "layer"),
                    "run, step (Ascend Step Id; Kineto ProfilerStep#N), pass or layer (these two segment like report "
                    "layers; --profile sets what is communication for all)."), PASS),
    MEAN_REFUSED, ("report_breakdown",),
    columns("""
    run VARCHAR: the run's name
    rank INTEGER: the run's rank; NULL when unknown
    step BIGINT: the profiler step (--by step), else NULL
    pass BIGINT: the pass (--by pass, layer), else NULL
    layer BIGINT: the layer (--by layer; NULL with a pass: the prologue or epilogue), else NULL
    source VARCHAR: where span_us to free_us come from: kernels (tracedb's, from the kernels and communication ops); \
step_trace_time (the Ascend profiler's step_trace_time.csv, for a rank without kernels); communication.json (a rank \
with communication ops only: computing, overlap and free unknown)
    span_us DECIMAL(23,3): first start to last end of the unit's kernels and communication ops
    computing_us DECIMAL(23,3): union of the computing intervals; NULL for source communication.json
    communication_us DECIMAL(23,3): union of the communication intervals
    overlapped_us DECIMAL(23,3): computing and communication at once (NULL as computing)
    comm_not_overlapped_us DECIMAL(23,3): communication - overlapped (NULL as computing)
    free_us DECIMAL(23,3): span - union of all intervals (NULL as computing)
    prof_span_us DECIMAL(23,3): the Ascend profiler's own time of the run or step (step_trace_time.csv: Stage + \
Bubble); NULL without the file, and by pass and layer
    prof_computing_us DECIMAL(23,3): its Computing
    prof_communication_us DECIMAL(23,3): its Communication
    prof_overlapped_us DECIMAL(23,3): its Overlapped
    prof_comm_not_overlapped_us DECIMAL(23,3): its Communication(Not Overlapped)
    prof_free_us DECIMAL(23,3): its Free
    prof_bubble_us DECIMAL(23,3): its Bubble (receive ops, pipeline parallel)
    prof_preparing_us DECIMAL(23,3): its Preparing (step start to the first device op)
    unit VARCHAR: --by layer: prologue | layer | epilogue; else NULL
    memcpy_us DECIMAL(23,3): union of the unit's memcpy intervals; NULL unless source kernels (as the four below)
    memcpy_overlapped_us DECIMAL(23,3): memcpy while computing or communication runs
    memcpy_exposed_us DECIMAL(23,3): memcpy - memcpy_overlapped: no kernel or communication op running
    memset_us DECIMAL(23,3): union of the unit's memset intervals
    memset_exposed_us DECIMAL(23,3): memset with no kernel, communication op or memcpy running
    device_span_us DECIMAL(23,3): first start to last end of every activity of the unit, copies and fills included \
(>= span); NULL unless source kernels
    idle_us DECIMAL(23,3): device_span - union of every interval: nothing running (NULL as device_span)
    """),
    charts(("computing_us free_us", "breakdown")))

LAUNCHES = Report(
    "launches", "Host-side cost of device work (GPU traces with host events): launch calls, launch-to-start delay, "
    "and idle time host-bound (before the next kernel's launch call) or not, per kernel name, run, step, pass or "
    "layer.",
    SEGMENTED, (_by("kernel", ("kernel", "run", "step", "pass", "layer"),
                    "kernel: a row per kernel name (per pass and layer with an anchor); run, step, pass or layer: a "
                    "row per unit, its idle time adding up to report breakdown's free_us."), PASS),
    MEAN_REFUSED, ("report_launches_kernels", "report_launches"),
    columns("""
    run VARCHAR: the run's name
    pass BIGINT: the pass; NULL: no anchor, or outside the selected passes
    layer BIGINT: the layer; NULL: the prologue or epilogue (unit), or no pass
    name VARCHAR: the kernel name
    short_name VARCHAR: its short name (terminal and Markdown tables show it instead of name)
    kind VARCHAR: kernel, comm, memcpy or memset
    launch_api VARCHAR: the launch calls' names, comma-separated
    count BIGINT: its activities
    launched BIGINT: those whose launch call is in the trace
    sum_us DECIMAL(38,3): their device time
    launch_calls BIGINT: distinct launch calls (a graph launch counts once in each row it launched)
    launch_us DECIMAL(38,3): total duration of those calls, each counted once per row
    delay_p50_us DECIMAL(23,3): median of start - launch call start
    delay_p95_us DECIMAL(23,3): its 95th percentile
    delay_max_us DECIMAL(23,3): its maximum
    host_bound_idle_us DECIMAL(38,3): idle the device spent before these kernels' launch calls had started
    other_idle_us DECIMAL(38,3): idle before these kernels after their launch calls had started
    unknown_idle_us DECIMAL(38,3): idle before those of these kernels without a launch call
    unit VARCHAR: prologue | layer | epilogue; NULL: no pass
    """),
    charts(("name host_bound_idle_us other_idle_us unknown_idle_us", "launches_kernels"),
           ("host_bound_idle_us other_idle_us unknown_idle_us", "launches")))

ROOFLINE = Report(
    "roofline", "How far from the hardware: FLOPs and bytes per kernel from the trace's own shapes, achieved TFLOP/s "
    "and TB/s, % of the device's peak (compute or memory bound) and MFU, per kernel name, category, layer, pass or "
    "run (docs/roofline.md).",
    SEGMENTED, (_by("kernel", ("kernel", "category", "layer", "pass", "run"),
                    "kernel (a row per kernel name), category, layer, pass or run."), PASS, PEAK_TFLOPS, PEAK_TBS),
    MEAN_REFUSED, ("report_roofline",),
    columns("""
    run VARCHAR: the run's name
    pass BIGINT: the pass (by pass, layer)
    layer BIGINT: the layer (by layer; NULL with a pass: the prologue or the epilogue)
    category VARCHAR: the category (by category, kernel)
    name VARCHAR: the kernel name (by kernel)
    short_name VARCHAR: its short name (terminal and Markdown tables show it instead of name)
    count BIGINT: kernels
    sum_us DECIMAL(38,3): their time
    flops HUGEINT: their floating-point operations, where known
    bytes HUGEINT: their bytes read and written, where known
    intensity DECIMAL(18,2): flops / bytes over the kernels with both
    tflops_s DECIMAL(18,3): flops / the time of the kernels with flops, TFLOP/s
    tbytes_s DECIMAL(18,3): bytes / the time of the kernels with bytes, TB/s
    bound VARCHAR: compute | memory: which roofline term dominates the group's ideal time
    pct_peak DECIMAL(7,1): ideal time at peak over measured time, %; empty above 100 % (flag)
    mfu_pct DECIMAL(7,1): FLOPs at peak over the group's whole time, % (per pass: MFU)
    device_mac_pct DECIMAL(7,1): the device's own measure (Ascend aic_mac_ratio), time-weighted, %
    device_cube_pct DECIMAL(7,1): the device's own cube_utilization(%) (Ascend level 2), time-weighted, %
    coverage_pct DECIMAL(6,1): share of the group's time in kernels with FLOPs or bytes
    flag VARCHAR: above 100 % of peak: a wrong shape, dtype or peak
    flops_source VARCHAR: the formulas of the group's kernels
    unit VARCHAR: by layer: prologue | layer | epilogue; every format but Arrow prints the prologue's and \
epilogue's unit in the layer column
    """),
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
    MEAN_REFUSED, ("report_critical_path", "report_critical_path_by", "report_critical_path_slack"),
    columns("""
    run VARCHAR: the run's name
    rank INTEGER: its rank; NULL when unknown
    step BIGINT: the window's step; NULL: the whole trace
    seq BIGINT: the segment's position on the path, from 0 at the window's start
    start_us DECIMAL(23,3): start, from the window's start
    end_us DECIMAL(23,3): end, from the window's start
    dur_us DECIMAL(23,3): end - start
    segment VARCHAR: the node's kind (kernel, comm, memcpy, memset, launch, sync) for its own stretch; gap \
for the time before it (and a collective's comm_wait)
    category VARCHAR: device_compute, device_comm, device_memcpy, host_op, sync_wait (work on the path); \
launch_latency, device_gap, host_gap, comm_wait (waiting on the path; comm_wait: a job's rank on its own, its \
collective before the last other member arrived)
    kernel VARCHAR: the device activity's short name (its own stretch, or the gap before it)
    name VARCHAR: its full name (terminal and Markdown tables show kernel instead, told apart)
    api VARCHAR: the host call (launch or synchronising call)
    pass BIGINT: the pass of the kernel (a host call: of the first kernel it launched); NULL: not segmented
    layer BIGINT: its layer; NULL: the prologue or epilogue (unit), or no pass
    unit VARCHAR: prologue | layer | epilogue; NULL: no pass
    stage VARCHAR: the kernel's stage in its layer (attention, ffn; router, dispatch, experts, combine, shared); \
NULL outside a layer
    module VARCHAR: the nn.Module (else annotation, op) that launched it, as report modules names it
    lane VARCHAR: device:DEVICE:STREAM or host:PID:TID
    """))

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
    MEAN_REFUSED, ("report_what_if",),
    columns("""
    run VARCHAR: the run's name; with --job, job (N runs)
    rank INTEGER: its rank; NULL when unknown or with --job
    step BIGINT: the window's step; NULL: the whole trace
    edit VARCHAR: what was changed
    measured_us DECIMAL(23,3): the window's wall time as measured
    predicted_us DECIMAL(23,3): its wall time after the edit, by the replay
    saving_us DECIMAL(23,3): measured - predicted
    saving_pct DECIMAL(7,2): the saving as a % of the measured
    """))
