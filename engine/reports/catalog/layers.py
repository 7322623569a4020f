"""`report layers`: per layer of the selected passes its kernels, sum and wall time and time per category
(one `<category>_us` column per category of the profile); --pass mean per layer over the steady passes,
--clusters per layer type, --by stage or kind the stages of each layer kind, --roofline its achieved TFLOP/s."""
from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.reports.declaration import MEAN_AVERAGED, SEGMENTED, Examples, Report, charts
from tracedb.engine.reports.shared_options import ABSOLUTE, PASS, PEAK_TBS, PEAK_TFLOPS, _by, _flag
from tracedb.engine.segmentation.words import ALL_PASSES

GPU = {"runs": ["gpu"], "profile": "dsv3-gpu", "anchor": "flash_fwd", "layers": 2}


def build(con, fmt, seg, pass_spec=ALL_PASSES, absolute=False, by="layer", clusters=False, roofline=False,
          peak_tflops=None, peak_tbs=None):
    from tracedb.engine.reports import layered
    from tracedb.engine.reports import roofline as rl
    from tracedb.engine.segmentation import unit_notes, units
    from tracedb.errors import UsageError
    b = layered.prepare(con, seg)
    meta = units.params(b, pass_spec)
    layered.assign(con, b, pass_spec, categorize=True)
    b.notes += unit_notes.comm_notes(con, b)
    if pass_spec.word == "all":   # every pass of the phase: where the run's device time sits
        b.notes += unit_notes.coverage_notes(b, {b.phase: unit_notes.unit_times(con, b)})
    if roofline and (clusters or pass_spec.word == "mean"):
        raise UsageError("--roofline: per layer of single passes; not with --clusters or --pass mean "
                         "(report roofline --by layer gives each pass's)")
    if clusters:
        return _clusters(con, fmt, b, meta)
    if by in ("stage", "kind"):
        return _layer_stages(con, fmt, b, meta, by, pass_spec, roofline)
    base = {"run_ids": b.run_ids, "absolute": bool(absolute)}
    return _layers(con, fmt, b, meta, base, pass_spec.word == "mean",
                   rl.layer_placeholders(con, b, roofline, peak_tflops, peak_tbs))


def _layers(con, fmt, b, meta, base, mean, roofline_sql=None):
    """Per layer, one <category>_us column per category of the profile; --pass mean: per layer over passes."""
    from tracedb import sql
    from tracedb.engine.rendering import render as rnd
    from tracedb.engine.segmentation.units import PROLOGUE
    cats = b.profile.categories
    per_cat = [f"coalesce(sum(a.dur_ns) FILTER (WHERE a.cat_ord = {i}), 0)" for i in range(len(cats))]
    kw = {"labels": PROLOGUE, "sparse": {c + "_us" for c in cats}}
    if mean:
        sums = ",\n        ".join(f"{e} AS {sql.ident(c + '_ns')}" for e, c in zip(per_cat, cats))
        means = ",\n    ".join(f"us(mean_ns(sum(p.{sql.ident(c + '_ns')}), count(*))) AS {sql.ident(c + '_us')}"
                                 for c in cats)
        return rnd.fetch_file(con, fmt, "report_layers_mean", base, "layers", b, meta,
                              "layers, mean of the steady passes",
                              category_sums=sums, category_means=means, **kw)
    cols = ",\n    ".join(f"us({e}) AS {sql.ident(c + '_us')}" for e, c in zip(per_cat, cats))
    return rnd.fetch_file(con, fmt, "report_layers", base, "layers", b, meta, "layers", category_columns=cols,
                          **(roofline_sql or {"roofline_columns": "", "roofline_join": ""}), **kw)


def _layer_stages(con, fmt, b, meta, by, spec, roofline):
    """--by stage: per pass and layer kind, each stage's time; --by kind: one representative layer per kind
    (sql/segment/layer_stages.sql)."""
    from tracedb import sql
    from tracedb.engine.rendering import render as rnd
    from tracedb.engine.segmentation import stages
    from tracedb.errors import UsageError
    if spec.word == "mean" or roofline:
        raise UsageError(f"--by {by}: per pass; give a pass number, all, steady or auto (not --pass mean), "
                         "without --roofline")
    stages.assign_stages(con, b)
    meta["by"] = by
    if by == "stage":
        return rnd.fetch_file(con, fmt, "report_layers_stage", {"run_ids": b.run_ids}, "layers", b, meta,
                              "layers by stage")
    cats = b.profile.categories
    cols = ",\n    ".join(f"us(coalesce(sum(a.dur_ns) FILTER (WHERE a.cat_ord = {i}), 0)) AS {sql.ident(c + '_us')}"
                           for i, c in enumerate(cats))
    return rnd.fetch_file(con, fmt, "report_layers_kind", {"run_ids": b.run_ids}, "layers", b, meta,
                          "layers by kind: one representative layer of each", category_columns=cols,
                          sparse={c + "_us" for c in cats})


