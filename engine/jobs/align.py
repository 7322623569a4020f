"""Clock alignment of a job's ranks on their collectives.

Each rank's profiler stamps events with its own host's clock; across hosts those clocks differ by
microseconds to milliseconds, more than the skews a cross-rank report looks for. A collective ends almost
together on every member (NCCL's ring or tree delivers the last chunk to all ranks within a link latency,
~1-10 µs), so its end is a shared event: for the instances matched across ranks (collectives_match.sql),
the median over instances of (end on the anchor rank - end on this rank) is the offset between two clocks
(align_edges.sql says why the median). Every run gets the ns to ADD to its timestamps so that it reads the
reference rank's clock: the reference is the run of lowest rank. A rank that shares no instance with the
reference (a TP group of ranks 2-3 when rank 0 is in TP group 0-1) is reached by chaining through shared ranks
(0 -> 2 over a DP group, then 2 -> 3 over their TP group), the pairs with most shared instances first. Ranks
that no chain reaches (a profile of TP groups only) form sets of their own, each aligned to its lowest rank:
every collective instance lies in one set, so its figures hold; times of two sets are not compared.

What is left after alignment, the residual, is the largest spread of one instance's aligned ends. Two runs that claim
one rank (two copies of rank 0) are in no instance (collectives_match.sql): they get no offset, and the note names
them."""
import contextlib
import heapq
from dataclasses import dataclass, field

from tracedb import sql
from tracedb.engine.rendering.run_notes import listed


# Alignment whose collective ends still spread by more than this after the offsets is not trusted: the
# instances of such ranks get no cross-rank figures (the shared Megatron job aligns to 28 us, generated jobs
# to 0).
RESIDUAL_BOUND_NS = 1_000_000
# Ranks a note names before "and N more" (a 128-rank job's offsets would fill a screen).
NAMED = 8


@dataclass
class Alignment:
    offsets: dict = field(default_factory=dict)   # run_id -> ns to ADD to that run's timestamps
    residual_ns: int | None = None                 # spread of collective ends left after alignment
    aligned: bool = False                          # False: raw clocks (no collectives, or --no-align)
    note: str = "clocks not aligned"               # one line for the report's notes
    reference: int | None = None                   # the run whose clock the others are moved to
    instances: int = 0                             # collective instances the offsets rest on
    on_clock: list = field(default_factory=list)   # runs whose times are comparable: the reference's clock (and
                                                   # the runs of a rank two claim, in no instance: see estimate)
    clock_set: dict = field(default_factory=dict)  # run_id -> the run whose clock it reads (a set's lowest rank;
                                                   # a run of a rank two claim: itself)
    why_not: str = ""                              # why the other runs' instances have no cross-rank figures


def rank_offsets(con, run_ids: list[int], align: bool = True, profile: str | None = None) -> Alignment:
    """Offsets of `run_ids` (a job's runs) from their communication ops; TEMP _coll_ops, _coll_match and
    _coll_aligned are left in `con` for the report that asked (engine/jobs/collectives.py)."""
    prepare(con, run_ids, profile)
    return estimate(con, run_ids, align)


def prepare(con, run_ids: list[int], profile: str | None = None):
    """_coll_ops and _coll_match of the runs: their communication ops, as every report recognises them
    (the profile's communication category, default generic), keyed for matching."""
    from tracedb.engine.segmentation import profiles
    from tracedb.engine.segmentation import binding, categories
    names = dict(sql.run(con, "run_names", {"run_ids": run_ids}).fetchall())
    b = binding.Bound(run_ids=list(run_ids), run_names=names, profile=profiles.load(profile or "generic"), anchor="",
                      layers=None, blocks_per_layer=1, layer_offset=0, window="full", pass_gap=None)
    with _kept(con, ("_names", "_rules", "_cats")):   # a caller's categories (report ranks) stay as they were
        categories.categorize_kernels(con, b)
        sql.run(con, "collectives_ops", {"run_ids": list(run_ids)})
    sql.run(con, "collectives_match")


@contextlib.contextmanager
def _kept(con, tables):
    """TEMP tables of the caller's segmentation that categorize_kernels replaces, restored afterwards."""
    have = {r[0] for r in sql.run(con, "temp_tables").fetchall()}
    saved = [t for t in tables if t in have]
    for t in saved:
        sql.run(con, "align_keep", saved=sql.ident(f"{t}_align_saved"), table=sql.ident(t))
    try:
        yield
    finally:
        for t in saved:
            sql.run(con, "align_restore", saved=sql.ident(f"{t}_align_saved"), table=sql.ident(t))


