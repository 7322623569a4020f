"""`report ranks`: how the ranks of a job differ per layer, and which rank is the straggler.

Every run of the job is segmented the same way (one anchor, one layer count, as report layers does), and
the (pass, layer) units of the passes all ranks have are compared. A rank's time in a layer is its compute
time: the union of its non-communication kernels' intervals (report breakdown's computing, with its
communication rules: sql/report/breakdown_*.sql). Neither a layer's sum nor its wall time shows a slow
rank: the other ranks absorb its delay by waiting inside the collective that follows, so their wall grows
as much as its own. The collectives of a layer are matched across ranks by their order within the layer;
their starts, moved onto one clock by engine/jobs/align.py, say who arrived last and how long the others
waited (docs/ranks.md)."""
from tracedb import sql
from tracedb.engine.jobs import align
from tracedb.engine.segmentation import pipeline
from tracedb.engine.segmentation import binding
from tracedb.engine.segmentation import selection
from tracedb.engine.segmentation import units
from tracedb.engine.rendering import render as rnd
from tracedb.engine.store.connect import resolve_runs
from tracedb.errors import NoAnchor, UsageError

# A (pass, layer)'s slowest rank is a straggler, and gets a vote in --stragglers, when its compute time is
# at least 5 % above the layer's median. Below that, which rank is slowest is decided by jitter: ranks that
# run the same kernels differ by 0.3-1.5 % a layer on bench/gen_job.py's jobs, and the slowest rank of a layer
# without a slowdown changes from pass to pass (docs/ranks.md).
MIN_SKEW = 0.05
# ... and when its skew is at least half the largest skew that rank has as the slowest in the same pass. A slow
# layer's kernels before its anchor (norm, QKV projection) fall into the previous layer's unit, and give the
# slow rank a skew there too, 0.3 of the slow layer's in the layers of bench/gen_job.py (25 of 107 µs of compute
# before the attention kernel); half keeps the vote on the slow layers.
PEAK_SHARE = 0.5
# What the report counts, stated in a note of every ranks report.
DEFINITIONS = (
    "compute: union of the layer's non-communication kernel intervals on a rank (report breakdown's computing); "
    "median: the lower middle value of the ranks' compute times; skew: (max - median) / median; straggler: the "
    f"slowest rank when skew >= {MIN_SKEW:g} and >= {PEAK_SHARE:g} x its largest skew in the pass; collectives: a "
    "layer's communication ops matched across ranks by their order in the layer; arrival: a collective's start on "
    "the aligned clock; wait: latest arrival - own arrival")


def build(con, fmt, spec, per_rank=False, stragglers=False, no_align=False, **seg_opts) -> rnd.Result:
    if per_rank and stragglers:
        raise UsageError("--per-rank and --stragglers are two layouts of report ranks; give one")
    opt = binding.Options(**seg_opts)
    ids, names, dropped, bare = _runs_with_kernels(con, opt)
    opt.runs, opt.tags = [names[r] for r in ids], []
    try:
        b, meta = _segment_alike(con, opt, spec)
    except NoAnchor as e:
        b, meta = _whole_runs(con, opt, str(e))
    b.notes += dropped
    rank_of = _ranks(con, b)
    stage_of = {r: s for r, (s, _) in pipeline.stage_table(con, b.run_ids + bare).items()}
    passes = _common_passes(con, b, stage_of)
    bases = {r: base for r, (base, _) in pipeline.model_layers(con, _layer_counts(con, b)).items()}
    if stage_of:
        b.notes.append(_stage_note(con, b, stage_of, bases, rank_of))
    sql.run(con, "breakdown_activity_layers", {"run_ids": b.run_ids, "by_layer": True})
    sql.run(con, "breakdown_union")
    clocks = align.rank_offsets(con, b.run_ids + bare, align=not no_align, profile=opt.profile)
    offsets = {r: int(clocks.offsets.get(r, 0) or 0) for r in b.run_ids}
    sets = {r: clocks.clock_set.get(r, -1) for r in b.run_ids + bare}   # -1: one clock for all
    sql.run(con, "ranks_rank_table",
            {"r": b.run_ids, "k": [rank_of[r] for r in b.run_ids], "o": [offsets[r] for r in b.run_ids],
             "s": [sets[r] for r in b.run_ids], "p": [stage_of.get(r, -1) for r in b.run_ids],
             "b": [bases.get(r, 0) for r in b.run_ids]})
    bare_rank = dict(sql.run(con, "run_ranks", {"run_ids": bare}).fetchall())
    sql.run(con, "ranks_bare_table", {"r": bare, "k": [bare_rank.get(r) for r in bare], "s": [sets[r] for r in bare],
                                      "p": [stage_of.get(r, -1) for r in bare]})
    sql.run(con, "ranks_units", {"passes": passes, "min_skew": MIN_SKEW, "peak_share": PEAK_SHARE})
    placed = {r for (r,) in sql.run(con, "ranks_placed_bare").fetchall()}
    if bare and not placed:
        b.notes.append("none of the collectives of the ranks without kernels is one a rank with kernels has in the "
                       "compared passes: they have no row (report collectives and blame show them)")
    b.notes.append(_clock_note(clocks))
    b.notes.append(DEFINITIONS)
    meta.update({"ranks": ", ".join(f"{rank_of[r]}={b.run_names[r]}" for r in b.run_ids),
                 "clocks": "aligned" if clocks.aligned else "raw", "min_skew": MIN_SKEW})
    # outside a pipeline the stage is empty and the model layer is the layer: the tables and page a person reads
    # leave them out; CSV and JSON, which programs read, keep one set of columns
    staged = ((lambda res: res) if stage_of or fmt not in (*rnd.READING, "html")
              else (lambda res: rnd.drop_columns(res, ["pp_stage", "model_layer"])))
    if stragglers:
        meta["view"] = "stragglers"
        return rnd.fetch_file(con, fmt, "report_ranks_stragglers", {}, "ranks", b, meta,
                              "stragglers: per layer and overall, the rank that was the slowest most often",
                              labels={"layer": ("all", "passes")})
    if per_rank:
        meta["view"] = "per rank"
        return staged(rnd.fetch_file(con, fmt, "report_ranks_per_rank", {}, "ranks", b, meta,
                                     "ranks per layer: compute, communication and wait of each rank",
                                     labels=units.PROLOGUE))
    meta["view"] = "per layer"
    return staged(rnd.fetch_file(con, fmt, "report_ranks", {}, "ranks", b, meta,
                                 "ranks per layer: compute time spread, slowest rank, last arrival",
                                 labels=units.PROLOGUE))


