"""`report pipeline`: the pipeline of a pipeline-parallel job, as msprof-analyze's pp chart lays it out (its
forward and backward blocks per rank of a PP domain): per stage, rank, step and micro-batch (each forward and
backward pass) when it ran, its busy time and the bubble before it, and per stage its bubble in all against
the ideal of a 1F1B schedule (sql/report/pipeline_*.sql, docs/reports.md#report-pipeline).

A run's stage comes from sql/segment/pipeline_stage.sql: its pipeline process group, else the order of its
forward and backward passes around its pipeline sends and receives when its job says how many stages there
are; a stage that cannot be told is said to be unknown, never guessed. Every run is segmented as report passes
segments it (forward and backward passes, each phase in its own stream), and the ranks' clocks are aligned on
their collectives as the other job reports align them."""
from tracedb import sql
from tracedb.engine.jobs import align
from tracedb.engine.reports import declared
from tracedb.engine.rendering import render as rnd
from tracedb.engine.rendering.run_notes import listed
from tracedb.engine.segmentation import assignment, binding, segment
from tracedb.engine.segmentation.phases import PIPELINE_P2P
from tracedb.engine.segmentation.words import ALL_PASSES
from tracedb.engine.store.connect import resolve_runs

DEFINITIONS = (
    "a micro-batch is a forward or backward pass; its compute is its kernels but the pipeline sends and receives "
    "(batchSendRecv, send, receive, SendRecv); start, end: its first compute kernel's start, its last one's end; "
    "busy: the union of its compute kernels' intervals; bubble: the wait before it, its start minus the end of the "
    "rank's previous pass of the step (the first pass: minus the step's first kernel on the rank), 0 where passes "
    "overlap; p2p: the sends and receives in that wait; a stage row: its step's busy and bubble summed, the bubble "
    "with the tail from the rank's last pass to the end of its pipeline group's last pass, bubble_pct = bubble / "
    "(that end - the step's start)")
IDEAL = ("ideal_1f1b_pct is the bubble fraction of a 1F1B (or GPipe) schedule, (p - 1) / (m + p - 1) for p stages "
         "and m micro-batches of equal time: not the ideal of an interleaved (virtual) pipeline or of DualPipe")
NONE = ("no run of the selection is a pipeline stage: none has a pipeline process group of two or more ranks or a "
        "pipeline send/receive kernel")
COLUMNS = [c.name for c in declared.get("pipeline").columns]
SPARSE = {"p2p_us"}


def build(con, fmt, absolute=False, no_align=False, **seg_opts) -> rnd.Result:
    opt = binding.Options(**seg_opts)
    ids = resolve_runs(con, opt.runs, opt.tags)
    names = dict(sql.run(con, "run_names", {"run_ids": ids}).fetchall())
    candidates = _candidates(con, ids)
    if not candidates:
        return _empty(fmt, names, ids, NONE)
    counts = dict(sql.run(con, "pipeline_kernel_counts", {"run_ids": ids}).fetchall())
    staged = [r for r in ids if r in candidates and counts.get(r)]
    bare = [r for r in ids if r in candidates and not counts.get(r)]
    others = [r for r in ids if r not in candidates]
    notes = [f"not a pipeline stage (no pipeline process group, no pipeline send/receive kernel), left out: "
             f"{', '.join(repr(names[r]) for r in others)}"] if others else []
    notes += [f"run '{names[r]}': pipeline stage {_stage_text(candidates[r])}; no kernels (communication analyses "
              "only), so no passes" for r in bare]
    if not staged:
        return _empty(fmt, names, ids, "the pipeline stages selected have no kernels, so no passes: "
                      + ", ".join(f"'{names[r]}' ({_stage_text(candidates[r])})" for r in bare))
    # the whole selection when every run of it with kernels is a stage: a segmentation `tracedb segment` kept
    # for that selection is then restored
    if [r for r in ids if counts.get(r)] != staged:
        opt.runs, opt.tags = [names[r] for r in staged], []
    sql.run(con, "pipeline_forget")
    b, meta = None, {}
    for b in segment.each_phase(con, opt):
        assignment.assign(con, b, assignment.select_passes(con, b, ALL_PASSES))
        sql.run(con, "pipeline_passes", {"phase": b.phase})
        notes += [n for n in b.notes if n not in notes]
        meta.update({"runs": ", ".join(names[r] for r in b.run_ids), f"{b.phase} anchor": b.anchor,
                     "window": b.window})
    # the stages once the kernels' phases are known: the send/receive order is read from them
    stages = {r[0]: r for r in sql.run(con, "pipeline_stage", {"run_ids": b.run_ids}).fetchall()}
    segmented = [r for r in staged if r in b.run_ids]
    notes += _stage_notes(names, [stages[r] for r in segmented if r in stages])
    clocks = _clocks(con, segmented + bare, no_align, opt.profile)
    if clocks is not None:
        notes.append(clocks.note)
    _ranks_table(con, segmented, stages, clocks)
    notes += [DEFINITIONS, IDEAL]
    meta.update({"clocks": "aligned" if clocks is not None and clocks.aligned else "raw",
                 "times": "absolute" if absolute else "from the earliest step start"})
    b.notes = notes
    sql.run(con, "pipeline_report", {"absolute": bool(absolute)})
    res = rnd.fetch_file(con, fmt, "pipeline_report", {}, "pipeline", b, meta,
                         "pipeline: micro-batches per stage and rank, the bubble before each, and each stage's bubble "
                         "against 1F1B's ideal", display={"phase": "(stage)"}, sparse=SPARSE)
    if fmt not in rnd.READING:
        return res
    # a table for people: a stage row says so in its phase column, and `partial` only where a pass is
    at = res.columns.index("partial")
    return rnd.drop_columns(res, ["unit"] + (["partial"] if all(r[at] != "true" for r in res.rows) else []))


