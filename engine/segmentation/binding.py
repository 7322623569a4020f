"""Options bound to the runs: what a report was asked for (Options), resolved against the store and a profile
into what the SQL segmentation stages receive (Bound): the runs with kernels, the phase, the anchor (given,
the profile's, or proposed), the layer count, and the rules every report states."""
from dataclasses import dataclass, field, fields

from tracedb import sql
from tracedb.engine.segmentation import profiles
from tracedb.engine.segmentation.anchors import pick_anchor, propose_anchor
from tracedb.engine.segmentation.candidates import PASS_BREAK_JUMP
from tracedb.engine.segmentation.module_tree import module_layers
from tracedb.engine.segmentation.phases import find_phases, phase_of_anchor
from tracedb.engine.segmentation.words import PHASES, WINDOWS
from tracedb.patterns import check_regex
from tracedb.engine.store.connect import resolve_runs
from tracedb.errors import UsageError



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
    if opt.window not in WINDOWS:
        raise UsageError(f"--window {opt.window!r}: expected {' or '.join(WINDOWS)}")
    if opt.pass_gap is not None and not opt.pass_gap > 0:
        raise UsageError("--pass-gap must be positive")
    if opt.phase is not None and opt.phase not in PHASES:
        raise UsageError(f"--phase {opt.phase!r}: expected {' or '.join(PHASES)}")
    ids, bare_notes = _runs_with_kernels(con, resolve_runs(con, opt.runs, opt.tags))
    prof = profiles.load(opt.profile or "generic")
    cfg = profiles.model_config(opt.config) if opt.config else {}
    for cat, pat in prof.rules:
        check_regex(con, pat, f"profile {prof.source} category {cat}")
    if opt.anchor:
        check_regex(con, opt.anchor, "--anchor")
    names = dict(sql.run(con, "run_names", {"run_ids": ids}).fetchall())
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
    rows = sql.run(con, "binding_runs_with_kernels", {"run_ids": ids}).fetchall()
    bare = [n for _, n, has in rows if not has]
    kept = [r for r, _, has in rows if has]
    if not kept:
        raise UsageError(f"{'run' if len(bare) == 1 else 'runs'} {', '.join(repr(n) for n in bare)}: no kernels to "
                         "segment (communication analyses only)")
    if not bare:
        return ids, []
    return kept, [f"no kernels, communication analyses only, so not segmented: {', '.join(repr(n) for n in bare)} "
                  "(report collectives, breakdown and blame still use them)"]


def bind_runs(con, runs, tags=(), profile: str | None = None) -> Bound:
    """The runs alone, for reports that need no segmentation (cores, modules without an anchor, breakdown
    by run or step); `profile` (default generic) gives the category rules, checked as bind checks them."""
    ids = resolve_runs(con, runs, tags)
    names = dict(sql.run(con, "run_names", {"run_ids": ids}).fetchall())
    prof = profiles.load(profile or "generic")
    if profile:
        for cat, pat in prof.rules:
            check_regex(con, pat, f"profile {prof.source} category {cat}")
    return Bound(run_ids=ids, run_names=names, profile=prof, anchor="", layers=None,
                 blocks_per_layer=1, layer_offset=0, window="full", pass_gap=None)
