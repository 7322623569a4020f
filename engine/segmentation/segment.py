"""Bind a profile and the command-line options to the runs, then run the SQL segmentation stages.

Every stage is a file in sql/ creating TEMP tables in the session (the store itself is never written):
segment_anchors -> segment_passes -> segment_windows -> segment_assign. This module only decides
parameters, checks them, explains the pass split in notes, and picks passes (`N`, `all`, `steady`,
`auto`, `mean`). A segmentation `tracedb segment` kept in the store (snapshots) is restored instead of
computed when the runs, options, profile and code are the same."""
import statistics
from dataclasses import dataclass, field, fields, replace

import duckdb

from tracedb import sql
from tracedb.engine.segmentation import snapshots
from tracedb.engine.segmentation import profiles
from tracedb.engine.segmentation.anchors import PASS_BREAK_JUMP, anchor_breaks, pick_anchor, propose_anchor
from tracedb.engine.segmentation.module_tree import module_layers
from tracedb.engine.segmentation.phases import find_phases, phase_of_anchor
from tracedb.engine.segmentation.categories import categorize_kernels, load_rules
from tracedb.patterns import check_regex
from tracedb.engine.store.connect import resolve_runs
from tracedb.errors import NoAnchor, UsageError

STEADY_TOLERANCE = 0.05   # --pass steady: layer-0 wall within 5 % of the previous pass's
# From this many runs a report that segments them says that `tracedb segment` would keep the segmentation:
# segmenting 128 ranks costs a report 0.75-0.8 s of its 1.4-1.6 s, restoring a kept one ~0.1 s.
HINT_RUNS = 16
PHASES = ("forward", "backward")


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
    window: str = "full"
    pass_gap: float | None = None   # None: breaks found from the gaps; else gap > G x median
    config: str | None = None
    phase: str | None = None        # forward | backward; None: forward, or backward for a backward --anchor


_SESSION_FIELDS = ("profile", "proposed", "stored")   # Bound fields a kept segmentation does not store


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
    pass_gap: float | None
    layer_types: list[str] | None = None
    notes: list[str] = field(default_factory=list)
    phase: str = "forward"            # the stream segmented: forward or backward passes
    training: set[int] = field(default_factory=set)   # runs with backward or optimizer kernels (_phase rows)
    proposed: bool | None = None      # the anchor was proposed and its pass split stands (TEMP _chosen)
    bind_notes: int = 0               # how many of `notes` bind made (find_passes's follow them)
    stored: bool = False              # restored from a kept segmentation: _assigned_all holds every pass
    kinds: dict[str, int] = field(default_factory=dict)   # proposed anchor name -> its kind of step (prefill, decode)

    @property
    def per_pass(self) -> int | None:
        return self.layers * self.blocks_per_layer if self.layers else None

    def params(self) -> dict:
        return {"run_ids": self.run_ids, "anchor": self.anchor, "per_pass": self.per_pass,
                "gap_factor": None if self.pass_gap is None else float(self.pass_gap), "min_jump": PASS_BREAK_JUMP,
                "window": self.window, "layer_offset": self.layer_offset, "blocks_per_layer": self.blocks_per_layer,
                "reverse": self.phase == "backward"}

    def state(self) -> dict:
        """What a kept segmentation stores of these options, as JSON values: every field but the profile
        (loaded again by name) and the two flags of this session (proposed, stored)."""
        s = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _SESSION_FIELDS}
        return {**s, "run_names": sorted(self.run_names.items()), "training": sorted(self.training)}

    @classmethod
    def from_state(cls, state: dict, profile: profiles.Profile) -> "Bound":
        return cls(**{**state, "run_names": {r: n for r, n in state["run_names"]}, "training": set(state["training"])},
                   profile=profile, stored=True)

    def pass_rule(self) -> str:
        """How passes are split, as every report states it."""
        gaps = (f"passes split at anchor gaps >= {PASS_BREAK_JUMP:g}x every gap inside a pass" if self.pass_gap is None
                else f"passes split at anchor gaps > {self.pass_gap:g}x the median gap")
        return gaps + (f", then cut into {self.per_pass} anchors each" if self.per_pass else "")

    def phase_rule(self) -> str:
        """The rule, said of the backward passes when those are the ones segmented."""
        return self.rule() if self.phase == "forward" else f"backward passes: {self.rule()}"

    def rule(self) -> str:
        """The window and pass rule, as every report states them."""
        window = ("full (every kernel of a pass is in its prologue or a layer)" if self.window == "full"
                  else "strict (first to last anchor of a pass, so the last layer ends at its anchor)")
        return f"window: {window}; {self.pass_rule()}"