def _candidates(con, ids: list[int]) -> dict[int, tuple]:
    """The runs of `ids` that may be pipeline stages (pipeline_stage.sql's rows: a pipeline process group, or
    pipeline send/receive kernels), before any segmentation: the stage order is read once the passes are
    found. The session tables the file reads get empty stand-ins where no segmentation made them yet."""
    p2p = [n for (n,) in sql.run(con, "pipeline_kernel_names", {"run_ids": ids}).fetchall() if PIPELINE_P2P.search(n)]
    sql.run(con, "pipeline_candidates", {"names": p2p})
    return {r[0]: r for r in sql.run(con, "pipeline_stage", {"run_ids": ids}).fetchall()}


def _stage_text(row) -> str:
    _, stage, stages, ranks, desc, _, source, why = row
    if stage is None:
        return f"unknown ({why})"
    whence = f"process group {desc}, ranks {', '.join(map(str, ranks))}" if source == "process-group" else why
    return f"{stage} of {stages} ({whence})"


def _stage_notes(names, rows) -> list[str]:
    """Where the stages come from: one note for the runs whose process group gives theirs, one per run for the
    others (its send/receive order, or why its stage is unknown)."""
    grouped = [r for r in rows if r[6] == "process-group"]
    out = []
    if grouped:
        descs = ", ".join(dict.fromkeys(str(r[4]) for r in grouped))
        out.append(f"pipeline stage of each run: its rank in its pipeline process group ({descs}): "
                   + listed([f"'{names[r[0]]}' {r[1]} of {r[2]}" for r in grouped], 8))
    for r in rows:
        if r[6] == "process-group":
            continue
        out.append(f"run '{names[r[0]]}': pipeline stage {r[1]} of {r[2]} ({r[7]})" if r[1] is not None else
                   f"run '{names[r[0]]}': pipeline send/receive kernels, but its pipeline stage is unknown: {r[7]}; "
                   "its rows have no pp_stage")
    return out


def _clocks(con, run_ids: list[int], no_align: bool, profile):
    """The ranks' clock offsets (engine/jobs/align.py) when more than one rank is shown; None for one rank."""
    if len(run_ids) < 2:
        return None
    return align.rank_offsets(con, run_ids, align=not no_align, profile=profile)


def _ranks_table(con, run_ids: list[int], stages: dict, clocks):
    """TEMP _pl_ranks: each run's rank, stage, pipeline group (its ranks as text; a run whose group is unknown
    is a pipeline of its own), clock offset and clock set."""
    ranks = dict(sql.run(con, "run_ranks", {"run_ids": run_ids}).fetchall())
    row = {r: stages.get(r, (r, None, None, None, None, None, None, None)) for r in run_ids}
    offsets = {r: int((clocks.offsets.get(r) if clocks else 0) or 0) for r in run_ids}
    sets = {r: (clocks.clock_set.get(r, -1) if clocks else -1) for r in run_ids}
    sql.run(con, "pipeline_ranks",
            {"run_ids": run_ids, "ranks": [ranks.get(r) for r in run_ids], "stages": [row[r][1] for r in run_ids],
             "counts": [row[r][2] for r in run_ids],
             "pipelines": [",".join(map(str, row[r][3])) if row[r][3] else f"run {r}" for r in run_ids],
             "offsets": [offsets[r] for r in run_ids], "clock_sets": [sets[r] for r in run_ids]})


def _empty(fmt, names, ids, why) -> rnd.Result:
    """No row, and one line that says why (exit 0: a job without pipeline parallelism is an answer)."""
    return rnd.Result(report="pipeline", columns=list(COLUMNS), numeric=[c.type != "VARCHAR" and c.type != "BOOLEAN"
                                                                           for c in declared.get("pipeline").columns],
                      rows=[], csv_body="" if fmt in rnd.CSV_FORMATS else None, title="", params={
                          "runs": ", ".join(names[r] for r in ids)}, notes=[why])
