"""The units reports divide a run into, shared by report breakdown and report launches: the bound runs with
their kernels and communication ops per run, profiler step, pass or layer (TEMP _bd_act), and the
segmentation every report with layers starts from."""
from tracedb import sql
from tracedb.engine.segmentation import profiles
from tracedb.engine.segmentation import assignment, binding, categories, segment
from tracedb.engine.segmentation import selection
from tracedb.errors import UsageError

# The kernels of a full window before a pass's first layer boundary have no layer: every format prints
# that layer as `prologue` (CSV and JSON too, so a loader never confuses it with a missing value).
PROLOGUE = {"layer": ("prologue", "pass", "unit")}   # with a unit column: prologue or epilogue


def has_anchor(opt) -> bool:
    """An anchor from --anchor or the profile: reports whose segmentation is optional (modules, launches
    --by kernel) segment only then."""
    return bool(opt.anchor) or bool(opt.profile and profiles.load(opt.profile).anchor)


def segmented(con, opt, spec, select):
    """Bind the options, find the passes and assign the kernels of the passes `select(con, b, spec)`
    picks to layers, with the short last layer flagged: (bound options, report parameters)."""
    b = segment.prepare(con, opt, rule=binding.Bound.rule)
    assignment.assign(con, b, select(con, b, spec))
    selection.flag_short_last_layer(con, b)
    return b, params(b, spec)


def activity_units(con, spec, by, seg_opts):
    """Bind the runs and make _bd_act, the kernels and communication ops of each unit (report breakdown's
    and report launches' units): --by pass and layer segment the runs as report layers does; --by run and
    step (split later by split_steps) need the profile's category rules only. (bound runs, params)."""
    opt = binding.Options(**seg_opts)
    if by in ("pass", "layer"):
        b, meta = segmented(con, opt, spec, selection.select_noted)
        sql.run(con, "breakdown_activity_layers", {"run_ids": b.run_ids, "by_layer": by == "layer"})
    else:
        b = binding.bind_runs(con, opt.runs, opt.tags, opt.profile)
        meta = {"runs": ", ".join(b.run_names[r] for r in b.run_ids), "profile": b.profile.name}
        categories.categorize_kernels(con, b)
        sql.run(con, "breakdown_activity", {"run_ids": b.run_ids})
    return b, meta


def hidden_unit_columns(fmt, by) -> list[str]:
    """The unit columns a report's result drops in `fmt`: a table for people shows the unit columns (step, pass,
    layer) its --by fills; CSV and JSON keep every column (none dropped).
    (The `unit` column of --by layer, prologue or epilogue, shows in the layer column.)"""
    if fmt not in ("table", "md"):
        return []
    shown = {"step": ["step"], "pass": ["pass"], "layer": ["pass", "layer", "unit"]}.get(by, [])
    return [c for c in ("step", "pass", "layer", "unit") if c not in shown]


def check_activities(con, b, by):
    """Kernels or communication ops to divide (in the selected passes, --by pass and layer): a run without any
    is named in a note (a job's other ranks are still reported), and only when no run has any is it an
    error. A run with communication ops only (an Ascend rank folder without kernel_details.csv) is noted."""
    have = dict(sql.run(con, "units_activity_counts").fetchall())
    where = " in the selected passes" if by in ("pass", "layer") else ""
    missing = [b.run_names[rid] for rid in b.run_ids if not have.get(rid)]
    if len(missing) == len(b.run_ids):
        raise UsageError(f"run '{missing[0]}' has no kernels or communication ops{where} (memcpy, memset "
                         "and per-core tasks do not count; per-core traces: `tracedb report cores`)")
    if missing:
        b.notes.append(f"no kernels or communication ops{where}, so no row: "
                       + ", ".join(f"run '{n}'" for n in missing))
    for rid, ops in sql.run(con, "units_comm_only").fetchall():
        b.notes.append(f"run '{b.run_names[rid]}' has no kernel rows, only its profiler's communication ops ({ops:,}, "
                       "communication.json): its communication is their union; computing, overlap and free time "
                       "are unknown (empty)")


def split_steps(con, b):
    """Split _bd_act by profiler step; a run without steps is an error, activities in no step a note."""
    sql.run(con, "breakdown_steps", {"run_ids": b.run_ids})
    summary = {r[0]: r[1:] for r in sql.run(con, "units_step_summary").fetchall()}
    for rid in b.run_ids:
        marks, stepped, unstepped, unstepped_ns = summary.get(rid, (0, 0, 0, 0))
        if not stepped:
            why = ("none of its kernels was launched inside one of its ProfilerStep#N annotations" if marks else
                   "its kernels carry no Step Id and it has no ProfilerStep#N annotation (torch.profiler's "
                   "prof.step())")
            raise UsageError(f"--by step: run '{b.run_names[rid]}' has no steps: {why}; use --by run, pass or layer")
        if unstepped:
            b.notes.append(f"run '{b.run_names[rid]}': {unstepped:,} kernels ({unstepped_ns / 1000:,.3f} us) are in no "
                           "step (no Step Id, or launched outside every ProfilerStep#N): left out")


def params(b, spec) -> dict:
    """The segmentation as a report's parameters (Markdown and JSON show them)."""
    return {"runs": ", ".join(b.run_names[r] for r in b.run_ids), "profile": b.profile.name,
            "anchor": b.anchor, "layers": b.layers, "blocks_per_layer": b.blocks_per_layer,
            "layer_offset": b.layer_offset, "window": b.window, "passes_by": b.pass_rule(),
            "pass": str(spec)}


def whole_runs(con, opt, why: str, answer: str):
    """A job whose traces have no layers to find (no attention kernel repeats: a CNN, a collective benchmark):
    every kernel of each run in one run-wide unit (run_wide.sql), with the note `no layers to find (WHY):
    ANSWER`. Returns the bound runs and the report's parameters."""
    b = binding.bind_runs(con, opt.runs, opt.tags, opt.profile)
    categories.categorize_kernels(con, b)
    sql.run(con, "run_wide", {"run_ids": b.run_ids})
    b.notes.append(f"no layers to find ({why.split(';')[0]}): {answer}")
    return b, {"runs": ", ".join(b.run_names[r] for r in b.run_ids), "profile": b.profile.name}
