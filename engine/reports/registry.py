"""Reports: each one binds options, runs the segmentation stages it needs, then one report SQL file,
and renders the rows. `build_report` is the entry point behind `tracedb report ...` and tracedb.report
(engine/api.py), `render_report` its text; the reports and their defaults are declared in declared.py."""
from tracedb import sql
from tracedb.engine.reports import declared, values
from tracedb.engine.segmentation import attribution
from tracedb.engine.reports import compare
from tracedb.engine.reports import launches
from tracedb.engine.reports import run_wide
from tracedb import patterns
from tracedb.engine.segmentation import assignment, binding, segment
from tracedb.engine.segmentation import selection
from tracedb.engine.segmentation import stages
from tracedb.engine.segmentation import unit_notes
from tracedb.engine.segmentation import units
from tracedb.engine.rendering import render as rnd
from tracedb.engine.reports.declaration import MEAN_REFUSED
from tracedb.engine.segmentation.words import ALL_PASSES, PassSpec
from tracedb.errors import NoAnchor, UsageError, quoted

REPORTS = declared.NAMES
PROLOGUE = units.PROLOGUE
# what `report breakdown` counts, stated in a note of every breakdown (docs/reports.md#report-breakdown)
BREAKDOWN_DEFINITIONS = (
    "computing, communication: unions of the compute kernels' and the communication ops' intervals (communication: "
    "logged so, as HCCL ops, or in the profile's communication category: NCCL/RCCL, DeepEP, custom all-reduce); "
    "overlapped: both at once; free: span with neither, copies and fills inside it (the Ascend profiler's "
    "step_trace_time.csv definitions); memcpy, memset: copies and fills on their own, exposed where no kernel or "
    "communication op runs (a fill: nor a copy); device_span = computing + comm_not_overlapped + memcpy_exposed + "
    "memset_exposed + idle, over every activity (AMD TraceLens's gpu_timeline)")
# the profiler's own figures beside tracedb's (report_breakdown.sql): a table for people leaves out those no row
# has, without a note (a GPU run never has them); CSV and JSON keep them
BREAKDOWN_PROF = ("prof_span_us", "prof_computing_us", "prof_communication_us", "prof_overlapped_us",
                  "prof_comm_not_overlapped_us", "prof_free_us", "prof_bubble_us", "prof_preparing_us")


def render_report(con, name: str, fmt: str = "table", **opts) -> str:
    """Text of report `name` in format table, md, csv, json or html (options as build_report)."""
    if fmt not in rnd.FORMATS:
        raise UsageError(f"format {fmt!r}: expected one of {', '.join(rnd.FORMATS)}")
    return rnd.render(build_report(con, name, fmt=fmt, **opts), fmt)


def build_report(con, name: str, fmt: str = "table", **opts) -> rnd.Result:
    """The rows of report `name`: its declared options (engine keywords, declared.py) where not given, then
    the segmentation options (binding.Options keywords: runs, tags, profile, ...). The result carries the
    report's chart layouts."""
    decl = declared.get(name)
    if decl is None:
        raise UsageError(f"unknown report {name!r}; reports: {', '.join(REPORTS)}")
    res = _build(con, name, fmt, **check_options(name, {**decl.defaults(), **opts}))
    res.charts = decl.charts
    return res


def check_options(name: str, opts: dict) -> dict:
    """Report `name`'s options (engine keywords) parsed and checked where that needs no store, before one is
    opened: the command line and tracedb.report call it first, so a value the report refuses is said whatever
    the store (build_report checks again, for callers with a connection of their own). Returns `opts` with
    --pass as the PassSpec the reports take."""
    decl = declared.get(name)
    if decl is None:
        return opts
    if opts.get("pass_spec") is not None:
        opts = {**opts, "pass_spec": PassSpec.parse(opts["pass_spec"])}
        _check_pass(name, opts["pass_spec"])
    for o in decl.options + declared.SEGMENTATION:    # declared values (--by, --order, --window, ...), checked here
        value = opts.get(o.target)
        if o.choices and value is not None and value not in o.choices:
            raise UsageError(f"{o.flags[0]} {quoted(str(value))}: unknown; expected one of {', '.join(o.choices)}")
        # what the command line checks as it parses (--top, --layers, --peak-tflops, ...), for Python callers
        problem = values.refused(o.check, o.flags[0], value) if o.check else None
        if problem:
            raise UsageError(problem)
    return opts


def _check_pass(name: str, spec: PassSpec):
    if spec.word == "mean" and declared.get(name).mean == MEAN_REFUSED:
        averaging = declared.averaging()
        raise UsageError(f"--pass mean: report {name} shows single passes; give a pass number, all, steady or auto "
                         f"({' and '.join([', '.join(averaging[:-1]), averaging[-1]])} average the steady passes)")


