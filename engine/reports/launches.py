"""`report launches`: the host-side cost of device work. Each kernel is linked to its launch call (the
runtime or driver call with its correlation id, sql/report/launches_calls.sql); per kernel name, or per
run, step, pass or layer, the report gives the launch calls' time, the launch-to-start delay, and the
device's idle time split at the launch of the kernel that ended each gap (launches_gaps.sql): host-bound
before it, other after it. The units and the idle time are report breakdown's, so the idle columns add up
to its free_us (docs/reports.md#report-launches)."""
from tracedb import sql
from tracedb.engine.rendering import render as rnd
from tracedb.engine.segmentation import assignment, binding, categories
from tracedb.engine.segmentation import selection
from tracedb.engine.segmentation import units
from tracedb.errors import UsageError

CSV_FILES = {"ascend-kernel-details": "kernel_details.csv", "ascend-op-summary": "op_summary CSV"}
# what `report launches` computes, stated in a note of every launches report
DEFINITIONS = (
    "launch: the runtime or driver call with the kernel's correlation id (cudaLaunchKernel, cuLaunchKernel, "
    "hipLaunchKernel, cudaGraphLaunch, cudaMemcpyAsync, ...), on Ascend the op an async_npu flow leads from to "
    "the task (view kernel_launches); delay: kernel start - launch call start, p50/p95 "
    "nearest-rank; idle: the gaps between kernels and communication ops (report breakdown's free time), each split "
    "at the start of the launch call of the kernel that ends it: host_bound before, other after (launch issued, "
    "device still idle: dependencies, syncs, launch latency), unknown when that kernel has no launch in the trace")


def build(con, fmt, spec, by, seg_opts) -> rnd.Result:
    if by == "kernel":
        b, meta, segmented = _kernel_scope(con, spec, seg_opts)
    else:
        b, meta = units.activity_units(con, spec, by, seg_opts)
    meta["by"] = by
    b.notes.append(DEFINITIONS)
    _keep_launched_runs(con, b, meta)
    if by == "kernel":
        sql.run(con, "launches_gaps", {"run_ids": b.run_ids})
        res = rnd.fetch_file(con, fmt, "report_launches_kernels", {"run_ids": b.run_ids}, "launches", b, meta,
                             "host launches by kernel: launch calls, launch-to-start delay, idle time before the "
                             "kernel",
                             labels=units.PROLOGUE)
        # a table for people shows the short name, and pass and layer only when segmented
        if fmt not in ("table", "md"):
            return res
        return rnd.for_people(res, [] if segmented else ["pass", "layer"])
    units.check_activities(con, b, by)
    if by == "step":
        units.split_steps(con, b)
    sql.run(con, "launches_gaps", {"run_ids": b.run_ids})
    _uncounted_note(con, b)
    res = rnd.fetch_file(con, fmt, "report_launches", {"run_ids": b.run_ids}, "launches", b, meta,
                         f"host launches by {by}: launch calls, launch-to-start delay, idle time host-bound or not",
                         labels=units.PROLOGUE if by == "layer" else None)
    hidden = units.hidden_unit_columns(fmt, by)
    return rnd.drop_columns(res, hidden) if hidden else res


def _kernel_scope(con, spec, seg_opts):
    """--by kernel: every device activity of the runs, in its pass and layer when an anchor is given (as
    report modules segments); the gaps are the whole run's (_bd_act with one unit per run).
    (bound runs, params, segmented)."""
    opt = binding.Options(**seg_opts)
    segmented = units.has_anchor(opt)
    if segmented:
        b, meta = units.segmented(con, opt, spec, selection.select_noted)
    else:
        b = binding.bind_runs(con, opt.runs, opt.tags, opt.profile)
        categories.categorize_kernels(con, b)
        assignment.assign_none(con)
        meta = {"runs": ", ".join(b.run_names[r] for r in b.run_ids), "layers": "none (no anchor)"}
    sql.run(con, "breakdown_activity", {"run_ids": b.run_ids})
    return b, meta, segmented


def _keep_launched_runs(con, b, meta):
    """Link every device activity to its launch call (_la_calls). A run with no launch call at all is an
    error when it is the only one (or every run is such), else a note, and the report goes on without it."""
    sql.run(con, "launches_calls", {"run_ids": b.run_ids})
    runs = {r[0]: r[1:] for r in sql.run(con, "launches_runs").fetchall()}
    missing = {}
    for rid in b.run_ids:
        fmt_, activities, launched, _, host_events, _ = runs[rid]
        if not launched:
            missing[rid] = _why_no_launches(fmt_, activities, host_events)
    if len(missing) == len(b.run_ids):
        raise UsageError("; ".join(f"run '{b.run_names[rid]}' has no host launch calls: {why}"
                                   for rid, why in missing.items())
                         + "; report launches needs a GPU trace recorded with its CPU side (PyTorch profiler / Kineto)")
    for rid, why in missing.items():
        b.notes.append(f"run '{b.run_names[rid]}' left out: no host launch calls ({why})")
    b.run_ids = [rid for rid in b.run_ids if rid not in missing]
    meta["runs"] = ", ".join(b.run_names[r] for r in b.run_ids)
    for rid in b.run_ids:
        fmt_, activities, launched, unlaunched_ns, _, devices = runs[rid]
        if launched < activities:
            b.notes.append(f"run '{b.run_names[rid]}': {activities - launched:,} of {activities:,} device activities "
                           f"({unlaunched_ns / 1000:,.3f} us) have no launch call in the trace (run before the host "
                           "side of the capture began, or without a correlation id); the gaps they end are "
                           "unknown_idle")
        if devices > 1:
            b.notes.append(f"run '{b.run_names[rid]}': its activities are on {devices} devices; the gaps are those of "
                           "the union over all of them, as report breakdown counts a run")


def _why_no_launches(fmt_, activities, host_events) -> str:
    if fmt_ in CSV_FILES:
        return f"its {CSV_FILES[fmt_]} holds device rows only, no host events"
    if fmt_ == "ascend-trace-view":
        return "its trace_view.json links no task to the op that launched it (no async_npu flow)"
    if not activities:
        return "it has no kernels, communication ops, memcpy or memset (per-core traces: `tracedb report cores`)"
    if not host_events:
        return "the trace has no host events (a device-only trace)"
    return (f"none of its {activities:,} device activities has a runtime or driver call (cuda_runtime, cuda_driver, "
            "runtime) with its correlation id")


def _uncounted_note(con, b):
    """Memcpy and memset are not in the per-unit rows (as report breakdown counts them: not busy)."""
    rows = sql.run(con, "launches_uncounted", {"run_ids": b.run_ids}).fetchall()
    for rid in dict.fromkeys(r for r, *_ in rows):
        b.notes.append(f"run '{b.run_names[rid]}': not in these rows, as report breakdown does not count them (their "
                       "time is idle): " + ", ".join(f"{n:,} {kind} ({ns / 1000:,.3f} us)" for r, kind, n, ns in rows
                                                    if r == rid) + "; --by kernel lists their launches")