def bind(con, opt: Options) -> Bound:
    if opt.window not in ("strict", "full"):
        raise UsageError(f"--window {opt.window!r}: expected strict or full")
    if opt.pass_gap is not None and not opt.pass_gap > 0:
        raise UsageError("--pass-gap must be positive")
    if opt.phase is not None and opt.phase not in PHASES:
        raise UsageError(f"--phase {opt.phase!r}: expected forward or backward")
    ids, bare_notes = _runs_with_kernels(con, resolve_runs(con, opt.runs, opt.tags))
    prof = profiles.load(opt.profile or "generic")
    cfg = profiles.model_config(opt.config) if opt.config else {}
    for cat, pat in prof.rules:
        check_regex(con, pat, f"profile {prof.source} category {cat}")
    if opt.anchor:
        check_regex(con, opt.anchor, "--anchor")
    names = dict(con.execute("SELECT run_id, name FROM runs WHERE run_id IN (SELECT unnest($ids))",
                             {"ids": ids}).fetchall())
    training, phase_notes = find_phases(con, prof, ids, names)
    phase = opt.phase or phase_of_anchor(con, opt.anchor or prof.anchor, training)
    if phase == "backward" and not training:
        raise UsageError("--phase backward: none of the selected runs has backward kernels (a training trace has "
                         "them: names with Grad, Bwd or backward, (B)/(W) annotations, autograd frames)")
    sql.run(con, "segment_stream", {"phase": phase})
    anchor = opt.anchor or prof.anchor
    proposal_notes, proposed, kinds = [], False, {}
    if not anchor:
        anchor, proposal_notes, proposed, kinds = propose_anchor(con, prof, ids, opt, cfg, phase)
    check_regex(con, anchor, "--anchor")
    b = Bound(run_ids=ids, run_names=names, profile=prof, anchor=anchor, phase=phase, training=training,
              layers=opt.layers or cfg.get("layers") or prof.layers,
              blocks_per_layer=opt.blocks_per_layer or prof.blocks_per_layer,
              layer_offset=prof.layer_offset if opt.layer_offset is None else opt.layer_offset,
              window=opt.window, pass_gap=opt.pass_gap, layer_types=cfg.get("layer_types"),
              notes=bare_notes + phase_notes + proposal_notes, kinds=kinds)
    if b.layers is not None and b.layers < 1 or b.blocks_per_layer < 1 or b.layer_offset < 0:
        raise UsageError("--layers and --blocks-per-layer must be >= 1, --layer-offset >= 0")
    if not opt.anchor and prof.anchor_fallback:
        b.anchor = pick_anchor(con, b, prof.anchor, prof.anchor_fallback)
    if not proposed and b.layers is None:
        # a given anchor, no layer count: the module tree's, where it frames the anchors (a regex that
        # matches sliding and full attention alike must not cut one step into two fake micro-batches)
        b.layers, said = module_layers(con, b)
        b.notes += [said] if said else []
    # the proposal split every run's chosen anchor into passes already, with these very parameters
    b.proposed = proposed and b.anchor == anchor or None
    return b


def _runs_with_kernels(con, ids: list[int]) -> tuple[list[int], list[str]]:
    """The runs of `ids` that have kernels, and a note naming the others: an Ascend rank folder with only its
    communication analyses (a pipeline job's comm-only ranks) has no pass or layer to find, and must not stop
    the job's other ranks from being segmented. All of them without kernels is an error."""
    rows = con.execute("SELECT r.run_id, r.name, EXISTS (SELECT 1 FROM kernels k WHERE k.run_id = r.run_id AND "
                       "k.kind IS DISTINCT FROM 'comm') FROM runs r WHERE r.run_id IN (SELECT unnest($i)) "
                       "ORDER BY r.run_id", {"i": ids}).fetchall()
    bare = [n for _, n, has in rows if not has]
    kept = [r for r, _, has in rows if has]
    if not kept:
        raise UsageError(f"{'run' if len(bare) == 1 else 'runs'} {', '.join(repr(n) for n in bare)}: no kernels to "
                         "segment (communication analyses only)")
    if not bare:
        return ids, []
    return kept, [f"no kernels, communication analyses only, so not segmented: {', '.join(repr(n) for n in bare)} "
                  "(report collectives, breakdown and blame still use them)"]


