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
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_waits (run_id INTEGER, waited_ns BIGINT)")
    if len(b.run_ids) < 2:
        return ["slow-rank: one run selected, no job of two or more ranks to compare"]
    sql.run(con, "advise_slow_rank_candidates", {"run_ids": b.run_ids, "min_excess_pct": th["min_excess_pct"]})
    cand = [r for (r,) in con.execute("SELECT run_id FROM _adv_slow_cand ORDER BY run_id").fetchall()]
    notes = []
    untagged, distinct = con.execute(
        "SELECT count(*), count(DISTINCT rank) = count(*) AND count(DISTINCT world_size) <= 1 FROM runs "
        "WHERE run_id IN (SELECT unnest($r)) AND list_extract(map_extract(tags, 'job'), 1) IS NULL",
        {"r": b.run_ids}).fetchone()
    if untagged >= 2 and not distinct:
        notes.append(f"slow-rank: {untagged} of the selected runs carry no job tag and are not one job's ranks "
                     "(a rank unknown or repeated, or two world sizes): not compared (tag a job's runs job=NAME)")
    # report blame over each candidate's job (its selected ranks), one job at a time: runs of other jobs or
    # none would make it another question (or fail it), and a job's figures must not depend on what else is
    # selected
    from tracedb.engine.jobs import blame
    jobs = selected_jobs(con)
    by_name = {n: r for r, n in b.run_names.items()}
    for job in sorted({j for (j,) in con.execute("SELECT DISTINCT job FROM _adv_slow_cand").fetchall()},
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
            con.executemany("INSERT INTO _adv_waits VALUES (?, ?)", list(waited.items()))
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
        con.execute("CREATE OR REPLACE TEMP TABLE _coll_ops (run_id INTEGER, kseq BIGINT, op VARCHAR, grp VARCHAR, "
                    "start_ns BIGINT, end_ns BIGINT)")
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
    if len(b.run_ids) < 2 or not con.execute("SELECT count(*) FROM _coll_match").fetchone()[0]:
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
    ranks = {job: [r for (r,) in con.execute(
        "SELECT run_id FROM runs WHERE list_extract(map_extract(tags, 'job'), 1) = $j ORDER BY run_id",
        {"j": job}).fetchall()] if job is not None else selected for job, selected in jobs.items()}
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_peers (run_id INTEGER, kseq BIGINT, peer_ns BIGINT)")
    if on_clock and len(jobs) == 1 and ranks == jobs:      # one job, all its ranks selected: aligned already
        sql.run(con, "collectives_peers", {"on_clock": on_clock})
        con.execute("INSERT INTO _adv_peers SELECT * FROM _coll_peers")
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
                con.execute("INSERT INTO _adv_peers SELECT * FROM _coll_peers")
    con.execute("CREATE OR REPLACE TEMP TABLE _coll_peers AS SELECT * FROM _adv_peers")
    sql.run(con, "advise_comm_wait")
    sql.run(con, "breakdown_union")
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_bd_split AS SELECT run_id, step, unit, busy_ns - computing_ns "
                "AS exposed_ns FROM _bd_units")
    sql.run(con, "advise_exposed_comm", {"min_pct": th["min_pct"]})
    return notes


def selected_jobs(con) -> dict:
    """The selected runs (_adv_runs) by their job tag (None: untagged), in run order."""
    jobs = {}
    for rid, job in con.execute("SELECT run_id, job FROM _adv_runs ORDER BY run_id").fetchall():
        jobs.setdefault(job, []).append(rid)
    return jobs


def pipeline(con, b, profile) -> list[str]:
    """Report pipeline over the runs that are pipeline stages (_pl_rows, for rule pipeline-bubble), and the
    stretches each stage waited for the others (_adv_pp_waits: empty without pipeline stages)."""
    from tracedb.engine.reports import pipeline
    con.execute("DROP TABLE IF EXISTS _pl_rows")        # an earlier report's rows are not these runs'
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_pp_waits (run_id INTEGER, step BIGINT, s BIGINT, e BIGINT)")
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
    if not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = '_pl_passes'").fetchone()[0]:
        return notes
    sql.run(con, "advise_pipeline_waits")
    staged = [b.run_names[r] for (r,) in con.execute(
        "SELECT DISTINCT run_id FROM _adv_pp_waits ORDER BY run_id").fetchall()]
    if not staged:
        return notes
    return notes + [f"pipeline stages ({', '.join(staged)}): their waits for the other stages (before, between and "
                    "after their passes) and their pipeline sends and receives are rule pipeline-bubble's, judged "
                    "against the schedule's ideal bubble, not idle-gap's or exposed-comm's"]
