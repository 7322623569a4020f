"""Bind a profile and the command-line options to the runs, then run the SQL segmentation stages.

Every stage is a file in sql/ creating TEMP tables in the session (the store itself is never written):
segment_anchors -> segment_passes -> segment_windows -> segment_assign. This module only decides
parameters, checks them, explains the pass split in notes, and picks passes (`N`, `all`, `steady`,
`auto`, `mean`)."""
import re
import statistics
from dataclasses import dataclass, field, replace

from tracedb import sql
from tracedb.engine.segmentation import profiles
from tracedb.patterns import check_regex
from tracedb.engine.store.connect import resolve_runs
from tracedb.errors import NoAnchor, UsageError

STEADY_TOLERANCE = 0.05   # --pass steady: layer-0 wall within 5 % of the previous pass's
# A pass break is an anchor gap at least 2x every gap inside a pass. On real traces a break after a whole
# pass (last FFN, lm_head, sampling, the next embedding) is 2.2-2.6x the largest gap inside a pass
# (Qwen1.5 H100 2.2x, MI300X 2.6x); single-pass traces show no jump above 1.03x. Back-to-back training
# micro-batches (Megatron on Ascend) are only 1.7x apart: they split once --layers gives the count.
PASS_BREAK_JUMP = 2.0
# Kernel names of the backward pass (training traces hold both directions).
BACKWARD = re.compile(r"(?i)(grad|bwd|backward|dgrad|wgrad)")
# Kernel names of the optimizer step: PyTorch's fused and foreach Adam/AdamW/SGD (multi_tensor_apply, also
# its grad-norm and scaling kernels), Apex/TransformerEngine FusedAdam, Ascend's ApplyAdamW and friends.
OPTIMIZER = re.compile(r"(?i)(adam|multi_tensor_apply|optimizer|sgd_|_sgd|lamb_|apply_?momentum|ApplyAdamW|ApplyAdam)")
# Pipeline-parallel send/receive between stages: HCCL batchSendRecv/send/receive, NCCL SendRecv kernels.
PIPELINE_P2P = re.compile(r"(?i)(batchSendRecv|^hcom_send|^hcom_receive|SendRecv|ncclDevKernel_Send|ncclDevKernel_Recv|"
                          r"ncclKernel_Send|ncclKernel_Recv)")
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

    @property
    def per_pass(self) -> int | None:
        return self.layers * self.blocks_per_layer if self.layers else None

    def params(self) -> dict:
        return {"run_ids": self.run_ids, "anchor": self.anchor, "per_pass": self.per_pass,
                "gap_factor": None if self.pass_gap is None else float(self.pass_gap), "min_jump": PASS_BREAK_JUMP,
                "window": self.window, "layer_offset": self.layer_offset, "blocks_per_layer": self.blocks_per_layer,
                "reverse": self.phase == "backward"}

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
    ids = resolve_runs(con, opt.runs, opt.tags)
    prof = profiles.load(opt.profile or "generic")
    cfg = profiles.model_config(opt.config) if opt.config else {}
    for cat, pat in prof.rules:
        check_regex(con, pat, f"profile {prof.source} category {cat}")
    if opt.anchor:
        check_regex(con, opt.anchor, "--anchor")
    names = dict(con.execute("SELECT run_id, name FROM runs WHERE run_id IN (SELECT unnest($ids))",
                             {"ids": ids}).fetchall())
    training, phase_notes = find_phases(con, prof, ids, names)
    phase = opt.phase or _phase_of_anchor(con, opt.anchor or prof.anchor, training)
    if phase == "backward" and not training:
        raise UsageError("--phase backward: none of the selected runs has backward kernels (a training trace has "
                         "them: names with Grad, Bwd or backward, (B)/(W) annotations, autograd frames)")
    sql.run(con, "segment_stream", {"phase": phase})
    anchor = opt.anchor or prof.anchor
    proposal_notes = []
    if not anchor:
        anchor, proposal_notes = propose_anchor(con, prof, ids, opt, cfg, phase)
    check_regex(con, anchor, "--anchor")
    b = Bound(run_ids=ids, run_names=names, profile=prof, anchor=anchor, phase=phase, training=training,
              layers=opt.layers or cfg.get("layers") or prof.layers,
              blocks_per_layer=opt.blocks_per_layer or prof.blocks_per_layer,
              layer_offset=prof.layer_offset if opt.layer_offset is None else opt.layer_offset,
              window=opt.window, pass_gap=opt.pass_gap, layer_types=cfg.get("layer_types"),
              notes=phase_notes + proposal_notes)
    if b.layers is not None and b.layers < 1 or b.blocks_per_layer < 1 or b.layer_offset < 0:
        raise UsageError("--layers and --blocks-per-layer must be >= 1, --layer-offset >= 0")
    if not opt.anchor and prof.anchor_fallback:
        b.anchor = _pick_anchor(con, b, prof.anchor, prof.anchor_fallback)
    return b


