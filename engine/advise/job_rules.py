"""The rules of `tracedb advise` that compare a job's ranks: pipeline-bubble's stages (pipeline), slow-rank
(slow_rank), small-collectives and slow-link over the runs' communication ops (collective_ops, collectives), and
exposed-comm with its waiting told from its transfer (exposed_comm); each runs its query files of sql/advise/ and
returns its notes."""
from decimal import Decimal

from tracedb import sql
from tracedb.engine.segmentation.words import ALL_PASSES
from tracedb.errors import TracedbError


def slow_rank(con, b, th, profile) -> list[str]:
    """Candidates from the breakdowns; report blame's waits charged to them, when there is a candidate."""
    sql.run(con, "advise_job_rules_waits")
    if len(b.run_ids) < 2:
        return ["slow-rank: one run selected, no job of two or more ranks to compare"]
    sql.run(con, "advise_slow_rank_candidates", {"run_ids": b.run_ids, "min_excess_pct": th["min_excess_pct"]})
    cand = [r for (r,) in sql.run(con, "advise_job_rules_candidates").fetchall()]
    notes = []
    untagged, distinct = sql.run(con, "advise_job_rules_untagged", {"run_ids": b.run_ids}).fetchone()
    if untagged >= 2 and not distinct:
        notes.append(f"slow-rank: {untagged} of the selected runs carry no job tag and are not one job's ranks "
                     "(a rank unknown or repeated, or two world sizes): not compared (tag a job's runs job=NAME)")
    # report blame over each candidate's job (its selected ranks), one job at a time: runs of other jobs or
    # none would make it another question (or fail it), and a job's figures must not depend on what else is
    # selected
    from tracedb.engine.jobs import blame
    jobs = selected_jobs(con)
    by_name = {n: r for r, n in b.run_names.items()}
    for job in sorted({j for (j,) in sql.run(con, "advise_job_rules_candidate_jobs").fetchall()},
                      key=lambda j: (j is not None, j or "")):
        runs = jobs.get(job, [])
        try:
            res = blame.build(con, "json", ALL_PASSES, "kernel", top=0, runs=[b.run_names[r] for r in runs],
                              tags=[], profile=profile)
        except TracedbError as e:
            notes.append(f"slow-rank: report blame could not run{f' for job {job}' if job else ''} "
                         f"({str(e).split(';')[0]}): the time at stake is the rank's compute excess")
            continue
        waited = {}
        at_run, at_wait = res.columns.index("run"), res.columns.index("waited_us")
        for row in res.rows:
            rid = by_name.get(row[at_run])
            if rid in cand and row[at_wait] is not None:
                waited[rid] = waited.get(rid, 0) + int(Decimal(row[at_wait]) * 1000)
        if waited:
            con.executemany(sql.load("advise_job_rules_waits_add"),
                            [{"run_id": r, "waited_ns": ns} for r, ns in waited.items()])
    sql.run(con, "advise_slow_rank")
    return notes


def collective_ops(con, b, profile) -> str | None:
    """The runs' communication ops with their sizes (report collectives': _coll_ops, _coll_match); why not, when
    they cannot be read (then _coll_ops is empty)."""
    from tracedb.engine.jobs import align
    try:
        align.prepare(con, b.run_ids, profile)
        return None
    except TracedbError as e:
        sql.run(con, "advise_job_rules_no_ops")
        return str(e).split(';')[0]


def collectives(con, b, th, error: str | None, on_clock: list) -> list[str]:
    """Rule small-collectives over the runs' communication ops (collective_ops; `error`: why they could not be
    read); in a job, its instances with clocks aligned on them, then rule slow-link. `on_clock` gains the runs the
    alignment reached."""
    from tracedb.engine.jobs import align
    if error:
        return [f"small-collectives, slow-link: not checked ({error})"]
    small = th["small-collectives"]
    sql.run(con, "advise_small_collectives", {"max_bytes": round(small["max_bytes"]),
                                              "min_per_step": small["min_per_step"], "min_pct": small["min_pct"]})
    if len(b.run_ids) < 2 or not sql.run(con, "advise_job_rules_matched").fetchone()[0]:
        return []
    try:
        alignment = align.estimate(con, b.run_ids, align=True)
    except TracedbError as e:
        return [f"slow-link: not checked ({str(e).split(';')[0]})"]
    if alignment.instances:
        on_clock += alignment.on_clock
    link = th["slow-link"]
    sql.run(con, "advise_slow_link", {"on_clock": list(alignment.on_clock),
                                      "min_instances": round(link["min_instances"]),
                                      "min_excess_pct": link["min_excess_pct"], "min_excess_us": link["min_excess_us"],
                                      "min_pct": link["min_pct"]})
    return []


