"""Every report declared once: its options and their defaults, what it does with `--pass mean`, the SQL
files it reads, its output columns and its chart layouts (the shape: engine/reports/declaration.py). The
`tracedb report` commands, tracedb.report (engine/api.py), build_report's defaults, the columns tables of
docs/reports.md (docs/gen_reports.py) and the chart of the HTML page are derived from these declarations;
tests/test_declared.py holds the columns to the SQL headers."""
from dataclasses import replace
from typing import List, Optional

from tracedb.engine.reports.declaration import (MEAN_AVERAGED, MEAN_REFUSED, MEAN_STEADY, PROFILED, RUNS, SEGMENTED,
                                                Option, Report, charts, columns)
from tracedb.engine.reports.shared_options import (ABSOLUTE, MODULE_PATH, NO_ALIGN, PASS, PEAK_TBS, PEAK_TFLOPS,
                                                   _by, _flag)
from tracedb.engine.reports.shared_options import SEGMENTATION   # noqa: F401 (the CLI and API read it here)

PASSES = Report(
    "passes", "Forward passes: anchors, kernels, time, average and first layer, cold-start / steady-state / partial.",
    SEGMENTED, (ABSOLUTE,), None, ("report_passes",),
    columns("""
    run VARCHAR: the run's name
    pass BIGINT: the pass (numbered per phase from 0 in time order)
    phase VARCHAR: forward | backward
    step BIGINT: its step (Ascend Step Id, ProfilerStep#N, the serving step or the optimizer steps; else the pass)
    microbatch BIGINT: its position among the passes of its step and phase, from 0
    step_kind VARCHAR: prefill | decode | mixed | train; NULL when unknown
    tokens BIGINT: tokens of the serving step; NULL when unknown
    requests BIGINT: requests (context + generation) of the serving step; NULL when unknown
    anchors BIGINT: its anchors
    kernels BIGINT: its kernels
    sum_us DECIMAL(38,3): their time
    wall_us DECIMAL(23,3): first kernel start to last kernel end
    start_us DECIMAL(23,3): relative to the run's first kernel unless --absolute
    end_us DECIMAL(23,3): relative to the run's first kernel unless --absolute
    avg_layer_us DECIMAL(23,3): mean layer wall
    first_layer_us DECIMAL(23,3): layer-0 wall
    us_per_token DECIMAL(23,3): the step's device span / tokens: from the first to the last kernel of the pass \
launched inside its serving step annotation (or starting inside its GPU-side copy), not the pass's wall, whose \
window may reach back over idle before the step; NULL when tokens are unknown
    note VARCHAR: partial (anchor count differs from the expected), cold-start (a full pass before the first steady \
one), steady-state (every full pass from the first steady one on), else empty
    """),
    charts(("wall_us sum_us note", "passes")))

LAYERS = Report(
    "layers", "Per layer: kernels, sum and wall time, time per category, communication count; --roofline adds "
    "achieved TFLOP/s and % of the device's peak.",
    SEGMENTED, (PASS, ABSOLUTE,
                _by("layer", ("layer", "stage", "kind"),
                    "layer: a row per layer; stage: per layer kind, the time of each stage (attention, ffn; an "
                    "MoE layer's router, dispatch, experts, combine, shared); kind: one representative layer per "
                    "layer kind (dense/moe, full/sliding/linear attention)."),
                _flag("clusters", "Per layer type statistics (needs --config with layer types)."),
                _flag("roofline", "Add tflops_s and pct_peak per layer (report roofline's; docs/roofline.md)."),
                PEAK_TFLOPS, PEAK_TBS),
    MEAN_AVERAGED, ("report_layers", "report_layers_mean", "report_clusters", "report_layers_stage",
                    "report_layers_kind"),
    columns("""
    run VARCHAR: the run's name
    pass BIGINT: the pass
    layer BIGINT: the layer; NULL: the prologue or the epilogue (unit)
    kernels BIGINT: its kernels
    sum_us DECIMAL(38,3): their time
    wall_us DECIMAL(23,3): first kernel start to last kernel end
    start_us DECIMAL(23,3): relative to the run's first kernel unless --absolute
    end_us DECIMAL(23,3): relative to the run's first kernel unless --absolute
    <category>_us DECIMAL(38,3): time of the category's kernels, one column per category in the profile's order
    comm_count BIGINT: communication kernels
    [tflops_s] DECIMAL(18,3): --roofline: the layer's FLOPs / the time of its kernels with FLOPs, TFLOP/s
    [pct_peak] DECIMAL(7,1): --roofline: its ideal time at the device's peak over its measured time, %; empty \
above 100 %
    unit VARCHAR: prologue | layer | epilogue; every format but Arrow prints the prologue's and epilogue's \
unit in the layer column
    """),
    charts(("layer_type", "clusters"), ("layer wall_us", "layers")))

