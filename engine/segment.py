"""Bind a profile and the command-line options to the runs, then run the SQL segmentation stages.

Every stage is a file in sql/ creating TEMP tables in the session (the store itself is never written):
segment_anchors -> segment_passes -> segment_windows -> segment_assign. This module only decides
parameters, checks them, and picks passes (`N`, `all`, `steady`, `mean`)."""
import statistics
from dataclasses import dataclass, field

import duckdb

from tracedb import sql
from tracedb.engine import profiles
from tracedb.engine.store import resolve_runs
from tracedb.errors import NoAnchor, UsageError

STEADY_TOLERANCE = 0.05   # --pass steady: layer-0 wall within 5 % of the previous pass's


@dataclass
class Options:
    """What a report was asked for, before it is bound to a store."""
    runs: list[str] = field(default_factory=list)      # names or GLOBs
    tags: list[str] = field(default_factory=list)      # KEY=VALUE or KEY filters
    profile: str | None = None
    anchor: str | None = None
    layers: int | None = None
    blocks_per_layer: int | None = None
    layer_offset: int | None = None
    window: str = "strict"
    pass_gap: float = 10.0
    config: str | None = None


@dataclass
class Bound:
    """Options resolved against the store and the profile: what the SQL stages receive."""
    run_ids: list[int]
    run_names: dict[int, str]
    profile: profiles.Profile
    anchor: str
    layers: int | None
    blocks_per_layer: int
    layer_offset: int
    window: str
    pass_gap: float
    layer_types: list[str] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def per_pass(self) -> int | None:
        return self.layers * self.blocks_per_layer if self.layers else None

    def params(self) -> dict:
        return {"run_ids": self.run_ids, "anchor": self.anchor, "per_pass": self.per_pass,
                "gap_factor": float(self.pass_gap), "window": self.window, "layer_offset": self.layer_offset,
                "blocks_per_layer": self.blocks_per_layer}


def bind(con, opt: Options) -> Bound:
    if opt.window not in ("strict", "full"):
        raise UsageError(f"--window {opt.window!r}: expected strict or full")
    if opt.pass_gap <= 0:
        raise UsageError("--pass-gap must be positive")
    ids = resolve_runs(con, opt.runs, opt.tags)
    prof = profiles.load(opt.profile or "generic")
    cfg = profiles.model_config(opt.config) if opt.config else {}
    anchor = opt.anchor or prof.anchor
    proposal_notes = []
    if not anchor:
        anchor, proposal_notes = propose_anchor(con, prof, ids, opt, cfg)
    check_regex(con, anchor, "--anchor")
    for cat, pat in prof.rules:
        check_regex(con, pat, f"profile {prof.source} category {cat}")
    names = dict(con.execute("SELECT run_id, name FROM runs WHERE run_id IN (SELECT unnest($ids))", {"ids": ids}).fetchall())
    b = Bound(run_ids=ids, run_names=names, profile=prof, anchor=anchor,
              layers=opt.layers or cfg.get("layers") or prof.layers,
              blocks_per_layer=opt.blocks_per_layer or prof.blocks_per_layer,
              layer_offset=prof.layer_offset if opt.layer_offset is None else opt.layer_offset,
              window=opt.window, pass_gap=opt.pass_gap, layer_types=cfg.get("layer_types"), notes=proposal_notes)
    if b.layers is not None and b.layers < 1 or b.blocks_per_layer < 1 or b.layer_offset < 0:
        raise UsageError("--layers and --blocks-per-layer must be >= 1, --layer-offset >= 0")
    if not opt.anchor and prof.anchor_fallback:
        b.anchor = _pick_anchor(con, b, prof.anchor, prof.anchor_fallback)
    return b


def bind_runs(con, runs, tags=()) -> Bound:
    """The runs alone, for reports that need no segmentation (cores, modules without an anchor)."""
    ids = resolve_runs(con, runs, tags)
    names = dict(con.execute("SELECT run_id, name FROM runs WHERE run_id IN (SELECT unnest($i))", {"i": ids}).fetchall())
    return Bound(run_ids=ids, run_names=names, profile=profiles.load("generic"), anchor="", layers=None,
                 blocks_per_layer=1, layer_offset=0, window="strict", pass_gap=10.0)