def exposed_comm(con, b, th, on_clock) -> list[str]:
    """Rule exposed-comm, its exposed communication split into the waiting for the last rank to arrive and the
    transfer (advise_comm_wait.sql) where the job's other ranks say when they arrived: the selected runs on the
    clocks collectives() aligned when they are one job's ranks; else job by job, each job's ranks in the store
    (selected or not, as report critical-path reads them) on clocks aligned on its collectives."""
    from tracedb.engine.jobs import align
    notes = []
    jobs = selected_jobs(con)
    # each job's ranks in the store, those without kernels too (an Ascend rank folder with its communication.json
    # alone says when its collectives began)
    ranks = {job: [r for (r,) in sql.run(con, "advise_job_rules_job_ranks", {"job": job}).fetchall()]
             if job is not None else selected for job, selected in jobs.items()}
    sql.run(con, "advise_job_rules_peers")
    if on_clock and len(jobs) == 1 and ranks == jobs:      # one job, all its ranks selected: aligned already
        sql.run(con, "collectives_peers", {"on_clock": on_clock})
        sql.run(con, "advise_job_rules_peers_add")
    else:
        for job, runs in ranks.items():
            if job is None or len(runs) < 2:
                continue
            try:
                found = align.rank_offsets(con, runs, profile=b.profile.name if b.profile else None)
            except TracedbError as e:
                notes.append(f"exposed-comm: job {job}: waiting not told from transfer ({str(e).split(';')[0]})")
                continue
            if found.instances:
                sql.run(con, "collectives_peers", {"on_clock": list(found.on_clock)})
                sql.run(con, "advise_job_rules_peers_add")
    sql.run(con, "advise_job_rules_peers_keep")
    sql.run(con, "advise_comm_wait")
    sql.run(con, "breakdown_union")
    sql.run(con, "advise_job_rules_bd_split")
    sql.run(con, "advise_exposed_comm", {"min_pct": th["min_pct"]})
    return notes


def selected_jobs(con) -> dict:
    """The selected runs (_adv_runs) by their job tag (None: untagged), in run order."""
    jobs = {}
    for rid, job in sql.run(con, "advise_job_rules_jobs").fetchall():
        jobs.setdefault(job, []).append(rid)
    return jobs


def pipeline(con, b, profile) -> list[str]:
    """Report pipeline over the runs that are pipeline stages (_pl_rows, for rule pipeline-bubble), and the
    stretches each stage waited for the others (_adv_pp_waits: empty without pipeline stages)."""
    from tracedb.engine.reports import pipeline
    sql.run(con, "advise_job_rules_pipeline_reset")        # an earlier report's rows are not these runs'
    stages = pipeline._candidates(con, b.run_ids)
    if not stages:
        return []
    # the candidate stages with the selected runs of their jobs, job by job should one fail: a job whose runs
    # cannot be segmented must not stop the rule for another (a whole store selected)
    jobs = selected_jobs(con)
    # an untagged run is a job of its own here
    groups = [runs for job, runs in jobs.items() if job is not None and any(r in stages for r in runs)]
    groups += [[r] for r in jobs.get(None, []) if r in stages]
    notes = []

    def build(runs) -> str | None:
        try:
            pipeline.build(con, "json", runs=[b.run_names[r] for r in runs], tags=[], profile=profile)
            return None
        except TracedbError as e:
            return str(e).split(';')[0]
    failed = build([r for runs in groups for r in runs])
    if failed and len(groups) > 1:
        good = []
        for runs in groups:
            why = build(runs)
            if why:
                notes.append(f"pipeline-bubble: not checked for {', '.join(b.run_names[r] for r in runs)} ({why})")
            else:
                good += runs
        failed = build(good) if good else "no job of pipeline stages could be read"
    if failed:      # every job failed: each said so above, or the one job says so now
        return notes or [f"pipeline-bubble: not checked ({failed})"]
    if not sql.run(con, "advise_job_rules_pipeline_passes").fetchone()[0]:
        return notes
    sql.run(con, "advise_pipeline_waits")
    staged = [b.run_names[r] for (r,) in sql.run(con, "advise_job_rules_staged").fetchall()]
    if not staged:
        return notes
    return notes + [f"pipeline stages ({', '.join(staged)}): their waits for the other stages (before, between and "
                    "after their passes) and their pipeline sends and receives are rule pipeline-bubble's, judged "
                    "against the schedule's ideal bubble, not idle-gap's or exposed-comm's"]