def each_phase(con, opt: Options):
    """`opt` bound once per phase to segment (find_passes and assign are the caller's): the phase --phase or a
    given anchor names, else forward and, when the runs hold backward work, backward."""
    b = None
    for phase in ([opt.phase] if opt.phase or opt.anchor else PHASES):
        if phase == "backward" and not opt.phase and not b.training:
            return
        b = bind(con, replace(opt, phase=phase))
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


def find_phases(con, prof, run_ids, names) -> tuple[set[int], list[str]]:
    """_phase (kernel_phases.sql): the phase of every kernel of the training runs among `run_ids`. Returns
    those runs and a note per run saying how much device time each phase holds and what decided it. Also
    _p2p_names, the runs' pipeline send/receive names (anchor_breaks.sql)."""
    _load_rules(con, prof)
    con.execute("CREATE OR REPLACE TEMP TABLE _names AS SELECT DISTINCT name, op_type FROM kernels "
                "WHERE run_id IN (SELECT unnest($r))", {"r": run_ids})
    sql.run(con, "categories")
    # what the names say, in Python once per distinct name: a pattern bound as a parameter is compiled by
    # DuckDB again for every row it is matched against (~1.7 ms each for these)
    kernel_names = [n for (n,) in con.execute("SELECT DISTINCT name FROM _cats WHERE name IS NOT NULL").fetchall()]
    said = [(n, "backward" if BACKWARD.search(n) else "optimizer" if OPTIMIZER.search(n) else None,
             "weight" if re.search(r"(?i)wgrad", n) else "input" if re.search(r"(?i)dgrad", n) else None)
            for n in kernel_names]
    said = [t for t in said if t[1] or t[2]]
    con.execute("CREATE OR REPLACE TEMP TABLE _name_phase AS SELECT unnest($n) AS name, unnest($p) AS phase, "
                "unnest($g) AS grad", {"n": [t[0] for t in said] or [""], "p": [t[1] for t in said] or [None],
                                       "g": [t[2] for t in said] or [None]})
    con.execute("CREATE OR REPLACE TEMP TABLE _p2p_names AS SELECT unnest($n)::VARCHAR AS name",
                {"n": [n for n in kernel_names if PIPELINE_P2P.search(n)]})
    params = {"run_ids": run_ids}
    if not sql.run(con, "phase_evidence", params).fetchone()[0]:
        # an inference trace: no kernel is backward or optimizer work, which kernel_phases.sql would find only
        # after reading every kernel; over no run it makes the empty _phase at once
        params["run_ids"] = []
    sql.run(con, "kernel_phases", params)
    rows = con.execute("SELECT run_id, phase, evidence, count(*), sum(dur_ns) FROM _phase GROUP BY ALL").fetchall()
    training = sorted({r[0] for r in rows})
    notes = []
    ms = lambda ns: f"{ns / 1e6:,.3f} ms"   # noqa: E731  (notes only)
    for rid in training:
        mine = [r for r in rows if r[0] == rid]
        per_phase = {}
        for _, ph, _, n, ns in mine:
            k, t = per_phase.get(ph, (0, 0))
            per_phase[ph] = (k + n, t + ns)
        per_ev = {}
        for _, _, ev, _, ns in mine:
            per_ev[ev] = per_ev.get(ev, 0) + ns
        notes.append(f"run '{names[rid]}': a training trace: "
                     + ", ".join(f"{ph} {per_phase[ph][0]:,} kernels ({ms(per_phase[ph][1])})"
                                 for ph in ("forward", "backward", "optimizer") if ph in per_phase)
                     + "; each kernel's phase decided by "
                     + ", ".join(f"{ev} {ms(per_ev[ev])}" for ev in ("annotation", "autograd", "name", "order")
                                 if ev in per_ev)
                     + " (annotation: (F)/(B)/(W) or forward/backward ranges around the launch; autograd: the "
                       "autograd engine's frames; name: Grad, Bwd, backward, Adam, forward attention; order: "
                       "the phase of the work around it)")
    return set(training), notes