KERNELS = Report(
    "kernels", "Hot kernels of a pass or layer; --format compute-flow (or --flow) for the layer's compute flow.",
    SEGMENTED, (replace(PASS, default="auto"), ABSOLUTE,
                Option("layer", ("--layer",), Optional[int], None,
                       "Only this layer (needed for the flow and --compare-layer).", check="layer"),
                Option("compare_layer", ("--compare-layer",), Optional[int], None,
                       "Diff the kernel set of --layer against this layer.", check="layer"),
                _flag("flow", "Every kernel of the layer with category, simplified name, ts and shapes."),
                Option("top", ("--top",), int, 20, "Hot list length (0: all).", check="count"),
                Option("order", ("--order",), str, "dur", "Flow order: dur (hottest first) or time.",
                       choices=("dur", "time"))),
    MEAN_REFUSED, ("report_kernels", "report_flow", "report_compare_layers"),
    columns("""
    run VARCHAR: the run's name
    pass BIGINT: the pass
    layer BIGINT: --layer (empty when all layers)
    rank BIGINT: by time, from 1
    name VARCHAR: the kernel name
    short_name VARCHAR: its short name (terminal and Markdown tables show it instead of name)
    op_type VARCHAR: its op type
    category VARCHAR: its category
    count BIGINT: its kernels
    sum_us DECIMAL(38,3): their time
    avg_us DECIMAL(23,3): their mean duration
    share_pct DECIMAL(6,2): share of the selection's kernel time, 2 decimals
    """),
    charts(("sum_us_a sum_us_b", "layer_diff"), ("ordinal dur_us", "flow"), ("rank sum_us", "kernels")))

TIMELINE = Report(
    "timeline", "Pass and layer time ranges in seconds from the trace start, to navigate in Perfetto.",
    SEGMENTED, (PASS, ABSOLUTE,
                Option("layer", ("--layer",), Optional[List[int]], None,
                       "Only these layers (repeatable); passes always.", check="layer", engine="timeline_layers")),
    MEAN_REFUSED, ("report_timeline",),
    columns("""
    run VARCHAR: the run's name
    pass BIGINT: the pass
    layer BIGINT: the layer; NULL: the pass's own row
    start_s DECIMAL(29,9): first kernel start
    end_s DECIMAL(29,9): last kernel end
    dur_ms DECIMAL(26,6): end - start
    ts_ns BIGINT: start in the file's own ns
    end_ns BIGINT: end in the file's own ns
    """),
    charts(("start_s end_s", "timeline")))

MODULES = Report(
    "modules", "Device time by the host module that launched it (GPU traces with host events); layers with an anchor.",
    SEGMENTED, (PASS, _by("kernel", ("kernel", "module"),
                          "kernel: a row per (layer, module, kernel); module: per module totals."), MODULE_PATH),
    MEAN_REFUSED, ("report_modules", "report_modules_total"),
    columns("""
    run VARCHAR: the run's name
    pass BIGINT: the pass; NULL: outside every window
    layer BIGINT: the layer; NULL: the prologue or epilogue (unit), or outside every window
    module VARCHAR: the launching module
    kernel VARCHAR: the kernel name
    count BIGINT: its kernels
    sum_us DECIMAL(38,3): their time
    unit VARCHAR: prologue | layer | epilogue; NULL outside every window
    """),
    charts(("module sum_us", "modules")))

