"""`report compare`: two or more runs segmented alike, aligned by layer, category, module, kernel or stage.

The stages are SQL (compare_align.sql builds _cmp: per run and key its time over the selected passes,
matched across runs); this module picks the layout and writes the notes. CSV, JSON and the HTML page get
the tidy rows (one per key and run, so they load into SQL); the terminal and Markdown tables the wide layout
of a performance review's per-module table (runs side by side, a sum row per layer). The ratio is each run
against the first one: with a measured run first and a simulated one (tagged kind=simulated) after it,
simulated / measured, the M6 metric, which the notes also give over all compared passes."""
from tracedb import sql
from tracedb.engine.reports import declared
from tracedb.engine.segmentation import attribution
from tracedb.engine.rendering import render
from tracedb.engine.rendering import run_notes
from tracedb.engine.segmentation import pipeline
from tracedb.engine.segmentation import assignment
from tracedb.engine.segmentation import selection
from tracedb.engine.segmentation import stages
from tracedb.errors import UsageError

BY = declared.get("compare").option("by").choices


def _cut_passes(con, b) -> list[str]:
    """A note per compared pass that the capture cut (fewer anchors than a full pass): its layers stand beside
    whole ones."""
    cut = sql.run(con, "compare_cut_passes").fetchall()
    return [f"run '{b.run_names[rid]}' pass {p} is cut by the capture ({n} of {e} anchors): its layers are compared "
            "with whole ones; --pass steady or auto picks full passes" for rid, p, n, e in cut]


def _same_stage(con, b):
    """Runs that are different stages of a pipeline hold different layers of the model (stage 1's layer 0 is
    model layer 14 of a 28-layer model on 2 stages): compare lines layers up by number, so it refuses them."""
    stages = pipeline.stage_table(con, b.run_ids)
    if len({s for s, _ in stages.values()}) > 1:
        shown = ", ".join(f"'{b.run_names[r]}' stage {s} of {n}" for r, (s, n) in stages.items())
        raise UsageError(f"the runs are different pipeline stages ({shown}): their layers are different layers of "
                         "the model, which report compare would line up by number; compare runs of one stage, "
                         "and the stages' time with report pipeline")


