"""`tracedb segment`: store each kernel's pass, layer, block, category and module, so that layers are plain
SQL (the view `kernel_layers`) from tracedb sql, the duckdb CLI or any DuckDB client.

The assignment is the one `report layers --pass all` makes with the same options (the same SQL stages),
for every kernel of each run; a run has one stored segmentation, and segmenting it again replaces it in
one transaction."""
import json
import re

from tracedb import sql
from tracedb.version import __version__
from tracedb.engine.segmentation import attribution
from tracedb.engine.segmentation import pipeline
from tracedb.engine.segmentation import assignment, binding, segment
from tracedb.engine.segmentation import snapshots
from tracedb.engine.segmentation import stages
from tracedb.engine.store.connect import resolve_runs
from tracedb.engine.segmentation import unit_notes
from tracedb.engine.segmentation.words import ALL_PASSES


def segment_runs(con, opt: binding.Options) -> tuple[list[tuple[str, int, int]], list[str]]:
    """Segment and store the runs `opt` selects. Returns (run, passes, kernels in a pass) per run, and the
    notes of the segmentation (also kept in the `segmentations` table)."""
    sql.run(con, "persist_reset")
    notes, attributed, has_host, per_phase = [], False, None, {}
    snapshots.forget(con, resolve_runs(con, opt.runs, opt.tags))
    for b in segment.each_phase(con, opt, first=True, kept=True):
        assignment.assign(con, b, assignment.select_passes(con, b, ALL_PASSES))
        if has_host is None:
            has_host = sql.run(con, "persist_host_events", {"run_ids": b.run_ids}).fetchone()[0]
        if has_host:   # one attribution of every kernel serves the modules and the categories by module
            if not attributed:
                attribution.attribute(con, b)
                attributed = True
            attribution.categorize_by_module(con, b, attributed=True)
        elif not attributed:
            sql.run(con, "attribute_none")
            attributed = True
        # this phase's kernels, with their pass's step and micro-batch
        sql.run(con, "persist_phase_kernels", {"phase": b.phase})
        # each layer's stages and kind, after the categories by module they read
        stages.assign_stages(con, b)
        sql.run(con, "persist_phase_layers", {"phase": b.phase})
        per_phase[b.phase] = unit_notes.unit_times(con, b)
        notes += [n for n in b.notes if n not in notes]
    b.notes = notes + unit_notes.coverage_notes(b, per_phase)
    options = {"profile": b.profile.name, "anchor": b.anchor, "layers": b.layers,
               "blocks_per_layer": b.blocks_per_layer, "layer_offset": b.layer_offset, "window": b.window,
               "pass_gap": b.pass_gap, "config": opt.config, "passes": b.pass_rule()}
    stages_of = pipeline.stage_table(con, b.run_ids)
    # a run's layers: the most a forward pass holds (a backward one's when it has none)
    layers = dict(sql.run(con, "persist_layers").fetchall())
    bases = pipeline.model_layers(con, layers)
    b.notes += _model_layer_notes(b, stages_of, bases, layers)
    con.execute("BEGIN")
    try:
        sql.run(con, "segment_save", {"run_ids": b.run_ids, "options": json.dumps(options),
                                      "notes": _notes_of_each(b.notes, [b.run_names[r] for r in b.run_ids]),
                                      "version": __version__})
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    counts = sql.run(con, "persist_counts", {"run_ids": b.run_ids}).fetchall()
    by_run = {r: (p, n) for r, p, n in counts}
    return [(b.run_names[r], *by_run.get(r, (0, 0))) for r in b.run_ids], list(b.notes)


# a note about one run names it first (as engine/rendering/run_notes.py reads them, a room this one may not
# import); the others are about the runs together
_OF_RUN = re.compile(r"run '([^']*)': ")


def _notes_of_each(notes: list[str], names: list[str]) -> list[list[str]]:
    """Each run's notes for its row of `segmentations`: its own and those about no run in particular. With
    every note on every row, a 1,024-rank job kept its ~5,100 notes 1,024 times: 540 MB of the store, and most
    of the 52 s and 6.7 GB of `tracedb segment`, committing them."""
    general, own = [], {}
    for i, note in enumerate(notes):
        run = m.group(1) if (m := _OF_RUN.match(note)) else None
        (general if run is None else own.setdefault(run, [])).append(i)
    return [[notes[i] for i in sorted(general + own.get(name, []))] for name in names]


def _model_layer_notes(b, stages_of: dict, bases: dict, layers: dict) -> list[str]:
    """One note on the pipeline stages: which model layers each stage's layers are (its ranks alike), and
    whether the layer count of an earlier stage none of whose ranks is here was assumed (model_layers.sql).
    A note per rank read as one merged note of ranges ('model layers 0–14-13–27') once `segment` said what
    ranks share once."""
    if not bases:
        return []
    alike: dict[tuple, list[str]] = {}
    for rid, (base, assumed) in sorted(bases.items()):
        stage, stages = stages_of[rid]
        alike.setdefault((stage, stages, base, layers.get(rid), assumed), []).append(f"'{b.run_names[rid]}'")
    parts, assumed_any = [], False
    for (stage, stages, base, n, assumed), names in sorted(alike.items(), key=lambda kv: kv[0][:3]):
        runs = ", ".join(names) if len(names) <= 5 else ", ".join(names[:4]) + f" and {len(names) - 4} more"
        span = f"model layers {base}-{base + n - 1}" if n else f"from model layer {base}"
        parts.append(f"stage {stage} of {stages} ({runs}): {span}" + (" (assumed)" if assumed else ""))
        assumed_any = assumed_any or assumed
    return ["pipeline stages, their layers 0.. in the model (kernel_layers.model_layer): " + "; ".join(parts)
            + ("; (assumed): the earlier stages' layer counts taken equal to this stage's (none of their ranks is "
               "segmented here; the trace does not say how the model was split)" if assumed_any else "")]
