"""A seeded schedule simulator for `tracedb report critical-path` (tests/test_critical_path.py): one host
thread runs framework ops that launch kernels on two streams and now and then synchronise; the device runs
each kernel when both its launch has landed and its stream is free. The simulator knows why each task
started when it did, so it knows the true critical path; it writes the schedule as a Kineto trace, which
tracedb must read back to the same path.

Times are integer ns from the trace's start (written as µs with 3 decimals, exact).

Host thread (tid 1), per op (a cpu_op):
  sometimes an idle stretch before it (the thread in no op: a data loader, say), 20-300 µs;
  2-20 µs of the op's own work, then 1-2 launches (cudaLaunchKernel, 3-8 µs each, 1-10 µs apart), each
  of one kernel on stream 7 (or, one time in five, stream 20: half of those first record an event on
  stream 7 and make stream 20 wait for it, cudaEventRecord + cudaStreamWaitEvent, 2 µs each); then 2-15 µs
  more; now and then a synchronisation after the op, which returns 1 µs after what it waited for ends:
  cudaDeviceSynchronize (the device's last kernel), or cudaEventSynchronize on an event just recorded on
  stream 20 (its last kernel). The waits are written as Kineto's cuda_sync events (Stream Wait Event,
  Event Sync), as PyTorch 2.4+ records them.
Device: a kernel starts at max(its launch's end + 1-4 µs, its stream's last end, the end of the kernel
  its stream waits for); 70 % short kernels (2-20 µs), 30 % long ones (50-400 µs).
Steps: ProfilerStep#1..STEPS annotations, each around its ops.

The true path: from the node that ends last (a device one on a tie), back along each node's binding
predecessor, the candidate released last (a kernel: its stream's previous kernel at its end, the kernel
its stream waits for at its end, or its launch at the call's end, in that order on a tie; a sync: what it
waited for at its end, when that is after the call began, else the thread's previous call; any other
call: the thread's previous call).
Each node's own stretch and the gap before it tile the window; a host gap is host_op where an op covers
it, host_gap elsewhere. That is the definition docs/critical-path.md gives, computed here from what the
simulator decided, not from the trace.

Every random draw is made in the same order whatever the durations, so `simulate(seed, shrink={kernel:
ns})` replays the same schedule with one kernel made shorter."""
import contextlib
import json
import random
from dataclasses import dataclass, field

STEPS, OPS_PER_STEP = 3, 30
LAUNCH_LATENCY = (1_000, 4_000)
SYNC_RETURN = 1_000


@dataclass
class Node:
    id: int
    side: str          # device | host
    kind: str          # kernel | launch | sync
    lane: str
    name: str
    start: int
    end: int
    pred: int | None = None
    release: int | None = None
    edge: str | None = None
    step: int = 0
    corr: int | None = None
    launch: int | None = None


@dataclass
class Schedule:
    nodes: list = field(default_factory=list)
    ops: list = field(default_factory=list)      # (start, end, name) of the cpu_ops
    marks: list = field(default_factory=list)    # (step, start, end)
    # (record call start, its correlation, wait call start, its correlation, recorded stream, waiting stream);
    # wait None: recorded for an Event Sync
    waits: list = field(default_factory=list)
    event_syncs: list = field(default_factory=list)   # (sync call correlation, record correlation, stream, start)