def estimate(con, run_ids: list[int], align: bool = True) -> Alignment:
    """The offsets from _coll_match (see the module's docstring); applied in _coll_aligned."""
    ranks = dict(sql.run(con, "run_ranks", {"run_ids": run_ids}).fetchall())
    names = dict(sql.run(con, "run_names", {"run_ids": run_ids}).fetchall())
    # runs of a rank another run claims too are in no instance (collectives_match.sql): no clock is estimated for
    # them, none is the reference, each is a clock set of its own; they count as on the clock only so that no
    # report flags an instance of theirs (they have none) or names them as unaligned: the note says why instead
    claimed = sql.run(con, "align_claims").fetchall()
    asked = set(run_ids)
    copies = {r for _, ids, _ in claimed for r in ids if r in asked}
    said = _claims_note(claimed)
    by_rank = lambda r: (ranks.get(r) is None, ranks.get(r) or 0, r)   # noqa: E731
    ref = min([r for r in run_ids if r not in copies] or run_ids, key=by_rank)
    offsets = {r: 0 for r in run_ids}
    edges = sql.run(con, "align_edges").fetchall() if align else []
    if not align or not edges:
        _apply(con, offsets)
        why = "--no-align" if not align else "no collective matched across ranks that alignment can use"
        # --no-align: the user takes the raw clocks as one; otherwise nothing says they are
        return Alignment(offsets=offsets, reference=ref,
                         note=f"clocks are raw ({why}): each rank's own timestamps" + said,
                         on_clock=list(run_ids) if not align else sorted({ref} | copies),
                         clock_set={r: (r if r in copies else ref) for r in run_ids},
                         why_not="clocks not aligned: no collective shared with the other ranks to align on")
    # each set of ranks that share collectives (a TP group of 8 when only TP groups communicate) is aligned to
    # its own lowest rank: an instance's members are always in one such set, so its figures hold, while times
    # of two sets are on clocks nothing relates
    order = sorted([r for r in run_ids if r not in copies], key=by_rank)
    linked = {x for a, r, _, _ in edges for x in (a, r)}
    reached, refs, clock_set = set(), [], {r: (r if r in copies else ref) for r in run_ids}
    for r in order:
        if r not in reached and (r == ref or r in linked):
            refs.append(r)
            mine = _chain(r, edges, offsets)
            clock_set.update({m: r for m in mine})
            reached |= mine
    _apply(con, offsets)
    residual, used = sql.run(con, "align_residual").fetchone()
    if residual > RESIDUAL_BOUND_NS:
        reached, why_not = {ref}, (f"clocks not aligned: residual {residual / 1000:,.3f} us "
                                   f"over {RESIDUAL_BOUND_NS // 1000:,} us")
        clock_set = {r: (r if r in copies else ref) for r in run_ids}
    else:
        why_not = "clocks not aligned: this rank shares no collective with the others"
    moved = [r for r in run_ids if r not in refs and r in reached]
    shown = listed([f"{names[r]} {offsets[r] / 1000:+,.3f}" for r in moved], NAMED)
    alone = [names[r] for r in run_ids if r not in reached and r not in copies]
    where = (f"to {names[ref]}'s clock" if len(refs) == 1 else
             f"in {len(refs)} sets of ranks that share collectives, each to its lowest rank's clock "
             f"({listed([names[r] for r in refs], NAMED)}); times of two sets are not compared")
    note = (f"clocks aligned on {used:,} collectives {where} (offsets in us added: {shown}); "
            f"residual spread of collective ends {residual / 1000:,.3f} us")
    if alone:
        note += f"; no collective shared with the others, left raw: {listed(alone, NAMED)}"
    return Alignment(offsets=offsets, residual_ns=residual, aligned=True, note=note + said, reference=ref,
                     instances=used, on_clock=sorted(reached | copies), why_not=why_not, clock_set=clock_set)


def _claims_note(claimed) -> str:
    """What the alignment's note says of ranks two runs claim (align_claims.sql); '' when none."""
    if not claimed:
        return ""
    said = [f"runs {_and([repr(n) for n in names])} {'both' if len(names) == 2 else 'all'} claim rank {rank}"
            for rank, _, names in claimed]
    return ("; " + "; ".join(said[:NAMED]) + (f"; and {len(said) - NAMED} more ranks" if len(said) > NAMED else "")
            + ": two runs of one rank are matched with no one (which of them is the rank is not known), so their "
              "collectives are left out; select one with --run, or untag the other: tracedb runs tag RUN --untag job")


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _chain(ref: int, edges, offsets: dict) -> set:
    """Offsets by a spanning tree grown from `ref` over the (anchor, run, diff, instances) edges, the edge of
    most shared instances first (Prim): offset[run] = offset[anchor] + diff, and back. Returns the runs reached."""
    # the edges that leave the tree in a heap, by most instances, then by their order in `edges` (a scan of every
    # edge per run reached took 0.33 s at 1,024 ranks); an edge whose far end was reached meanwhile is skipped
    touching: dict[int, list] = {}
    for i, (a, r, diff, n) in enumerate(edges):
        touching.setdefault(a, []).append((-n, i, 0, r, int(diff)))
        touching.setdefault(r, []).append((-n, i, 1, a, -int(diff)))
    reached, heap = set(), []

    def reach(run: int):
        reached.add(run)
        for key, i, side, other, diff in touching.get(run, ()):
            if other not in reached and other in offsets:
                heapq.heappush(heap, (key, i, side, other, offsets[run] + diff))

    reach(ref)
    while heap:
        _, _, _, other, offset = heapq.heappop(heap)
        if other not in reached:
            offsets[other] = offset
            reach(other)
    return reached


def _apply(con, offsets: dict):
    runs = list(offsets)
    sql.run(con, "align_apply", {"offset_runs": runs, "offsets": [int(offsets[r]) for r in runs]})