def build(con, fmt, b, spec, by, meta, layer=None, module_path=False, roofline=False, peak_tflops=None,
          peak_tbs=None):
    """`layer`: None (every layer), a layer number, or 'mean' (per key the mean over the full layers of the
    selected passes: one representative layer). `module_path`: modules by instance path, not by role.
    `roofline`: each run's achieved TFLOP/s and % of its device's peak per key (report roofline's)."""
    if len(b.run_ids) < 2:
        raise UsageError("report compare needs two or more --run")
    _same_stage(con, b)
    assignment.assign(con, b, selection.select_noted(con, b, spec))
    selection.flag_short_last_layer(con, b)
    names = b.run_names
    b.notes += _cut_passes(con, b)
    kernel_module = False
    # by kernel, kernels line up within their module role when every run says which module launched them
    attributed = by == "module" or (by == "kernel" and _all_have_host_events(con, b.run_ids))
    if attributed:
        launched = attribution.attribute(con, b)
        silent = [rid for rid, n in launched.items() if not n]
        kernel_module = by == "kernel" and not silent
        if by == "module" and silent:
            raise UsageError(f"run '{names[silent[0]]}' has no host launches (no runtime call shares a kernel's "
                             "correlation id): --by module needs a trace with host events (PyTorch profiler "
                             "/ Kineto); use --by layer, category, kernel or stage")
    # one attribution of every kernel, when made, serves the categories by module too
    attribution.categorize_by_module(con, b, attributed=attributed)
    if not attributed:
        sql.run(con, "attribute_none")
    if by == "stage":       # after the categories by module, which the stages read
        stages.assign_stages(con, b)
    else:
        sql.run(con, "stages_none")
    label = spec.word if spec.chosen else None
    null_layer = "prologue"
    if layer is not None:
        label, null_layer = _one_layer(con, b, layer, label)
    _work(con, b, roofline, peak_tflops, peak_tbs)
    params = {"run_ids": b.run_ids, "by": by}
    sql.run(con, "compare_align", {**params, "label": label, "by_path": bool(module_path),
                                   "kernel_module": kernel_module})
    _notes(con, b)
    if by == "kernel":
        _unpaired_note(con, b, kernel_module)
    meta["by"] = by
    spread = len(b.run_ids) > WIDE_RUNS and fmt in render.READING
    title = (f"{names[b.run_ids[0]]} vs {len(b.run_ids) - 1} runs "
             f"({run_notes.listed([names[r] for r in b.run_ids[1:]], run_notes.SHOWN)}) by {by}" if spread
             else f"{' vs '.join(names[r] for r in b.run_ids)} by {by}")
    title += ", mean of the steady passes" if spec.word == "mean" else ""
    title += f", layer {layer}" if layer not in (None, "mean") else ", mean of the full layers" if layer else ""
    # a NULL layer is the prologue or the epilogue (its unit says which), or with --layer mean every layer
    labels = {"layer": (null_layer, "pass", "unit") if null_layer == "prologue" else (null_layer, "pass")}
    if fmt not in render.READING:   # CSV, JSON, HTML: tidy rows
        res = render.fetch_file(con, fmt, "report_compare_mean" if label == "mean" else "report_compare",
                                params, "compare", b, meta, title, labels=labels,
                                roofline_columns=TIDY_ROOFLINE if roofline else "")
        if layer == "mean":   # the averaged units are layers, not passes
            res.columns = ["layers" if c == "passes" else c for c in res.columns]
        return render.rename_columns(res, {"category": "stage"}) if by == "stage" else res
    if spread:
        run_cols, diff_cols = _spread_columns(b, by, label == "mean")
        b.notes.append(f"{len(b.run_ids)} runs, too many side by side: per row the first run's figures, then over "
                       "every run that has the key its count, the fastest, the lower median and the slowest time, "
                       "the slowest run, and the slowest over the first; --format csv or json gives each run's row"
                       + (" and its --roofline columns" if roofline else ""))
    else:
        run_cols, diff_cols = _wide_columns(b, by, label == "mean", roofline)
    res = render.fetch_file(con, fmt, "report_compare_wide", {**params, "null_layer": null_layer,
                                                              "run_names": [names[r] for r in b.run_ids]},
                            "compare", b, meta,
                            title, labels=labels,
                            run_columns=run_cols, diff_columns=diff_cols)
    keep = {"layer": (), "category": ("category",), "kernel": ("category",), "module": ("module",),
            "stage": ("category",)}[by]
    res = render.drop_columns(res, [c for c in ("category", "module") if c not in keep])
    if by == "kernel":   # each run's short names, kernels that share one told apart over every run's column
        res = render.told_apart(res, [(names[r] + "_name", names[r] + "_kernel") for r in b.run_ids])
    return render.rename_columns(res, {"category": "stage"}) if by == "stage" else res


# --roofline in the tidy rows: each run's achieved TFLOP/s and % of its device's peak per key, as report roofline
# computes them (docs/roofline.md); a % above 100 is left empty (report roofline flags it)
TIDY_ROOFLINE = """
    round(c.flops / nullif(c.ns_f, 0) / 1000, 3)::DECIMAL(18, 3) AS tflops_s,
    CASE WHEN 100 * c.t_ideal / (c.ns_rated * 1e-9) <= 100
         THEN round(100 * c.t_ideal / (c.ns_rated * 1e-9), 1)::DECIMAL(7, 1) END AS pct_peak,"""


def _work(con, b, roofline, peak_tflops, peak_tbs):
    """TEMP _cmp_work (compare_align.sql): with `roofline` each assigned kernel's FLOPs and ideal time at its
    device's peak (report roofline's, roofline_kernels.sql), with the peaks' notes; else empty."""
    if not roofline:
        sql.run(con, "compare_work_none")
        return
    from tracedb.engine.reports import roofline as rl
    rl.load_kernels(con, b, peak_tflops, peak_tbs)
    b.notes.append(rl.LAYER_NOTE.replace("report roofline --by layer", "report roofline"))
    sql.run(con, "compare_work_roofline")