def simulate(seed=0, shrink=None, sync_p=0.1, idle_p=0.1, wait_p=0.5, event_p=0.5, latency_scale=1.0) -> Schedule:
    """The schedule of `seed`; `shrink` maps a kernel's index (in launch order) to ns taken off its duration;
    `latency_scale` scales every launch latency (0: none)."""
    rnd = random.Random(seed)
    shrink = shrink or {}
    sch = Schedule()
    free = {7: (0, None), 20: (0, None)}          # stream -> (end of its last kernel, that node's id)
    last_launched = {7: None, 20: None}            # stream -> the node last launched on it
    last_call = None                               # the thread's previous call node
    t, corr, kernel_no = 10_000, 0, 0

    def add(**kw):
        n = Node(id=len(sch.nodes), **kw)
        sch.nodes.append(n)
        return n

    for step in range(1, STEPS + 1):
        step_start = t
        for _ in range(OPS_PER_STEP):
            idle = rnd.randint(20_000, 300_000) if rnd.random() < idle_p else 0
            t += idle
            op_start = t
            t += rnd.randint(2_000, 20_000)
            for li in range(rnd.choice((1, 1, 2))):
                if li:
                    t += rnd.randint(1_000, 10_000)
                corr += 1
                call_dur = rnd.randint(3_000, 8_000)
                stream = 20 if rnd.random() < 0.2 else 7
                long_kernel = rnd.random() < 0.3
                dur = rnd.randint(50_000, 400_000) if long_kernel else rnd.randint(2_000, 20_000)
                lat = round(rnd.randint(*LAUNCH_LATENCY) * latency_scale)
                dur = max(1, dur - shrink.get(kernel_no, 0))
                wait = stream == 20 and rnd.random() < wait_p
                waited = None
                if wait and last_launched[7] is not None:
                    # cudaEventRecord on stream 7, then cudaStreamWaitEvent on stream 20: 2 µs each
                    corr += 2
                    waited = last_launched[7]
                    sch.waits.append((t, corr - 1, t + 2_000, corr, 7, 20))
                    t += 4_000
                corr += 1
                call = add(side="host", kind="launch", lane="host:1", name="cudaLaunchKernel", start=t,
                           end=t + call_dur, step=step, corr=corr)
                _bind_host(call, last_call)
                last_call = call
                t = call.end
                prev_end, prev_id = free[stream]
                src_end = sch.nodes[waited].end if waited is not None else 0
                start = max(call.end + lat, prev_end, src_end)
                k = add(side="device", kind="kernel", lane=f"device:0:{stream}", name=f"kernel_{kernel_no}",
                        start=start, end=start + dur, step=step, corr=corr, launch=call.id)
                kernel_no += 1
                # released last: the stream's previous kernel, then the event's kernel, then the launch (ties)
                best = max([(call.end, 0, call.id, "launch")]
                           + ([(prev_end, 2, prev_id, "stream")] if prev_id is not None else [])
                           + ([(src_end, 1, waited, "event")] if waited is not None else []))
                k.release, _, k.pred, k.edge = best
                free[stream] = (k.end, k.id)
                last_launched[stream] = k.id
            t += rnd.randint(2_000, 15_000)
            sch.ops.append((op_start, t, "aten::op"))
            if rnd.random() < sync_p:
                event = rnd.random() < event_p and last_launched[20] is not None
                if event:
                    # cudaEventRecord on stream 20 (2 µs), then cudaEventSynchronize on it
                    corr += 1
                    src = sch.nodes[last_launched[20]]
                    dev_end, dev_id = src.end, src.id
                    sch.waits.append((t, corr, None, None, 20, None))
                    t += 2_000
                else:
                    dev_end, dev_id = max(free.values(), key=lambda v: (v[0], v[1] if v[1] is not None else -1))
                corr += 1
                call_start = t
                end = max(call_start + 2_000, dev_end + SYNC_RETURN)
                sync = add(side="host", kind="sync", lane="host:1",
                           name="cudaEventSynchronize" if event else "cudaDeviceSynchronize", start=call_start,
                           end=end, step=step, corr=corr)
                if event:
                    sch.event_syncs.append((corr, corr - 1, 20, call_start))
                _bind_host(sync, last_call)
                if dev_id is not None and dev_end > call_start and (sync.release is None or dev_end > sync.release):
                    sync.pred, sync.release, sync.edge = dev_id, dev_end, "sync"
                last_call = sync
                t = end
        t += 5_000
        sch.marks.append((step, step_start, t))
        t += 20_000
    return sch


def _bind_host(call, last_call):
    if last_call is not None:
        call.pred, call.release, call.edge = last_call.id, last_call.end, "thread"