def _build(con, name: str, fmt: str, pass_spec: PassSpec = ALL_PASSES, absolute: bool = False, layer: int | None = None,
           compare_layer: int | None = None, flow: bool = False, top: int | None = None, order: str | None = None,
           timeline_layers: list[int] | None = None, clusters: bool = False, by: str | None = None,
           module_path: bool = False, peak_tflops: float | None = None, peak_tbs: float | None = None,
           roofline: bool = False, step: int | None = None, kernel=None, category=None, no_gap=None,
           overlap_comm: bool = False, job: bool = False, roofline_pct: float | None = None,
           balance_ranks: bool = False, rank: int | None = None, layer_edits=None, annotation: str | None = None,
           instance: int | None = None, **seg_opts) -> rnd.Result:
    if name == "breakdown":
        return _breakdown(con, fmt, pass_spec, by, seg_opts)
    if name == "ranks":
        from tracedb.engine.jobs import ranks
        return ranks.build(con, fmt, pass_spec, **seg_opts)
    if name == "launches":
        return launches.build(con, fmt, pass_spec, by, seg_opts)
    if name == "collectives":
        from tracedb.engine.jobs import collectives
        return collectives.build(con, fmt, **seg_opts)
    if name == "blame":
        from tracedb.engine.jobs import blame
        # a table for reading keeps 30 rows; the formats scripts read keep every row unless told
        return blame.build(con, fmt, pass_spec, by, top=(30 if fmt in rnd.READING else 0) if top is None else top,
                           **seg_opts)
    if name == "pipeline":
        from tracedb.engine.reports import pipeline
        return pipeline.build(con, fmt, absolute=absolute, **seg_opts)
    if name == "roofline":
        from tracedb.engine.reports import roofline
        b, meta = roofline.segment_runs(con, pass_spec, seg_opts, by)
        return roofline.build(con, fmt, pass_spec, by, meta, b, peak_tflops, peak_tbs)
    if name == "critical-path":
        from tracedb.engine.reports import critical_path, path_ranks
        seg_opts, job, said = path_ranks.selection(con, seg_opts, rank, job)
        res = critical_path.build(con, fmt, by, step, seg_opts, job=job, pass_spec=pass_spec, layer=layer,
                                  mark=critical_path.annotation_window(annotation, instance, step))
        res.notes[:0] = said
        return res
    if name == "what-if":
        from tracedb.engine.reports import critical_path, path_ranks, what_if
        seg_opts, job, said = path_ranks.selection(con, seg_opts, rank, job)
        edits = what_if.parse_edits(kernel, category, no_gap, overlap_comm, roofline_pct, balance_ranks, job,
                                    layer=layer_edits)
        res = what_if.build(con, fmt, step, edits, seg_opts, peak_tflops, peak_tbs, job=job,
                            mark=critical_path.annotation_window(annotation, instance, step))
        res.notes[:0] = said
        return res
    if name == "modules":
        return _modules(con, fmt, pass_spec, by, seg_opts, module_path)
    if name == "cores":
        return _cores(con, fmt, **seg_opts)
    if name == "passes":
        return _passes(con, fmt, absolute, seg_opts)
    try:
        b = segment.prepare(con, binding.Options(**seg_opts), rule=binding.Bound.rule)
    except NoAnchor as e:   # kernels and timeline answer over the whole run instead
        if name not in ("kernels", "timeline") or not run_wide.possible(seg_opts, layer, flow, compare_layer,
                                                                       timeline_layers):
            raise
        return run_wide.build(con, name, fmt, e, seg_opts, top, absolute)
    base = {"run_ids": b.run_ids, "absolute": bool(absolute)}
    meta = units.params(b, pass_spec)
    if name == "compare":
        return compare.build(con, fmt, b, pass_spec, by, meta, layer=layer, module_path=module_path, roofline=roofline,
                             peak_tflops=peak_tflops, peak_tbs=peak_tbs)
    if name == "kernels" and (flow or compare_layer is not None) and layer is None:
        raise UsageError("--layer is needed with --format compute-flow / --flow and with --compare-layer")
    assignment.assign(con, b, selection.select_noted(con, b, pass_spec))
    selection.flag_short_last_layer(con, b)
    if name in ("layers", "kernels"):
        attribution.categorize_by_module(con, b)
    if name == "layers":
        b.notes += unit_notes.comm_notes(con, b)
        if pass_spec.word == "all":   # every pass of the phase: where the run's device time sits
            b.notes += unit_notes.coverage_notes(b, {b.phase: unit_notes.unit_times(con, b)})
    wanted = [layer, compare_layer] if name == "kernels" else list(timeline_layers or []) if name == "timeline" else []
    _check_layers(con, b, [w for w in wanted if w is not None])
    if name == "layers":
        if roofline and (clusters or pass_spec.word == "mean"):
            raise UsageError("--roofline: per layer of single passes; not with --clusters or --pass mean "
                             "(report roofline --by layer gives each pass's)")
        if clusters:
            return _clusters(con, fmt, b, meta)
        if by in ("stage", "kind"):
            return _layer_stages(con, fmt, b, meta, by, pass_spec, roofline)
        from tracedb.engine.reports import roofline as rl
        return _layers(con, fmt, b, meta, base, pass_spec.word == "mean",
                       rl.layer_placeholders(con, b, roofline, peak_tflops, peak_tbs))
    if name == "timeline":
        return rnd.fetch_file(con, fmt, "report_timeline", {**base, "layers": list(timeline_layers or [])}, name,
                              b, meta,
                              "pass and layer time ranges (s from the trace's first event, as Perfetto shows them)",
                              display={"layer": "(pass)"})
    meta["layer"] = layer
    if compare_layer is not None:
        meta["compare_layer"] = compare_layer
        res = rnd.fetch_file(con, fmt, "report_compare_layers",
                             {"run_ids": b.run_ids, "layer": layer, "layer_b": compare_layer},
                             name, b, meta, f"layer {layer} (a) vs layer {compare_layer} (b)")
        # a table for people shows the short name, kernels that share one told apart; CSV and JSON keep both
        return rnd.for_people(res, short="kernel") if fmt in rnd.READING else res
    if flow:
        res = rnd.fetch_file(con, fmt, "report_flow", {**base, "layer": layer, "order": order}, name, b, meta,
                             f"compute flow of layer {layer}", labels=PROLOGUE)
        return rnd.for_people(res, short="kernel") if fmt in rnd.READING else res
    res = rnd.fetch_file(con, fmt, "report_kernels", {"run_ids": b.run_ids, "layer": layer, "top": top, "rest": False},
                         name, b, meta,
                         "hot kernels" + (f" of layer {layer}" if layer is not None else ""))
    # a table for people shows the short name; CSV and JSON keep both
    return rnd.for_people(res) if fmt in ("table", "md") else res