CORES = Report(
    "cores", "On-core busy time, idle time and bubbles (exposed vs hidden) of per-core NPU traces; two runs side by "
    "side.",
    RUNS, (Option("match", ("--match", "-m"), Optional[str], None,
                  "RE2 on task names: only this kernel set (e.g. attention).", check="pattern"),
           Option("from_", ("--from",), Optional[float], None, "Window start, µs after the run's first task.",
                  check="us", engine="from_us"),
           Option("to", ("--to",), Optional[float], None, "Window end, µs after the run's first task.", check="us",
                  engine="to_us"),
           _flag("per_core", "One row per core instead of per core class."),
           _flag("scheduler", "Time per phase on each AICPU scheduler / orchestrator thread."),
           _flag("stack", "With two runs: their per-class rows stacked, not side by side."),
           Option("top_gaps", ("--top-gaps",), int, 0, "The N longest idle gaps per core class, with time ranges.",
                  check="count")),
    None, ("report_cores_class", "report_cores_core", "report_cores_compare", "report_cores_scheduler",
           "report_cores_gaps"),
    columns("""
    run VARCHAR: the run's name
    core_class VARCHAR: the core class
    cores BIGINT: cores of the class with a task in the window
    idle_cores BIGINT: cores named in the trace's metadata without a task
    tasks HUGEINT: matched tasks in the window
    window_us DECIMAL(23,3): the window
    busy_us DECIMAL(38,3): union of each core's task intervals (overlapping tasks count once), summed over cores
    idle_us DECIMAL(38,3): cores × window − busy
    utilisation_pct DECIMAL(6,2): busy / (cores × window)
    gaps BIGINT: idle intervals of the class's cores in the window
    gap_p50_us DECIMAL(23,3): their median
    gap_p95_us DECIMAL(23,3): their 95th percentile
    gap_max_us DECIMAL(23,3): the longest
    exposed_us DECIMAL(38,3): time when every core of the class is idle: the window minus \
the union of the class's busy intervals
    hidden_us DECIMAL(38,3): idle time while another core of the class works: idle − cores × exposed
    """),
    charts(("busy_us_a busy_us_b", "cores_compare"), ("phase sum_us", "scheduler"), ("start_us end_us", "gaps"),
           ("busy_us idle_us", "cores")))

COMPARE = Report(
    "compare", "Two or more runs segmented alike, aligned by layer, category, module, kernel or stage, with delta and "
    "ratio to the first (a simulated run after a measured one: simulated / measured, and M6 in the notes).",
    SEGMENTED, (PASS, _by("layer", ("layer", "category", "module", "kernel", "stage"),
                          "layer, category, module (traces with host events), kernel (aligned by category, "
                          "module role and rank), or stage (attention, ffn; an MoE layer's router, dispatch, "
                          "experts, combine, shared: a column stage instead of category)."),
                Option("layer", ("--layer",), Optional[str], None,
                       "Only this layer, or mean: per key the mean over the full layers.", check="layer_or_mean"),
                MODULE_PATH,
                _flag("roofline", "Add each run's tflops_s and pct_peak per key (report roofline's; "
                                  "docs/roofline.md)."),
                PEAK_TFLOPS, PEAK_TBS),
    MEAN_AVERAGED, ("report_compare", "report_compare_mean", "report_compare_wide"),
    columns("""
    pass VARCHAR: a number, or steady / auto
    layer BIGINT: the layer; NULL: the prologue or the epilogue (unit)
    category VARCHAR: key by category or kernel
    module VARCHAR: key by module (or by kernel within module roles)
    ordinal BIGINT: key by kernel
    run VARCHAR: the run's name
    name VARCHAR: the kernel's name, by kernel
    kernels HUGEINT: the key's kernels
    sum_us DECIMAL(23,3): their time
    delta_us DECIMAL(23,3): against the first run
    ratio DECIMAL(12,3): against the first run
    [tflops_s] DECIMAL(18,3): --roofline: the key's FLOPs / the time of its kernels with FLOPs, TFLOP/s
    [pct_peak] DECIMAL(7,1): --roofline: its ideal time at the device's peak over its measured time, %; empty \
above 100 %
    aligned BOOLEAN: every run has the key
    unit VARCHAR: prologue | layer | epilogue
    """),
    charts(("run sum_us ratio", "compare")))

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