def _phase_of_anchor(con, anchor: str | None, training: set[int]) -> str:
    """Forward, unless the given anchor matches only backward kernels of the training runs (an anchor on
    FlashAttentionScoreGrad asks for backward passes)."""
    if not anchor or not training:
        return "forward"
    # the pattern once per distinct name (materialized: pushed below the DISTINCT it would run per kernel)
    got = dict(con.execute(
        "WITH names AS MATERIALIZED (SELECT DISTINCT name, op_type FROM kernels WHERE run_id IN (SELECT unnest($r))), "
        "hits AS (SELECT * FROM names WHERE regexp_matches(coalesce(name, ''), $a) "
        "OR regexp_matches(coalesce(op_type, ''), $a)) "
        "SELECT p.phase, count(*) FROM _phase p JOIN kernels k USING (run_id, seq) "
        "JOIN hits h ON h.name IS NOT DISTINCT FROM k.name AND h.op_type IS NOT DISTINCT FROM k.op_type GROUP BY ALL",
        {"a": anchor, "r": sorted(training)}).fetchall())
    return "backward" if got.get("backward") and not got.get("forward") else "forward"


def propose_anchor(con, prof, run_ids, opt, cfg, phase="forward") -> tuple[str, list[str]]:
    """No anchor given: per run, the attention anchor whose count per pass is the most steady (equal to
    the layer count when one is known), passes found exactly as a report finds them. Candidates are each
    attention kernel name and each family of variants that differ only in digits (vLLM runs
    `kernel_unified_attention_2d` or `_3d` per layer): a family counts when its members take turns, not
    when they run side by side in one layer. Forward kernels are preferred when the trace also holds
    backward ones. Returns an exact-name pattern and notes saying what was chosen and why; refuses when
    no candidate repeats steadily."""
    want = (opt.layers or cfg.get("layers") or prof.layers)
    bpl = opt.blocks_per_layer or prof.blocks_per_layer
    names, notes = [], []
    for rid in run_ids:
        run = con.execute("SELECT name FROM runs WHERE run_id = $r", {"r": rid}).fetchone()[0]
        pairs = con.execute("SELECT DISTINCT name, op_type FROM _stream WHERE run_id = $r AND name IS NOT NULL",
                            {"r": rid}).fetchall()
        attention = sorted({n for (n, _), c in zip(pairs, categorize(con, prof, pairs)) if c == "attention"})
        cands = _candidate_sets(con, rid, attention)
        stats = _candidate_stats(con, rid, cands, want * bpl if want else None, opt.pass_gap, phase)
        alone = {s["names"][0]: s for s in stats if len(s["names"]) == 1}
        # a set of names holds at least as many anchors per pass as each member and no more passes than they
        # have together: two kernels side by side in a layer (a backward attention kernel and its dQ
        # post-processing) would turn every layer into a pass of two; kernels that take turns layer by layer
        # (sliding-window and full attention) or pass by pass (prefill and decode) pass
        good = [s for s in stats if s["steady"] * 2 >= s["passes"] and s["per_pass"] >= 2
                and (not want or s["per_pass"] == want * bpl)
                and (len(s["names"]) == 1 or s["tight"]
                     and all(s["per_pass"] >= alone[n]["per_pass"] for n in s["names"] if n in alone)
                     and s["passes"] <= sum(alone[n]["passes"] for n in s["names"] if n in alone))]
        forward = [s for s in good if (phase == "backward") == any(BACKWARD.search(n) for n in s["names"])]
        skipped = sorted({n for s in good for n in s["names"]} - {n for s in forward for n in s["names"]})
        good = forward or good
        if not good:
            seen = "; ".join(f"{' | '.join(s['names'])} ({s['per_pass']}/pass in {s['steady']} of {s['passes']} passes)"
                             for s in stats[:3])
            raise NoAnchor(f"run '{run}': no anchor given and no attention kernel repeats a steady number of "
                           f"times per pass{f' equal to {want} layers' if want else ''}"
                           f"{'; candidates: ' + seen if seen else ''}. Give --anchor REGEX")
        best = good[0]
        names += best["names"]
        what = (f"{len(best['names'])} variants of one attention kernel, one per layer" if len(best["names"]) > 1
                else "an attention kernel")
        shown = " | ".join(_short_names(con, best["names"]))
        whole = " | ".join(best["names"])
        notes.append(f"run '{run}': anchor chosen: {shown} — {what}, seen {best['per_pass']} "
                     f"times in {best['steady']} of {best['passes']} passes"
                     f"{'' if want else '; pass --layers to check'}"
                     + (f"; {'backward' if phase == 'forward' else 'forward'} kernels not considered: "
                        f"{', '.join(_short_names(con, skipped))}" if forward and skipped else "")
                     + (f"; full name: {whole}" if whole != shown else ""))
    pattern = "^(" + "|".join(re.escape(n) for n in dict.fromkeys(names)) + ")$"
    return pattern, notes


