"""The steps the reports over one segmentation's layers share (report layers, kernels and timeline; compare
segments the same way): segment the selected runs, assign the selected passes' kernels to layers, and refuse
a layer the passes do not have."""
from tracedb import sql
from tracedb.engine.segmentation import assignment, attribution, binding, segment, selection
from tracedb.errors import UsageError


def prepare(con, seg: dict):
    """The runs of `seg` (binding.Options keywords) bound and segmented into passes: NoAnchor when no anchor
    kernel repeats."""
    return segment.prepare(con, binding.Options(**seg), rule=binding.Bound.rule)


def assign(con, b, spec, categorize: bool = False):
    """The kernels of the passes `spec` selects assigned to layers, the short last layer flagged; with
    `categorize`, categories refined by the launching module where the trace has one."""
    assignment.assign(con, b, selection.select_noted(con, b, spec))
    selection.flag_short_last_layer(con, b)
    if categorize:
        attribution.categorize_by_module(con, b)


def check_layers(con, b, layers: list[int]):
    """A layer the selected passes do not have is an error naming the layers they do, not an empty table."""
    if not layers:
        return
    have = dict(sql.run(con, "layered_layers").fetchall())
    for rid in b.run_ids:
        got = have.get(rid) or []
        missing = [layer for layer in layers if layer not in got]
        if missing:
            span = f"layers {got[0]}..{got[-1]}" if got else "no layers"
            raise UsageError(f"--layer {missing[0]}: run '{b.run_names[rid]}' has {span} in the selected passes")