def propose_anchor(con, prof, run_ids, opt, cfg) -> tuple[str, list[str]]:
    """No anchor given: per run, the attention kernel whose count per pass (passes found by gaps) is the
    most steady, equal to the layer count when one is known. Returns an exact-name pattern and notes
    saying what was chosen and why; refuses when no attention kernel repeats steadily."""
    import re
    want = (opt.layers or cfg.get("layers") or prof.layers)
    bpl = opt.blocks_per_layer or prof.blocks_per_layer
    names, notes = [], []
    for rid in run_ids:
        run = con.execute("SELECT name FROM runs WHERE run_id = $r", {"r": rid}).fetchone()[0]
        pairs = con.execute("SELECT DISTINCT name, op_type FROM kernels WHERE run_id = $r", {"r": rid}).fetchall()
        categorize(con, prof, pairs)
        every = sql.run(con, "anchor_candidates", {"run_id": rid, "gap_factor": float(opt.pass_gap)}).fetchall()
        cands = [c for c in every if not want or c[3] == want * bpl]
        good = [c for c in cands if c[4] * 2 >= c[2]]   # the count holds in most passes
        if not good:
            seen = ", ".join(f"{n[:60]} ({per}/pass in {st} of {ps} passes)" for n, _, ps, per, st in every[:3])
            raise NoAnchor(f"run '{run}': no anchor given and no attention kernel repeats a steady number of "
                           f"times per pass{f' equal to {want} layers' if want else ''}"
                           f"{'; candidates: ' + seen if seen else ''}. Give --anchor REGEX")
        name, occ, passes, per, steady = good[0]
        names.append(name)
        notes.append(f"run '{run}': anchor chosen: {name[:80]!r} — an attention kernel seen {per} times in "
                     f"{steady} of {passes} passes (found by gaps){'' if want else '; pass --layers to check'}")
    pattern = "^(" + "|".join(re.escape(n) for n in dict.fromkeys(names)) + ")$"
    return pattern, notes


def check_regex(con, pattern, what):
    try:
        con.execute("SELECT regexp_matches('', $p)", {"p": pattern})
    except duckdb.Error as e:
        raise UsageError(f"{what} {pattern!r}: not a valid RE2 pattern ({str(e).splitlines()[0]})") from None


def _pick_anchor(con, b, primary, fallback):
    """The profile's anchor, or its fallback when the primary matches nothing in these runs."""
    sql.run(con, "segment_anchors", {"run_ids": b.run_ids, "anchor": primary})
    if con.execute("SELECT count(*) FROM _anchors").fetchone()[0]:
        return primary
    b.notes.append(f"no kernel matches {primary!r}; using the profile's fallback anchor {fallback!r}")
    return fallback


def find_passes(con, b: Bound):
    """Stages 1-3: anchors, passes, windows for every pass of the bound runs. Raises when a run has no
    anchor, naming its most frequent kernels so the user can pick one."""
    p = b.params()
    sql.run(con, "segment_anchors", p)
    found = dict(con.execute("SELECT run_id, count(*) FROM _anchors GROUP BY run_id").fetchall())
    for rid in b.run_ids:
        if not found.get(rid):
            top = con.execute(sql.load("top_names"), {"run_id": rid}).fetchall()
            raise NoAnchor(f"run '{b.run_names[rid]}': no kernel name or op type matches anchor {b.anchor!r}; "
                           f"most frequent: {', '.join(f'{n} ({c})' for n, c in top)}")
    sql.run(con, "segment_passes", p)
    if b.per_pass:
        for rid, gap_starts, misplaced in sql.run(con, "segment_check", p).fetchall():
            if misplaced:
                b.notes.append(f"run '{b.run_names[rid]}': {misplaced} of {gap_starts} large anchor gaps fall inside a "
                               f"counted pass of {b.per_pass} anchors; the trace may start mid-pass or the layer "
                               "count may be wrong (without --layers, passes are found by gaps)")
    sql.run(con, "segment_windows", p)
    _load_rules(con, b.profile)


def categorize(con, prof: profiles.Profile, pairs: list[tuple[str, str | None]]) -> list[str]:
    """Category of each (name, op_type) under a profile's rules: the SQL every report uses."""
    _load_rules(con, prof)
    con.execute("CREATE OR REPLACE TEMP TABLE _names AS SELECT unnest($n) AS name, unnest($o) AS op_type",
                {"n": [n for n, _ in pairs], "o": [o for _, o in pairs]})
    sql.run(con, "categories")
    got = {(n, o): c for n, o, c in con.execute("SELECT name, op_type, category FROM _cats").fetchall()}
    return [got[(n, o)] for n, o in pairs]