def _segment_alike(con, opt, spec):
    """Segment every rank with the same options: (bound options, report parameters). With passes found by gaps
    (no --layers), a fast rank waits at every collective, so its gaps inside a pass grow towards the pass break
    and it may show one long pass where the slow rank shows three. When the ranks' layer counts then differ,
    every rank ran as many anchors and every count is a multiple of the smallest, all ranks are cut every that
    many layers (with a note); other differences are _common_passes's error."""
    b, meta = units.segmented(con, opt, spec, selection.select_noted)
    counts = _layer_counts(con, b)
    if len(set(pipeline.stage_table(con, b.run_ids).values())) > 1:
        return b, meta   # pipeline stages hold their own shares of the model: no count is common to all
    common = _shared_layer_count(counts)
    anchors = set(dict(sql.run(con, "ranks_anchor_counts").fetchall()).values())
    if len(set(counts.values())) < 2 or b.layers is not None or not common or len(anchors) != 1:
        return b, meta
    opt.layers = common
    b, meta = units.segmented(con, opt, spec, selection.select_noted)
    b.notes.append("the ranks' passes split by gaps held different layer counts ("
                   + ", ".join(f"'{b.run_names[r]}' {n}" for r, n in counts.items())
                   + f"): every rank cut into passes of {common} layers, the count all of them are multiples of; "
                     "give --layers to choose")
    return b, meta


def _whole_runs(con, opt, why: str):
    """Every rank's kernels in one unit, the whole run (ranks_whole_runs.sql), compared as a layer is."""
    b, meta = units.whole_runs(con, opt, why, "each rank's whole run compared, no pass or layer")
    sql.run(con, "ranks_whole_runs")
    return b, meta


def _runs_with_kernels(con, opt):
    """The selected runs that have kernels to compare, and those without ((ids, names, notes, bare)). A run
    without kernels (an Ascend rank folder holding only communication analyses) takes part through its
    collectives, with a note; a selection of one run, or of no run with kernels, is an error."""
    ids = resolve_runs(con, opt.runs, opt.tags)
    rows = sql.run(con, "ranks_kernel_counts", {"i": ids}).fetchall()
    names = {r: n for r, n, _ in rows}
    count = {r: c for r, _, c in rows}
    empty = [r for r in ids if not count[r]]
    kept = [r for r in ids if count[r]]
    listed = lambda rs: ", ".join(f"'{names[r]}'" for r in rs)   # noqa: E731
    if len(ids) < 2:
        raise UsageError(f"report ranks compares the ranks of a job: 1 run selected ({listed(ids)}); select its "
                         "ranks, e.g. --run 'JOB-rank*' or --tag job=JOB")
    if not kept:
        raise UsageError(f"report ranks compares the ranks of a job by layer: none of the {len(ids)} runs selected has "
                         f"kernels ({listed(empty)}: communication analyses only)")
    notes = [f"no kernels, communication ops only: {listed(empty)}: their waits and late arrivals at the collectives "
             "are placed in the layer their instance has on the ranks with kernels; no compute"] if empty else []
    return kept, names, notes, empty


