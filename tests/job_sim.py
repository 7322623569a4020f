"""Seeded schedules of a job of several ranks for `tracedb report critical-path --job`
(tests/test_critical_path_job.py), built on tests/schedule_sim.py: each rank a host thread that launches a
compute kernel per op on stream 7 and, every COLL_EVERY ops, an all-reduce on stream 13. An all-reduce ends
on every rank D after the last rank started it (NCCL delivers the result when all have arrived); the next
compute kernel of a rank sometimes waits for it (cudaStreamWaitEvent, written as Kineto's cuda_sync). A slow
rank's compute kernels take SLOW_FACTOR times longer, so the others wait for it at the all-reduces and the
job's path crosses to it. Each rank's trace is written on its own clock, RANK_SKEW ns later per rank, as
hosts' clocks differ; tracedb aligns them on the all-reduces' ends.

The true path: from the node that ends last on the job's clock, back along each node's binding predecessor,
the candidate released last (schedule_sim's rules), where an all-reduce whose last other member started after
it did is bound by that member, released at that member's start."""
import random

import schedule_sim as sim

COLL_EVERY, COLL_US = 4, (20_000, 60_000)
SLOW_FACTOR = 1.6
RANK_SKEW = 3_217_001
NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"


class Job:
    def __init__(self, ranks):
        self.all = sim.Schedule()                          # every rank's nodes: ids over the job
        self.ranks = [sim.Schedule() for _ in range(ranks)]

    def add(self, rank, **kw):
        n = sim.Node(id=len(self.all.nodes), **kw)
        n.rank = rank
        self.all.nodes.append(n)
        self.ranks[rank].nodes.append(n)
        return n


def simulate_job(seed=0, ranks=4, steps=2, ops=16, slow=None, wait_p=0.7, sync_p=0.1, scale=None, grow=None) -> Job:
    """`scale`: {rank: factor} on that rank's compute kernels' durations, after the slow rank's; `grow`: {node id:
    ns} added to that compute kernel's duration (the same draws, so the same schedule with those kernels
    shorter or longer)."""
    rnd = random.Random(seed)
    job = Job(ranks)
    job.grow = grow or {}
    t = [10_000 + rnd.randint(0, 50_000) for _ in range(ranks)]
    free = [{7: (0, None), 13: (0, None)} for _ in range(ranks)]
    last_call = [None] * ranks
    last_coll = [None] * ranks
    corr = [0] * ranks
    coll_no = 0
    for step in range(1, steps + 1):
        step_start = list(t)
        for i in range(ops):
            pending = []
            for r in range(ranks):
                sch = job.ranks[r]
                t[r] += rnd.randint(20_000, 200_000) if rnd.random() < 0.1 else 0
                op_start = t[r]
                t[r] += rnd.randint(2_000, 20_000)
                dur = rnd.randint(20_000, 150_000)
                if r == slow:
                    dur = round(dur * SLOW_FACTOR)
                if scale and r in scale:
                    dur = round(dur * scale[r])
                wait = last_coll[r] is not None and rnd.random() < wait_p
                if wait:
                    corr[r] += 2
                    sch.waits.append((t[r], corr[r] - 1, t[r] + 2_000, corr[r], 13, 7))
                    t[r] += 4_000
                k = _launch(job, r, t, corr, free, last_call, step, f"compute_{step}_{i}", 7, dur, rnd,
                            waited=last_coll[r] if wait else None)
                if i % COLL_EVERY == COLL_EVERY - 1:
                    c = _launch(job, r, t, corr, free, last_call, step, NCCL, 13, 0, rnd)
                    pending.append(c)
                t[r] += rnd.randint(2_000, 15_000)
                sch.ops.append((op_start, t[r], "aten::op"))
                del k
            if pending:
                # the all-reduce ends on every rank COLL after the last one started
                d = rnd.randint(*COLL_US)
                latest = max(pending, key=lambda n: (n.start, n.id))
                end = latest.start + d
                for c in pending:
                    c.end = end
                    others = [o for o in pending if o is not c]
                    late = max(others, key=lambda n: (n.start, n.id))
                    c.own, c.peer = (c.pred, c.release, c.edge), late.start
                    if late.start > c.start:
                        c.pred, c.release, c.edge = late.id, late.start, "collective"
                    free[c.rank][13] = (c.end, c.id)
                    last_coll[c.rank] = c.id
                coll_no += 1
            for r in range(ranks):
                if rnd.random() < sync_p:
                    _sync(job, r, t, corr, free, last_call, step)
        for r in range(ranks):
            t[r] += 5_000
            job.ranks[r].marks.append((step, step_start[r], t[r]))
            t[r] += 20_000
    return job


