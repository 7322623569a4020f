"""`report roofline`: how far each kernel name, category, layer, pass or run is from what the device can do —
FLOPs and bytes per kernel (kernel_work, from the trace's shapes) against the device's peaks (peaks.py), with
the share of time the formulas cover (sql/report/report_roofline.sql, docs/roofline.md). It covers the passes of
one phase (forward unless --phase backward), or with --phase all every kernel of the run (the whole training
step, so that its MFU is the step's); a note per run says which."""
import math

from tracedb import sql
from tracedb.engine.reports import declared
from tracedb.engine.reports import peaks
from tracedb.engine.rendering import render as rnd
from tracedb.engine.segmentation import assignment, binding, segment
from tracedb.engine.segmentation import selection
from tracedb.engine.segmentation import units
from tracedb.engine.segmentation.phases import find_phases
from tracedb.engine.segmentation.categories import categorize_kernels
from tracedb.engine.segmentation.words import ALL_PASSES
from tracedb.errors import NoAnchor, UsageError

BY = declared.get("roofline").option("by").choices
WHOLE_RUN_BY = ("kernel", "category", "run")     # what --phase all (every kernel, in no pass) can be grouped by
DEFINITIONS = (
    "flops, bytes: from each kernel's shapes and dtypes (flops_source names the formula; kernels without one are "
    "not counted in tflops_s, tbytes_s, pct_peak); pct_peak: ideal time at the device's peak (the longer of "
    "flops / peak FLOP/s of the kernel's dtype and bytes / peak bytes/s) over the measured time; mfu_pct: FLOPs "
    "at peak over the whole time; device_mac_pct: the device's own cube-unit busy share (Ascend aic_mac_ratio), "
    "which counts cycles the MAC units run, not useful FLOPs: it is above pct_peak when tiles are padded; "
    "device_cube_pct: the device's cube_utilization(%) over all of its cube cores")


def load_kernels(con, b, peak_tflops=None, peak_tbs=None):
    """TEMP _peaks and _rl_kernels (each assigned kernel's work and ideal times) for the runs bound in `b`; the
    peak notes go to b.notes. Used by report roofline and report layers --roofline."""
    for value, flag in ((peak_tflops, "--peak-tflops"), (peak_tbs, "--peak-tbs")):
        if value is not None and not (value > 0 and math.isfinite(value)):
            raise UsageError(f"{flag} {value}: expected a positive finite number")
    b.notes += peaks.load(con, b.run_ids, peak_tflops, peak_tbs)
    sql.run(con, "roofline_kernels")


def build(con, fmt, spec, by, units_meta, b, peak_tflops=None, peak_tbs=None) -> rnd.Result:
    """The roofline rows of the runs bound in `b`, segmented and assigned by the caller."""
    if b.phase == "all" and by not in WHOLE_RUN_BY:
        raise UsageError(f"--by {by} with --phase all: every kernel of the run is in no pass or layer; give --by "
                         f"{', '.join(WHOLE_RUN_BY[:-1])} or {WHOLE_RUN_BY[-1]}, or --phase forward or backward per "
                         f"{by}")
    load_kernels(con, b, peak_tflops, peak_tbs)
    b.notes.append(DEFINITIONS)
    units_meta["by"] = by
    units_meta["roofs"] = roofs(con, b.run_ids)
    res = rnd.fetch_file(con, fmt, "report_roofline", {"run_ids": b.run_ids, "by": by}, "roofline", b, units_meta,
                         f"roofline by {by}: achieved TFLOP/s and TB/s against the device's peak",
                         labels=units.PROLOGUE if by == "layer" else None)
    if fmt in ("table", "md"):
        # the short name for the name (for_people: kernels that share one told apart)
        names = ["short_name", "unit"]
        drop = {"kernel": ["pass", "layer", "unit"], "category": ["pass", "layer", *names],
                "layer": ["category", "short_name"], "pass": ["layer", "category", *names],
                "run": ["pass", "layer", "category", *names]}[by]
        return rnd.for_people(res, drop)
    return res


def roofs(con, run_ids) -> str:
    """Each run's roof for the chart, as text (`run=TFLOP/s@TB/s; ...`): its device's bf16 peak (the dtype of
    most LLM work; a --peak-tflops override for every dtype), else its highest, and its memory bandwidth."""
    rows = sql.run(con, "roofline_roofs", {"run_ids": list(run_ids)}).fetchall()
    return "; ".join(f"{name}={tf:g}@{tb:g}" for name, tf, tb in rows if tf and tb)


