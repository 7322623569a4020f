"""`report collectives`: the collectives of a job's ranks, matched across the members of each process group,
in one clock (engine/jobs/align.py). Per instance: when the members arrived (arrival skew), how long they were in it
together (transfer), the bytes and nccl-tests' algorithm and bus bandwidths; with --per-rank each member's
wait. Where the Ascend profiler's own communication.json figures exist, they stand beside tracedb's
(docs/jobs.md)."""
from tracedb import sql
from tracedb.engine.jobs import align as clock
from tracedb.engine.rendering import render as rnd
from tracedb.engine.segmentation import binding
from tracedb.errors import UsageError

DEFINITIONS = (
    "collectives matched across ranks by (process group, order within the group; c10d's sequence number when every "
    "op carries one); arrival_skew: latest start - earliest start; transfer: earliest end - latest start; "
    "algbw = bytes / transfer, busbw = algbw x 2(n-1)/n (allreduce), (n-1)/n (allgather, reducescatter, alltoall), "
    "1 (broadcast, reduce, p2p), as nccl-tests defines them")

# columns a table for people leaves out when no row has them (CSV and JSON keep them all)
SPARSE = {"group_desc", "c10d_seq", "mismatch", "flag", "prof_elapse_us", "prof_wait_us", "prof_transit_us",
          "prof_sync_us", "prof_idle_us", "prof_bytes"}


def build(con, fmt, runs=(), tags=(), profile=None, per_rank=False, no_align=False, **ignored) -> rnd.Result:
    b = binding.bind_runs(con, runs, tags, profile)
    names = b.run_names
    clock.prepare(con, b.run_ids, profile)
    have = dict(sql.run(con, "collectives_op_counts").fetchall())
    if not have:
        raise UsageError(f"runs {', '.join(names[r] for r in b.run_ids)}: no communication ops (no NCCL/RCCL or HCCL "
                         "kernel, no communication.json); report collectives needs the collectives of two or more "
                         "ranks")
    alignment = clock.estimate(con, b.run_ids, align=not no_align)
    b.notes.append(DEFINITIONS)
    b.notes.append(alignment.note)
    if len(b.run_ids) < 2:   # a job of one captured rank: its collectives, with no one to compare them with
        b.notes.append(f"run '{names[b.run_ids[0]]}' is the only rank selected: every instance has one member, so "
                       "no arrival skew across ranks (select the job's other ranks: --tag job=JOB)")
    for rid in b.run_ids:
        if not have.get(rid):
            b.notes.append(f"run '{names[rid]}' has no communication ops: it is in no instance")
    _group_notes(con, b)
    meta = {"runs": ", ".join(names[r] for r in b.run_ids), "profile": b.profile.name,
            "clocks": "aligned" if alignment.aligned else "raw",
            "reference": names.get(alignment.reference, "") if alignment.aligned else ""}
    clock_params = {"on_clock": alignment.on_clock, "why_not": alignment.why_not}
    off = [names[r] for r in b.run_ids if r not in alignment.on_clock and have.get(r)]
    if off:
        b.notes.append(f"{alignment.why_not} ({', '.join(off)}): the instances they are in have no arrival skew, "
                       "transfer, waiting or bandwidth (see flag); give them a collective in common with the others, "
                       "or compare raw clocks with --no-align when their clocks are one")
    if per_rank:
        return rnd.fetch_file(con, fmt, "collectives_per_rank", clock_params, "collectives", b, meta,
                              "collectives per rank: arrival, wait for the last rank, transfer", sparse=SPARSE)
    return rnd.fetch_file(con, fmt, "collectives_report", clock_params, "collectives", b, meta,
                          "collectives across ranks: arrival skew, transfer, bandwidth", sparse=SPARSE)


def _group_notes(con, b):
    """How groups were found where c10d did not say, and the instances members disagree on."""
    rows = sql.run(con, "collectives_group_sources").fetchall()
    for source, groups, ops in rows:
        if source == "stream":
            b.notes.append(f"{ops:,} communication kernels carry no c10d metadata (no 'Process Group Name' in args): "
                           f"grouped by their stream ({groups} stream(s)), which assumes every rank put each "
                           "communicator on a stream of the same id; sizes and bandwidths are unknown for them")
        elif source == "hccl":
            b.notes.append(f"{ops:,} HCCL ops grouped by their HCCL group id (communication.json, else the digits "
                           "after '__' in the op name)")
    bad, total, lone = sql.run(con, "collectives_instance_counts").fetchone()
    if bad:
        b.notes.append(f"{bad:,} of {total:,} instances: members disagree on the op or its size (see mismatch): the "
                       "ranks' windows may start at different collectives; they are shown, not used for alignment")
    if lone:
        b.notes.append(f"{lone:,} of {total:,} instances were found on one rank only (the other members are not "
                       "selected, or their capture window missed it)")
    _bytes_notes(con, b)


def _bytes_notes(con, b):
    """Where the bytes of HCCL ops come from (no c10d message size on Ascend), and the instances left without."""
    profiled, unmatched = sql.run(con, "collectives_hccl_bytes").fetchone()
    if profiled:
        b.notes.append(f"bytes of {profiled:,} HCCL instances: the transit size the Ascend profiler counts "
                       "(communication.json: SDMA, msprof's sum of HCCS, PCIE and SIO, plus RDMA, as msprof-analyze "
                       "counts it), the largest over the members: what a rank moved, not the message size "
                       "nccl-tests' bandwidth formulas assume")
    if unmatched:
        b.notes.append(f"{unmatched:,} HCCL instances have no bytes and no bandwidth: none of their ops matched an op "
                       "of its rank's communication.json (same name, the nearest start), or no member has the file")