OWN = {"kernel": "device_compute", "launch": "host_op", "sync": "sync_wait"}
GAP = {"stream": "device_gap", "launch": "launch_latency", "event": "sync_wait", "thread": "host_gap",
       "sync": "sync_wait"}


def window(sch: Schedule, step=None, span=None):
    """(start, end, last node) of the whole trace or of one step (host calls starting in its mark and the
    kernels they launched); `span` (start, end): of an annotation over that span alike."""
    nodes = sch.nodes
    if step is None and span is None:
        members, start = nodes, min(n.start for n in nodes)
    else:
        s, e = span if span is not None else next(m for m in sch.marks if m[0] == step)[1:]
        calls = {n.id for n in nodes if n.side == "host" and s <= n.start < e}
        members = [n for n in nodes if n.id in calls or (n.side == "device" and n.launch in calls)]
        start = s
    last = max(members, key=lambda n: (n.end, n.side == "device", n.id))
    return start, last.end, last


def true_path(sch: Schedule, step=None, span=None) -> list[tuple]:
    """The true path's segments in time order: (start ns from the window's start, end, category)."""
    w_start, w_end, node = window(sch, step, span)
    out, x = [], w_end
    while node is not None and x > w_start:
        release = None if node.release is None else min(node.release, x)
        own_from = max(node.start, release) if release is not None else node.start
        own_from = min(max(own_from, w_start), x)
        if x > own_from:
            out.append((own_from, x, OWN[node.kind]))
        if node.pred is None or release <= w_start:
            if own_from > w_start:
                out.append((w_start, own_from, GAP[node.edge] if node.pred is not None else
                            "device_gap" if node.side == "device" else "host_gap"))
            break
        if own_from > release:
            out.append((release, own_from, GAP[node.edge]))
        x, node = release, sch.nodes[node.pred]
    segs = []
    for s, e, cat in reversed(out):
        if cat == "host_gap":
            segs += _split_host(sch, s, e)
        else:
            segs.append((s, e, cat))
    return [(s - w_start, e - w_start, c) for s, e, c in segs]


def path_edges(sch: Schedule, step=None) -> set:
    """The kinds of binding (stream, launch, event, thread, sync) the true path goes through."""
    w_start, _, node = window(sch, step)
    edges = set()
    while node is not None and node.pred is not None and node.release > w_start:
        edges.add(node.edge)
        node = sch.nodes[node.pred]
    return edges


def _split_host(sch, s, e):
    """A host gap as host_op where an op covers it, host_gap elsewhere (the ops do not overlap)."""
    out, t = [], s
    for a, b, _ in sorted(sch.ops):
        a, b = max(a, s), min(b, e)
        if b <= a:
            continue
        if a > t:
            out.append((t, a, "host_gap"))
        out.append((a, b, "host_op"))
        t = b
    if e > t:
        out.append((t, e, "host_gap"))
    return out


