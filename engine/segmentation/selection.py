"""Which passes a report covers, and the notes that say so: the passes `--pass` picked (steady, auto and
mean name theirs) and, in the strict window, a last layer cut short at its anchor."""
from tracedb import sql
from tracedb.engine.segmentation import assignment
from tracedb.engine.segmentation.words import PassSpec
def select_noted(con, b, spec: PassSpec) -> list[tuple[int, int]]:
    """assignment.select_passes, with a note naming the passes `steady`, `auto` and `mean` chose for each run."""
    fallbacks = set()
    sel = assignment.select_passes(con, b, spec, fallbacks)
    if spec.chosen:
        picked = {rid: [] for rid in b.run_ids}
        for r, p in sel:
            picked[r].append(p)
        sim = assignment.simulated_runs(con, b.run_ids)
        how = {r: "" if spec.word != "auto" else
               (" (no steady pass: the last full one)" if r in fallbacks else " (steady)") for r in picked}
        head = {"steady": "steady pass: ", "auto": "pass: ", "mean": "mean of the steady passes: "}[spec.word]
        b.notes.append(head + "; ".join(
            f"{b.run_names[r]}{' (simulated)' if r in sim else ''} -> pass{'es' if len(ps) > 1 else ''} "
            f"{', '.join(map(str, ps))}{how[r]}" for r, ps in picked.items()))
    return sel


def flag_short_last_layer(con, b):
    """Strict window: say so when the last layer holds only its anchor's neighbourhood (one example)."""
    if b.window != "strict":
        return
    rows = sql.run(con, "segment_last_layer").fetchall()
    if rows:
        rid, p, layer, n, med = rows[0]
        b.notes.append(f"strict window: the last layer of a pass ends at its anchor, so its work after the anchor "
                       f"is not counted: run '{b.run_names[rid]}' pass {p} layer {layer} holds {n} kernel"
                       f"{'s' if n != 1 else ''} where its other layers hold {med:g} (median)"
                       + (f"; {len(rows)} passes alike" if len(rows) > 1 else "") + "; --window full counts it")