RANKS = Report(
    "ranks", "The ranks of a job compared per layer (each run segmented alike): spread of the compute time, the "
    "slowest rank and its skew, the last arrival at the layer's collectives; --stragglers names the slow rank and "
    "layers. In a pipeline job a layer is compared only with the same model layer on the ranks of its stage.",
    SEGMENTED, (PASS,
                _flag("per_rank", "One row per (pass, layer, rank): its compute, communication, wait and late "
                      "arrival."),
                _flag("stragglers", "The vote across passes: per layer and overall, which rank was the straggler how "
                      "often."), NO_ALIGN),
    MEAN_REFUSED, ("report_ranks", "report_ranks_per_rank", "report_ranks_stragglers"),
    columns("""
    pp_stage INTEGER: the pipeline stage whose ranks are compared; NULL outside a pipeline (the terminal and \
Markdown tables drop the column then)
    pass BIGINT: the pass
    layer BIGINT: the layer; NULL: the prologue or the epilogue (unit)
    model_layer BIGINT: the layer's number in the model (its stage's first model layer + layer; the terminal and \
Markdown tables drop the column outside a pipeline, where it is the layer)
    ranks BIGINT: the ranks compared
    min_compute_us DECIMAL(23,3): the least compute time (union of the non-communication kernels)
    median_compute_us DECIMAL(23,3): the lower median compute time
    max_compute_us DECIMAL(23,3): the most compute time
    slowest_rank INTEGER: the rank with the most compute time; empty when every rank has the same
    skew DECIMAL(12,3): (max - median) / median
    straggler BOOLEAN: skew at or above the report's threshold (what --stragglers counts)
    collectives BIGINT: the layer's collectives matched across ranks
    last_arrival_rank INTEGER: the rank that arrived last at the collective of the widest arrival spread
    arrival_spread_us DECIMAL(23,3): that collective's latest - earliest aligned start
    unit VARCHAR: prologue | layer | epilogue
    """),
    charts(("slowest_count rank", "stragglers"), ("compute_us wait_us rank", "ranks_per_rank"),
           ("min_compute_us skew", "ranks")))

COLLECTIVES = Report(
    "collectives", "Collectives of a job's ranks matched across each process group: arrival skew, transfer time, "
    "bytes and nccl-tests bandwidths, in clocks aligned on the collectives (--no-align: raw); see docs/jobs.md.",
    PROFILED, (_flag("per_rank", "One row per collective and rank: its start, duration and wait for the last rank."),
               NO_ALIGN),
    None, ("collectives_report", "collectives_per_rank"),
    columns("""
    op VARCHAR: the collective (allreduce, allgather, ...; the first by name when members disagree)
    group VARCHAR: the process group (c10d pg_name, HCCL group id, or 'stream <id>')
    group_desc VARCHAR: its description (pg_desc, Ascend group name) when known
    seq BIGINT: 0-based order of the instance within its group in the profiled window
    c10d_seq BIGINT: c10d's own sequence number, when the trace has it
    ranks BIGINT: runs (ranks) that have this instance
    group_size BIGINT: ranks in the group (c10d Group size, else the run's group record)
    bytes BIGINT: message size (the larger of c10d's in and out nelems x dtype size); NULL unknown
    start_us DECIMAL(23,3): earliest aligned start, from the report's first collective
    arrival_skew_us DECIMAL(23,3): latest start - earliest start
    transfer_us DECIMAL(23,3): earliest end - latest start
    waiting_us DECIMAL(23,3): the members' time in it before the last arrival, summed \
(latest start - each member's start)
    last_rank INTEGER: the rank that arrived last
    algbw_gbps DECIMAL(18,3): bytes / transfer, GB/s (1e9 bytes)
    busbw_gbps DECIMAL(18,3): algbw x the op's factor
    mismatch VARCHAR: what members disagree on; NULL when they agree
    flag VARCHAR: why an instance whose members agree has no cross-rank figures; NULL when it has them
    prof_elapse_us DECIMAL(23,3): the Ascend profiler's Elapse Time, the largest over the members
    prof_wait_us DECIMAL(23,3): its Wait Time, the largest over the members
    prof_transit_us DECIMAL(23,3): its Transit Time, the largest over the members
    prof_sync_us DECIMAL(23,3): its Synchronization Time, the largest over the members
    """),
    charts(("wait_us rank", "collectives_per_rank"), ("arrival_skew_us transfer_us", "collectives")))

