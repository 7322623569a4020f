"""Graph replays attributed through their capture: before module attribution (sql/segment/attribute_modules.sql),
the graph replays of runs paired with a graph capture (engine/loading/captures.py) are matched to the captured
graphs (sql/segment/graph_capture_match.sql), so that each replayed kernel takes the frames of the launch call
that captured it; the notes say how many matched and name those that did not."""
from tracedb import sql

SHOWN = 3       # unmatched replays named in a note; the rest are counted


def match(con, b):
    """TEMP _graph_launches for attribute_modules.sql, when a run of `b` has a paired capture; the notes
    (once each) in b.notes."""
    ids = sql.run(con, "graph_capture_paired", {"run_ids": b.run_ids}).fetchone()[0]
    if not ids:
        return
    sql.run(con, "graph_capture_match", {"run_ids": ids})
    try:
        for note in notes(con, b.run_names):
            if note not in b.notes:
                b.notes.append(note)
    finally:
        sql.run(con, "graph_capture_drop")


def notes(con, run_names: dict) -> list[str]:
    """What _graph_replays says, per replay run: how many graph replays matched which capture, the launches set
    aside, the replays that match no captured graph, a capture without kernel names."""
    out = []
    rows = sql.run(con, "graph_capture_notes").fetchall()
    for rid, graphs, matched, kernels, aside, unnamed, caps in rows:
        run = run_names.get(rid, rid)
        capture = f"graph capture{'s' if len(caps) > 1 else ''} {', '.join(repr(c) for c in caps)}"
        out.append(f"run '{run}': {matched:,} of {graphs:,} graph replays ({kernels:,} kernels) matched to the "
                   f"launch calls of its {capture}: their kernels take the op, annotation and module that captured "
                   "them, as if launched eagerly")
        if aside:
            out.append(f"run '{run}': its {capture} launched {aside:,} kernel{'s' if aside != 1 else ''} that the "
                       "replays of that graph do not run: set aside")
        if unnamed:
            out.append(f"run '{run}': the launch calls of its {capture} name no kernel (CUDA's runtime writes none, or "
                       f"the capture was not ingested with --capture): {unnamed:,} graph replays matched by kernel "
                       "count and order only")
        if matched < graphs:
            out.append(_unmatched(con, rid, run, capture, graphs - matched))
    return out


def _unmatched(con, rid: int, run: str, capture: str, n: int) -> str:
    """The note naming the replays of run `rid` that no captured graph matches, and why."""
    rows = sql.run(con, "graph_capture_unmatched", {"run_id": rid, "shown": SHOWN}).fetchall()
    said = []
    for at, kernels, nearest, differs, geometry in rows:
        where = f"the graph launch at {at / 1e6:,.3f} ms ({kernels:,} kernels)"
        if geometry:
            why = f"{geometry:,} of its kernels differ in grid or block from the launches that captured them"
        elif nearest is None:
            why = "the capture holds no captured graph"
        elif differs is not None:
            why = f"the captured graph of as many launches launched {differs!r} another number of times"
        else:
            why = f"no captured graph launched as many kernels (nearest: {nearest:,})"
        said.append(f"{where}: {why}")
    more = f"; and {n - len(rows):,} more" if n > len(rows) else ""
    return (f"run '{run}': {n:,} graph replays match no captured graph of its {capture} and keep the graph launch's "
            f"frames: {'; '.join(said)}{more}")