def _passes(con, fmt, absolute, seg_opts):
    """Every pass of the selected runs: forward passes, then in a training trace (unless --phase picks one)
    its backward passes, each phase segmented in its own stream; one table."""
    con.execute("DROP TABLE IF EXISTS _pass_rows")
    notes, per_phase = [], {}
    for b in segment.each_phase(con, binding.Options(**seg_opts)):
        assignment.assign(con, b, assignment.select_passes(con, b, ALL_PASSES))
        selection.flag_short_last_layer(con, b)
        per_phase[b.phase] = unit_notes.unit_times(con, b)
        if b.phase == "forward":
            b.notes += unit_notes.stage_notes(con, b) + unit_notes.step_kind_notes(con, b)
        b.notes += unit_notes.idle_notes(con, b) + unit_notes.comm_notes(con, b)
        params = {"run_ids": b.run_ids, "absolute": bool(absolute), "phase": b.phase,
                  "steady_tolerance": assignment.STEADY_TOLERANCE}
        for stmt in sql.file_statements("report_passes")[:-1]:
            con.execute(stmt, sql.used_params(stmt, params))
        notes += [n for n in b.notes if n not in notes]
        meta = units.params(b, ALL_PASSES)
    b.notes = notes + unit_notes.coverage_notes(b, per_phase)
    title = "forward and backward passes" if len(per_phase) == 2 else f"{b.phase} passes"
    res = rnd.fetch_file(con, fmt, "report_passes", {"run_ids": b.run_ids}, "passes", b, meta, title)
    if fmt not in ("table", "md"):
        return res
    # a table for people leaves out the serving columns where no pass has them, and micro-batches where
    # every step has one pass (CSV and JSON keep a stable column set)
    at = {c: i for i, c in enumerate(res.columns)}
    empty = [c for c in ("step_kind", "tokens", "requests", "us_per_token") if all(r[at[c]] is None for r in res.rows)]
    if all(r[at["microbatch"]] in (None, "0") for r in res.rows):
        empty.append("microbatch")
    return rnd.drop_columns(res, empty)