BLAME = Report(
    "blame", "Who made the others wait: at every collective of a job (ranks segmented alike, clocks aligned on the "
    "collectives), the others' waiting for the last rank, charged to its kernels that ran longer than on the "
    "others, or to its host's launch delay; see docs/jobs.md.",
    SEGMENTED, (PASS, _by("kernel", ("kernel", "layer"), "kernel: a row per late rank, pass, layer and cause; layer: "
                          "waited time per layer and late rank."), NO_ALIGN,
                Option("top", ("--top",), Optional[int], None, "Rows kept, most waited first; the others are summed "
                       "in one '(N more)' row (0: all; default: 30 in the terminal and Markdown, all in CSV and JSON).",
                       check="count")),
    MEAN_STEADY, ("blame",),
    columns("""
    run VARCHAR: the late rank's run ('(N more)' on the row past --top for --by layer)
    rank INTEGER: its rank
    pass BIGINT: the pass of the cause (--by kernel); NULL for --by layer (every pass)
    layer BIGINT: the layer of the cause (a host delay: of the collective); NULL: the prologue or epilogue (unit), \
or outside every pass
    kernel VARCHAR: the cause: a kernel's short name, '(host)', '(unexplained)' or '(no kernels)'; NULL for \
--by layer; '(N more)' on the row that sums the rows past --top (its rank, pass, layer and unit empty)
    name VARCHAR: the cause's kernel name: a row per kernel name, so kernels that share a short name are rows of \
their own (terminal and Markdown tables show kernel instead, told apart); NULL for the other causes and --by layer
    excess_us DECIMAL(38,3): the cause's excess, summed over the instances
    waited_us DECIMAL(23,3): the other members' waiting it is charged with, summed over the instances \
(to the ns: the shares of an instance are fractions of a ns)
    instances BIGINT: collective instances charged
    unit VARCHAR: prologue | layer | epilogue of the cause; NULL outside every pass
    """))

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

PIPELINE = Report(
    "pipeline", "A pipeline-parallel job's micro-batches per stage and rank (forward and backward passes): start, end, "
    "busy time and the bubble before each, and each stage's bubble against 1F1B's ideal (p-1)/(m+p-1), as "
    "msprof-analyze's pp chart; see docs/reports.md.",
    SEGMENTED, (replace(ABSOLUTE, help="Absolute times (the reference rank's clock) instead of from the runs' "
                        "earliest step start."), NO_ALIGN), None, ("pipeline_report",),
    columns("""
    run VARCHAR: the run's name
    rank INTEGER: its rank
    pp_stage INTEGER: its pipeline stage, from 0 (its pipeline process group, else its send/receive order); empty \
when unknown (the notes say why)
    stages INTEGER: the pipeline's stages; empty when unknown
    step BIGINT: the step (Step Id, ProfilerStep#N, the optimizer steps before it)
    microbatch BIGINT: the micro-batch: the pass's place among its step's passes of its phase, from 0; empty on a \
stage row
    phase VARCHAR: forward | backward; empty on a stage row
    pass BIGINT: the pass, numbered per phase as report passes numbers it; empty on a stage row
    start_us DECIMAL(23,3): its first compute kernel's start (a stage row: the step's first kernel on the rank), \
from the runs' earliest step start unless --absolute; aligned clocks
    end_us DECIMAL(23,3): its last compute kernel's end (a stage row: the end of its pipeline group's last pass)
    busy_us DECIMAL(23,3): the union of its compute kernels' intervals (a stage row: summed)
    bubble_us DECIMAL(23,3): the wait before it: its start minus the end of the rank's previous pass of the step, \
or minus the step's start (a stage row: summed, with the tail after the rank's last pass)
    p2p_us DECIMAL(23,3): the pipeline sends and receives in that wait (a stage row: summed)
    microbatches BIGINT: a stage row: m, the step's forward passes on the rank
    bubble_pct DECIMAL(6,2): a stage row: bubble / (its end - its start), %
    ideal_1f1b_pct DECIMAL(6,2): a stage row: a 1F1B schedule's bubble fraction (p-1)/(m+p-1), p the stages, %
    partial BOOLEAN: the pass holds another anchor count than the expected one (cut by the capture)
    unit VARCHAR: pass | stage
    """),
    charts(("pp_stage start_us end_us unit", "pipeline")))

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

REPORTS = (PASSES, LAYERS, KERNELS, TIMELINE, MODULES, CORES, COMPARE, BREAKDOWN, LAUNCHES, RANKS, BLAME, COLLECTIVES,
           PIPELINE, ROOFLINE, CRITICAL_PATH, WHAT_IF)
BY_NAME = {r.name: r for r in REPORTS}
NAMES = tuple(BY_NAME)


def get(name: str) -> Report | None:
    return BY_NAME.get(name)


def averaging() -> list[str]:
    """The reports whose `--pass mean` is the mean of the steady passes."""
    return [r.name for r in REPORTS if r.mean == MEAN_AVERAGED]