def segment_runs(con, spec, seg_opts, by=None):
    """Segment and assign the runs as report layers does: (bound runs, report meta); with --phase all, every
    kernel of each run instead (whole_runs). Either way a note per run says which phases are covered. A trace
    with no layers to find (no attention kernel repeats: a CNN, a collective benchmark) needs none for --by
    kernel, category or run: unless a phase or an anchor was asked for, those take the whole run, with a note."""
    if seg_opts.get("phase") == "all":
        return whole_runs(con, spec, seg_opts)
    try:
        b = segment.prepare(con, binding.Options(**seg_opts), rule=binding.Bound.rule)
    except NoAnchor as e:
        if by not in WHOLE_RUN_BY or seg_opts.get("phase") or seg_opts.get("anchor"):
            raise
        b, meta = whole_runs(con, ALL_PASSES, {**seg_opts, "phase": "all"})
        b.notes.insert(0, f"no layers to find ({str(e).split(';')[0]}): the whole run, every kernel, as with "
                          "--phase all")
        return b, meta
    meta = units.params(b, spec)
    assignment.assign(con, b, selection.select_noted(con, b, spec))
    b.notes += coverage_notes(con, b, spec)
    return b, meta


def whole_runs(con, spec, seg_opts):
    """--phase all: every kernel of the selected runs in one run-wide unit (run_wide.sql), whatever its phase
    (forward, backward, optimizer) and whether or not a pass holds it: the whole step's FLOPs over its whole
    kernel time. No anchor is needed; the phase note (find_phases) says how the time splits."""
    if spec.word != "all":
        raise UsageError(f"--pass {spec} with --phase all: every kernel of the run is in no pass; leave --pass out, "
                         "or give --phase forward or backward to pick passes")
    b = binding.bind_runs(con, seg_opts.get("runs") or [], seg_opts.get("tags") or [], seg_opts.get("profile"))
    training, phase_notes = find_phases(con, b.profile, b.run_ids, b.run_names)
    b.training, b.phase = set(training), "all"
    categorize_kernels(con, b)
    sql.run(con, "run_wide", {"run_ids": b.run_ids})
    b.notes += phase_notes + coverage_notes(con, b, spec)
    meta = {"runs": ", ".join(b.run_names[r] for r in b.run_ids), "profile": b.profile.name, "pass": "whole run",
            "phase": "all"}
    return b, meta


def coverage_notes(con, b, spec) -> list[str]:
    """Per run: which phases the report covers, and how many of the run's kernels and how much of its kernel
    time that is (a training trace's forward passes alone leave its backward and optimizer work out)."""
    rows = sql.run(con, "roofline_coverage", {"run_ids": list(b.run_ids)}).fetchall()
    ms = lambda ns: f"{(ns or 0) / 1e6:,.3f} ms"   # noqa: E731  (notes only)
    notes = []
    for rid, n, ns, n_in, ns_in in sorted(rows, key=lambda r: b.run_ids.index(r[0])):
        name, training = b.run_names[rid], rid in b.training
        if b.phase == "all":
            phases = ("forward, backward or optimizer" if training
                      else "forward work only: the trace holds no backward or optimizer kernels")
            notes.append(f"run '{name}': --phase all covers every kernel of the run, whatever its phase ({phases}): "
                         f"{n_in:,} kernels, {ms(ns_in)} of kernel time, in no pass or layer")
            continue
        chosen = "passes" if spec.word == "all" else "passes selected (--pass " + str(spec) + ")"
        left = {"forward": "backward and optimizer", "backward": "forward and optimizer"}[b.phase]
        notes.append(f"run '{name}': covers the {b.phase} {chosen}: {n_in:,} of the run's {n:,} kernels, "
                     f"{ms(ns_in)} of {ms(ns)} of kernel time"
                     + (f"; its {left} kernels are not counted: --phase all for the whole step" if training else ""))
    return notes


# report layers --roofline: each layer's achieved TFLOP/s and % of peak (the same definitions as report roofline)
LAYER_COLUMNS = """
    round(sum(w.flops) / nullif(sum(a.dur_ns) FILTER (WHERE w.flops IS NOT NULL), 0) / 1000, 3)::DECIMAL(18, 3)
        AS tflops_s,
    CASE WHEN {pct} <= 100 THEN round({pct}, 1)::DECIMAL(7, 1) END AS pct_peak,""".format(
    pct="100 * sum(greatest(coalesce(w.t_flops, 0), coalesce(w.t_bytes, 0))) FILTER (WHERE w.rated) "
        "/ (sum(a.dur_ns) FILTER (WHERE w.rated) * 1e-9)")
LAYER_NOTE = ("tflops_s, pct_peak: as report roofline --by layer computes them (docs/roofline.md); pct_peak is "
              "empty where it would be above 100 % (a wrong shape, dtype or peak: report roofline flags it)")


def layer_placeholders(con, b, on: bool, peak_tflops=None, peak_tbs=None) -> dict:
    """The placeholders of report_layers.sql: the --roofline columns and their join, or nothing."""
    if not on:
        return {"roofline_columns": "", "roofline_join": ""}
    load_kernels(con, b, peak_tflops, peak_tbs)
    b.notes.append(LAYER_NOTE)
    return {"roofline_columns": LAYER_COLUMNS, "roofline_join": " LEFT JOIN _rl_kernels w USING (run_id, seq)"}
