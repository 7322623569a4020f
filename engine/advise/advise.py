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

from tracedb import sql
from tracedb.engine.advise import job_rules, rules
from tracedb.engine.reports.declaration import Chart
from tracedb.engine.rendering import render as rnd
from tracedb.engine.rendering import vega_lite as vl
from tracedb.engine.segmentation import binding, categories
from tracedb.engine.segmentation.words import ALL_PASSES
from tracedb.errors import TracedbError, UsageError

TITLE = "advise: findings ranked by the step time at stake"


def _chart(res):
    """`tracedb advise`: a bar per finding, in rank order, of its time at stake, coloured by its severity."""
    rank = {"window": [{"op": "row_number", "as": "place"}]}
    unit = {"calculate": "'#' + datum.place + ' ' + datum.rule + ' ' + " + vl.text("run"), "as": "unit"}
    spec = vl.bar_per_row(unit, "finding", "at_stake_us", "severity", pre=())
    spec["transform"].insert(0, rank)
    spec["encoding"]["color"] = {"field": "severity", "type": "nominal", "scale": {
        "domain": ["critical", "high", "medium", "low", "info"],
        "range": ["#b2182b", "#ef8a62", "#fddbc7", "#d1e5f0", "#bababa"]}}
    spec["encoding"]["tooltip"] = vl.tip("unit", "severity", "at_stake_us", "at_stake_pct", "finding")
    # the labels say what each bar is (#place rule run); an axis title beside labels that long overlapped them
    spec["encoding"]["y"]["title"] = None
    return spec


# the HTML page's chart: a bar per finding of its time at stake
CHART = Chart(frozenset({"rule", "run", "severity", "at_stake_us"}), _chart)


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
        sql.run(con, "advise_base_runs")
    ids, names = b.run_ids, b.run_names
    notes = []
    sql.run(con, "advise_runs", {"run_ids": ids, "db": shlex.quote(str(db))})
    for rid, base in sql.run(con, "advise_span_runs").fetchall():
        notes.append(f"run '{names[rid]}': no ProfilerStep#N annotation nor Step Id: at_stake_pct is of the run's "
                     "span")
    # first: a pipeline stage's waits for the other stages are rule pipeline-bubble's, not idle-gap's nor
    # exposed-comm's (their figures would be true, their advice wrong: the schedule idles by design)
    notes += job_rules.pipeline(con, b, profile)
    _breakdowns(con, b)
    # the runs' communication ops (report collectives'), which moe-imbalance, small-collectives and slow-link read
    coll_error = job_rules.collective_ops(con, b, profile)
    # before slow-rank, which leaves out the time a rank's expert GEMMs take for its extra tokens
    sql.run(con, "advise_moe_experts", {"run_ids": ids})
    sql.run(con, "advise_moe_imbalance", {"min_excess_pct": th["moe-imbalance"]["min_excess_pct"],
                                          "min_pct": th["moe-imbalance"]["min_pct"]})
    notes += job_rules.slow_rank(con, b, th["slow-rank"], profile)
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
    notes += job_rules.collectives(con, b, th, coll_error, on_clock)
    notes += job_rules.exposed_comm(con, b, th["exposed-comm"], on_clock)
    if sql.run(con, "advise_pipeline_rows").fetchone()[0]:
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
    if sql.run(con, "advise_pp_waits").fetchone()[0]:   # pipeline stages (job_rules.pipeline)
        sql.run(con, "advise_pipeline_p2p")
    sql.run(con, "advise_keep_activities")
    sql.run(con, "breakdown_union")
    sql.run(con, "advise_by_run")
    sql.run(con, "breakdown_steps", {"run_ids": b.run_ids})
    sql.run(con, "advise_stepped")
    sql.run(con, "breakdown_union")
    sql.run(con, "advise_by_step")


def _regression(con, b, base, th) -> list[str]:
    """Each run paired with its baseline run (the one baseline run, else the baseline run of its rank), then the
    rule; notes on runs without a baseline of their rank and on pairs that measure different things."""
    if base is None:
        return []
    rank = dict(sql.run(con, "run_ranks", {"run_ids": b.run_ids + base.run_ids}).fetchall())
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
    for run, base_run, now, then in sql.run(con, "advise_pairs", {"run_ids": [p[0] for p in pairs],
                                                                         "base_ids": [p[1] for p in pairs]}).fetchall():
        notes.append(f"regression: run '{run}' has {'steps' if now == 'step' else 'no steps'} and baseline run "
                     f"'{base_run}' {'has' if then == 'step' else 'has none'}: their step times are not compared")
    sql.run(con, "advise_regression", {"min_pct": th["min_pct"]})
    return notes


def _roofline_gap(con, b, th, profile) -> list[str]:
    """Report roofline over every kernel of each run (--phase all), then the rule; a run whose hot kernels have no
    known work or whose device has no peak is said so in a note, never a finding."""
    from tracedb.engine.reports import roofline
    try:
        rb, _ = roofline.whole_runs(con, ALL_PASSES, {"runs": [b.run_names[r] for r in b.run_ids], "tags": [],
                                                 "profile": profile})
        rb.notes = []
        roofline.load_kernels(con, rb)
    except TracedbError as e:
        return [f"roofline-gap: not checked ({str(e).split(';')[0]})"]
    sql.run(con, "advise_roofline_gap", {"min_share_pct": th["min_share_pct"],
                                         "max_achieved_pct": th["max_achieved_pct"]})
    notes = []
    peaks = dict(sql.run(con, "advise_peaks").fetchall())
    hot = {r: (n, rated) for r, n, rated in sql.run(con, "advise_hot").fetchall()}
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