def kineto(sch: Schedule, shift=0, rank=None, world=None) -> dict:
    """The schedule as a Kineto trace (one H100, host pid 1 tid 1, device pid 0); `shift` ns added to every
    time (a rank's own clock), `rank` and `world` written as distributedInfo."""
    us = lambda ns: round((ns + shift) / 1000, 3)   # noqa: E731  (a time)
    span = lambda ns: round(ns / 1000, 3)          # noqa: E731  (a duration)
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
          {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}}]
    for a, b, name in sch.ops:
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": us(a), "dur": span(b - a),
                   "args": {}})
    for step, a, b in sch.marks:
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 1, "tid": 1,
                   "ts": us(a), "dur": span(b - a), "args": {}})
    for rec_t, rec_corr, wait_t, wait_corr, src_stream, dst_stream in sch.waits:
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaEventRecord", "pid": 1, "tid": 1, "ts": us(rec_t),
                   "dur": 2.0, "args": {"correlation": rec_corr}})
        if wait_t is not None:
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 1,
                       "ts": us(wait_t), "dur": 2.0, "args": {"correlation": wait_corr}})
            ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": dst_stream,
                       "ts": us(wait_t), "dur": 0, "args": {
                           "cuda_sync_kind": "Stream Wait Event", "wait_on_stream": src_stream,
                           "wait_on_cuda_event_record_corr_id": rec_corr, "stream": dst_stream,
                           "correlation": wait_corr, "device": 0}})
    for sync_corr, rec_corr, stream, start in sch.event_syncs:
        ev.append({"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": us(start),
                   "dur": 0, "args": {"cuda_sync_kind": "Event Sync", "wait_on_stream": stream,
                                      "wait_on_cuda_event_record_corr_id": rec_corr, "stream": -1,
                                      "correlation": sync_corr, "device": 0}})
    for n in sch.nodes:
        if n.side == "host":
            args = {"correlation": n.corr} if n.corr is not None else {}
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": n.name, "pid": 1, "tid": 1, "ts": us(n.start),
                       "dur": span(n.end - n.start), "args": args})
        else:
            stream = int(n.lane.rsplit(":", 1)[1])
            ev.append({"ph": "X", "cat": "kernel", "name": n.name, "pid": 0, "tid": stream, "ts": us(n.start),
                       "dur": span(n.end - n.start), "args": {"device": 0, "stream": stream, "correlation": n.corr}})
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
           "traceEvents": sorted(ev, key=lambda e: (e.get("ts", 0), e["ph"] != "M"))}
    if rank is not None:
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": world}
    return doc


ASCEND_T0_US = 1736412474721000          # an absolute epoch µs, as trace_view.json writes its timestamps
HW, PY = 9001, 77


def trace_view(sch: Schedule) -> list:
    """The schedule as Ascend's trace_view.json: tasks on the `Ascend Hardware` process (a thread per stream),
    each launch call as the op (`aclnnKernel_N`, a cpu_op) an async_npu flow leads from to its task, the ops
    and steps as cpu_ops, a cudaDeviceSynchronize as AscendCL@aclrtSynchronizeDevice. Timestamps are strings
    of absolute µs with 3 decimals, as torch_npu writes them. A cross-stream wait is an EVENT_RECORD task on
    the recorded stream when its kernel ends, and an EVENT_WAIT task on the waiting stream from when the
    stream reached it to when the record ran (no event id: the trace does not name one), each launched by
    an AscendCL call an async_npu flow leads from; an event sync, an EVENT_RECORD task and the host's
    AscendCL@aclrtSynchronizeEvent."""
    def ts(ns):
        return f"{ASCEND_T0_US + ns // 1000}.{ns % 1000:03d}"

    def dur(ns):
        return round(ns / 1000, 3)
    ev = [{"ph": "M", "name": "process_name", "pid": HW, "tid": 0, "args": {"name": "Ascend Hardware"}},
          {"ph": "M", "name": "process_name", "pid": PY, "tid": 0, "args": {"name": "Python"}}]
    ev += [{"ph": "M", "name": "thread_name", "pid": HW, "tid": s, "args": {"name": f"Stream {s}"}} for s in (7, 20)]
    for a, b, name in sch.ops:
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": PY, "tid": 1, "ts": ts(a), "dur": dur(b - a)})
    for step, a, b in sch.marks:
        ev.append({"ph": "X", "cat": "cpu_op", "name": f"ProfilerStep#{step}", "pid": PY, "tid": 1, "ts": ts(a),
                   "dur": dur(b - a)})
    kernel_of = {n.launch: n for n in sch.nodes if n.side == "device"}
    ev += _event_tasks(sch, ts, dur)
    for n in sch.nodes:
        if n.side == "host" and n.kind == "launch":
            k = kernel_of[n.id]
            ev.append({"ph": "X", "cat": "cpu_op", "name": f"aclnn{k.name}", "pid": PY, "tid": 1, "ts": ts(n.start),
                       "dur": dur(n.end - n.start)})
            ev.append({"ph": "s", "cat": "async_npu", "name": "torch_to_npu", "id": n.corr, "pid": PY, "tid": 1,
                       "ts": ts(n.start)})
        elif n.side == "host":
            call = {"cudaDeviceSynchronize": "AscendCL@aclrtSynchronizeDevice",
                    "cudaEventSynchronize": "AscendCL@aclrtSynchronizeEvent"}[n.name]
            ev.append({"ph": "X", "name": call, "pid": PY, "tid": 1, "ts": ts(n.start), "dur": dur(n.end - n.start)})
        else:
            stream = int(n.lane.rsplit(":", 1)[1])
            ev.append({"ph": "X", "name": n.name, "pid": HW, "tid": stream, "ts": ts(n.start),
                       "dur": dur(n.end - n.start),
                       "args": {"Task Type": "AI_CORE", "Stream Id": stream, "Task Id": n.id, "connection_id": n.corr}})
            ev.append({"ph": "f", "cat": "async_npu", "name": "torch_to_npu", "id": n.corr, "pid": HW, "tid": stream,
                       "ts": ts(n.start), "bp": "e"})
    return ev