def _check_layers(con, b, layers: list[int]):
    """A layer the selected passes do not have is an error naming the layers they do, not an empty table."""
    if not layers:
        return
    have = dict(con.execute("SELECT run_id, list(DISTINCT layer ORDER BY layer) FROM _assigned WHERE layer IS NOT NULL "
                            "GROUP BY run_id").fetchall())
    for rid in b.run_ids:
        got = have.get(rid) or []
        missing = [layer for layer in layers if layer not in got]
        if missing:
            span = f"layers {got[0]}..{got[-1]}" if got else "no layers"
            raise UsageError(f"--layer {missing[0]}: run '{b.run_names[rid]}' has {span} in the selected passes")


def _layers(con, fmt, b, meta, base, mean, roofline_sql=None):
    """Per layer, one <category>_us column per category of the profile; --pass mean: per layer over passes."""
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


def _modules(con, fmt, spec: PassSpec, by, seg_opts, module_path=False):
    """Device time by launching module. Segmentation is optional: without an anchor (from --anchor or
    the profile) and without --pass, every kernel has an empty pass and layer."""
    if by not in ("kernel", "module"):
        raise UsageError("--by: expected kernel or module")
    opt = binding.Options(**seg_opts)
    # a pass asked for (--pass other than all) needs passes: the anchor is then proposed as report layers does
    if units.has_anchor(opt) or spec.word != "all":
        b, meta = units.segmented(con, opt, spec, assignment.select_passes)
    else:
        b = binding.bind_runs(con, opt.runs, opt.tags)
        assignment.assign_none(con)
        meta = {"runs": ", ".join(b.run_names[r] for r in b.run_ids), "layers": "none (no anchor)"}
    attribution.attribute(con, b)
    meta["by"] = by
    file, title = ("report_modules_total", "device time by module") if by == "module" else \
        ("report_modules", "device time by module and kernel")
    meta["module"] = "instance path" if module_path else "role (instances of one role across layers grouped)"
    only = spec.word != "all"
    res = rnd.fetch_file(con, fmt, file, {"run_ids": b.run_ids, "by_path": bool(module_path), "passes_only": only},
                         "modules", b, meta, title, labels=PROLOGUE)
    if fmt not in rnd.READING or "kernel" not in res.columns:
        return res
    # a table for people: a mangled or templated kernel name as its short name (distinct names kept apart)
    at = res.columns.index("kernel")
    long = sorted({row[at] for row in res.rows if row[at] and (row[at].startswith("_Z") or "<" in row[at])})
    short = dict(con.execute("SELECT name, short_name FROM kernel_names WHERE name IN (SELECT unnest($n))",
                             {"n": long}).fetchall()) if long else {}
    return rnd.with_names(res, "kernel", short)


def _breakdown(con, fmt, spec, by, seg_opts):
    """Device time per run, step, pass or layer: span, computing, communication, their overlap and the
    free time (sql/report/breakdown_*.sql). --by pass and layer segment the runs as report layers does;
    --by run and step need no anchor, only the profile's category rules (what is communication)."""
    b, meta = units.activity_units(con, spec, by, seg_opts)
    units.check_activities(con, b, by)
    if by == "step":
        units.split_steps(con, b)
    sql.run(con, "breakdown_union")
    meta["by"] = by
    b.notes.append(BREAKDOWN_DEFINITIONS)
    excluded = con.execute("SELECT run_id, kind, activities, dur_ns FROM _bd_uncounted "
                           "ORDER BY run_id, kind").fetchall()
    for rid in dict.fromkeys(r for r, *_ in excluded):
        b.notes.append(f"run '{b.run_names[rid]}': not counted (neither computing nor communication, so free): "
                       + ", ".join(f"{n:,} {kind} ({ns / 1000:,.3f} us)" for r, kind, n, ns in excluded if r == rid))
    _breakdown_prof_notes(con, b, by)
    res = rnd.fetch_file(con, fmt, "report_breakdown", {"run_ids": b.run_ids, "by": by}, "breakdown", b, meta,
                         f"device time by {by}: computing, communication, overlap, free",
                         labels=PROLOGUE if by == "layer" else None)
    hidden = units.hidden_unit_columns(fmt, by)
    res = rnd.drop_columns(res, hidden) if hidden else res
    if fmt in ("table", "md"):
        at = {c: i for i, c in enumerate(res.columns)}
        res = rnd.drop_columns(res, [c for c in BREAKDOWN_PROF if all(row[at[c]] is None for row in res.rows)])
    return res


