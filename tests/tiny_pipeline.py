"""A tiny 1F1B pipeline-parallel training job, one PyTorch-profiler trace per stage, with its pipeline figures
derived here from the schedule itself (what `report pipeline` must find).

p stages (ranks 0..p-1, one each), m micro-batches a step, `steps` steps. Each stage runs Megatron's 1F1B
order: min(p - s - 1, m) warm-up forwards, then one forward and one backward in turn, then the remaining
backwards. A forward pass is L layers of flash_fwd_kernel (the anchor) and a GEMM, a backward pass L layers of
flash_bwd_kernel and two gradient GEMMs (the names say backward); kernels of a pass follow each other
KERNEL_GAP µs apart on compute stream 7, so a pass takes as long on every stage and micro-batch (length()).

Dependencies: forward (s, i) may start once forward (s - 1, i) ended and its send arrived (SEND_US); backward
(s, i) once backward (s + 1, i) did, and on the last stage right after its own forward. A pass starts GAP µs
after max(the stage's previous pass's end, that arrival). Pipeline sends and receives are ncclDevKernel_SendRecv
kernels on their own streams: a send (stream 14, SEND_US) after every pass whose result another stage takes; a
receive (stream 13) from the stage's previous pass's end (the step's start for the first) until GAP / 2 before
the pass that needs it. After its last pass each stage runs its optimizer (multi_tensor_apply_kernel_adam);
every stage starts the next step at the same instant, STEP_GAP_US after the last optimizer ended.

pg_config gives each rank its pipeline group (PIPELINE_MODEL_PARALLEL_GROUP, ranks 0..p-1) unless
`groups=False`: then the stage must come from the send/receive order and the stage count, or be unknown."""
import json
import os
from decimal import Decimal

BASE_NS = 1_751_500_000_000_000_000
START_US = 100
KERNEL_GAP = Decimal(1)                # µs between the kernels of a pass
GAP = Decimal(4)                       # µs from a stage's previous pass, or a dependency, to a pass
SEND_US = Decimal(1)
FWD_LAYER = [("flash_fwd_kernel", Decimal(30)), ("gemm_fwd_kernel", Decimal(50))]
BWD_LAYER = [("flash_bwd_kernel", Decimal(60)), ("gemm_dgrad_kernel", Decimal(50)), ("gemm_wgrad_kernel", Decimal(45))]
OPTIMIZER = ("multi_tensor_apply_kernel_adam", Decimal(40))
P2P = "ncclDevKernel_SendRecv"
STEP_GAP_US = Decimal(500)


def order(stage, stages, micro):
    """The 1F1B order of one stage: [('F' | 'B', micro-batch)]."""
    warm = min(stages - stage - 1, micro)
    out = [("F", i) for i in range(warm)]
    f, b = warm, 0
    while f < micro:
        out += [("F", f), ("B", b)]
        f, b = f + 1, b + 1
    return out + [("B", i) for i in range(b, micro)]


def pass_kernels(kind, layers):
    return (FWD_LAYER if kind == "F" else BWD_LAYER) * layers


def length(kind, layers) -> Decimal:
    ks = pass_kernels(kind, layers)
    return sum(d for _, d in ks) + KERNEL_GAP * (len(ks) - 1)


def schedule(stages=2, micro=2, layers=2, steps=1, stall=None):
    """Every pass of every stage: {(step, stage, kind, i): (start, end)} in µs of true time, and per step its
    start and each stage's optimizer start. `stall`: (step, stage, kind, i, µs): that pass starts that much later
    than it could (the stage busy elsewhere: an extra bubble)."""
    passes, step_at, opt_at = {}, [], []
    t0 = Decimal(0)
    for step in range(steps):
        step_at.append(t0)
        done = {}
        pending = {s: list(order(s, stages, micro)) for s in range(stages)}
        free = {s: t0 for s in range(stages)}
        first = {s: True for s in range(stages)}
        while any(pending.values()):
            progressed = False
            for s in range(stages):
                if not pending[s]:
                    continue
                kind, i = pending[s][0]
                if kind == "F":
                    dep = None if s == 0 else ("F", s - 1, i)
                else:
                    dep = ("F", s, i) if s == stages - 1 else ("B", s + 1, i)
                if dep is not None and dep not in done:
                    continue
                ready = free[s] if first[s] and dep is None else free[s] + GAP
                if dep is not None:
                    arrival = done[dep] + (SEND_US if dep[1] != s else 0)
                    ready = max(ready, arrival + GAP)
                start = ready + (Decimal(stall[4]) if stall and stall[:4] == (step, s, kind, i) else 0)
                end = start + length(kind, layers)
                passes[(step, s, kind, i)] = (start, end)
                done[(kind, s, i)] = end
                free[s] = end
                first[s] = False
                pending[s].pop(0)
                progressed = True
            assert progressed, "the 1F1B orders deadlock"
        opt_at.append({s: free[s] + GAP for s in range(stages)})
        t0 = max(opt_at[-1].values()) + OPTIMIZER[1] + STEP_GAP_US
    return passes, step_at, opt_at