def prepare(con, opt: Options, rule=None, first: bool = False, reuse: bool = True) -> Bound:
    """Stages 0-3 for `opt`: bind, then find_passes; or, with `reuse`, the segmentation `tracedb segment`
    kept for the same runs, options, profile and code, restored (a note says so). `rule` (Bound.rule or
    Bound.phase_rule) adds its note after the binding's notes, or `first`."""
    b = _restored(con, opt) if reuse else None
    if b is None:
        b = bind(con, opt)
        b.bind_notes = len(b.notes)
        find_passes(con, b)
        if reuse and len(b.run_ids) >= HINT_RUNS:
            b.notes.append(f"{len(b.run_ids)} runs segmented for this report: `tracedb segment` with the same runs "
                           "and segmentation options keeps the segmentation in the store, and the next reports "
                           "restore it instead")
    if rule is not None:
        b.notes.insert(0 if first else b.bind_notes, rule(b))
    return b


def _restored(con, opt: Options, say: bool = True) -> Bound | None:
    """The segmentation `tracedb segment` kept for `opt`, restored once proved against the store
    (snapshots.prove), with a note saying so (unless not `say`); None when none is kept. One that fails its
    proof (rows changed since it was kept, forged or damaged tables) is set aside: computed afresh here, with
    a note saying why."""
    restoring = []
    try:
        kept = snapshots.prove(con, opt, {f.name for f in fields(Bound)} - set(_SESSION_FIELDS))
        if kept is None:
            return None
        b = Bound.from_state(kept.state, profiles.load(opt.profile or "generic"))
        restoring = kept.tables
        snapshots.restore_tables(con, kept.snap_id, kept.tables)
    except duckdb.InterruptException:
        raise            # Ctrl-C: the command stops, as anywhere else
    except snapshots.SetAside as e:
        why = str(e)
    except (duckdb.Error, KeyError, TypeError, ValueError) as e:
        why = f"it could not be read ({type(e).__name__})"
        snapshots.drop_restored(con, restoring)
    else:
        sql.run(con, "segment_stream", {"phase": b.phase})
        if say:
            b.notes.append(f"segmentation: the one `tracedb segment` kept on {kept.made_at} for these runs and options "
                           "(anchors, passes and layers restored, not computed again)")
        return b
    b = prepare(con, opt, reuse=False)
    # said by `tracedb segment` too (say=False): one it has just kept and cannot restore is worth knowing
    b.notes.append(f"kept segmentation set aside: {why}; segmented afresh (`tracedb segment` keeps it again)")
    return b


def keep(con, opt: Options) -> Bound:
    """Segment `opt` in a session of its own, exactly as a report's fresh session would, keep its session
    tables in the store with the digests of its runs' rows, and restore them in `con` (without the note a
    report gets)."""
    cur = con.cursor()
    try:
        sql.run(cur, "macros")
        b = prepare(cur, opt, reuse=False)
        assign(cur, b, select_passes(cur, b, "all"))
        # found by the phase as given, by the phase bound, and without one when that binds the same phase
        phases = {opt.phase, b.phase}
        if phase_of_anchor(cur, opt.anchor or b.profile.anchor, b.training) == b.phase:
            phases.add(None)
        snapshots.save(cur, sorted(snapshots.keys(con, opt, phases)), b.run_ids, b.state(),
                       snapshots.digests(con, opt))
    finally:
        cur.close()
    b = _restored(con, opt, say=False)
    # None: another process changed a run meanwhile (the key moved): computed here
    return b if b is not None else prepare(con, opt, reuse=False)


def each_phase(con, opt: Options, first: bool = False, kept: bool = False):
    """`opt` prepared once per phase to segment, with the phase rule's note (assign is the caller's): the
    phase --phase or a given anchor names, else forward and, when the runs hold backward work, backward.
    `kept`: each phase's segmentation is kept in the store for reports (tracedb segment)."""
    b = None
    for phase in ([opt.phase] if opt.phase or opt.anchor else PHASES):
        if phase == "backward" and not opt.phase and (not b.training or not con.execute(
                "SELECT EXISTS (SELECT 1 FROM _phase WHERE phase = 'backward')").fetchone()[0]):
            return    # no backward pass to find: a capture of forward and optimizer work (inference steps)
        phased = replace(opt, phase=phase)
        b = keep(con, phased) if kept else prepare(con, phased)
        b.notes.insert(0 if first else b.bind_notes, b.phase_rule())
        yield b


