"""Run the rules of `tracedb advise` over the selected runs and render their findings.

Each rule is a query file of sql/advise/ over what a report computes already:

    idle-gap      the device timeline (report breakdown's activities)      advise_idle_gap.sql
    exposed-comm  report breakdown's comm_not_overlapped, by step or run,    advise_exposed_comm.sql,
                  split at the job's last arrivals (collectives_peers.sql)  advise_comm_wait.sql
    slow-rank     report breakdown's computing per rank and step, report    advise_slow_rank_candidates.sql,
                  blame's waited time (only when a candidate exists)        advise_slow_rank.sql
    roofline-gap  report roofline --phase all (kernel_work, peaks.py)       advise_roofline_gap.sql
    host-bound    report critical-path over each run's whole trace          advise_host_bound.sql
    sync-in-step  host synchronising calls and the device timeline          advise_sync_in_step.sql
    slow-link     report collectives' instances, clocks aligned             advise_slow_link.sql
    small-collectives  report collectives' ops and their sizes              advise_small_collectives.sql
    pipeline-bubble    report pipeline's stage rows                         advise_pipeline_bubble.sql
    pageable-copy      copies the trace names pageable                      advise_pageable_copy.sql
    moe-imbalance      expert work (GEMM shapes, all-to-all sizes) across     advise_moe_experts.sql,
                       a job's ranks                                          advise_moe_imbalance.sql
    regression         each run's step time against its --baseline run's     advise_regression.sql
    launch-bound       short kernels each waiting for its launch call           advise_launch_bound.sql
    fusion             repeated sequences of memory-bound elementwise kernels   advise_fusion.sql
    low-utilisation    stretches of short gaps no other rule explains           advise_low_utilisation.sql

idle-gap and low-utilisation run last and leave out what the others claim (advise_claims.sql).

advise_findings.sql ranks them by the time at stake and adds severity and what to try."""
import shlex
from decimal import Decimal

from tracedb import sql
from tracedb.engine.advise import rules
from tracedb.engine.reports.declaration import Chart
from tracedb.engine.rendering import render as rnd
from tracedb.engine.segmentation import binding, categories
from tracedb.errors import TracedbError, UsageError

TITLE = "advise: findings ranked by the step time at stake"
# the HTML page's chart: a bar per finding of its time at stake (engine/rendering/charts.py)
CHART = Chart(frozenset({"rule", "run", "severity", "at_stake_us"}), "advise")


class Advice:
    """The rendered findings (`result`) and each finding's severity (for --fail-on)."""

    def __init__(self, result: rnd.Result, severities: list[str]):
        self.result = result
        self.severities = severities


