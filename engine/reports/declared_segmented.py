"""The reports over a segmentation's passes and layers, each declared once (engine/reports/declared.py lists them all):
passes, layers, kernels, timeline, modules, cores and compare."""
from dataclasses import replace
from typing import List, Optional

from tracedb.engine.reports.declaration import (MEAN_AVERAGED, MEAN_REFUSED, RUNS, SEGMENTED,
                                                Option, Report, charts)
from tracedb.engine.reports.shared_options import (ABSOLUTE, MODULE_PATH, PASS, PEAK_TBS, PEAK_TFLOPS,
                                                   _by, _flag)

PASSES = Report(
    "passes", "Forward passes: anchors, kernels, time, average and first layer, cold-start / steady-state / partial.",
    SEGMENTED, (ABSOLUTE,), None, ("report_passes",),
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
    charts(("sum_us_a sum_us_b", "layer_diff"), ("ordinal dur_us", "flow"), ("rank sum_us", "kernels")))

TIMELINE = Report(
    "timeline", "Pass and layer time ranges in seconds from the trace start, to navigate in Perfetto.",
    SEGMENTED, (PASS, ABSOLUTE,
                Option("layer", ("--layer",), Optional[List[int]], None,
                       "Only these layers (repeatable); passes always.", check="layer", engine="timeline_layers")),
    MEAN_REFUSED, ("report_timeline",),
    charts(("start_s end_s", "timeline")))

MODULES = Report(
    "modules", "Device time by the host module that launched it (GPU traces with host events); layers with an anchor.",
    SEGMENTED, (PASS, _by("kernel", ("kernel", "module"),
                          "kernel: a row per (layer, module, kernel); module: per module totals."), MODULE_PATH),
    MEAN_REFUSED, ("report_modules", "report_modules_total"),
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
    charts(("run sum_us ratio", "compare")))