def _clusters(con, fmt, b, meta):
    from tracedb import sql
    from tracedb.engine.rendering import render as rnd
    from tracedb.errors import UsageError
    if not b.layer_types:
        raise UsageError("--clusters needs --config config.json with per-layer types (compress_ratios, "
                         "layer_types or first_k_dense_replace)")
    sql.run(con, "layer_types", {"types": list(b.layer_types)})
    shares = ",\n    ".join(
        f"round(100.0 * (SELECT coalesce(sum(c.ns), 0) FROM per_cat c WHERE c.run_id = l.run_id AND "
        f"c.layer_type = l.layer_type AND c.cat_ord = {i}) / nullif(sum(l.sum_ns), 0), 2)::DECIMAL(6, 2) "
        f"AS {sql.ident(c + '_pct')}" for i, c in enumerate(b.profile.categories))
    return rnd.fetch_file(con, fmt, "report_clusters", {"run_ids": b.run_ids}, "layers", b, meta,
                          "layer clusters by type", category_shares=shares)


def layers_chart(res):
    """Time per category per layer, stacked, with the layer's wall time as a line (one per pass)."""
    unit, title = vl.unit(res, ("run", "pass", "layer"))
    cats = [c for c in res.columns if c in res.sparse]
    series = {"calculate": vl.text("run") + " + '/' + " + vl.text("pass"), "as": "series"}
    return vl.with_line(vl.stack(unit, title, cats, "category"), vl.wall_line("wall_us", "series", title), [series])


def clusters_chart(res):
    """Per layer type: the mean layer's time per category (share × mean sum), the mean wall as a line."""
    unit, title = vl.unit(res, ("run", "layer_type"), prefix=("layer_type",))
    shares = [c for c in res.columns if c.endswith("_pct")]
    times = [{"calculate": f"{vl.datum(c)} * datum.avg_sum_us / 100", "as": c[:-len("_pct")] + "_us"} for c in shares]
    stack = vl.stack(unit, title, [c[:-len("_pct")] + "_us" for c in shares], "category", pre=times,
                     value_title=f"{vl.US} per layer of the type")
    return vl.with_line(stack, vl.wall_line("avg_wall_us", "run", title))


CONFIG = "tests/data/tiny_config.json"
REPORT = Report(
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
    charts(("layer_type", clusters_chart), ("layer wall_us", layers_chart)), build=build, place=20,
    examples=Examples("tiny", {
        "layers.table": ("table", {"pass_spec": "all"}),
        "layers.md": ("md", {"pass_spec": "steady"}),
        "layers.csv": ("csv", {"pass_spec": "all"}),
        "layers.json": ("json", {"pass_spec": "3"}),
        "layers_full.csv": ("csv", {"pass_spec": "all", "window": "full"}),
        "layers_full_offset2.csv": ("csv", {"pass_spec": "3", "window": "full", "layer_offset": 2}),
        "layers_two_blocks.csv": ("csv", {"pass_spec": "all", "layers": 1, "blocks_per_layer": 2}),
        "layers_absolute.csv": ("csv", {"pass_spec": "0", "absolute": True}),
        "layers_clusters.md": ("md", {"pass_spec": "all", "window": "full", "layers": None, "clusters": True,
                                      "config": CONFIG}),
        "layers_gpu.csv": ("csv", GPU),
        "layers_mean.csv": ("csv", {"runs": ["tiny_jitter"], "pass_spec": "mean"}),
        "layers_mean.md": ("md", {"runs": ["tiny_jitter"], "pass_spec": "mean", "window": "full"}),
        "layers.html.json": ("html", {"pass_spec": "all", "window": "full"}),
        "layers_mean.html.json": ("html", {"runs": ["tiny_jitter"], "pass_spec": "mean"}),
        "layers_clusters.html.json": ("html", {"pass_spec": "all", "window": "full", "layers": None,
                                               "clusters": True, "config": CONFIG}),
    }, checks=(
        {"pass_spec": "all", "window": "full", "layers": None, "clusters": True, "config": CONFIG},
        {"by": "stage"},
        {**GPU, "by": "kind"},
        {"roofline": True, "peak_tflops": 300, "peak_tbs": 1.6},
        # a pipeline job's backward passes, by stage
        {"runs": [], "tags": ["job=pp"], "profile": None, "layers": None, "window": "full", "phase": "backward",
         "by": "stage"},
    )))