def bind_runs(con, runs, tags=(), profile: str | None = None) -> Bound:
    """The runs alone, for reports that need no segmentation (cores, modules without an anchor, breakdown
    by run or step); `profile` (default generic) gives the category rules, checked as bind checks them."""
    ids = resolve_runs(con, runs, tags)
    names = dict(con.execute("SELECT run_id, name FROM runs WHERE run_id IN (SELECT unnest($i))",
                             {"i": ids}).fetchall())
    prof = profiles.load(profile or "generic")
    if profile:
        for cat, pat in prof.rules:
            check_regex(con, pat, f"profile {prof.source} category {cat}")
    return Bound(run_ids=ids, run_names=names, profile=prof, anchor="", layers=None,
                 blocks_per_layer=1, layer_offset=0, window="full", pass_gap=None)


def find_passes(con, b: Bound):
    """Stages 1-3: anchors, passes, windows for every pass of the bound runs. Raises when a run has no
    anchor, naming its most frequent kernels so the user can pick one."""
    p = b.params()
    if b.proposed:      # the proposal's split of the chosen candidates is the runs' own
        sql.run(con, "candidate_passes")
        b.proposed = None      # once: a later find_passes on these Bound options computes afresh
    else:
        sql.run(con, "segment_anchors", p)
        found = dict(con.execute("SELECT run_id, count(*) FROM _anchors GROUP BY run_id").fetchall())
        for rid in b.run_ids:
            if not found.get(rid):
                top = con.execute(sql.load("top_names"), {"run_id": rid}).fetchall()
                raise NoAnchor(f"run '{b.run_names[rid]}': no kernel name or op type matches anchor {b.anchor!r}; "
                               f"most frequent: {', '.join(f'{n} ({c})' for n, c in top)}")
        anchor_breaks(con, b.phase, b.kinds)
        sql.run(con, "segment_passes", p)
    sql.run(con, "segment_steps")
    sql.run(con, "segment_windows", p)
    b.notes += split_notes(con, b)
    load_rules(con, b.profile)


def split_notes(con, b: Bound) -> list[str]:
    """What the pass split followed, per run: the break gaps found (or that none stands out), fragments at
    either end of the capture, passes between two breaks that do not hold the expected count, and passes
    cut by count where the trace shows no break."""
    us = lambda ns: f"{ns / 1000:,.1f} us"   # noqa: E731  (notes only; reports print exact decimals)
    notes = []
    evidence = _pass_evidence(con)
    # every run's passes and groups in one query each (a job of 128 ranks: 2 statements, not 256)
    all_passes, all_groups = {}, {}
    for rid, *row in con.execute("SELECT run_id, pass, anchors, expected, partial, grp, block_base FROM _passes "
                                 "ORDER BY run_id, pass").fetchall():
        all_passes.setdefault(rid, []).append(tuple(row))
    for rid, *row in con.execute("SELECT run_id, grp, passes, first_pass, cut_min_ns FROM _pass_groups "
                                 "ORDER BY run_id, grp").fetchall():
        all_groups.setdefault(rid, []).append(tuple(row))
    for rid, rule, threshold, inside, breaks, forced, stepped, replayed, kinds, walks in con.execute(
            "SELECT run_id, rule, threshold_ns, inside_max_ns, breaks, forced_breaks, step_breaks, replay_breaks, "
            "kind_breaks, module_breaks FROM _pass_split "
            "ORDER BY run_id").fetchall():
        run = b.run_names.get(rid, rid)
        if rule == "gaps":
            head = (f"{breaks} pass break{'s' if breaks > 1 else ''} at anchor gaps >= {us(threshold)}"
                    + (f", {threshold / inside:.1f}x the largest gap inside a pass ({us(inside)})" if inside else ""))
        elif rule == "local":
            head = (f"{breaks} pass break{'s' if breaks > 1 else ''} at anchor gaps that stand out from the gaps "
                    f"beside them (>= {2 * PASS_BREAK_JUMP:g}x the smaller); no gap stands out over the whole run "
                    "(steps of different lengths, e.g. a prefill before decode steps)"
                    + (f"; the largest gap inside a pass is {us(inside)}" if inside else ""))
        elif rule == "none":
            other = "other " if forced or stepped or replayed or kinds or walks else ""
            head = (f"no {other}anchor gap stands out as a pass break"
                    + (f" (the largest inside is {us(inside)})" if inside else ""))
        else:
            head = f"{breaks} pass break{'s' if breaks != 1 else ''} at anchor gaps > {b.pass_gap:g}x the median"
        if forced:
            head = (f"{forced} pass break{'s' if forced > 1 else ''} where the trace puts one (work of another phase, "
                    f"a pipeline send/receive, or an embedding or sampling kernel, between two anchors); "
                    f"{'other breaks: ' if breaks else ''}" + head)
        if kinds:
            head = (f"{kinds} pass break{'s' if kinds > 1 else ''} where the anchor changes between kernels that take "
                    f"turns pass by pass; {'other breaks: ' if breaks or stepped or replayed else ''}" + head)
        if walks:
            head = (f"{walks} pass break{'s' if walks > 1 else ''} where the model's blocks are called again (a "
                    f"block not past the one before, in nn.Module frames or layer ranges); "
                    f"{'other breaks: ' if breaks or kinds or forced else ''}" + head)
        if replayed:
            head = (f"{replayed} pass break{'s' if replayed > 1 else ''} between CUDA/HIP graph replays that each "
                    f"hold whole passes; {'other breaks: ' if breaks or stepped else ''}" + head)
        if stepped:
            head = (f"{stepped} pass break{'s' if stepped > 1 else ''} at step boundaries (Step Id, ProfilerStep#N or "
                    f"serving step annotations); {'other breaks: ' if breaks else ''}" + head)
        passes, groups = all_passes.get(rid, []), all_groups.get(rid, [])
        extra, last = [], len(passes) - 1
        for p, anchors, expected, partial, _, base in passes:
            if not partial:
                continue
            bpl = b.blocks_per_layer
            where = (f"the capture starts mid-pass: its layers are numbered "
                     f"{base // bpl} to {(base + anchors - 1) // bpl}, "
                     f"and its kernels before the first anchor are the end of layer {(base - 1) // bpl}"
                     if p == 0 and base > 0 else
                     "the capture starts mid-pass" if p == 0 and last > 0 else
                     "the capture ends mid-pass" if p == last and last > 0 else
                     "a short pass between two breaks: --layers may be wrong or anchors missing" if last > 0 else
                     "the only pass")
            extra.append(f"pass {p} holds {anchors} of {expected} anchors ({where})")
        for grp, n, first, cut_min in groups:
            if n > 1 and b.per_pass and cut_min is not None and cut_min < threshold:
                extra.append(f"passes {first}-{first + n - 1} were cut every {b.per_pass} anchors, at the largest gaps "
                             f"the count allows (smallest gap at a cut {us(cut_min)}): no gap there stands out")
        said = evidence.get(rid)
        notes.append(f"run '{run}': {head}" + ("; " + "; ".join(extra) if extra else "")
                     + (f"; device time by what started its passes: {said}" if said else ""))
    return notes


