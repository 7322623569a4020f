"""Stage 4, the layer assignment of chosen passes (sql/segment/segment_assign.sql: TEMP _assigned), and the
choice of passes for `--pass N|all|steady|auto|mean`, which the layer-0 walls of an assignment of every pass
decide (the steady pass: the first whose layer-0 wall is within 5 % of the previous pass's)."""
import statistics

from tracedb import sql
from tracedb.engine.segmentation.binding import Bound
from tracedb.engine.segmentation.categories import categorize_kernels
from tracedb.engine.segmentation.words import PassSpec
from tracedb.errors import UsageError

STEADY_TOLERANCE = 0.05   # --pass steady: layer-0 wall within 5 % of the previous pass's


def assign_none(con):
    """_assigned empty (sql/segment/assign_none.sql): a report run without passes reads every kernel as in none."""
    sql.run(con, "assign_none")


def assign(con, b: Bound, selection: list[tuple[int, int]]):
    """Stage 4 for the given (run_id, pass) pairs: creates _assigned."""
    # one statement over lists: executemany costs ~0.7 ms a row (1.2 s for 1,700 passes)
    sql.run(con, "assignment_sel", {"run_ids": [r for r, _ in selection], "passes": [p for _, p in selection]})
    if b.stored:      # every pass was assigned when it was kept: a pass's layers depend on that pass alone;
        sql.run(con, "segment_assign_kept")   # its _cats came back with it (same runs and profile)
        return
    categorize_kernels(con, b)
    if b.phase == "backward":     # the norm gradients whose names do not say so, for the backward layer boundaries
        sql.run(con, "backward_norm_grads", {"run_ids": b.run_ids})
    else:
        sql.run(con, "assignment_no_bwd_norm")
    lo, hi = sql.run(con, "assignment_win_range").fetchone()
    sql.run(con, "segment_assign", {**b.params(), "win_lo": lo, "win_hi": hi})


def select_passes(con, b: Bound, spec: PassSpec, fallbacks: set | None = None) -> list[tuple[int, int]]:
    """(run_id, pass) pairs for `--pass N|all|steady|auto|mean`, after find_passes (mean: every pass
    averaged; auto: the steady pass, else the run's last full pass, and the run goes into `fallbacks`)."""
    allp = sql.run(con, "assignment_passes").fetchall()
    if spec.word == "all":
        return [(r, p) for r, p, _ in allp]
    if spec.chosen:
        walls, sim, out = layer0_walls(con, b), simulated_runs(con, b.run_ids), []
        for rid in b.run_ids:
            if spec.word == "mean" or rid in sim:
                picked = steady_passes(con, b, rid, walls, rid in sim)
            elif spec.word == "auto":
                picked = [_steady_or_last(con, b, rid, walls, allp, fallbacks)]
            else:
                picked = [steady_pass(con, b, rid, walls)]
            out += [(rid, p) for p in (picked if spec.word == "mean" else picked[:1])]
        return out
    n = spec.number
    out = []
    passes = {}
    for r, _, _ in allp:
        passes[r] = passes.get(r, 0) + 1
    for rid in b.run_ids:
        count = passes.get(rid, 0)
        if not 0 <= n < count:
            raise UsageError(f"run '{b.run_names[rid]}' has {count} passes (0..{count - 1}); --pass {n} does not exist")
        out.append((rid, n))
    return out


def _steady_or_last(con, b: Bound, rid: int, walls: dict, allp: list, fallbacks: set | None) -> int:
    """The steady pass, else the last full pass (the last pass when all are partial) among `allp`
    (run_id, pass, partial): a trace of one or two passes, as a profiler often records, has no steady pass."""
    try:
        return steady_pass(con, b, rid, walls)
    except UsageError:
        if fallbacks is not None:
            fallbacks.add(rid)
        full = [p for r, p, partial in allp if r == rid and not partial]
        return max(full or [p for r, p, _ in allp if r == rid], default=None)


def simulated_runs(con, run_ids) -> set[int]:
    """Runs tagged kind=simulated (or kind=predicted): a performance model's trace has no cold start, so
    each of its full passes is steady."""
    return {r for (r,) in sql.run(con, "run_kinds", {"run_ids": list(run_ids)}).fetchall()}


def steady_passes(con, b: Bound, rid: int, walls: dict, simulated: bool = False) -> list[int]:
    """The passes `--pass mean` averages: every full pass from the steady pass on whose layer-0 wall is
    within 5 % of the median layer-0 wall of those passes (the lower middle value for an even count, so
    the median is a pass of its own and the list is never empty); for a simulated run every full pass."""
    full = [p for p, partial in sql.run(con, "assignment_run_passes", {"run_id": rid}).fetchall()
            if not partial and (rid, p) in walls]
    if simulated:
        if not full:
            raise UsageError(f"run '{b.run_names[rid]}' (simulated) has no full pass")
        return full
    first = steady_pass(con, b, rid, walls)
    later = [p for p in full if p >= first]
    median = statistics.median_low(walls[(rid, p)] for p in later)
    return [p for p in later if abs(walls[(rid, p)] - median) <= STEADY_TOLERANCE * median]


def layer0_walls(con, b: Bound) -> dict[tuple[int, int], int]:
    """Layer-0 wall time (ns) of every pass: from a layer assignment of all passes."""
    assign(con, b, [tuple(r) for r in sql.run(con, "assignment_all_passes").fetchall()])
    return {(r, p): w for r, p, w in sql.run(con, "assignment_layer0_walls").fetchall()}


def steady_pass(con, b: Bound, rid: int, walls: dict | None = None) -> int:
    """The first full pass after the first two whose layer-0 wall is within 5 % of the previous pass's."""
    walls = walls if walls is not None else layer0_walls(con, b)
    passes = sql.run(con, "assignment_run_passes", {"run_id": rid}).fetchall()
    partial = {p for p, part in passes if part}
    for p, _ in passes:
        prev, cur = walls.get((rid, p - 1)), walls.get((rid, p))
        if p >= 2 and p not in partial and p - 1 not in partial and prev and cur is not None \
                and abs(cur - prev) <= STEADY_TOLERANCE * prev:
            return p
    listing = ", ".join(f"{p}: {walls[(rid, p)] / 1000:.3f}" for p, _ in passes if (rid, p) in walls)
    raise UsageError(f"run '{b.run_names[rid]}': no steady pass (a full pass >= 2 whose layer-0 wall is within "
                     f"5% of the previous one); layer-0 wall us by pass: {listing or 'none'}. Pick one with --pass N")