def build(con, fmt: str = "table", runs=(), tags=(), profile: str | None = None, db: str = "DB",
          threshold=(), baseline=()) -> Advice:
    """The findings of every rule over the runs `runs` / `tags` select (every run when both are empty, the
    baseline runs aside); `baseline` (run names or globs): the runs rule regression compares them with."""
    th = rules.thresholds(threshold)
    try:
        against = binding.bind_runs(con, list(baseline), [], profile) if baseline else None
    except UsageError as e:
        raise UsageError(f"--baseline: {e}") from None
    b = binding.bind_runs(con, list(runs or []), list(tags or []), profile)
    if against is not None:
        if not runs and not tags:       # every run: those of the store but the baseline's
            b = binding.bind_runs(con, [b.run_names[r] for r in b.run_ids if r not in against.run_ids], [], profile)
        both = [b.run_names[r] for r in b.run_ids if r in against.run_ids]
        if both:
            raise UsageError(f"--baseline: {', '.join(both)} selected both as a run and as its baseline; select the "
                             "runs to judge with --run / --tag and their baseline with --baseline")
        sql.run(con, "advise_runs", {"run_ids": against.run_ids, "db": shlex.quote(str(db))})
        con.execute("CREATE OR REPLACE TEMP TABLE _adv_base_runs AS SELECT * FROM _adv_runs")
    ids, names = b.run_ids, b.run_names
    notes = []
    sql.run(con, "advise_runs", {"run_ids": ids, "db": shlex.quote(str(db))})
    for rid, base in con.execute("SELECT run_id, base FROM _adv_runs WHERE base = 'span' ORDER BY run_id").fetchall():
        notes.append(f"run '{names[rid]}': no ProfilerStep#N annotation nor Step Id: at_stake_pct is of the run's "
                     "span")
    # first: a pipeline stage's waits for the other stages are rule pipeline-bubble's, not idle-gap's nor
    # exposed-comm's (their figures would be true, their advice wrong: the schedule idles by design)
    notes += _pipeline(con, b, profile)
    _breakdowns(con, b)
    # the runs' communication ops (report collectives'), which moe-imbalance, small-collectives and slow-link read
    coll_error = _collective_ops(con, b, profile)
    # before slow-rank, which leaves out the time a rank's expert GEMMs take for its extra tokens
    sql.run(con, "advise_moe_experts", {"run_ids": ids})
    sql.run(con, "advise_moe_imbalance", {"min_excess_pct": th["moe-imbalance"]["min_excess_pct"],
                                          "min_pct": th["moe-imbalance"]["min_pct"]})
    notes += _slow_rank(con, b, th["slow-rank"], profile)
    notes += _roofline_gap(con, b, th["roofline-gap"], profile)
    launch = th["launch-bound"]
    # before host-bound, which leaves the host work of these stretches to it
    sql.run(con, "advise_launch_bound", {"run_ids": ids, "max_launch_us": launch["max_launch_us"],
                                         "min_kernels": round(launch["min_kernels"]), "min_pct": launch["min_pct"]})
    notes += _host_bound(con, b, th["host-bound"])
    sql.run(con, "advise_timeline", {"run_ids": ids})
    sql.run(con, "advise_sync_in_step", {"run_ids": ids, "min_pct": th["sync-in-step"]["min_pct"]})
    # the generic rules last: idle-gap and low-utilisation count only the idle that the rules above do not claim
    sql.run(con, "advise_claims")
    sql.run(con, "advise_idle_gap", {"min_gap_ns": round(th["idle-gap"]["min_gap_us"] * 1000)})
    low = th["low-utilisation"]
    sql.run(con, "advise_low_utilisation", {"min_gap_ns": round(low["min_gap_us"] * 1000),
                                            "min_span_ns": round(low["min_span_us"] * 1000),
                                            "max_busy_pct": low["max_busy_pct"], "min_pct": low["min_pct"]})
    sql.run(con, "advise_fusion", {"run_ids": ids, "min_times": round(th["fusion"]["min_times"]),
                                   "min_pct": th["fusion"]["min_pct"]})
    sql.run(con, "advise_pageable_copy", {"run_ids": ids, "min_pct": th["pageable-copy"]["min_pct"]})
    on_clock = []
    notes += _collectives(con, b, th, coll_error, on_clock)
    notes += _exposed_comm(con, b, th["exposed-comm"], on_clock)
    if con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = '_pl_rows'").fetchone()[0]:
        sql.run(con, "advise_pipeline_bubble", {"min_pct": th["pipeline-bubble"]["min_pct"]})
    notes += _regression(con, b, against, th["regression"])
    notes.append("thresholds: " + rules.described(th) + " (--threshold RULE.KEY=VALUE; docs/advise.md)")
    notes.append("at_stake_pct: the time at stake over the step time (the sum of the runs' ProfilerStep#N, else of "
                 "their Step Ids' device spans, else of their step_trace_time.csv steps, else their span) of the runs "
                 "it is counted on; severity: info < 3 % <= low < 5 % <= medium < 10 % <= high < 20 % <= critical")
    query = sql.file_statements("advise_findings")[-1].rstrip().rstrip(";")
    severities = [r[1] for r in con.execute(query, {"run_ids": ids}).fetchall()]
    meta = {"runs": ", ".join(names[r] for r in ids), "profile": b.profile.name}
    b.notes = notes
    res = rnd.fetch_file(con, fmt, "advise_findings", {"run_ids": ids}, "advise", b, meta, TITLE)
    res.charts = (CHART,)
    return Advice(res, severities)