# what started a pass (sql/segment/pass_evidence.sql), as the notes say it, strongest evidence first
STARTED_BY = {"step": "step marks", "replay": "whole-pass graph replays", "module": "the module tree's block calls",
              "kind": "a change of prefill/decode kernels", "work": "other work between anchors",
              "gap": "anchor gaps", "count": "the anchor count", "start": "the run's start"}


def _pass_evidence(con) -> dict[int, str]:
    """Per run whose passes some mark or gap started (not the run's start alone): each kind of evidence with
    its passes and the device time in their windows."""
    rows: dict[int, list] = {}
    for rid, ev, n, ns in sql.run(con, "pass_evidence").fetchall():
        rows.setdefault(rid, []).append((ev, n, ns))
    return {rid: ", ".join(f"{STARTED_BY[ev]} {n:,} pass{'es' if n != 1 else ''} ({ns / 1e6:,.3f} ms)"
                           for ev, n, ns in got)
            for rid, got in rows.items() if any(ev != "start" for ev, _, _ in got)}


def assign(con, b: Bound, selection: list[tuple[int, int]]):
    """Stage 4 for the given (run_id, pass) pairs: creates _assigned."""
    # one statement over lists: executemany costs ~0.7 ms a row (1.2 s for 1,700 passes)
    con.execute("CREATE OR REPLACE TEMP TABLE _sel AS SELECT unnest($r)::INTEGER AS run_id, unnest($p)::BIGINT AS pass",
                {"r": [r for r, _ in selection], "p": [p for _, p in selection]})
    if b.stored:      # every pass was assigned when it was kept: a pass's layers depend on that pass alone;
        sql.run(con, "segment_assign_kept")   # its _cats came back with it (same runs and profile)
        return
    categorize_kernels(con, b)
    if b.phase == "backward":     # the norm gradients whose names do not say so, for the backward layer boundaries
        sql.run(con, "backward_norm_grads", {"run_ids": b.run_ids})
    else:
        con.execute("CREATE OR REPLACE TEMP TABLE _bwd_norm AS SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS seq "
                    "LIMIT 0")
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