def _short_names(con, names: list[str]) -> list[str]:
    """The stored short names (table kernel_names) of kernel names, each name itself when it has none."""
    got = dict(con.execute("SELECT name, short_name FROM kernel_names WHERE name IN (SELECT unnest($n))",
                           {"n": list(names)}).fetchall())
    return [got.get(n) or n for n in names]


def _candidate_sets(con, rid, attention: list[str]) -> list[list[str]]:
    """Each attention name alone; each family of two or more names equal once digits are ignored, or once
    template and call arguments are (a sliding-window and a full-attention instance of one kernel differ in
    a `true`/`false` argument); and each pair of distinct names whose kernels take turns (gpt-oss and Gemma
    alternate sliding-window and full-attention layers, whatever their kernels are called). The passes
    decide: a pair that runs side by side in one layer is not tight and is dropped."""
    out = [[n] for n in attention]
    for key in (lambda n: re.sub(r"\d+", "#", n), lambda n: re.sub(r"[<(].*", "", n)):
        families: dict[str, list[str]] = {}
        for n in attention:
            families.setdefault(key(n), []).append(n)
        out += [f for f in families.values() if len(f) > 1 and f not in out]
    counts = dict(con.execute("SELECT name, count(*) FROM _stream WHERE run_id = $r AND name IN (SELECT unnest($n)) "
                              "GROUP BY name", {"r": rid, "n": attention}).fetchall())
    # the 12 most frequent names, pairs of like counts (a layer of each kind per pair of layers)
    top = sorted(attention, key=lambda n: (-counts.get(n, 0), n))[:12]
    for i, a in enumerate(top):
        for c in top[i + 1:]:
            if counts.get(c, 0) * 2 >= counts.get(a, 0) and sorted([a, c]) not in out:
                out.append(sorted([a, c]))
    return out


def _anchor_breaks(con, phase: str):
    """Forced breaks between anchors (anchor_breaks.sql): other phases' work, pipeline sends/receives."""
    sql.run(con, "anchor_breaks", {"phase": phase, "p2p_names": [n for (n,) in con.execute(
        "SELECT name FROM _p2p_names").fetchall()]})


