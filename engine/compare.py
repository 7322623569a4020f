"""`report compare`: two or more runs segmented alike, aligned by layer, category, module or kernel.

The stages are SQL (compare_align.sql builds _cmp: per run and key its time over the selected passes,
matched across runs); this module picks the layout and writes the notes. CSV and JSON get the tidy rows
(one per key and run, so they load into SQL); the terminal and Markdown tables the wide layout of
seeds/002 (runs side by side, a sum row per layer). The ratio is each run against the first one: with a
measured run first and a simulated one (tagged kind=simulated) after it, simulated / measured, the M6
metric of seeds/000, which the notes also give over all compared passes."""
from tracedb import sql
from tracedb.engine import render, reports, segment
from tracedb.errors import UsageError

BY = ("layer", "category", "module", "kernel")


def build(con, fmt, b, spec, by, meta):
    if by not in BY:
        raise UsageError(f"--by: expected {', '.join(BY[:-1])} or {BY[-1]}")
    if len(b.run_ids) < 2:
        raise UsageError("report compare needs two or more --run")
    segment.assign(con, b, reports.select_noted(con, b, spec))
    reports.flag_short_last_layer(con, b)
    names = b.run_names
    if by == "module":
        for rid, launched in reports.attribute(con, b).items():
            if not launched:
                raise UsageError(f"run '{names[rid]}' has no host launches (no runtime call shares a kernel's "
                                 "correlation id): --by module needs a trace with host events (PyTorch profiler "
                                 "/ Kineto); use --by layer, category or kernel")
    else:
        sql.run(con, "attribute_none")
    label = spec if spec in ("steady", "auto", "mean") else None
    params = {"run_ids": b.run_ids, "by": by}
    sql.run(con, "compare_align", {**params, "label": label})
    _notes(con, b)
    meta["by"] = by
    title = f"{' vs '.join(names[r] for r in b.run_ids)} by {by}"
    title += ", mean of the steady passes" if label == "mean" else ""
    if fmt in ("csv", "json"):
        return reports._fetch(con, fmt, "report_compare_mean" if label == "mean" else "report_compare",
                              params, "compare", b, meta, title, labels=reports.PROLOGUE)
    run_cols, diff_cols = _wide_columns(b, by, label == "mean")
    res = reports._fetch(con, fmt, "report_compare_wide", params, "compare", b, meta, title, labels=reports.PROLOGUE,
                         run_columns=run_cols, diff_columns=diff_cols)
    keep = {"layer": (), "category": ("category",), "kernel": ("category",), "module": ("module",)}[by]
    return render.drop_columns(res, [c for c in ("category", "module") if c not in keep])


def _wide_columns(b, by, mean) -> tuple[str, str]:
    """Per run its kernel name (by kernel) or count and its time; per later run delta and ratio to the first."""
    ident, runs, diffs = sql.ident, [], []
    first = "sum(ns) FILTER (WHERE run_id = $run_ids[1])"
    for i, rid in enumerate(b.run_ids, 1):
        name, at = b.run_names[rid], f"FILTER (WHERE run_id = $run_ids[{i}])"
        if by == "kernel":
            runs.append(f"max(kernel) {at} AS {ident(name + '_kernel')}")
        else:
            runs.append(f"sum({'kernels_mean' if mean else 'kernels'}) {at} AS {ident(name + '_kernels')}")
        runs.append(f"us(sum(ns) {at}) AS {ident(name + '_us')}")
        if i > 1:
            suffix = "" if len(b.run_ids) == 2 else f"_{name}"
            diffs.append(f"us(sum(ns) {at} - {first}) AS {ident('delta_us' + suffix)}")
            diffs.append(f"ratio3(sum(ns) {at}, {first}) AS {ident('ratio' + suffix)}")
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
    b.notes.append("device time over the compared passes: " + "; ".join(
        f"{names[rid]} {us} us" + (f" ({ratio} x {names[ids[0]]})" if rid != ids[0] and ratio else "")
        for rid, p, us, ratio in totals if p is None))
    sim = segment.simulated_runs(con, ids)
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