def _load_rules(con, prof):
    order = {c: i for i, c in enumerate(prof.categories)}
    rules = prof.rules + [("other", None)]   # NULL pattern: never matches, only names the column
    con.execute("CREATE OR REPLACE TEMP TABLE _rules AS SELECT unnest(range(len($c)))::INTEGER AS ord, "
                "unnest($c) AS category, unnest($p) AS pattern, unnest($o)::INTEGER AS cat_ord",
                {"c": [c for c, _ in rules], "p": [p for _, p in rules], "o": [order[c] for c, _ in rules]})


def assign(con, b: Bound, selection: list[tuple[int, int]]):
    """Stage 4 for the given (run_id, pass) pairs: creates _assigned."""
    # one statement over lists: executemany costs ~0.7 ms a row (1.2 s for 1,700 passes)
    con.execute("CREATE OR REPLACE TEMP TABLE _sel AS SELECT unnest($r)::INTEGER AS run_id, unnest($p)::BIGINT AS pass",
                {"r": [r for r, _ in selection], "p": [p for _, p in selection]})
    con.execute("CREATE OR REPLACE TEMP TABLE _names AS SELECT DISTINCT name, op_type FROM kernels "
                "WHERE run_id IN (SELECT unnest($r))", {"r": b.run_ids})
    sql.run(con, "categories")
    lo, hi = con.execute("SELECT min(win_start), max(win_end) FROM _windows JOIN _sel USING (run_id, pass)").fetchone()
    sql.run(con, "segment_assign", {**b.params(), "win_lo": lo, "win_hi": hi})


def select_passes(con, b: Bound, spec: str, fallbacks: set | None = None) -> list[tuple[int, int]]:
    """(run_id, pass) pairs for `--pass N|all|steady|auto|mean`, after find_passes (mean: every pass
    averaged; auto: the steady pass, else the run's last full pass, and the run goes into `fallbacks`)."""
    spec = str(spec).strip().lower()
    allp = con.execute("SELECT run_id, pass, partial FROM _passes ORDER BY run_id, pass").fetchall()
    if spec == "all":
        return [(r, p) for r, p, _ in allp]
    if spec in ("steady", "auto", "mean"):
        walls, sim, out = layer0_walls(con, b), simulated_runs(con, b.run_ids), []
        for rid in b.run_ids:
            if spec == "mean" or rid in sim:
                picked = steady_passes(con, b, rid, walls, rid in sim)
            elif spec == "auto":
                picked = [_steady_or_last(con, b, rid, walls, allp, fallbacks)]
            else:
                picked = [steady_pass(con, b, rid, walls)]
            out += [(rid, p) for p in (picked if spec == "mean" else picked[:1])]
        return out
    if not spec.lstrip("-").isdigit():
        raise UsageError(f"--pass {spec!r}: expected a pass number, all, steady, auto or mean")
    n = int(spec)
    out = []
    for rid in b.run_ids:
        count = sum(1 for r, _, _ in allp if r == rid)
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
    full = [p for p, partial in con.execute("SELECT pass, partial FROM _passes WHERE run_id = $r ORDER BY pass",
                                            {"r": rid}).fetchall() if not partial and (rid, p) in walls]
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
    assign(con, b, [tuple(r) for r in con.execute("SELECT run_id, pass FROM _passes").fetchall()])
    return {(r, p): w for r, p, w in con.execute(
        "SELECT run_id, pass, max(end_ns) - min(start_ns) FROM _assigned WHERE layer = 0 GROUP BY ALL").fetchall()}


def steady_pass(con, b: Bound, rid: int, walls: dict | None = None) -> int:
    """The first full pass after the first two whose layer-0 wall is within 5 % of the previous pass's."""
    walls = walls if walls is not None else layer0_walls(con, b)
    passes = con.execute("SELECT pass, partial FROM _passes WHERE run_id = $r ORDER BY pass", {"r": rid}).fetchall()
    partial = {p for p, part in passes if part}
    for p, _ in passes:
        prev, cur = walls.get((rid, p - 1)), walls.get((rid, p))
        if p >= 2 and p not in partial and p - 1 not in partial and prev and cur is not None \
                and abs(cur - prev) <= STEADY_TOLERANCE * prev:
            return p
    listing = ", ".join(f"{p}: {walls[(rid, p)] / 1000:.3f}" for p, _ in passes if (rid, p) in walls)
    raise UsageError(f"run '{b.run_names[rid]}': no steady pass (a full pass >= 2 whose layer-0 wall is within "
                     f"5% of the previous one); layer-0 wall us by pass: {listing or 'none'}. Pick one with --pass N")
