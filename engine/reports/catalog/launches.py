"""`report launches`: the host-side cost of device work (GPU traces with host events, Ascend traces with their
async_npu flows): launch calls, launch-to-start delay, and idle time host-bound or not, per kernel name, run,
step, pass or layer (the computation: engine/reports/launches.py)."""
from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import MEAN_REFUSED, SEGMENTED, Examples, Report, charts
from tracedb.engine.reports.shared_options import PASS, _by

TOP = 40   # kernels a chart keeps: the most idle time first
IDLE = ["host_bound_idle_us", "other_idle_us", "unknown_idle_us"]
WHOLE = {"profile": None, "layers": None}
GPU = {"runs": ["gpu"], "profile": "dsv3-gpu", "anchor": "flash_fwd", "layers": 2}


def build(con, fmt, seg, by="kernel", pass_spec=None):
    from tracedb.engine.reports import launches
    return launches.build(con, fmt, pass_spec, by, seg)


def units_chart(res):
    """Idle time per unit: host-bound, other and unknown, stacked (together the unit's free time)."""
    unit, title = vl.unit(res, ("run", "step", "pass", "layer"))
    return vl.stack(unit, title, IDLE, "idle")


def kernels_chart(res):
    """Per kernel the idle time its start ended (host-bound, other, unknown): the TOP kernels by idle time."""
    unit, title = vl.unit(res, ("run", "pass", "layer"), suffix="datum.short_name + ' (' + datum.kind + ')'",
                          name="kernel")
    top = [{"calculate": " + ".join(vl.datum(c) for c in IDLE), "as": "idle_us"},
           {"window": [{"op": "row_number", "as": "top"}], "sort": [{"field": "idle_us", "order": "descending"}]},
           {"filter": f"{TOP} >= datum.top && datum.idle_us > 0"}]
    return vl.stack(unit, title, IDLE, "idle", horizontal=True, pre=top)


REPORT = Report(
    "launches", "Host-side cost of device work (GPU traces with host events): launch calls, launch-to-start delay, "
    "and idle time host-bound (before the next kernel's launch call) or not, per kernel name, run, step, pass or "
    "layer.",
    SEGMENTED, (_by("kernel", ("kernel", "run", "step", "pass", "layer"),
                    "kernel: a row per kernel name (per pass and layer with an anchor); run, step, pass or layer: a "
                    "row per unit, its idle time adding up to report breakdown's free_us."), PASS),
    MEAN_REFUSED, ("report_launches_kernels", "report_launches"),
    charts(("name host_bound_idle_us other_idle_us unknown_idle_us", kernels_chart),
           ("host_bound_idle_us other_idle_us unknown_idle_us", units_chart)), build=build, place=90,
    # over the GPU trace (tests/test_launches.py derives the run's figures); the Ascend run has no host launches:
    # left out with a note
    examples=Examples("tiny", {
        "launches.table": ("table", {**WHOLE, "runs": ["gpu"]}),
        "launches.md": ("md", {**WHOLE, "runs": ["gpu", "gpu_x2", "tiny"], "by": "run"}),
        "launches.csv": ("csv", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd"}),
        "launches.json": ("json", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd", "by": "pass",
                                   "window": "full"}),
        "launches_layer.csv": ("csv", {"runs": ["gpu_x2"], "profile": None, "anchor": "flash_fwd", "by": "layer",
                                       "window": "full"}),
        "launches.html.json": ("html", {**WHOLE, "runs": ["gpu", "gpu_x2"], "by": "run"}),
        "launches_kernel.html.json": ("html", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd"}),
    }, checks=(
        {**GPU, "pass_spec": "all", "window": "full"},
        {**GPU, "by": "layer", "pass_spec": "all", "window": "full"},
    )))
