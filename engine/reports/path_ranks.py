"""The ranks a critical path is asked of, and what a job's other ranks add to one rank's path.

`report critical-path` and `report what-if` take the ranks of one job as one path (--job) when a collective
aligns their clocks, and a rank alone (--rank N) otherwise asked; a rank alone still learns from its job's other
ranks in the store when each of its collectives had them all in (comm_wait, critical_path_peers.sql)."""
from tracedb import sql
from tracedb.errors import UsageError


def selection(con, seg_opts: dict, rank: int | None, job: bool) -> tuple[dict, bool, list]:
    """The runs a path is asked of: with `rank`, the selected run of that rank alone (its own path); else, when
    the selected runs are the ranks of one job (two or more runs sharing one `job` tag, each of a distinct known
    rank, two or more with device activity) whose collectives are matched across them, one path across them,
    as --job asks. (options, job, notes saying what was chosen)"""
    from tracedb.engine.store.connect import resolve_runs
    ids = resolve_runs(con, seg_opts.get("runs") or (), seg_opts.get("tags") or ())
    runs = sql.run(con, "path_ranks_runs", {"run_ids": ids}).fetchall()
    if rank is not None:
        if job:
            raise UsageError("--rank and --job: give one (--rank N: that rank's own path; --job: the job's)")
        named = [name for name, r, _ in runs if r == rank]
        if not named:
            known = sorted({r for _, r, _ in runs if r is not None})
            raise UsageError(f"--rank {rank}: no selected run has rank {rank}"
                             + (f" (ranks: {', '.join(map(str, known))})" if known else " (no rank is known)"))
        if len(named) > 1:
            raise UsageError(f"--rank {rank}: {len(named)} selected runs have rank {rank} ({', '.join(named)}); "
                             "select one job (--tag job=NAME)")
        return {**seg_opts, "runs": named, "tags": ()}, False, []
    jobs = {j for _, _, j in runs}
    ranks = [r for _, r, _ in runs]
    if job or len(runs) < 2 or len(jobs) != 1 or None in jobs or None in ranks \
            or len(set(ranks)) != len(ranks):
        return seg_opts, job, []
    name = jobs.pop()
    active = [r for r in job_runs(con, ids) if r in ids]
    if len(active) < 2:
        return seg_opts, False, []
    from tracedb.engine.jobs import align
    align.prepare(con, active, seg_opts.get("profile"))
    sets = clock_sets(align.estimate(con, active), active)
    if sets != 1:
        why = "no collective is matched across them" if not sets else \
            f"they fall into {sets} sets of ranks that no collective links"
        return seg_opts, False, [f"the selected runs are the {len(runs)} ranks of job '{name}', but {why} (their "
                                 "clocks cannot be compared): each run's own path"]
    return seg_opts, True, [f"the selected runs are the {len(runs)} ranks of job '{name}': one path across them "
                            "(--job); --rank N gives one rank's own path"]


def job_offsets(con, b) -> dict:
    """{run: ns} that put the bound runs (a job's ranks) on one clock, aligned on their collectives (the note in
    b.notes); refused when they are fewer than two or fall into sets no collective links."""
    if len(b.run_ids) < 2:
        raise UsageError("--job: one path across a job's ranks needs two runs or more (--tag job=NAME)")
    from tracedb.engine.jobs import align
    found = align.rank_offsets(con, b.run_ids, profile=b.profile.name if b.profile else None)
    b.notes.append(found.note)
    # the runs with device work (_cp_nodes, critical_path_nodes.sql): an analyses-only Ascend rank has no clock
    active = {r for (r,) in sql.run(con, "path_ranks_active").fetchall()}
    sets = clock_sets(found, [r for r in b.run_ids if r in active])
    if sets > 1:
        raise UsageError(f"--job: the selected ranks fall into {sets} sets that no collective links, whose clocks "
                         "cannot be compared; select the ranks of one set (those that share collectives, e.g. "
                         "a tensor-parallel group), or one rank (--rank N)")
    return found.offsets


def clock_sets(found, runs) -> int:
    """How many clock sets of an alignment (engine/jobs/align.py) `runs` fall into: 0 when no collective aligned
    them, 1 when their times compare, more when some sets share no collective."""
    if not found.instances:
        return 0
    return len({found.clock_set.get(r, r) for r in runs})


def job_runs(con, run_ids) -> list[int]:
    """The runs of the store that share a job tag with one of `run_ids` and have device activity (those runs
    among them), in run order."""
    return [r for (r,) in sql.run(con, "critical_path_job_peers", {"run_ids": run_ids}).fetchall()]


def peer_arrivals(con, b):
    """TEMP _cp_peers: for a rank of a job whose other ranks the store holds, when each of its collectives had
    every other member in (critical_path_peers.sql), so that the walk tells the op's wait for its peers
    (comm_wait) from its transfer. Their clocks are aligned on the job's collectives, as --job does."""
    runs = job_runs(con, b.run_ids)
    if len(runs) < 2:
        return
    from tracedb.engine.jobs import align
    found = align.rank_offsets(con, runs, profile=b.profile.name if b.profile else None)
    if not found.instances:     # raw clocks: when a peer arrived cannot be read on this rank's clock
        return
    sql.run(con, "collectives_peers", {"on_clock": found.on_clock})
    sql.run(con, "critical_path_peers", {"run_ids": b.run_ids})
    waited = sql.run(con, "path_ranks_waited").fetchone()[0]
    if waited:
        b.notes.append(f"comm_wait: a collective's time before the last other member of its instance arrived, from "
                       f"the job's {len(runs)} ranks in the store ({found.note}); --job follows the path to that "
                       f"member instead")