def _all_have_host_events(con, run_ids) -> bool:
    return sql.run(con, "compare_host_events", {"run_ids": list(run_ids)}).fetchone()[0] == len(run_ids)


def _one_layer(con, b, layer, label):
    """Keep one layer of the selected passes (`--layer L`), or turn every full layer into a unit of a mean
    (`--layer mean`: each (pass, layer) becomes its own pseudo pass of layer NULL, labelled 'mean', and the
    means over passes average them). Returns the pass label and the label of the NULL layer."""
    if str(layer).strip().lower() == "mean":
        # the prologue, and in a capture that starts mid-pass the layer cut at its start, are no full layers
        units = sql.run(con, "compare_layer_mean", {"blocks_per_layer": b.blocks_per_layer}).fetchall()
        b.notes.append("layer mean: per key its time over the full layers of the selected passes divided by their "
                       "number (a layer without the key counts 0, so the keys add up to the mean layer; the prologue "
                       "and a layer cut by the capture's start left out): "
                       + ", ".join(f"{b.run_names[r]} {n} layers" for r, n in units)
                       + "; `layers` (CSV, JSON) counts the layers that have the key")
        return "mean", "mean"
    if not str(layer).lstrip("-").isdigit():
        raise UsageError(f"--layer {layer!r}: expected a layer number or mean")
    have = {r for (r,) in sql.run(con, "compare_layer_runs", {"layer": int(layer)}).fetchall()}
    missing = [b.run_names[r] for r in b.run_ids if r not in have]
    if missing:
        top = sql.run(con, "compare_layer_top").fetchone()[0]
        raise UsageError(f"--layer {layer}: run {', '.join(map(repr, missing))} has no such layer in the selected "
                         f"passes (layers 0..{top})")
    sql.run(con, "compare_layer_keep", {"layer": int(layer)})
    return label, "prologue"


def _unpaired_note(con, b, kernel_module):
    """Say where the runs' kernel lists do not line up, instead of pairing unrelated kernels."""
    rows = sql.run(con, "compare_unpaired").fetchall()
    key = "(layer, module role, category, kind, order)" if kernel_module else "(layer, category, kind, order)"
    if rows:
        b.notes.append("kernels without a counterpart at the same " + key + ", kept unpaired (aligned=false): "
                       + "; ".join(f"{b.run_names[r]} {n}"
                                   for r, n in sorted(rows, key=lambda x: b.run_ids.index(x[0]))))
    elif not kernel_module and len(b.run_ids) > 1:
        b.notes.append("kernels lined up by " + key + "; a run without host events gives no module to align by")


# More runs than this are not laid side by side in the terminal and Markdown (128 ranks by kernel: 513 columns,
# 23,000 characters a line, 5 s of layout): each row gives the first run and the spread over all (_spread_columns).
WIDE_RUNS = 8


def _spread_columns(b, by, mean) -> tuple[str, str]:
    """The first run's kernel's short name and name (by kernel) or count and its time, then over the runs that
    have the key: how many, the fastest, lower median and slowest time, the slowest run (the first of equals)
    and the slowest over the first. --roofline's columns are left to CSV and JSON."""
    ident, ref = sql.ident, b.run_names[b.run_ids[0]]
    have = "list_filter(ns, lambda x: x IS NOT NULL)"
    first = (f"kernel[1] AS {ident(ref + '_kernel')}, name[1] AS {ident(ref + '_name')}" if by == "kernel"
             else f"{'kernels_mean' if mean else 'kernels'}[1] AS {ident(ref + '_kernels')}")
    runs = [first, f"us(ns[1]) AS {ident(ref + '_us')}", f"len({have}) AS runs",
            "us(list_min(ns)) AS min_us", f"us(list_sort({have})[(len({have}) + 1) // 2]) AS median_us",
            "us(list_max(ns)) AS max_us", "run_names[list_position(ns, list_max(ns))] AS slowest"]
    return ",\n        ".join(runs), "ratio3(list_max(ns), ns[1]) AS max_ratio"


