"""The reports over a segmentation's passes and layers, each declared once (engine/reports/declared.py lists them all):
passes, layers, kernels, timeline, modules, cores and compare."""
from dataclasses import replace
from typing import List, Optional

from tracedb.engine.reports.declaration import (MEAN_AVERAGED, MEAN_REFUSED, RUNS, SEGMENTED,
                                                Option, Report, charts, columns)
from tracedb.engine.reports.shared_options import (ABSOLUTE, MODULE_PATH, PASS, PEAK_TBS, PEAK_TFLOPS,
                                                   _by, _flag)

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