def events(rank, stages=2, micro=2, layers=2, steps=1, stall=None):
    passes, step_at, opt_at = schedule(stages, micro, layers, steps, stall)
    off = START_US
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": f"GPU {rank}"}}]
    ev += [{"ph": "M", "name": "thread_name", "pid": 0, "tid": t, "args": {"name": f"stream {t}"}} for t in (7, 13, 14)]
    corr = 0

    def kernel(name, start, dur, stream=7):
        nonlocal corr
        corr += 1
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": float(start + off),
                   "dur": float(dur), "args": {"device": rank, "stream": stream, "correlation": corr}})

    s = rank
    for step in range(steps):
        prev_end = step_at[step]
        for kind, i in order(s, stages, micro):
            start, end = passes[(step, s, kind, i)]
            needs = (kind == "F" and s > 0) or (kind == "B" and s < stages - 1)
            if needs:       # the receive posted when the stage was free, done just before the pass
                kernel(P2P, prev_end, start - GAP / 2 - prev_end, stream=13)
            t = start
            for name, dur in pass_kernels(kind, layers):
                kernel(name, t, dur)
                t += dur + KERNEL_GAP
            if (kind == "F" and s < stages - 1) or (kind == "B" and s > 0):
                kernel(P2P, end, SEND_US, stream=14)
            prev_end = end
        kernel(OPTIMIZER[0], opt_at[step][s], OPTIMIZER[1])
    return ev


def write(folder, stages=2, micro=2, layers=2, steps=1, groups=True, name="pp", stall=None):
    """One trace per stage, `<folder>/<name>_rank<N>.json`; returns their paths."""
    paths = []
    for r in range(stages):
        dist = {"backend": "nccl", "rank": r, "world_size": stages}
        if groups:
            dist["pg_config"] = [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                                  "pg_size": stages, "ranks": list(range(stages))},
                                 {"pg_name": "3", "pg_desc": "PIPELINE_MODEL_PARALLEL_GROUP",
                                  "backend_config": "cuda:nccl", "pg_size": stages, "ranks": list(range(stages))}]
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": r, "name": "NVIDIA H100", "numSms": 132}],
               "distributedInfo": dist, "baseTimeNanoseconds": BASE_NS,
               "traceEvents": events(r, stages, micro, layers, steps, stall)}
        path = os.path.join(str(folder), f"{name}_rank{r}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        paths.append(path)
    return paths


def ingest(con, folder, name="pp", **kw):
    """Each stage's trace as run `<name>-rank<N>`, tagged job=<name>."""
    import tracedb
    for r, path in enumerate(write(folder, name=name, **kw)):
        tracedb.ingest_trace(con, path, name=f"{name}-rank{r}", tags={"job": name})


# --- what report pipeline must find (ns) ---------------------------------------------------------------------

def ns(us) -> int:
    return int(Decimal(us) * 1000)


def _union(spans):
    total, reach = Decimal(0), None
    for s, e in sorted(spans):
        lo = s if reach is None else max(s, reach)
        total += max(e - lo, Decimal(0))
        reach = e if reach is None else max(reach, e)
    return total


def expected(stages=2, micro=2, layers=2, steps=1, stall=None):
    """{(rank, step, phase, micro-batch): (start, end, busy, bubble, p2p)} per pass and
    {(rank, step): (start, end, busy, bubble, p2p, bubble_pct)} per stage row, in ns; times from the first
    step's start (0), bubble_pct a Decimal with 2 decimals."""
    passes, step_at, opt_at = schedule(stages, micro, layers, steps, stall)
    rows, stage_rows = {}, {}
    for step in range(steps):
        pipe_end = max(e for (st, _, _, _), (_, e) in passes.items() if st == step)
        for s in range(stages):
            prev, busy_all, bubble_all, p2p_all = step_at[step], Decimal(0), Decimal(0), Decimal(0)
            sends = []      # (start, end) of this stage's sends and receives in the step
            for kind, i in order(s, stages, micro):
                start, end = passes[(step, s, kind, i)]
                needs = (kind == "F" and s > 0) or (kind == "B" and s < stages - 1)
                if needs:
                    sends.append((prev, start - GAP / 2))
                busy = sum(d for _, d in pass_kernels(kind, layers))
                p2p = _union([(max(a, prev), min(b, start)) for a, b in sends if a < start and b > prev])
                rows[(s, step, "forward" if kind == "F" else "backward", i)] = \
                    tuple(ns(v) for v in (start, end, busy, start - prev, p2p))
                busy_all, bubble_all, p2p_all = busy_all + busy, bubble_all + start - prev, p2p_all + p2p
                if (kind == "F" and s < stages - 1) or (kind == "B" and s > 0):
                    sends.append((end, end + SEND_US))
                prev = end
            bubble_all += pipe_end - prev
            span = pipe_end - step_at[step]
            stage_rows[(s, step)] = (ns(step_at[step]), ns(pipe_end), ns(busy_all), ns(bubble_all), ns(p2p_all),
                                     round(Decimal(100) * ns(bubble_all) / ns(span), 2))
    return rows, stage_rows


def ideal_pct(stages, micro) -> Decimal:
    return round(Decimal(100) * (stages - 1) / (micro + stages - 1), 2)
