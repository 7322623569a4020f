"""`report passes`: every forward pass (and in a training trace its backward passes, unless --phase picks one),
each phase segmented in its own stream: its anchors, kernels, time, average and first layer, and whether it is
cold-start, steady-state or partial."""
from tracedb.engine.reports.declaration import SEGMENTED, Examples, Report, charts
from tracedb.engine.reports.shared_options import ABSOLUTE
from tracedb.engine.rendering import vega_lite as vl


def build(con, fmt, seg, absolute=False):
    from tracedb import sql
    from tracedb.engine.rendering import render as rnd
    from tracedb.engine.segmentation import assignment, binding, segment, selection, unit_notes, units
    from tracedb.engine.segmentation.words import ALL_PASSES
    sql.run(con, "passes_forget")
    notes, per_phase = [], {}
    for b in segment.each_phase(con, binding.Options(**seg)):
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


def passes_chart(res):
    """Wall and sum time per pass side by side, the colour the pass's state (cold-start, steady-state, ...)."""
    unit, title = vl.unit(res, ("run", "pass"))
    spec = vl.side_by_side(unit, title, ["wall_us", "sum_us"], "datum.part_name")
    spec["transform"].append({"calculate": "datum.note ? datum.note : 'unclassified'", "as": "state"})
    spec["encoding"].update(
        color={"field": "state", "type": "nominal",
               "scale": {"domain": ["cold-start", "steady-state", "partial", "unclassified"],
                         "range": ["#e15759", "#4e79a7", "#bab0ac", "#59a14f"]}},
        opacity={"field": "side", "type": "nominal", "sort": ["wall", "sum"], "scale": {"range": [1, 0.5]},
                 "title": "time"},
        tooltip=vl.tip("unit", "state", "side", "us"))
    return spec


REPORT = Report(
    "passes", "Forward passes: anchors, kernels, time, average and first layer, cold-start / steady-state / partial.",
    SEGMENTED, (ABSOLUTE,), None, ("report_passes",),
    charts(("wall_us sum_us note", passes_chart)), build=build, place=10,
    examples=Examples("tiny", {
        "passes.table": ("table", {}),
        "passes.md": ("md", {}),
        "passes.csv": ("csv", {}),
        "passes.json": ("json", {}),
        "passes_by_gap.csv": ("csv", {"layers": None}),
        "passes.html.json": ("html", {}),
    }, checks=(
        {"window": "strict"},
        {"profile": "generic"},                        # the anchor proposed
        {"runs": ["gpu"], "profile": "generic"},       # proposed, the module tree asked
        {"runs": ["ranges"], "profile": "generic"},    # layer ranges, no module frame
    )))