def _ranks(con, b) -> dict[int, int]:
    """run_id -> rank: the runs' own ranks, or, when a run has none or two runs share one, their position in
    run order (said in a note)."""
    got = dict(sql.run(con, "run_ranks", {"run_ids": b.run_ids}).fetchall())
    ranks = [got[r] for r in b.run_ids]
    if None not in ranks and len(set(ranks)) == len(ranks):
        return {r: got[r] for r in b.run_ids}
    why = ("no rank recorded for " + ", ".join(f"'{b.run_names[r]}'" for r in b.run_ids if got[r] is None)
           if None in ranks else "two runs share a rank")
    b.notes.append(f"ranks numbered in run order ({why}): "
                   + ", ".join(f"{i}={b.run_names[r]}" for i, r in enumerate(b.run_ids)))
    return {r: i for i, r in enumerate(b.run_ids)}


def _common_passes(con, b, stage_of: dict[int, int]) -> list[int]:
    """The selected passes every rank has, after checking that the full passes of the ranks of one pipeline
    stage hold one layer count (stages may hold different shares of the model). Passes that only some ranks
    have are left out with a note."""
    counts = _layer_counts(con, b)
    per_stage = {}
    for r, n in counts.items():
        per_stage.setdefault(stage_of.get(r, -1), set()).add(n)
    if any(len(v) > 1 for v in per_stage.values()):
        raise UsageError("the ranks' passes do not hold the same number of layers: "
                         + ", ".join(f"'{b.run_names[r]}' {n}" for r, n in counts.items())
                         + "; report ranks compares layer by layer: give --anchor and --layers so that every rank "
                           "is segmented alike")
    shape = sql.run(con, "ranks_shape", {"run_ids": b.run_ids}).fetchall()
    have = {r: set() for r in b.run_ids}
    for rid, p, _, _ in shape:       # one pass over the rows (a scan per rank: 0.3 s at 1,024 ranks)
        if rid in have:
            have[rid].add(p)
    have = {r: sorted(v) for r, v in have.items()}
    common = sorted(set.intersection(*(set(v) for v in have.values())))
    if not common:
        raise UsageError("the selected passes do not line up across ranks: "
                         + "; ".join(f"'{b.run_names[r]}' {_span(v)}" for r, v in have.items())
                         + "; give --pass all or a pass number every rank has")
    if any(v != common for v in have.values()):
        b.notes.append("the ranks have different passes (" + "; ".join(f"'{b.run_names[r]}' {_span(v)}"
                                                                         for r, v in have.items())
                       + f"): compared the {len(common)} they share, {_span(common)}")
    return common


def _stage_note(con, b, stage_of: dict, bases: dict, rank_of: dict) -> str:
    """The pipeline stages of the compared ranks, and each stage's compute over the compared passes: ranks are
    compared layer by layer only with the ranks of their own stage (the same model layers); stages with
    each other only by their whole time."""
    per = {}
    for r in b.run_ids:
        per.setdefault(stage_of.get(r, -1), []).append(r)
    parts, layers = [], _layer_counts(con, b)
    for st, rs in sorted(per.items()):
        first = bases.get(rs[0], 0)
        n = layers.get(rs[0])
        what = f"model layers {first}-{first + n - 1}" if n else "no layers"
        parts.append(f"stage {st if st >= 0 else '?'}: ranks {', '.join(str(rank_of[r]) for r in rs)} ({what})")
    return ("pipeline stages: " + "; ".join(parts) + ". A layer is compared only with the same model layer on the "
            "ranks of its stage (its data- and tensor-parallel peers); the stages run different layers, so their "
            "skew is not a straggler: report pipeline compares the stages' time")


def _layer_counts(con, b) -> dict[int, int]:
    """run_id -> the layers of its selected full passes (the most, when they differ; runs whose selected passes
    are all partial have none)."""
    layers = {}
    for rid, _, n_layers, partial in sql.run(con, "ranks_shape", {"run_ids": b.run_ids}).fetchall():
        if not partial:
            layers.setdefault(rid, set()).add(n_layers)
    return {r: max(layers[r]) for r in b.run_ids if r in layers}


def _shared_layer_count(counts: dict[int, int]) -> int | None:
    """The smallest layer count of the ranks when every other count is a multiple of it (one pass found on a
    rank where another found two or three in a row), else None."""
    if not counts:
        return None
    least = min(counts.values())
    return least if least > 0 and all(n % least == 0 for n in counts.values()) else None


def _span(passes: list[int]) -> str:
    if not passes:
        return "no pass"
    if passes == list(range(passes[0], passes[-1] + 1)) and len(passes) > 1:
        return f"passes {passes[0]}..{passes[-1]}"
    return ("pass " if len(passes) == 1 else "passes ") + ", ".join(map(str, passes))


def _clock_note(clocks) -> str:
    """Whether arrivals are compared on one clock: the alignment's own note, and what raw clocks mean."""
    head = clocks.note or ("clocks aligned" if clocks.aligned else "clocks not aligned")
    if clocks.aligned:
        return head
    return (f"{head}; arrivals are compared on each rank's own clock, so a clock offset between ranks shows as "
            "arrival spread; compute times are durations and do not depend on it")