def _breakdown_prof_notes(con, b, by):
    """Where the Ascend profiler's own figures (step_trace_time.csv, table step_times) stand in the rows."""
    if not con.execute("SELECT count(*) FROM step_times WHERE run_id IN (SELECT unnest($r))",
                       {"r": b.run_ids}).fetchone()[0]:
        return
    if by in ("pass", "layer"):
        b.notes.append("the Ascend profiler's step_trace_time.csv has no passes or layers: its figures (prof_*) are "
                       "in --by run and step")
        return
    b.notes.append("prof_*: the Ascend profiler's own figures of the run or step (its step_trace_time.csv: Stage + "
                   "Bubble, Computing, Communication, Overlapped, Communication(Not Overlapped), Free, Bubble, "
                   "Preparing), beside tracedb's")
    for rid, in con.execute("SELECT run_id FROM _bd_no_kernels WHERE step_lines > 0 ORDER BY run_id").fetchall():
        b.notes.append(f"run '{b.run_names[rid]}' has no kernel rows: its span, computing, communication, overlap and "
                       "free time are its profiler's step_trace_time.csv figures (source step_trace_time)")


def _cores(con, fmt, runs=(), tags=(), match=None, from_us=None, to_us=None, per_core=False, scheduler=False,
           stack=False, top_gaps=0, **ignored):
    """On-core busy time and bubbles of per-core traces (tasks of kind 'task'). Two runs (without
    --per-core or --stack) give the side-by-side table with the ratio; --scheduler the AICPU phases."""
    b = binding.bind_runs(con, runs, tags)
    ids, names = b.run_ids, b.run_names
    if scheduler:
        return rnd.fetch_file(con, fmt, "report_cores_scheduler", {"run_ids": ids}, "cores", b,
                              {"runs": ", ".join(names[r] for r in ids)}, "AICPU scheduler phases")
    for rid in ids:
        if not con.execute("SELECT count(*) FROM kernels WHERE run_id = $r AND kind = 'task'",
                           {"r": rid}).fetchone()[0]:
            raise UsageError(f"run '{names[rid]}' has no per-core tasks (threads named like AIC_0 / AIV 12 outside an "
                             "AICPU process); `tracedb report cores` reads on-device per-core traces")
    if match:
        patterns.check_regex(con, match, "--match")
        hits = sql.run(con, "cores_match", {"run_ids": ids, "match": match}).fetchall()
        if not hits[0][0]:
            raise UsageError(f"--match {match!r}: no task name of the runs matches; most frequent: "
                             + ", ".join(f"{n} ({c})" for _, n, c in hits if n))
    to_ns = lambda v: None if v is None else round(float(v) * 1000)   # noqa: E731
    sql.run(con, "report_cores", {"run_ids": ids, "match": match, "from_ns": to_ns(from_us), "to_ns": to_ns(to_us)})
    meta = {"runs": ", ".join(names[r] for r in ids), "match": match or "every task",
            "window": f"{from_us if from_us is not None else 'first task'} .. "
                      f"{to_us if to_us is not None else 'last task'}"}
    if top_gaps:
        return rnd.fetch_file(con, fmt, "report_cores_gaps", {"run_ids": ids, "top": top_gaps}, "cores", b, meta,
                              f"the {top_gaps} longest idle gaps per core class")
    if len(ids) == 2 and not per_core and not stack:
        return rnd.fetch_file(con, fmt, "report_cores_compare", {"run_ids": ids}, "cores", b, meta,
                              f"on-core time: {names[ids[1]]} vs {names[ids[0]]}")
    file, title = ("report_cores_core", "per core") if per_core else ("report_cores_class", "per core class")
    return rnd.fetch_file(con, fmt, file, {"run_ids": ids}, "cores", b, meta, f"on-core time {title}")


def _clusters(con, fmt, b, meta):
    if not b.layer_types:
        raise UsageError("--clusters needs --config config.json with per-layer types (compress_ratios, "
                         "layer_types or first_k_dense_replace)")
    con.execute("CREATE OR REPLACE TEMP TABLE _layer_types AS SELECT unnest(range(len($t))) AS layer, "
                "unnest($t) AS layer_type", {"t": list(b.layer_types)})
    shares = ",\n    ".join(
        f"round(100.0 * (SELECT coalesce(sum(c.ns), 0) FROM per_cat c WHERE c.run_id = l.run_id AND "
        f"c.layer_type = l.layer_type AND c.cat_ord = {i}) / nullif(sum(l.sum_ns), 0), 2)::DECIMAL(6, 2) "
        f"AS {sql.ident(c + '_pct')}" for i, c in enumerate(b.profile.categories))
    return rnd.fetch_file(con, fmt, "report_clusters", {"run_ids": b.run_ids}, "layers", b, meta,
                          "layer clusters by type", category_shares=shares)
