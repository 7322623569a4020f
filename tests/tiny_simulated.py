"""A tiny "simulated" trace: what a performance model predicts for the model of tests/tiny_trace.py,
written as a simulator writes Chrome JSON (one device process, one stream thread, kernels named by op
type, no host events), with its expected numbers derived here.

Predicted duration = tiny_trace's duration at scale 1 x FACTORS[op type] (1 when absent): the model
underestimates attention (x 0.8) and communication (x 0.5) and overestimates GEMMs (x 1.25). Each kernel
starts 0.5 µs after the previous one ends (a launch gap: with none, the kernel after the last anchor
would start exactly at its end, which the strict window includes). One pass, in µs from its start:

    start   dur    kernel                     layer (strict window)   measured (tiny_trace pass 3)
     0       4     GatherV2                   outside                  4
     4.5     2     RmsNorm                    outside                  2
     7      12.5   MatMulV3 (qkv)             outside                 10
    20       4     FusedInferAttentionScore   0 (anchor)               5
    24.5     7.5   MatMulV3 (o)               0                        6
    32.5     1.5   hcom_allReduce_            0                        3
    34.5     1     SwiGlu                     0                        1
    36       2     RmsNorm                    0                        2
    38.5    12.5   MatMulV3 (qkv)             0                       10
    51.5     4     FusedInferAttentionScore   1 (anchor)               5
    56       7.5   MatMulV3 (o)               1 in full                6
    64       1.5   hcom_allReduce_            1 in full                3
    66       1     SwiGlu                     1 in full                1
    67.5    10     MatMulV3 (lm_head)         1 in full                8
    78       1     ArgMaxV2                   1 in full                1

Strict window, predicted vs measured (ratio = simulated / measured, the M6 metric):
layer 0 = 4 + 7.5 + 1.5 + 1 + 2 + 12.5 = 28.5 µs vs 27 (1.056); by category attention 4 / 5 = 0.800,
gemm 20 / 16 = 1.250, communication 1.5 / 3 = 0.500, norm and activation 1.000. Layer 1 = 4 vs 5 (0.800).
The pass: 32.5 vs 32 µs, M6 = 1.016.
Full window (the one pass reaches from the first kernel to the last): prologue 18.5 vs 16 (1.156),
layer 0 28.5 vs 27, layer 1 4 + 7.5 + 1.5 + 1 + 10 + 1 = 25 vs 24 (1.042); the pass 72 vs 67, M6 = 1.075.

layers > 2 repeats layer 0's block (a deeper model: the layer-count note of report compare).
"""
import json

import tiny_trace

FACTORS = {"FusedInferAttentionScore": (4, 5), "MatMulV3": (5, 4), "hcom_allReduce_": (1, 2)}
PASS_NS = 1_000_000   # passes start 1000 µs apart
GAP_NS = 500


def kernels(layers=2):
    """(name, predicted ns) of one pass in execution order."""
    body = [(op, dur * 1000 * FACTORS.get(op, (1, 1))[0] // FACTORS.get(op, (1, 1))[1])
            for _, dur, _, op, _, _ in tiny_trace.PASS]
    prologue, layer0, last = body[:3], body[3:9], body[9:]
    return prologue + layer0 * (layers - 1) + last


def events(passes=1, layers=2, cat="kernel"):
    """cat: the category of the kernel events (None: left out, as some simulators do)."""
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "Simulated NPU 0"}},
          {"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "stream 0"}}]
    for p in range(passes):
        t = p * PASS_NS
        for name, dur in kernels(layers):
            e = {"ph": "X", "name": name, "pid": 0, "tid": 0, "ts": t / 1000, "dur": dur / 1000}
            if cat is not None:
                e["cat"] = cat
            ev.append(e)
            t += dur + GAP_NS
    return ev


def write(path, **kw) -> str:
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"traceEvents": events(**kw), "displayTimeUnit": "ms"}, f, separators=(",", ":"))
    return str(path)