def _event_tasks(sch: Schedule, ts, dur) -> list:
    """The EVENT_RECORD / EVENT_WAIT tasks of the schedule's waits and event syncs, with their AscendCL calls
    and flows (trace_view form)."""
    kernels = [n for n in sch.nodes if n.side == "device"]
    launched = {n.id: n.start for n in sch.nodes if n.side == "host" and n.kind == "launch"}

    def stream_of(n):
        return int(n.lane.rsplit(":", 1)[1])

    def last_before(stream, t):          # the kernel last launched on `stream` before host time t
        ks = [k for k in kernels if stream_of(k) == stream and launched[k.launch] < t]
        return ks[-1] if ks else None

    def task(name, stream, start, end, corr, call_name, call_start):
        return [{"ph": "X", "name": name, "pid": HW, "tid": stream, "ts": ts(start), "dur": dur(end - start),
                 "args": {"Task Type": f"{name}_SQE", "Physic Stream Id": stream, "connection_id": corr}},
                {"ph": "f", "cat": "async_npu", "name": "torch_to_npu", "id": corr, "pid": HW, "tid": stream,
                 "ts": ts(start), "bp": "e"},
                {"ph": "X", "name": call_name, "pid": PY, "tid": 1, "ts": ts(call_start), "dur": 2.0},
                {"ph": "s", "cat": "async_npu", "name": "torch_to_npu", "id": corr, "pid": PY, "tid": 1,
                 "ts": ts(call_start)}]
    ev = []
    for rec_t, rec_corr, wait_t, wait_corr, src_stream, dst_stream in sch.waits:
        src = last_before(src_stream, rec_t)
        ev += task("EVENT_RECORD", src_stream, src.end, src.end, rec_corr, "AscendCL@aclrtRecordEvent", rec_t)
        if wait_t is None:
            continue
        dst = next(k for k in kernels if stream_of(k) == dst_stream and launched[k.launch] > wait_t)
        before = [k for k in kernels if stream_of(k) == dst_stream and k.end <= dst.start and k.id < dst.id]
        reached = max([wait_t + 2_000] + ([before[-1].end] if before else []))    # the stream got to it
        ev += task("EVENT_WAIT", dst_stream, reached, max(reached, src.end), wait_corr,
                   "AscendCL@aclrtStreamWaitEvent", wait_t)
    return ev