def _breakdowns(con, b):
    """Report breakdown's units by run and by step (breakdown_activity, breakdown_steps, breakdown_union), kept
    as _adv_bd_run and _adv_bd_step (a run without steps has no rows in the latter), and each stepped activity's
    step as _adv_act_step (run_id, seq, step)."""
    categories.categorize_kernels(con, b)
    sql.run(con, "breakdown_activity", {"run_ids": b.run_ids})
    if con.execute("SELECT count(*) FROM _adv_pp_waits").fetchone()[0]:   # pipeline stages (_pipeline found them)
        sql.run(con, "advise_pipeline_p2p")
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_act_run AS SELECT * FROM _bd_act")
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_copy AS SELECT * FROM _bd_copy")
    sql.run(con, "breakdown_union")
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_bd_run AS SELECT * FROM _bd_units")
    con.execute("CREATE OR REPLACE TEMP TABLE _bd_act AS SELECT * FROM _adv_act_run")
    con.execute("CREATE OR REPLACE TEMP TABLE _bd_copy AS SELECT * FROM _adv_copy")
    sql.run(con, "breakdown_steps", {"run_ids": b.run_ids})
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_act_stepped AS SELECT * FROM _bd_act")
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_act_step AS SELECT run_id, seq, step FROM _bd_act "
                "WHERE seq IS NOT NULL")
    sql.run(con, "breakdown_union")
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_bd_step AS SELECT * FROM _bd_units WHERE step IS NOT NULL")
    con.execute("DROP TABLE _adv_copy")