def _launch(job, r, t, corr, free, last_call, step, name, stream, dur, rnd, waited=None):
    corr[r] += 1
    call = job.add(r, side="host", kind="launch", lane=f"host:{r}:1", name="cudaLaunchKernel", start=t[r],
                   end=t[r] + rnd.randint(3_000, 8_000), step=step, corr=corr[r])
    if last_call[r] is not None:
        call.pred, call.release, call.edge = last_call[r].id, last_call[r].end, "thread"
    last_call[r] = call
    t[r] = call.end
    lat = rnd.randint(1_000, 4_000)
    prev_end, prev_id = free[r][stream]
    src_end = job.all.nodes[waited].end if waited is not None else 0
    start = max(call.end + lat, prev_end, src_end)
    dur += job.grow.get(len(job.all.nodes), 0) if stream == 7 else 0
    k = job.add(r, side="device", kind="comm" if stream == 13 else "kernel", lane=f"device:{r}:{stream}", name=name,
                start=start, end=start + dur, step=step, corr=corr[r], launch=call.id)
    best = max([(call.end, 0, call.id, "launch")]
               + ([(prev_end, 2, prev_id, "stream")] if prev_id is not None else [])
               + ([(src_end, 1, waited, "event")] if waited is not None else []))
    k.release, _, k.pred, k.edge = best
    free[r][stream] = (k.end, k.id)
    return k


def _sync(job, r, t, corr, free, last_call, step):
    dev_end, dev_id = max(free[r].values(), key=lambda v: (v[0], v[1] if v[1] is not None else -1))
    corr[r] += 1
    start = t[r]
    end = max(start + 2_000, dev_end + sim.SYNC_RETURN)
    s = job.add(r, side="host", kind="sync", lane=f"host:{r}:1", name="cudaDeviceSynchronize", start=start,
                end=end, step=step, corr=corr[r])
    if last_call[r] is not None:
        s.pred, s.release, s.edge = last_call[r].id, last_call[r].end, "thread"
    if dev_id is not None and dev_end > start:
        s.pred, s.release, s.edge = dev_id, dev_end, "sync"
    last_call[r] = s
    t[r] = end


def true_path(job: Job, step=None) -> list[tuple]:
    """The job's true path: (start, end, category, rank) from the window's start, in time order; a host gap
    split by the ops of its rank."""
    nodes = job.all.nodes
    if step is None:
        members, w_start = nodes, min(n.start for n in nodes)
    else:
        members, starts = [], []
        for r, sch in enumerate(job.ranks):
            _, s, e = next(m for m in sch.marks if m[0] == step)
            starts.append(s)
            calls = {n.id for n in sch.nodes if n.side == "host" and s <= n.start < e}
            members += [n for n in sch.nodes if n.id in calls or (n.side == "device" and n.launch in calls)]
        w_start = min(starts)
    node = max(members, key=lambda n: (n.end, n.side == "device", n.id))
    own = {"kernel": "device_compute", "comm": "device_comm", "launch": "host_op", "sync": "sync_wait"}
    gap = {**sim.GAP, "collective": "comm_wait"}
    out, x = [], node.end
    while node is not None and x > w_start:
        release = None if node.release is None else min(node.release, x)
        own_from = min(max(max(node.start, release) if release is not None else node.start, w_start), x)
        if x > own_from:
            out.append((own_from, x, own[node.kind], node.rank))
        if node.pred is None or release <= w_start:
            if own_from > w_start:
                out.append((w_start, own_from, gap[node.edge] if node.pred is not None else
                            "device_gap" if node.side == "device" else "host_gap", node.rank))
            break
        if own_from > release:
            out.append((release, own_from, gap[node.edge], node.rank))
        x, node = release, nodes[node.pred]
    segs = []
    for s, e, cat, rank in reversed(out):
        if cat == "host_gap":
            segs += [(a, b, c, rank) for a, b, c in sim._split_host(job.ranks[rank], s, e)]
        else:
            segs.append((s, e, cat, rank))
    return [(s - w_start, e - w_start, c, rank) for s, e, c, rank in segs]


