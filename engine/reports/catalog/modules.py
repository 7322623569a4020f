"""`report modules`: device time by the host module that launched it (GPU traces with host events), per
(layer, module, kernel) or per module. Segmentation is optional: without an anchor (from --anchor or the
profile) and without --pass, every kernel has an empty pass and layer."""
from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import MEAN_REFUSED, SEGMENTED, Examples, Report, charts
from tracedb.engine.reports.shared_options import MODULE_PATH, PASS, _by

TOP = 40   # module roles a chart keeps: the most time first
WHOLE = {"runs": ["gpu"], "profile": None, "layers": None}
LAYERED = {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd", "layers": 2}


def build(con, fmt, seg, pass_spec=None, by="kernel", module_path=False):
    from tracedb import sql
    from tracedb.engine.rendering import render as rnd
    from tracedb.engine.segmentation import assignment, attribution, binding, units
    opt = binding.Options(**seg)
    # a pass asked for (--pass other than all) needs passes: the anchor is then proposed as report layers does
    if units.has_anchor(opt) or pass_spec.word != "all":
        b, meta = units.segmented(con, opt, pass_spec, assignment.select_passes)
    else:
        b = binding.bind_runs(con, opt.runs, opt.tags)
        assignment.assign_none(con)
        meta = {"runs": ", ".join(b.run_names[r] for r in b.run_ids), "layers": "none (no anchor)"}
    attribution.attribute(con, b)
    meta["by"] = by
    file, title = ("report_modules_total", "device time by module") if by == "module" else \
        ("report_modules", "device time by module and kernel")
    meta["module"] = "instance path" if module_path else "role (instances of one role across layers grouped)"
    only = pass_spec.word != "all"
    res = rnd.fetch_file(con, fmt, file, {"run_ids": b.run_ids, "by_path": bool(module_path), "passes_only": only},
                         "modules", b, meta, title, labels=units.PROLOGUE)
    if fmt not in rnd.READING or "kernel" not in res.columns:
        return res
    # a table for people: a mangled or templated kernel name as its short name (distinct names kept apart)
    at = res.columns.index("kernel")
    long = sorted({row[at] for row in res.rows if row[at] and (row[at].startswith("_Z") or "<" in row[at])})
    short = dict(sql.run(con, "short_names", {"names": long}).fetchall()) if long else {}
    return rnd.with_names(res, "kernel", short)


def modules_chart(res):
    """Device time per module role (summed over passes, layers and kernels), a bar per run; the TOP roles."""
    top = [{"calculate": "datum.module", "as": "unit"},
           {"aggregate": [{"op": "sum", "field": "sum_us", "as": "us"}], "groupby": ["unit", "run"]},
           {"joinaggregate": [{"op": "sum", "field": "us", "as": "total"}], "groupby": ["unit"]},
           {"window": [{"op": "dense_rank", "as": "top"}], "sort": [{"field": "total", "order": "descending"}]},
           {"filter": f"{TOP} >= datum.top && datum.us > 0"}]
    spec = {"transform": top,
            **vl.bars("module", vl.color_by("run", None), horizontal=True, offset="run", tooltip=("run",))}
    spec["encoding"]["y"]["sort"] = {"field": "total", "op": "max", "order": "descending"}
    return spec


REPORT = Report(
    "modules", "Device time by the host module that launched it (GPU traces with host events); layers with an anchor.",
    SEGMENTED, (PASS, _by("kernel", ("kernel", "module"),
                          "kernel: a row per (layer, module, kernel); module: per module totals."), MODULE_PATH),
    MEAN_REFUSED, ("report_modules", "report_modules_total"),
    charts(("module sum_us", modules_chart)), build=build, place=50,
    examples=Examples("tiny", {
        "modules.table": ("table", WHOLE),
        "modules.md": ("md", {**WHOLE, "by": "module"}),
        "modules.csv": ("csv", LAYERED),
        "modules.json": ("json", {**LAYERED, "by": "module"}),
        "modules.html.json": ("html", LAYERED),
    }, checks=(
        {"runs": ["graph"], "profile": None, "layers": None},     # graph replays attributed through their capture
        {**LAYERED, "profile": "dsv3-gpu", "by": "module"},
    )))