def _slow_rank(con, b, th, profile) -> list[str]:
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
    jobs = _jobs(con)
    by_name = {n: r for r, n in b.run_names.items()}
    for job in sorted({j for (j,) in con.execute("SELECT DISTINCT job FROM _adv_slow_cand").fetchall()},
                      key=lambda j: (j is not None, j or "")):
        runs = jobs.get(job, [])
        try:
            res = blame.build(con, "json", "all", "kernel", top=0, runs=[b.run_names[r] for r in runs],
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


def _collective_ops(con, b, profile) -> str | None:
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


def _collectives(con, b, th, error: str | None, on_clock: list) -> list[str]:
    """Rule small-collectives over the runs' communication ops (_collective_ops; `error`: why they could not be
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


def _exposed_comm(con, b, th, on_clock) -> list[str]:
    """Rule exposed-comm, its exposed communication split into the waiting for the last rank to arrive and the
    transfer (advise_comm_wait.sql) where the job's other ranks say when they arrived: the selected runs on the
    clocks _collectives aligned when they are one job's ranks; else job by job, each job's ranks in the store
    (selected or not, as report critical-path reads them) on clocks aligned on its collectives."""
    from tracedb.engine.jobs import align
    notes = []
    jobs = _jobs(con)
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


def _jobs(con) -> dict:
    """The selected runs (_adv_runs) by their job tag (None: untagged), in run order."""
    jobs = {}
    for rid, job in con.execute("SELECT run_id, job FROM _adv_runs ORDER BY run_id").fetchall():
        jobs.setdefault(job, []).append(rid)
    return jobs


def _pipeline(con, b, profile) -> list[str]:
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
    jobs = _jobs(con)
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


def _regression(con, b, base, th) -> list[str]:
    """Each run paired with its baseline run (the one baseline run, else the baseline run of its rank), then the
    rule; notes on runs without a baseline of their rank and on pairs that measure different things."""
    if base is None:
        return []
    rank = dict(con.execute("SELECT run_id, rank FROM runs WHERE run_id IN (SELECT unnest($r))",
                            {"r": b.run_ids + base.run_ids}).fetchall())
    notes, pairs = [], []
    if len(base.run_ids) == 1:
        pairs = [(r, base.run_ids[0]) for r in b.run_ids]
    else:
        by_rank = {}
        for r in base.run_ids:
            if rank.get(r) is None or rank[r] in by_rank:
                raise UsageError(f"--baseline: {len(base.run_ids)} baseline runs, which are matched to the runs by "
                                 f"rank, and run '{base.run_names[r]}' has "
                                 + ("no rank" if rank.get(r) is None else f"rank {rank[r]}, as another one has")
                                 + "; give one baseline run, or one per rank")
            by_rank[rank[r]] = r
        pairs = [(r, by_rank[rank[r]]) for r in b.run_ids if rank.get(r) in by_rank]
        alone = [b.run_names[r] for r in b.run_ids if rank.get(r) not in by_rank]
        if alone:
            notes.append(f"regression: no baseline run of the same rank for {', '.join(alone)}: not compared")
    con.execute("CREATE OR REPLACE TEMP TABLE _adv_pairs AS SELECT unnest($r)::INTEGER AS run_id, "
                "unnest($b)::INTEGER AS base_id", {"r": [p[0] for p in pairs], "b": [p[1] for p in pairs]})
    for run, base_run, now, then in con.execute(
            "SELECT r.run, b.run, r.base, b.base FROM _adv_pairs p JOIN _adv_runs r ON r.run_id = p.run_id "
            "JOIN _adv_base_runs b ON b.run_id = p.base_id WHERE r.base <> b.base ORDER BY p.run_id").fetchall():
        notes.append(f"regression: run '{run}' has {'steps' if now == 'step' else 'no steps'} and baseline run "
                     f"'{base_run}' {'has' if then == 'step' else 'has none'}: their step times are not compared")
    sql.run(con, "advise_regression", {"min_pct": th["min_pct"]})
    return notes


def _roofline_gap(con, b, th, profile) -> list[str]:
    """Report roofline over every kernel of each run (--phase all), then the rule; a run whose hot kernels have no
    known work or whose device has no peak is said so in a note, never a finding."""
    from tracedb.engine.reports import roofline
    try:
        rb, _ = roofline.whole_runs(con, "all", {"runs": [b.run_names[r] for r in b.run_ids], "tags": [],
                                                 "profile": profile})
        rb.notes = []
        roofline.load_kernels(con, rb)
    except TracedbError as e:
        return [f"roofline-gap: not checked ({str(e).split(';')[0]})"]
    sql.run(con, "advise_roofline_gap", {"min_share_pct": th["min_share_pct"],
                                         "max_achieved_pct": th["max_achieved_pct"]})
    notes = []
    peaks = dict(con.execute("SELECT run_id, bool_or(flops_s IS NOT NULL OR bytes_s IS NOT NULL) FROM _peaks "
                             "GROUP BY run_id").fetchall())
    hot = {r: (n, rated) for r, n, rated in con.execute(
        "SELECT run_id, count(*), count(*) FILTER (WHERE rated) FROM _adv_roofline_hot GROUP BY run_id").fetchall()}
    for rid in b.run_ids:
        n, rated = hot.get(rid, (0, 0))
        if not peaks.get(rid):
            notes.append(f"roofline-gap: silent for run '{b.run_names[rid]}': its device has no known peak "
                         "(docs/roofline.md; report roofline takes --peak-tflops and --peak-tbs)")
        elif n and not rated:
            notes.append(f"roofline-gap: silent for run '{b.run_names[rid]}': none of its {n} hot kernels has known "
                         "FLOPs or bytes (the trace records no shapes for them)")
        elif rated < n:
            notes.append(f"roofline-gap: run '{b.run_names[rid]}': {n - rated} of its {n} hot kernels have no known "
                         "FLOPs or bytes and are not judged")
    return notes


def _host_bound(con, b, th) -> list[str]:
    """Each step's critical path (report critical-path --step N; a run without steps: its whole trace), then the
    rule over the host's own time on them. Steps are walked apart: a path over the whole trace that reaches the
    host thread follows it back to the trace's start, through steps the device bound."""
    from tracedb.engine.reports import critical_path
    from tracedb.engine.segmentation import assignment
    assignment.assign_none(con)
    critical_path.graph(con, b)
    steps = sql.run(con, "advise_host_steps").fetchall()
    stepped = {rid for rid, _ in steps}
    windows = []
    for step in sorted({s for _, s in steps}):
        windows += [w for w in critical_path.step_windows(con, b, step) if w.run_id in stepped]
    bare = [rid for rid in b.run_ids if rid not in stepped]
    if bare:
        windows += critical_path.step_windows(con, b, None, bare)
    cache = {}
    critical_path._keep_walk(con, [critical_path.walk(con, w, cache) for w in windows])
    sql.run(con, "critical_path_segments")
    sql.run(con, "advise_host_bound", {"min_pct": th["min_pct"]})
    return []
