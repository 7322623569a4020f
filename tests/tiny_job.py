"""A tiny job of three ranks (one PyTorch-profiler trace each) for `report ranks`, with its expected numbers
derived here.

Three forward passes of a 2-layer model on ranks 0, 1, 2. In true time (µs), pass p starts at T = p x 1000
and layer l at B = T + 10 + 100 l. On every rank (compute on stream 7, NCCL on stream 13):

  embedding_kernel          [T, T + 5)               the prologue (before the first anchor)
  attn_fwd_kernel           [B, B + 10)              the anchor
  gemm_kernel               [B + 12, B + 12 + g)     g = GEMM[p][l][rank]
  ncclKernel_AllReduce      [ready, end)             ready = B + 12 + g + 1 (the rank arrives), end = the
                                                     latest ready of the three + 8 (a collective ends together)

GEMM: 20 µs everywhere except layer 0 of every pass, rank 1: 20.5 (slowest by 1.7 %: not a straggler);
layer 1, rank 2: 30 in every pass (the slow rank); pass 1 layer 1, rank 0: 35 (slower still, once).
So a rank's compute in (p, l) is 10 + g (attention and gemm do not overlap), the slowest of layer 1 is
rank 2 in passes 0 and 2 (skew 40/30 - 1) and rank 0 in pass 1 (skew 45/40 - 1); rank 2 wins the vote of
layer 1 and overall, 2 of 3; layer 0 and the prologue have no straggler.

Each rank's clock is off by CLOCK_US[rank] (its trace shows true time + offset, plus a common START), so on
raw clocks the arrivals at a collective differ by the offsets as well; an alignment on the collectives'
ends recovers -CLOCK_US exactly, as every collective ends at one true instant."""
import json
from decimal import Decimal

RANKS = 3
PASSES = 3
LAYERS = 2
START_US = 100                      # every trace's timestamps start after this (the offsets stay positive)
CLOCK_US = [0, 7, -3]               # each rank's clock offset from true time
BASE_NS = 1_751_410_836_000_000_000
SLOW_RANK, SLOW_LAYERS = 2, [1]


def gemm(p, layer, rank) -> Decimal:
    if layer == 0 and rank == 1:
        return Decimal("20.5")
    if layer == 1 and rank == 0 and p == 1:
        return Decimal(35)
    if layer == 1 and rank == 2:
        return Decimal(30)
    return Decimal(20)


def timeline(p, layer):
    """True-time µs of one layer of one pass: (base, ready per rank, end of the collective)."""
    base = Decimal(p * 1000 + 10 + 100 * layer)
    ready = [base + 12 + gemm(p, layer, r) + 1 for r in range(RANKS)]
    return base, ready, max(ready) + 8


def events(rank):
    off = START_US + CLOCK_US[rank]
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": f"GPU {rank}"}},
          {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
          {"ph": "M", "name": "thread_name", "pid": 0, "tid": 13, "args": {"name": "stream 13"}}]
    corr = 0

    def kernel(name, start, dur, stream=7):
        nonlocal corr
        corr += 1
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": float(start + off),
                   "dur": float(dur), "args": {"device": rank, "stream": stream, "correlation": corr}})

    for p in range(PASSES):
        kernel("embedding_kernel", Decimal(p * 1000), 5)
        for layer in range(LAYERS):
            base, ready, end = timeline(p, layer)
            kernel("attn_fwd_kernel", base, 10)
            kernel("gemm_kernel", base + 12, gemm(p, layer, rank))
            kernel("ncclKernel_AllReduce_RING_LL_Sum_float", ready[rank], end - ready[rank], stream=13)
    return ev


def write(folder, name="job"):
    """One trace per rank, `<folder>/<name>_rank<N>.json`; returns their paths."""
    import os
    paths = []
    for r in range(RANKS):
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": r, "name": "NVIDIA H100", "numSms": 132}],
               "distributedInfo": {"backend": "nccl", "rank": r, "world_size": RANKS},
               "baseTimeNanoseconds": BASE_NS, "traceEvents": events(r)}
        path = os.path.join(str(folder), f"{name}_rank{r}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        paths.append(path)
    return paths


def ingest(con, folder, name="job"):
    """Each rank's trace as run `<name>-rank<N>`, tagged job=<name>."""
    import tracedb
    for r, path in enumerate(write(folder, name)):
        tracedb.ingest_trace(con, path, name=f"{name}-rank{r}", tags={"job": name})


# --- expected figures (ns), as report ranks defines them ----------------------------------------------------

def ns(us) -> int:
    return int(Decimal(us) * 1000)


def compute_ns(p, layer, rank) -> int:
    return 5_000 if layer is None else ns(10 + gemm(p, layer, rank))


def lower_median(values):
    return sorted(values)[(len(values) + 1) // 2 - 1]


def arrivals_ns(p, layer, aligned=True):
    """Each rank's arrival at the layer's collective on the compared clock: true time when aligned (the
    common START and the reference rank's offset, 0, aside), else as its own trace shows it."""
    _, ready, _ = timeline(p, layer)
    return [ns(ready[r] + (0 if aligned else CLOCK_US[r])) for r in range(RANKS)]