def _wide_columns(b, by, mean, roofline=False) -> tuple[str, str]:
    """Per run its kernel's short name and name (by kernel) or its count, and its time (and with `roofline` its
    % of peak); per later run delta and ratio to the first."""
    ident, runs, diffs = sql.ident, [], []
    first = "ns[1]"
    for i, rid in enumerate(b.run_ids, 1):     # i: the run's place in $run_ids, in the lists of runs_of
        name = b.run_names[rid]
        if by == "kernel":
            runs.append(f"kernel[{i}] AS {ident(name + '_kernel')}")
            runs.append(f"name[{i}] AS {ident(name + '_name')}")
        else:
            runs.append(f"{'kernels_mean' if mean else 'kernels'}[{i}] AS {ident(name + '_kernels')}")
        runs.append(f"us(ns[{i}]) AS {ident(name + '_us')}")
        if roofline:
            pct = f"100 * t_ideal[{i}] / (ns_rated[{i}] * 1e-9)"
            runs.append(f"CASE WHEN {pct} <= 100 THEN round({pct}, 1)::DECIMAL(7, 1) END "
                        f"AS {ident(name + '_pct_peak')}")
        if i > 1:
            suffix = "" if len(b.run_ids) == 2 else f"_{name}"
            diffs.append(f"us(ns[{i}] - {first}) AS {ident('delta_us' + suffix)}")
            diffs.append(f"ratio3(ns[{i}], {first}) AS {ident('ratio' + suffix)}")
    return ",\n        ".join(runs), ",\n        ".join(diffs)


def _notes(con, b):
    """Differing pass and layer counts, totals over the compared passes, and M6 for simulated runs."""
    names, ids = b.run_names, b.run_ids
    for pass_label, counts in sql.run(con, "compare_shape", {"run_ids": ids}).fetchall():
        if pass_label is None:
            b.notes.append(f"pass counts differ: {counts}; passes of one run only are kept, flagged aligned=false, "
                           "and left out of the totals")
        else:
            b.notes.append(f"layer counts differ in pass {pass_label}: {counts}; layers of one run only are kept, "
                           "flagged aligned=false")
    totals = _totals(con, ids, ids[0])
    overall = [(rid, us, ratio) for rid, p, us, ratio in totals if p is None]
    shown = [f"{names[rid]} {us} us" + (f" ({ratio} x {names[ids[0]]})" if rid != ids[0] and ratio else "")
             for rid, us, ratio in overall[:run_notes.SHOWN + 1]]
    rest = [ratio for _, _, ratio in overall[run_notes.SHOWN + 1:]]
    if rest:   # a job of 128 ranks: five runs named, the others' ratios as a range (report breakdown has each)
        known = [r for r in rest if r is not None]
        shown.append(f"{len(rest)} more runs" + (f" at {min(known)}-{max(known)} x {names[ids[0]]}" if known else ""))
    b.notes.append("device time over the compared passes: " + "; ".join(shown))
    sim = assignment.simulated_runs(con, ids)
    measured = [r for r in ids if r not in sim]
    if not sim or not measured:
        return
    ref = measured[0]
    rows = totals if ref == ids[0] else _totals(con, ids, ref)
    for s in (r for r in ids if r in sim):
        overall = [ratio for rid, p, _, ratio in rows if rid == s and p is None] or [None]
        per_pass = [f"{p}: {ratio or 'n/a'}" for rid, p, _, ratio in rows if rid == s and p is not None]
        b.notes.append(f"M6 (simulated / measured device time) {names[s]} / {names[ref]} = {overall[0] or 'n/a'}"
                       + (f" (by pass: {', '.join(per_pass)})" if len(per_pass) > 1 else ""))


def _totals(con, ids, ref):
    """(run_id, pass or None for all compared passes, sum_us text, ratio to `ref` text)."""
    return sql.run(con, "compare_totals", {"run_ids": ids, "ref": ref}).fetchall()