def rank_path(job: Job, rank: int, step=None) -> list[tuple]:
    """Rank `rank`'s own path, as `report critical-path --run RANK` gives it with the job's other ranks in the
    store: (start, end, category) from its window's start, on its own clock. Each node's binding predecessor
    is of its own rank (a collective's: its stream or launch); a collective moves data from when the last
    other member started it, and waits for its peers before (comm_wait)."""
    sch, nodes = job.ranks[rank], job.all.nodes
    w_start, w_end, node = sim.window(sch, step)
    own = {"kernel": "device_compute", "comm": "device_comm", "launch": "host_op", "sync": "sync_wait"}
    out, x = [], w_end
    while node is not None and x > w_start:
        pred, release, edge = getattr(node, "own", (node.pred, node.release, node.edge))
        release = None if release is None else min(release, x)
        own_from = min(max(max(node.start, release) if release is not None else node.start, w_start), x)
        peer = getattr(node, "peer", None)
        if peer is not None and own_from < peer < x:
            out += [(peer, x, own[node.kind]), (own_from, peer, "comm_wait")]
        elif x > own_from:
            out.append((own_from, x, own[node.kind]))
        if pred is None or release <= w_start:
            if own_from > w_start:
                out.append((w_start, own_from, sim.GAP[edge] if pred is not None else
                            "device_gap" if node.side == "device" else "host_gap"))
            break
        if own_from > release:
            out.append((release, own_from, sim.GAP[edge]))
        x, node = release, nodes[pred]
    segs = []
    for s, e, cat in reversed(out):
        segs += sim._split_host(sch, s, e) if cat == "host_gap" else [(s, e, cat)]
    return [(s - w_start, e - w_start, c) for s, e, c in segs]


FORMS = ("kineto", "ascend", "nsys")
HCCL_PID = 555


def write(folder, job: Job, form: str = "kineto") -> list:
    """Rank r's trace on its own clock (r x RANK_SKEW ns later): `<folder>/rank<r>.json` (Kineto, with its rank
    in distributedInfo), `<folder>/rank_<r>_ascend_pt/` (form ascend: its trace_view.json alone; see
    _trace_view) or `<folder>/rank<r>.sqlite` (form nsys: an Nsight Systems export)."""
    import json
    import os
    os.makedirs(folder, exist_ok=True)
    paths = []
    for r, sch in enumerate(job.ranks):
        if form == "kineto":
            path = f"{folder}/rank{r}.json"
            with open(path, "w", encoding="utf-8") as f:
                json.dump(sim.kineto(sch, shift=r * RANK_SKEW, rank=r, world=len(job.ranks)), f)
        elif form == "ascend":
            path = f"{folder}/rank_{r}_ascend_pt"
            os.makedirs(f"{path}/ASCEND_PROFILER_OUTPUT")
            with open(f"{path}/ASCEND_PROFILER_OUTPUT/trace_view.json", "w", encoding="utf-8") as f:
                json.dump(_trace_view(_shifted(sch, r * RANK_SKEW)), f)
        else:
            path = f"{folder}/rank{r}.sqlite"
            sim.nsys(path, _shifted(sch, r * RANK_SKEW))
        paths.append(path)
    return paths


def _shifted(sch, ns: int):
    """A copy of a rank's schedule with every time `ns` later."""
    import copy
    out = copy.deepcopy(sch)
    for n in out.nodes:
        n.start, n.end = n.start + ns, n.end + ns
    out.ops = [(a + ns, b + ns, name) for a, b, name in out.ops]
    out.marks = [(step, a + ns, b + ns) for step, a, b in out.marks]
    out.waits = [(a + ns, rc, None if b is None else b + ns, wc, src, dst) for a, rc, b, wc, src, dst in out.waits]
    return out


def _trace_view(sch) -> list:
    """A rank as torch_npu's trace_view.json (schedule_sim.trace_view), each all-reduce as torch_npu writes a
    collective: the op (hcom_allReduce__N_K_1) on the HCCL process's "Group 0 Communication" thread, where
    its async_npu flow ends, and its hardware task (a Notify Wait) on the stream it ran on, with the same
    connection id; the trace says nothing else of that stream."""
    ev = sim.trace_view(sch)
    ev += [{"ph": "M", "name": "process_name", "pid": HCCL_PID, "tid": 0, "args": {"name": "HCCL"}},
           {"ph": "M", "name": "thread_name", "pid": HCCL_PID, "tid": 1, "args": {"name": "Group 0 Communication"}}]
    colls = [e for e in ev if e.get("ph") == "X" and e["name"] == NCCL]
    ids = {e["args"]["connection_id"] for e in colls}
    for k, e in enumerate(colls):
        ev.append({"ph": "X", "name": "Notify Wait", "pid": e["pid"], "tid": e["tid"], "ts": e["ts"], "dur": e["dur"],
                   "args": {"Task Type": "Notify Wait", "Physic Stream Id": e["tid"],
                            "connection_id": e["args"]["connection_id"]}})
        e.update(name=f"hcom_allReduce__271_{k}_1", pid=HCCL_PID, tid=1,
                 args={"connection_id": e["args"]["connection_id"]})
    for e in ev:
        if e.get("ph") == "f" and e.get("id") in ids:
            e.update(pid=HCCL_PID, tid=1)
    return ev