def _candidate_stats(con, rid, cands, per_pass, pass_gap, phase="forward") -> list[dict]:
    """Each candidate set's anchors split into passes by segment_passes.sql (candidate index in place of
    the run id), best first: steadiest count per pass, then most anchors per pass, then name."""
    if not cands:
        return []
    con.execute("CREATE OR REPLACE TEMP TABLE _cand_names AS SELECT unnest($c)::INTEGER AS cand, unnest($n) AS name",
                {"c": [i for i, c in enumerate(cands) for _ in c], "n": [n for c in cands for n in c]})
    sql.run(con, "anchor_candidates", {"run_id": rid})
    _anchor_breaks(con, phase)
    sql.run(con, "segment_passes", {"per_pass": per_pass, "min_jump": PASS_BREAK_JUMP,
                                    "gap_factor": None if pass_gap is None else float(pass_gap)})
    out = [{"names": cands[c], "occurrences": occ, "passes": ps, "per_pass": per, "steady": st, "tight": tight}
           for c, occ, ps, per, st, tight in sql.run(con, "anchor_candidate_stats").fetchall()]
    out.sort(key=lambda s: (-s["steady"] / s["passes"], -s["steady"], -s["per_pass"], s["names"]))
    return out


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
    _anchor_breaks(con, b.phase)
    sql.run(con, "segment_passes", p)
    sql.run(con, "segment_steps")
    b.notes += split_notes(con, b)
    sql.run(con, "segment_windows", p)
    _load_rules(con, b.profile)


def split_notes(con, b: Bound) -> list[str]:
    """What the pass split followed, per run: the break gaps found (or that none stands out), fragments at
    either end of the capture, passes between two breaks that do not hold the expected count, and passes
    cut by count where the trace shows no break."""
    us = lambda ns: f"{ns / 1000:,.1f} us"   # noqa: E731  (notes only; reports print exact decimals)
    notes = []
    for rid, rule, threshold, inside, breaks, forced, stepped in con.execute(
            "SELECT run_id, rule, threshold_ns, inside_max_ns, breaks, forced_breaks, step_breaks FROM _pass_split "
            "ORDER BY run_id").fetchall():
        run = b.run_names.get(rid, rid)
        if rule == "gaps":
            head = (f"{breaks} pass break{'s' if breaks > 1 else ''} at anchor gaps >= {us(threshold)}"
                    + (f", {threshold / inside:.1f}x the largest gap inside a pass ({us(inside)})" if inside else ""))
        elif rule == "none":
            head = (f"no {'other ' if forced or stepped else ''}anchor gap stands out as a pass break"
                    + (f" (the largest inside is {us(inside)})" if inside else ""))
        else:
            head = f"{breaks} pass break{'s' if breaks != 1 else ''} at anchor gaps > {b.pass_gap:g}x the median"
        if forced:
            head = (f"{forced} pass break{'s' if forced > 1 else ''} where the trace puts one (work of another phase, "
                    f"or a pipeline send/receive, between two anchors); {'other breaks: ' if breaks else ''}" + head)
        if stepped:
            head = (f"{stepped} pass break{'s' if stepped > 1 else ''} at step boundaries (Step Id, ProfilerStep#N or "
                    f"serving step annotations); {'other breaks: ' if breaks else ''}" + head)
        passes = con.execute("SELECT pass, anchors, expected, partial, grp, block_base FROM _passes WHERE run_id = $r "
                             "ORDER BY pass", {"r": rid}).fetchall()
        groups = con.execute("SELECT grp, passes, first_pass, cut_min_ns FROM _pass_groups WHERE run_id = $r "
                             "ORDER BY grp", {"r": rid}).fetchall()
        extra, last = [], len(passes) - 1
        for p, anchors, expected, partial, _, base in passes:
            if not partial:
                continue
            bpl = b.blocks_per_layer
            where = (f"the capture starts mid-pass: its layers are numbered "
                     f"{base // bpl}-{(base + anchors - 1) // bpl}, "
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
        notes.append(f"run '{run}': {head}" + ("; " + "; ".join(extra) if extra else ""))
    return notes


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
    categorize_kernels(con, b)
    lo, hi = con.execute("SELECT min(win_start), max(win_end) FROM _windows JOIN _sel USING (run_id, pass)").fetchone()
    sql.run(con, "segment_assign", {**b.params(), "win_lo": lo, "win_hi": hi})


def categorize_kernels(con, b: Bound):
    """_cats (categories.sql): the category of every distinct (name, op type) of the bound runs' kernels
    under the bound profile's rules."""
    _load_rules(con, b.profile)
    con.execute("CREATE OR REPLACE TEMP TABLE _names AS SELECT DISTINCT name, op_type FROM kernels "
                "WHERE run_id IN (SELECT unnest($r))", {"r": b.run_ids})
    sql.run(con, "categories")


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
