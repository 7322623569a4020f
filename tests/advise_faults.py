"""Seeded synthetic Kineto traces of a data-parallel job for `tracedb advise` (tests/test_advise.py): clean, or
with ONE planted fault, and the time at stake each fault plants (µs), derived here.

RANKS ranks, STEPS steps (host ProfilerStep#N), LAYERS layers a step, on an H100 (its peaks are known). Per layer
on every rank (compute on stream 7, NCCL on stream 13, each kernel launched by a cudaLaunchKernel inside a cpu_op
of its own on the host):

  flash_fwd_kernel   [B, B + a)                    no shapes: no known work
  gemm_kernel        [B + a + 1, + g1)             aten::mm 4096x3072 @ 3072x4096 bf16: ~70 % of the H100's peak
  ncclDevKernel_AllReduce  [arrival, last arrival + D)   arrival = the gemm's end + 1 (a gradient bucket)
  gemm_kernel        [gemm end + 1, + g2)          the all-reduce runs under it: overlapped

The next layer starts on every rank once every rank has finished the layer (+ 2 µs); the next step 50 µs after
every rank has ended the step. Durations jitter by +-0.5 % per kernel (the seed).

Faults (one at a time):
  idle      a 2 ms gap before layer 2 of step 1 on every rank, the host in cudaStreamSynchronize meanwhile
  exposed   at the end of every step an all-reduce of 300 µs with nothing to overlap it (>= 10 % of the step)
  slow      rank SLOW's GEMMs 30 % slower in every step: the others wait for it at every all-reduce
  roofline  at the end of every step an aten::add of two 4096x4096 bf16 tensors (100.7 MB moved, 30.0 µs at
            3.35 TB/s) taking 300 µs: ~10 % of its memory roofline
"""
import json
import os
import random

RANKS, STEPS, LAYERS = 4, 3, 4
A_US, G1_US, G2_US, D_US = 100.0, 150.0, 150.0, 60.0
IDLE_US, EXPOSED_US, ADD_US = 2000.0, 300.0, 300.0
SLOW, SLOW_FACTOR = 2, 1.3
BASE_NS = 1_751_410_836_000_000_000
BF = "c10::BFloat16"
MM_DIMS = [[4096, 3072], [3072, 4096]]
ADD_DIMS = [[4096, 4096], [4096, 4096], []]
ADD_BYTES = 3 * 4096 * 4096 * 2
H100_TBS = 3.35e12
FAULTS = ("clean", "idle", "exposed", "slow", "roofline")
RULE_OF = {"idle": "idle-gap", "exposed": "exposed-comm", "slow": "slow-rank", "roofline": "roofline-gap"}


def job(seed=0, fault="clean"):
    """(events per rank, planted time at stake in µs: the sum the fault's rule should report over the job)."""
    assert fault in FAULTS, fault
    rnd = random.Random(seed)
    ev = [[] for _ in range(RANKS)]
    corr = [0] * RANKS
    planted = 0.0

    def jit(v):
        return round(v * (1 + rnd.uniform(-0.005, 0.005)), 3)

    def op(r, name, start, dur, tid=100, cat="cpu_op", **args):
        ev[r].append({"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": tid, "ts": round(start, 3),
                      "dur": round(dur, 3), "args": args})

    def kernel(r, name, start, dur, stream=7, dims=None, types=None, host_op="aten::op", at=None):
        corr[r] += 1
        t = round(start - 8, 3) if at is None else at
        tid = 101 if stream == 13 else 100
        args = {"Input Dims": dims, "Input type": types, "Concrete Inputs": [""] * len(dims)} if dims else {}
        op(r, host_op, t, 3, tid=tid, **args)
        op(r, "cudaLaunchKernel", t + 1, 0.5, tid=tid, cat="cuda_runtime", correlation=corr[r])
        ev[r].append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": round(start, 3),
                      "dur": round(dur, 3), "args": {"device": r, "stream": stream, "correlation": corr[r]}})

    t = 100.0
    for s in range(STEPS):
        step_start = t
        b = t + 10
        for layer in range(LAYERS):
            if fault == "idle" and s == 1 and layer == 2:
                for r in range(RANKS):
                    op(r, "cudaStreamSynchronize", b, IDLE_US - 12, cat="cuda_runtime")
                b += IDLE_US
                planted += IDLE_US * RANKS
            slow = [SLOW_FACTOR if (fault == "slow" and r == SLOW) else 1.0 for r in range(RANKS)]
            a = [jit(A_US) for _ in range(RANKS)]
            g1 = [jit(G1_US * slow[r]) for r in range(RANKS)]
            g2 = [jit(G2_US * slow[r]) for r in range(RANKS)]
            arrival = [b + a[r] + 1 + g1[r] + 1 for r in range(RANKS)]
            end = max(arrival) + D_US
            if fault == "slow":
                planted += sum(arrival[SLOW] - arrival[r] for r in range(RANKS) if r != SLOW)
            for r in range(RANKS):
                kernel(r, "flash_fwd_kernel", b, a[r], host_op="aten::_flash_attention_forward")
                kernel(r, "gemm_kernel", b + a[r] + 1, g1[r], dims=MM_DIMS, types=[BF, BF], host_op="aten::mm")
                kernel(r, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", arrival[r], end - arrival[r], stream=13,
                       host_op="c10d::allreduce_")
                kernel(r, "gemm_kernel", arrival[r], g2[r], dims=MM_DIMS, types=[BF, BF], host_op="aten::mm")
            b = max(max(arrival[r] + g2[r] for r in range(RANKS)), end) + 2
        if fault == "exposed":
            for r in range(RANKS):
                kernel(r, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", b, EXPOSED_US, stream=13,
                       host_op="c10d::allreduce_")
            b += EXPOSED_US + 2
            planted += EXPOSED_US * RANKS
        if fault == "roofline":
            for r in range(RANKS):
                kernel(r, "elementwise_add_kernel", b, ADD_US, dims=ADD_DIMS, types=[BF, BF, "Scalar"],
                       host_op="aten::add")
            b += ADD_US + 2
            planted += (ADD_US - ADD_BYTES / H100_TBS * 1e6) * RANKS
        t = b + 50
        for r in range(RANKS):
            op(r, f"ProfilerStep#{s + 1}", step_start, t - step_start, cat="user_annotation")
    return ev, planted


def write(folder, seed=0, fault="clean", name="job"):
    """One trace per rank, `<folder>/<name>_rank<N>.json`: (paths, planted µs)."""
    events, planted = job(seed, fault)
    paths = []
    for r, ev in enumerate(events):
        meta = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": f"GPU {r}"}},
                {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python3"}}]
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": r, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
               "distributedInfo": {"backend": "nccl", "rank": r, "world_size": RANKS},
               "baseTimeNanoseconds": BASE_NS, "traceEvents": meta + sorted(ev, key=lambda e: e["ts"])}
        path = os.path.join(str(folder), f"{name}_rank{r}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        paths.append(path)
    return paths, planted


def ingest(con, folder, seed=0, fault="clean", name="job"):
    """Each rank as run `<name>-rank<N>`, tagged job=<name>; returns the planted µs."""
    import tracedb
    paths, planted = write(folder, seed, fault, name)
    for r, path in enumerate(paths):
        tracedb.ingest_trace(con, path, name=f"{name}-rank{r}", tags={"job": name})
    return planted
