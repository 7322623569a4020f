"""`report blame`: which rank, layer and kernel (or host delay) made the other ranks of a job wait at their
collectives (sql/report/blame.sql): every rank segmented alike, the clocks aligned on the collectives
(engine/jobs/align.py), each instance's waiting charged to the late rank's excess over the others."""
from tracedb import sql
from tracedb.engine.jobs import align as clock
from tracedb.engine.rendering import render as rnd
from tracedb.engine.segmentation import pipeline
from tracedb.engine.segmentation import assignment, binding
from tracedb.engine.segmentation import units
from tracedb.engine.segmentation.words import ALL_PASSES
from tracedb.errors import NoAnchor, UsageError

DEFINITIONS = ("waited: at each collective instance, the other members' time between their arrival and the last "
               "member's, charged to the last member's causes in its segment before the collective (its kernels "
               "since its previous communication op): a kernel's excess over the median time of the same kernel on "
               "the other members, or its host-bound idle (device idle until the next launch call) over theirs, "
               "shared in proportion to the excess; '(unexplained)': the late rank shows no excess")


def build(con, fmt, spec=ALL_PASSES, by="kernel", no_align=False, top=30, **seg_opts) -> rnd.Result:
    """The blame rows of the selected ranks; `top`: rows kept, most waited first, the others summed in one
    '(N more)' row (0: all; `report blame` keeps 30 in a table for reading, every row in CSV and JSON). A
    128-rank job has ~14,000 (rank, pass, layer, cause) rows: printed whole, the table took 0.8 s to lay
    out and no one reads it."""
    job = binding.bind_runs(con, seg_opts.get("runs") or [], seg_opts.get("tags") or [])
    if len(job.run_ids) < 2:
        raise UsageError(f"report blame compares the ranks of a job; run '{job.run_names[job.run_ids[0]]}' alone "
                         "made no one wait: select two or more runs (--tag job=JOB or --run 'JOB-rank*')")
    # a rank without kernel rows (an Ascend rank folder with communication.json only) takes part in the
    # collectives; only the ranks with kernels are segmented
    have = {r for (r,) in sql.run(con, "blame_kernel_runs", {"r": job.run_ids}).fetchall()}
    kernel_runs = [r for r in job.run_ids if r in have]
    if not kernel_runs:
        raise UsageError(f"runs {', '.join(job.run_names.values())}: no kernels to blame")
    opt = binding.Options(**{**seg_opts, "runs": [job.run_names[r] for r in kernel_runs], "tags": []})
    try:
        b, meta = units.segmented(con, opt, spec, assignment.select_passes)
    except NoAnchor as e:
        if seg_opts.get("anchor") or seg_opts.get("phase"):
            raise
        b, meta = _whole_runs(con, opt, str(e))
    alignment = clock.rank_offsets(con, job.run_ids, align=not no_align, profile=seg_opts.get("profile"))
    if len({s for s, _ in pipeline.stage_table(con, job.run_ids).values()}) > 1:
        b.notes.append("pipeline stages: a late rank is compared only with the ranks of its own stage (the same "
                       "model layers); waits at a send/receive or collective across stages with no peer of the late "
                       "rank's stage are '(pipeline bubble)' (report pipeline shows each stage's bubbles)")
    b.notes += [DEFINITIONS, alignment.note]
    bare = [r for r in job.run_ids if r not in kernel_runs]
    if bare:
        b.notes.append(f"no kernel rows, only communication ops: {', '.join(job.run_names[r] for r in bare)}: they "
                       "wait and are waited for, and the waiting for them is charged to '(computing, from "
                       "step_trace_time)' where their folder has the profiler's step breakdown, else '(no kernels)'")
        b.notes += _step_computing_note(con, job, bare)
    b.run_ids, b.run_names = job.run_ids, job.run_names
    off = [b.run_names[r] for r in b.run_ids if r not in alignment.on_clock]
    if off:
        b.notes.append(f"{alignment.why_not} ({', '.join(off)}): their collectives are left out")
    meta.update(by=by, clocks="aligned" if alignment.aligned else "raw")
    params = {"run_ids": b.run_ids, "on_clock": alignment.on_clock, "by": by, "top": top}
    for stmt in sql.file_statements("blame")[:-1]:
        con.execute(stmt, sql.used_params(stmt, params))
    res = rnd.fetch_file(con, fmt, "blame", params,
                         "blame", b, meta, "who made the others wait: waited time at the collectives by late rank "
                         + ("and layer" if by == "layer" else "and cause"),
                         # a NULL layer is the prologue or epilogue (unit), or outside every pass; not on
                         # the '(N more)' row, the one without a rank
                         labels={"layer": ("(no pass)", "rank", "unit")})
    if fmt not in rnd.READING:
        return res
    if by == "layer":
        return rnd.drop_columns(res, ["pass", "kernel", "name"])
    # the short name for the name, kernels that share one told apart
    return rnd.for_people(res, short="kernel")


def _step_computing_note(con, job, bare: list[int]) -> list[str]:
    """What the profiler's step breakdown (step_times, from step_trace_time.csv) says every rank computed, when a
    rank without kernels has one: the only account of how long such a rank worked."""
    rows = sql.run(con, "blame_step_computing", {"r": job.run_ids}).fetchall()
    if not any(r in bare for r, _, _ in rows):
        return []
    order = {r: i for i, r in enumerate(job.run_ids)}
    shown = "; ".join(f"{job.run_names[r]} computing {c / 1e3:,.1f} us, free {(f or 0) / 1e3:,.1f} us"
                      + (" (no kernels)" if r in bare else "")
                      for r, c, f in sorted(rows, key=lambda t: order[t[0]]))
    return [f"step_trace_time.csv, summed over its steps: {shown}"]


def _whole_runs(con, opt, why: str):
    """Every kernel of each rank in one run-wide unit, so that a late rank's causes are its kernels before the
    collective all the same, with no pass or layer."""
    return units.whole_runs(con, opt, why, "causes by kernel over the whole run, no pass or layer")