def nsys(path, sch: Schedule, records=False, sync_ids=False):
    """The schedule as an Nsight Systems SQLite export (tests/nsys_synth.py): kernels and runtime calls linked by
    their correlation ids, the ops and steps as NVTX push/pop ranges (what PyTorch's emit_nvtx and
    prof.step() write); a cross-stream wait as its cudaEventRecord and cudaStreamWaitEvent calls and CUPTI's
    synchronization row of the wait (the waiting stream and an event id). `records`: CUPTI's event records too
    (CUPTI_ACTIVITY_KIND_CUDA_EVENT: each cudaEventRecord's stream and event id), from a pool of three events
    reused in turn as PyTorch reuses its events, and each event sync as its synchronization row; without
    them an event sync has no form here: simulate with event_p=0. `sync_ids`: records and synchronisations
    carry CUPTI's eventSyncId (the record's correlation id here), and the synchronisations an event id no
    record has, so that only the sync ids pair them."""
    import nsys_synth
    ex = nsys_synth.Export()
    ex.gpu(0, "NVIDIA H100 80GB HBM3")
    t0 = 1_000_000_000
    for a, b, name in sch.ops:
        ex.push(t0 + a, t0 + b, 100, 100, name)
    for step, a, b in sch.marks:
        ex.push(t0 + a, t0 + b, 100, 100, f"ProfilerStep#{step}")
    event_of = {}
    for i, (rec_t, rec_corr, wait_t, wait_corr, src_stream, dst_stream) in enumerate(sch.waits):
        event = event_of[rec_corr] = i % 3 + 1 if records else i + 1
        ex.api(t0 + rec_t, t0 + rec_t + 2_000, 100, 100, "cudaEventRecord", corr=rec_corr)
        if records:
            ex.cuda_event(rec_corr, src_stream, event, sync_id=rec_corr if sync_ids else None)
        if wait_t is None:
            assert records, "simulate the nsys form with event_p=0, or write it with records=True"
            continue
        ex.api(t0 + wait_t, t0 + wait_t + 2_000, 100, 100, "cudaStreamWaitEvent", corr=wait_corr)
        ex.sync(t0 + wait_t, t0 + wait_t + 2_000, 2, wait_corr, stream=dst_stream, event=event + 100 * sync_ids,
                sync_id=rec_corr if sync_ids else None)
    syncs = {sync_corr: rec_corr for sync_corr, rec_corr, _, _ in sch.event_syncs}
    for n in sch.nodes:
        if n.side == "host":
            if n.corr in syncs:
                ex.sync(t0 + n.start, t0 + n.end, 1, n.corr, event=event_of[syncs[n.corr]] + 100 * sync_ids,
                        sync_id=syncs[n.corr] if sync_ids else None)
            ex.api(t0 + n.start, t0 + n.end, 100, 100, n.name, corr=n.corr)
        else:
            stream = int(n.lane.rsplit(":", 1)[1])
            ex.kernel(t0 + n.start, t0 + n.end, n.name, stream=stream, corr=n.corr)
    return ex.write(path)


def write(path, sch: Schedule, form="kineto"):
    """The schedule as a Kineto trace, an Ascend trace_view.json (form="ascend") or an nsys export ("nsys"; with
    CUPTI's event records, "nsys-records"; with their eventSyncId too, "nsys-sync-ids")."""
    if form in ("nsys", "nsys-records", "nsys-sync-ids"):
        return nsys(path, sch, records=form != "nsys", sync_ids=form == "nsys-sync-ids")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(kineto(sch) if form == "kineto" else trace_view(sch), f)


def merge(segs):
    """Adjacent segments of one category as one stretch: (start, end, category) in time order."""
    out = []
    for s, e, c in segs:
        if out and out[-1][2] == c and out[-1][1] == s:
            out[-1] = (out[-1][0], e, c)
        else:
            out.append((s, e, c))
    return out


@contextlib.contextmanager
def stores(tmp_path_factory, seeds):
    """{seed: (connection, schedule)}: a store per seed holding its schedule, written as a Kineto trace, as run
    'sim'; closed on exit."""
    import tracedb
    out = {}
    try:
        for seed in seeds:
            d = tmp_path_factory.mktemp(f"sim{seed}")
            sch = simulate(seed)
            write(d / "sim.json", sch)
            con = tracedb.connect(str(d / "s.duckdb"))
            out[seed] = (con, sch)
            tracedb.ingest_trace(con, str(d / "sim.json"), name="sim")
        yield out
    finally:
        for con, _ in out.values():
            con.close()
