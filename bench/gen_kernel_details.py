#!/usr/bin/env python3
'''Deterministic generator of realistic Ascend (torch_npu Level2) `kernel_details.csv` files.

Plain stdlib Python: used for the ingest benchmark (millions of rows) and for the demo samples
committed under engine/samples/. The same seed gives the same bytes.

Usage:
    python bench/gen_kernel_details.py OUT.csv [--model qwen3-decode|qwen3-prefill|dsv3-decode]
        [--layers L] [--batch B] [--seq S] [--rows N | --passes P] [--seed S]
        [--pmu | --no-pmu] [--double-hcom | --no-double-hcom]

The committed samples are made with (from the repository root):
    python bench/gen_kernel_details.py engine/samples/qwen3_decode_kernel_details.csv \
        --model qwen3-decode --layers 28 --passes 6 --batch 16 --double-hcom --no-pmu --seed 7
    python bench/gen_kernel_details.py engine/samples/qwen3_prefill_kernel_details.csv \
        --model qwen3-prefill --layers 28 --passes 2 --seq 4096 --double-hcom --no-pmu --seed 7

What is realistic, and why
--------------------------
* File layout. The header is the torch_npu Level2 one (`Step Id` first, then msprof's op_summary
  columns renamed by torch_npu, `Block Dim`/`Mix Block Dim`, `HF32 Eligible`) followed, with --pmu, by
  the 25 PipeUtilization PMU columns of A2/A3 chips (`aicore_time(us)` ... `cube_utilization(%)`).
  Values are written the way msprof writes them: `Start Time(us)` is the absolute local Unix epoch in
  µs with exactly 3 decimals followed by a literal TAB (`1764246877073569.640<TAB>`), durations and
  wait times have 3 decimals, shapes carry their own quotes (`"""16,2048;2048,2048"""` in the file),
  dtypes mix `DT_BF16` with `INT64`/`FLOAT`, and missing values are `N/A`. Model ID is 4294967295
  (msprof's "invalid", eager mode); Context ID is 0 for MIX kernels and N/A otherwise.
* Time. Everything is integer nanoseconds internally (an epoch of ~1.764e15 µs has no exact float64
  representation at ns precision), formatted with integer arithmetic. Kernels run on one compute
  stream (Stream ID 2), back to back: start = previous end + a launch gap of a few µs. `Wait Time(us)`
  is what msprof computes, max(0, start - previous start - previous duration) in file order.
* Models. Kernel names, op types and cores are those torch_npu / aclnn / vLLM-Ascend log
  (`aclnnMatmul_MatMulV3Common_MatMulV3`, `aclnnFusedInferAttentionScoreV3_FusedInferAttentionScore_
  FusedInferAttentionScore` on MIX_AIC, `aclnnGroupedMatmulV4_GroupedMatmul_GroupedMatmul`, ...).
  - qwen3-decode / qwen3-prefill: a Qwen3-1.7B-like dense model (hidden 2048, 16 q / 8 kv heads of
    128, FFN 6144, vocab 151936) with tensor parallelism 2, so every layer ends its attention and its
    MLP with an allReduce. Decode layer: AddRmsNorm, MatMulV3 (qkv), RmsNorm (q_norm), RmsNorm
    (k_norm), ApplyRotaryPosEmb, ReshapeAndCache, FusedInferAttentionScore, MatMulV3 (o_proj),
    allReduce, AddRmsNorm, MatMulV3 (gate_up), SwiGlu, MatMulV3 (down), allReduce (layer 0 starts with
    a plain RmsNorm: there is no residual yet). Decode runs --batch sequences (default 16) against a
    KV context of --seq tokens (default 2048, paged in blocks of 128); prefill runs --batch (default 1)
    prompts of --seq tokens (default 4096).
  - dsv3-decode: a DeepSeek-V3-like MoE model, 61 layers, W8A8: MLA attention (attention TP 4, 32 local
    heads, absorbed BatchMatMuls around FusedInferAttentionScore), 3 dense layers, then MoE layers
    with MatMulV3 router, MoeGatingTopK, MoeInitRoutingV2, DynamicQuant, GroupedMatmul (gate_up),
    SwiGlu, GroupedMatmul (down), MoeFinalizeRoutingV2 and a shared expert on QuantBatchMatmulV3;
    16 local experts, one allReduce after attention and one after the MoE; lm_head is vocab-parallel
    and followed by an allGather.
  Every pass starts with the embedding (GatherV2) and ends with the final norm, the lm_head MatMulV3
  and sampling (Cast, SoftmaxV2, TopKV2, ArgMaxV2). Passes are separated by an idle stretch in which
  the host schedules the next step: 3-5 ms for decode, 30-45 ms for prefill (a new prompt arrives);
  both are far larger than the µs gaps inside a pass and than a layer, so passes are obvious.
* Durations come from a small roofline model of a 910B-class device (HBM ~1.2 TB/s effective, cube
  ~220 TFLOPS bf16 / 440 TOPS int8, a few µs of fixed cost per kernel): decode GEMMs are bound by
  weight bytes, prefill GEMMs and attention by FLOPs, collectives cost a latency plus bytes over
  ~40 GB/s. Each kernel gets seeded noise (+-2 %, +-4 % for collectives) and launch gaps of
  1.8-2.8 µs. Decode passes 0 and 1 are cold (every kernel and gap x1.25 and x1.10: caches, allocator
  and first-use costs); from pass 2 on a pass is steady, its speed varying by less than +-0.5 %. So
  the layer-0 wall of pass 2 differs from pass 1's by 6-12 % and pass 3 is the first pass within 5 %
  of the previous one (steady passes differ by at most ~2.5 %: checked for seeds 1-30 of both decode
  models). Prefill pass 0 is x1.08.
* PMU columns follow the core: AI_CORE rows fill the aic_* block and zero the aiv_* one, AI_VECTOR_CORE
  the reverse, MIX kernels both; cycles = time x 1650 MHz x cores; the ratios follow from the
  roofline (a decode GEMM has a high mte2 ratio and a low mac ratio, a prefill GEMM the reverse).
  Communication rows have N/A there.
* Communication. msprof adds one aggregate row per collective (Task ID, Stream ID, OP State and the
  other detail columns N/A, Accelerator Core COMMUNICATION, name `hcom_allReduce__<n>_0_1` with n the
  op's position in the pass, type `hcom_allReduce_`). Real traces also log the same op on a hardware
  (HCCL) stream with a real Task ID, same start and duration: --double-hcom (the default) writes both
  rows, adjacent, the aggregate first. --no-double-hcom writes the aggregate only.
* Size and speed. Rows are built with f-strings from per-kernel pre-formatted pieces and written in
  large chunks: about 2 M rows (with PMU) in well under a minute. --rows N stops after exactly N rows
  (benchmarks), --passes P after P forward passes (samples), whichever comes first.
'''
import argparse
import random
import sys
import time

HEADER = ("Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
          "Duration(us),Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,"
          "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID")
PMU_COLUMNS = (
    "aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,"
    "aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,"
    "aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),"
    "aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,"
    "cube_utilization(%)")
N_PMU = 25
AIC_ZERO = ",0.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0"     # 13 aic_* columns
AIV_ZERO = ",0.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0"             # 11 aiv_* columns

EPOCH_NS = 1_764_246_877_073_569_640     # 2025-11-27, local Unix epoch in ns (~1.764e15 µs)
INVALID = "4294967295"
COMPUTE_STREAM = 2
HCCL_STREAM = 47
CLOCK_MHZ = 1650

# 910B-class device, effective rates
HBM = 1.2e12            # B/s
CUBE_BF16 = 2.2e14      # FLOP/s
CUBE_INT8 = 4.4e14
VEC_BW = 0.9e12         # B/s for memory-bound vector kernels
LINK = 40e9             # B/s, collective bus bandwidth

MODELS = ("qwen3-decode", "qwen3-prefill", "dsv3-decode")


# --------------------------------------------------------------------------- cost model (ns)

def t_mm(m, k, n, wbytes=2, int8=False, batch=1, overhead=4.0):
    """(ns, compute fraction): a (batch of) [m,k] x [k,n] GEMM, roofline + fixed cost."""
    flops = 2.0 * m * k * n * batch
    nbytes = batch * (k * n * wbytes + m * k * (1 if int8 else 2) + m * n * 2)
    tc = flops / (CUBE_INT8 if int8 else CUBE_BF16)
    tm = nbytes / HBM
    body = max(tc, tm)
    return int((overhead * 1e-6 + body) * 1e9), tc / max(tc + tm, 1e-12)


def t_vec(nbytes, overhead=2.5):
    return int((overhead * 1e-6 + nbytes / VEC_BW) * 1e9)


def t_comm(nbytes, ranks, latency=18.0):
    return int((latency * 1e-6 + 2.0 * (ranks - 1) / ranks * nbytes / LINK) * 1e9)


# --------------------------------------------------------------------------- op specs

class Op:
    """One kernel (or collective) of a pass, with its pre-formatted CSV pieces."""
    __slots__ = ("comm", "ns", "noise", "mid", "tail", "pmu_fmt", "pmu_mul", "hw_mid", "hw_tail", "gap")

    def __init__(self):
        self.comm = False
        self.pmu_fmt = None
        self.pmu_mul = ()
        self.gap = 1.0


def _q(shapes):
    """Shapes as msprof writes them: the value carries its own quotes, so the CSV cell is triple-quoted."""
    return f'"""{shapes}"""'


def _ratio(x):
    return f"{min(max(x, 0.0), 0.999):.3f}".rstrip("0").rstrip(".") if x > 0 else "0.0"


def kernel(name, typ, core, ns, ins, indt, infmt, outs, outdt, outfmt, block=40, mix=0, compute=0.0,
           hf32="NO", rng=None):
    """A compute kernel. `compute` is the share of time the cube (or vector unit) is busy computing
    rather than moving data (from the roofline); it shapes the PMU ratios."""
    op = Op()
    op.ns = max(ns, 1000)
    op.noise = 0.02
    op.mid = f",{COMPUTE_STREAM},{name},{typ},dynamic,{core},"
    ctx = "0" if core.startswith("MIX") else "N/A"
    op.tail = (f",{block},{mix},{hf32},{_q(ins)},{indt},{infmt},{_q(outs)},{outdt},{outfmt},{ctx}")
    jit = (rng.random() - 0.5) * 0.04 if rng else 0.0
    aic = core in ("AI_CORE", "MIX_AIC", "MIX_AIV")
    aiv = core in ("AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV")
    fmt, mul = "", []
    if aic:
        busy = 0.95 + jit
        mac = min(0.95, 0.05 + 0.85 * compute)
        mte2 = min(0.98, 0.15 + 0.8 * (1 - compute))
        scal, mte1, fix = 0.32 + jit, 0.25 + 0.4 * compute, 0.1 + 0.45 * compute
        fmt += (f",%.3f,%.0f,%.3f,{_ratio(mac)},%.3f,{_ratio(scal)},%.3f,{_ratio(mte1)},%.3f,{_ratio(mte2)},"
                f"%.3f,{_ratio(fix)},{0.004 + abs(jit) / 10:.3f}")
        cyc = CLOCK_MHZ * block
        mul += [busy, busy * cyc, busy * mac, busy * scal, busy * mte1, busy * mte2, busy * fix]
    else:
        fmt += AIC_ZERO
    if aiv:
        busy = 0.93 + jit
        vec = min(0.9, 0.1 + 0.6 * compute + 0.1)
        scal, mte2, mte3 = 0.2 + jit, min(0.95, 0.3 + 0.6 * (1 - compute)), 0.2 + 0.1 * (1 - compute)
        fmt += (f",%.3f,%.0f,%.3f,{_ratio(vec)},%.3f,{_ratio(scal)},%.3f,{_ratio(mte2)},%.3f,{_ratio(mte3)},"
                f"{0.01 + abs(jit) / 2:.3f}")
        cyc = CLOCK_MHZ * (mix if core.startswith("MIX") and mix else block)
        mul += [busy, busy * cyc, busy * vec, busy * scal, busy * mte2, busy * mte3]
    else:
        fmt += AIV_ZERO
    fmt += f",{min(99.9, 100 * (0.08 + 0.9 * compute)):.3f}" if aic else ",0.000"
    op.pmu_fmt = fmt
    op.pmu_mul = tuple(m / 1000.0 for m in mul)     # applied to the duration in ns -> µs
    return op


def collective(kind, ns, counter):
    """An hcom_* op: the msprof aggregate row and its hardware-stream twin."""
    op = Op()
    op.comm = True
    op.ns = ns
    op.noise = 0.04
    op.gap = 1.5
    name = f"hcom_{kind}__{counter % 1000:03d}_0_1"
    op.mid = f",N/A,{name},hcom_{kind}_,N/A,COMMUNICATION,"
    op.hw_mid = f",{HCCL_STREAM},{name},hcom_{kind}_,N/A,COMMUNICATION,"
    op.tail = ",0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A"
    op.hw_tail = op.tail
    return op


# --------------------------------------------------------------------------- models

class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.ops = []
        self.comm_n = 0

    def k(self, *a, **kw):
        self.ops.append(kernel(*a, rng=self.rng, **kw))

    def mm(self, m, k, n, name="aclnnMatmul_MatMulV3Common_MatMulV3", typ="MatMulV3"):
        ns, c = t_mm(m, k, n)
        self.k(name, typ, "AI_CORE", ns, f"{m},{k};{n},{k}", "DT_BF16;DT_BF16", "ND;ND", f"{m},{n}", "DT_BF16",
               "ND", block=20, compute=c)

    def qmm(self, m, k, n):
        ns, c = t_mm(m, k, n, wbytes=1, int8=True)
        self.k("aclnnQuantMatmulV4_QuantBatchMatmulV3_QuantBatchMatmulV3", "QuantBatchMatmulV3", "AI_CORE", ns,
               f"{m},{k};{n},{k};{n};{m}", "INT8;INT8;FLOAT;FLOAT", "ND;FRACTAL_NZ;ND;ND", f"{m},{n}", "DT_BF16",
               "ND", block=20, compute=c)

    def rms(self, t, h, add=False):
        shape, rows = f"{t},{h}", t
        if add:
            self.k("AddRmsNorm", "AddRmsNorm", "AI_VECTOR_CORE", t_vec(rows * h * 8),
                   f"{shape};{shape};{h}", "DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND", f"{shape};{t},1;{shape}",
                   "DT_BF16;FLOAT;DT_BF16", "ND;ND;ND", block=min(40, max(8, t)), compute=0.35)
        else:
            self.k("RmsNorm", "RmsNorm", "AI_VECTOR_CORE", t_vec(rows * h * 4),
                   f"{shape};{h}", "DT_BF16;DT_BF16", "ND;ND", f"{shape};{t},1", "DT_BF16;FLOAT", "ND;ND",
                   block=min(40, max(8, t)), compute=0.35)

    def dquant(self, t, h):
        self.k("DynamicQuant", "DynamicQuant", "AI_VECTOR_CORE", t_vec(t * h * 3),
               f"{t},{h}", "DT_BF16", "ND", f"{t},{h};{t}", "INT8;FLOAT", "ND;ND", block=min(40, max(8, t)),
               compute=0.4)

    def swiglu(self, t, n):
        self.k("SwiGlu", "SwiGlu", "AI_VECTOR_CORE", t_vec(t * n * 3), f"{t},{n}", "DT_BF16",
               "ND", f"{t},{n // 2}", "DT_BF16", "ND", block=min(40, max(8, t)), compute=0.5)

    def comm(self, kind, nbytes, ranks):
        self.comm_n += 1
        self.ops.append(collective(kind, t_comm(nbytes, ranks), self.comm_n))

    def embedding(self, vocab, h, t):
        self.k("aclnnEmbedding_GatherV2AiCore_GatherV2", "GatherV2", "AI_VECTOR_CORE", t_vec(t * h * 4 + t * 8),
               f"{vocab},{h};{t}", "DT_BF16;INT64", "ND;ND", f"{t},{h}", "DT_BF16", "ND", compute=0.05)

    def sampling(self, b, vocab):
        v = b * vocab
        self.k("aclnnCast_CastAiCore_Cast", "Cast", "AI_VECTOR_CORE", t_vec(v * 6), f"{b},{vocab}", "DT_BF16", "ND",
               f"{b},{vocab}", "FLOAT", "ND", compute=0.2)
        self.k("aclnnSoftmax_SoftmaxV2AiCore_SoftmaxV2", "SoftmaxV2", "AI_VECTOR_CORE", t_vec(v * 8, 4.0),
               f"{b},{vocab}", "FLOAT", "ND", f"{b},{vocab}", "FLOAT", "ND", compute=0.6)
        self.k("aclnnTopk_TopkV2_TopKV2", "TopKV2", "AI_VECTOR_CORE", t_vec(v * 4, 12.0), f"{b},{vocab};1",
               "FLOAT;INT64", "ND;ND", f"{b},50;{b},50", "FLOAT;INT64", "ND;ND", compute=0.5)
        self.k("aclnnArgMax_ArgMaxV2AiCore_ArgMaxV2", "ArgMaxV2", "AI_VECTOR_CORE", t_vec(v * 4, 3.0),
               f"{b},{vocab}", "FLOAT", "ND", f"{b}", "INT64", "ND", compute=0.4)


FIA = "aclnnFusedInferAttentionScoreV3_FusedInferAttentionScore_FusedInferAttentionScore"


def qwen3(rng, layers, batch, seq, prefill):
    """Qwen3-1.7B-like, TP 2: 8 local q heads, 4 local kv heads of 128, FFN 3072 per rank."""
    H, V, D, HQ, HKV, FF, TP = 2048, 151936, 128, 8, 4, 3072, 2
    qkv = (HQ + 2 * HKV) * D
    T = batch * seq if prefill else batch
    blocks = max(1, (seq + 127) // 128)
    nblk = max(1024, batch * blocks)
    b = Builder(rng)
    b.embedding(V, H, T)
    for layer in range(layers):
        b.rms(T, H, add=layer > 0)
        b.mm(T, H, qkv)
        b.k("RmsNorm", "RmsNorm", "AI_VECTOR_CORE", t_vec(T * HQ * D * 4),
            f"{T},{HQ},{D};{D}", "DT_BF16;DT_BF16", "ND;ND", f"{T},{HQ},{D};{T},{HQ},1", "DT_BF16;FLOAT", "ND;ND",
            block=min(40, max(8, T)), compute=0.35)
        b.k("RmsNorm", "RmsNorm", "AI_VECTOR_CORE", t_vec(T * HKV * D * 4),
            f"{T},{HKV},{D};{D}", "DT_BF16;DT_BF16", "ND;ND", f"{T},{HKV},{D};{T},{HKV},1", "DT_BF16;FLOAT",
            "ND;ND", block=min(40, max(8, T)), compute=0.35)
        b.k("ApplyRotaryPosEmb", "ApplyRotaryPosEmb", "AI_VECTOR_CORE",
            t_vec(T * (HQ + HKV) * D * 6, 3.0), f"{T},1,{HQ},{D};{T},1,{HKV},{D};{T},1,1,{D};{T},1,1,{D}",
            "DT_BF16;DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND;ND", f"{T},1,{HQ},{D};{T},1,{HKV},{D}", "DT_BF16;DT_BF16",
            "ND;ND", block=min(40, max(8, T)), compute=0.45)
        b.k("ReshapeAndCache", "ReshapeAndCache", "AI_VECTOR_CORE", t_vec(T * HKV * D * 8, 3.0),
            f"{T},{HKV},{D};{T},{HKV},{D};{nblk},128,{HKV},{D};{nblk},128,{HKV},{D};{T}",
            "DT_BF16;DT_BF16;DT_BF16;DT_BF16;INT32", "ND;ND;ND;ND;ND", f"{nblk},128,{HKV},{D};{nblk},128,{HKV},{D}",
            "DT_BF16;DT_BF16", "ND;ND", block=min(40, max(8, T)), compute=0.05)
        if prefill:
            flops = 2.0 * 2 * batch * seq * seq / 2 * HQ * D
            ns = int((8e-6 + flops / (0.75 * CUBE_BF16)) * 1e9)
            b.k(FIA, "FusedInferAttentionScore", "MIX_AIC", ns,
                f"{T},{HQ},{D};{T},{HKV},{D};{T},{HKV},{D};;2048,2048;{batch};{batch}",
                "DT_BF16;DT_BF16;DT_BF16;DT_BF16;BOOL;INT64;INT64", "ND;ND;ND;ND;ND;ND;ND", f"{T},{HQ},{D}",
                "DT_BF16", "ND", block=20, mix=40, compute=0.85)
        else:
            kv = batch * seq * HKV * D * 2 * 2
            ns = int((8e-6 + kv / HBM) * 1e9)
            b.k(FIA, "FusedInferAttentionScore", "MIX_AIC", ns,
                f"{T},1,{HQ * D};{nblk},128,{HKV * D};{nblk},128,{HKV * D};;;{batch};{batch},{blocks}",
                "DT_BF16;DT_BF16;DT_BF16;DT_BF16;BOOL;INT64;INT32", "ND;ND;ND;ND;ND;ND;ND", f"{T},1,{HQ * D}",
                "DT_BF16", "ND", block=min(20, max(4, batch)), mix=2 * min(20, max(4, batch)), compute=0.2)
        b.mm(T, HQ * D, H)
        b.comm("allReduce", T * H * 2, TP)
        b.rms(T, H, add=True)
        b.mm(T, H, 2 * FF)
        b.swiglu(T, 2 * FF)
        b.mm(T, FF, H)
        b.comm("allReduce", T * H * 2, TP)
    b.rms(T, H, add=True)
    b.mm(batch, H, V)           # lm_head on the last token of each sequence
    b.sampling(batch, V)
    return b.ops


def dsv3(rng, layers, batch, seq):
    """DeepSeek-V3-like decode, W8A8, MLA with attention TP 4 (32 local heads), 16 local experts."""
    H, V, HQ, QL, KVL, R, NOPE, VD = 7168, 129280, 32, 1536, 512, 64, 128, 128
    TP, NE, TOPK, EI, SI, DFF = 4, 16, 8, 2048, 2048 // 4, 18432 // 4
    T = batch
    blocks = max(1, (seq + 127) // 128)
    nblk = max(1024, batch * blocks)
    b = Builder(rng)
    b.embedding(V, H, T)
    for layer in range(layers):
        b.rms(T, H, add=layer > 0)
        b.dquant(T, H)
        b.qmm(T, H, QL + KVL + R)
        b.rms(T, QL)
        b.dquant(T, QL)
        b.qmm(T, QL, HQ * (NOPE + R))
        ns, c = t_mm(T, NOPE, KVL, batch=HQ)
        b.k("aclnnBatchMatMul_BatchMatMulV3Common_BatchMatMulV3", "BatchMatMulV3", "AI_CORE", ns,
            f"{HQ},{T},{NOPE};{HQ},{NOPE},{KVL}", "DT_BF16;DT_BF16", "ND;ND", f"{HQ},{T},{KVL}", "DT_BF16", "ND",
            block=20, compute=c)
        b.k("KvRmsNormRopeCache", "KvRmsNormRopeCache", "AI_VECTOR_CORE", t_vec(T * (KVL + R) * 8, 3.0),
            f"{T},1,1,{KVL + R};{KVL};{T},1,1,{R};{T},1,1,{R};{T};{nblk},128,1,{R};{nblk},128,1,{KVL}",
            "DT_BF16;DT_BF16;DT_BF16;DT_BF16;INT64;DT_BF16;DT_BF16", "ND;ND;ND;ND;ND;ND;ND",
            f"{nblk},128,1,{R};{nblk},128,1,{KVL}", "DT_BF16;DT_BF16", "ND;ND", block=min(40, max(8, T)),
            compute=0.3)
        b.k("InterleaveRope", "InterleaveRope", "AI_VECTOR_CORE", t_vec(T * HQ * R * 6, 2.5),
            f"{T},{HQ},1,{R};{T},1,1,{R};{T},1,1,{R}", "DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND", f"{T},{HQ},1,{R}",
            "DT_BF16", "ND", block=min(40, max(8, T)), compute=0.4)
        kvb = batch * seq * (KVL + R) * 2
        b.k(FIA, "FusedInferAttentionScore", "MIX_AIC", int((9e-6 + kvb / HBM) * 1e9),
            f"{T},{HQ},1,{KVL};{nblk},128,1,{KVL};{nblk},128,1,{KVL};{batch},{blocks};{T},{HQ},1,{R};"
            f"{nblk},128,1,{R}", "DT_BF16;DT_BF16;DT_BF16;INT32;DT_BF16;DT_BF16", "ND;ND;ND;ND;ND;ND",
            f"{T},{HQ},1,{KVL}", "DT_BF16", "ND", block=min(20, max(4, 2 * batch)), mix=2 * min(20, max(4, 2 * batch)),
            compute=0.3)
        ns, c = t_mm(T, KVL, VD, batch=HQ)
        b.k("aclnnBatchMatMul_BatchMatMulV3Common_BatchMatMulV3", "BatchMatMulV3", "AI_CORE", ns,
            f"{HQ},{T},{KVL};{HQ},{KVL},{VD}", "DT_BF16;DT_BF16", "ND;ND", f"{HQ},{T},{VD}", "DT_BF16", "ND",
            block=20, compute=c)
        b.dquant(T, HQ * VD)
        b.qmm(T, HQ * VD, H)
        b.comm("allReduce", T * H * 2, TP)
        b.rms(T, H, add=True)
        if layer < 3:
            b.dquant(T, H)
            b.qmm(T, H, 2 * DFF)
            b.swiglu(T, 2 * DFF)
            b.dquant(T, DFF)
            b.qmm(T, DFF, H)
        else:
            b.mm(T, H, 256)
            R_ = T * TOPK
            b.k("aclnnMoeGatingTopK_MoeGatingTopK_MoeGatingTopK", "MoeGatingTopK", "AI_VECTOR_CORE",
                t_vec(T * 256 * 12, 4.0), f"{T},256;256", "DT_BF16;FLOAT", "ND;ND", f"{T},{TOPK};{T},{TOPK};{T},256",
                "DT_BF16;INT32;FLOAT", "ND;ND;ND", block=min(40, max(8, T)), compute=0.5)
            b.k("aclnnMoeInitRoutingV2_MoeInitRoutingV2_MoeInitRoutingV2", "MoeInitRoutingV2", "AI_VECTOR_CORE",
                t_vec(R_ * H * 4, 6.0), f"{T},{H};{T},{TOPK}", "DT_BF16;INT32", "ND;ND", f"{R_},{H};{R_};{NE}",
                "DT_BF16;INT32;INT64", "ND;ND;ND", compute=0.2)
            b.dquant(R_, H)
            touched = NE * (1 - (1 - TOPK / 256) ** T)          # local experts hit by at least one token
            gu = int((6e-6 + touched * H * 2 * EI / HBM) * 1e9)
            b.k("aclnnGroupedMatmulV4_GroupedMatmul_GroupedMatmul", "GroupedMatmul", "MIX_AIC", gu,
                f"{R_},{H};{NE},{H},{2 * EI};{NE},{2 * EI};{R_};{NE}", "INT8;INT8;FLOAT;FLOAT;INT64",
                "ND;FRACTAL_NZ;ND;ND;ND", f"{R_},{2 * EI}", "DT_BF16", "ND", block=20, mix=40, compute=0.1)
            b.swiglu(R_, 2 * EI)
            b.dquant(R_, EI)
            dn = int((6e-6 + touched * EI * H / HBM) * 1e9)
            b.k("aclnnGroupedMatmulV4_GroupedMatmul_GroupedMatmul", "GroupedMatmul", "MIX_AIC", dn,
                f"{R_},{EI};{NE},{EI},{H};{NE},{H};{R_};{NE}", "INT8;INT8;FLOAT;FLOAT;INT64",
                "ND;FRACTAL_NZ;ND;ND;ND", f"{R_},{H}", "DT_BF16", "ND", block=20, mix=40, compute=0.1)
            b.k("aclnnMoeFinalizeRoutingV2_MoeFinalizeRoutingV2_MoeFinalizeRoutingV2", "MoeFinalizeRoutingV2",
                "AI_VECTOR_CORE", t_vec(R_ * H * 4, 4.0), f"{R_},{H};{T},{H};{T},{TOPK};{R_};{T},{TOPK}",
                "DT_BF16;DT_BF16;FLOAT;INT32;INT32", "ND;ND;ND;ND;ND", f"{T},{H}", "DT_BF16", "ND", compute=0.3)
            b.qmm(T, H, 2 * SI)
            b.swiglu(T, 2 * SI)
            b.dquant(T, SI)
            b.qmm(T, SI, H)
            b.k("aclnnAdd_AddAiCore_Add", "Add", "AI_VECTOR_CORE", t_vec(T * H * 6), f"{T},{H};{T},{H}",
                "DT_BF16;DT_BF16", "ND;ND", f"{T},{H}", "DT_BF16", "ND", block=min(40, max(8, T)), compute=0.2)
        b.comm("allReduce", T * H * 2, TP)
    b.rms(T, H, add=True)
    b.mm(T, H, V // TP)
    b.comm("allGather", T * V // TP * 2, TP)
    b.sampling(T, V)
    return b.ops


def build(model, rng, layers, batch, seq):
    if model == "qwen3-decode":
        return qwen3(rng, layers, batch, seq, prefill=False)
    if model == "qwen3-prefill":
        return qwen3(rng, layers, batch, seq, prefill=True)
    return dsv3(rng, layers, batch, seq)


# --------------------------------------------------------------------------- writer

def pass_factor(model, p, rng):
    """Slow-down of pass p: cold start for the first passes, then steady within +-1 %."""
    if model.endswith("decode"):
        base = 1.25 if p == 0 else 1.10 if p == 1 else 1.0
    else:
        base = 1.08 if p == 0 else 1.0
    return base * (1.0 + (rng.random() - 0.5) * 0.01)


def generate(out, model="qwen3-decode", layers=None, batch=None, seq=None, rows=None, passes=None, seed=1,
             pmu=True, double_hcom=True, chunk=20000):
    """Write the file; returns (rows, passes started, bytes)."""
    if model not in MODELS:
        raise SystemExit(f"--model {model!r}: expected one of {', '.join(MODELS)}")
    prefill = model.endswith("prefill")
    layers = layers or (61 if model.startswith("dsv3") else 28)
    batch = batch or (1 if prefill else 16)
    seq = seq or (4096 if prefill else 2048)
    if rows is None and passes is None:
        passes = 6
    rng = random.Random(seed)
    ops = build(model, random.Random(seed * 7919 + 1), layers, batch, seq)
    idle_lo, idle_hi = (30_000_000, 45_000_000) if prefill else (3_000_000, 5_000_000)

    max_rows = rows if rows is not None else float("inf")
    max_passes = passes if passes is not None else float("inf")
    rnd = rng.random
    t = EPOCH_NS
    prev_end = None
    task, hw_task = 34473, 2210
    n = 0
    p = 0
    nbytes = 0
    buf = []
    with open(out, "w", newline="") as f:
        head = HEADER + ("," + PMU_COLUMNS if pmu else "") + "\n"
        f.write(head)
        nbytes += len(head)
        comm_pmu = ",N/A" * N_PMU if pmu else ""
        while n < max_rows and p < max_passes:
            fac = pass_factor(model, p, rng)
            step = p + 1
            if p:
                t += int(rnd() * (idle_hi - idle_lo)) + idle_lo
            task = (task + 3) & 0xFFFF          # the step's input copies take task ids, not kernel rows
            for op in ops:
                t += int((1800 + rnd() * 1000) * op.gap * fac)
                d = int(op.ns * fac * (1.0 + op.noise * (rnd() + rnd() - 1.0)))
                w = 0 if prev_end is None or t < prev_end else t - prev_end
                s = t
                if op.comm:
                    buf.append(f"{step},0,{INVALID},N/A{op.mid}{s // 1000}.{s % 1000:03d}\t,"
                               f"{d // 1000}.{d % 1000:03d},{w // 1000}.{w % 1000:03d}{op.tail}{comm_pmu}\n")
                    n += 1
                    if double_hcom and n < max_rows:
                        hw_task = (hw_task + 5) & 0xFFFF
                        buf.append(f"{step},0,{INVALID},{hw_task}{op.hw_mid}{s // 1000}.{s % 1000:03d}\t,"
                                   f"{d // 1000}.{d % 1000:03d},0.000{op.hw_tail}{comm_pmu}\n")
                        n += 1
                else:
                    task = (task + 1) & 0xFFFF
                    pm = op.pmu_fmt % tuple([m * d for m in op.pmu_mul]) if pmu else ""
                    buf.append(f"{step},0,{INVALID},{task}{op.mid}{s // 1000}.{s % 1000:03d}\t,"
                               f"{d // 1000}.{d % 1000:03d},{w // 1000}.{w % 1000:03d}{op.tail}{pm}\n")
                    n += 1
                t += d
                prev_end = t
                if len(buf) >= chunk:
                    data = "".join(buf)
                    f.write(data)
                    nbytes += len(data)
                    buf.clear()
                if n >= max_rows:
                    break
            p += 1
        data = "".join(buf)
        f.write(data)
        nbytes += len(data)
    return n, p, nbytes


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate a realistic Ascend kernel_details.csv (deterministic).")
    ap.add_argument("out", help="output CSV path")
    ap.add_argument("--model", default="qwen3-decode", choices=MODELS)
    ap.add_argument("--layers", type=int, help="transformer layers (default: 28 qwen3, 61 dsv3)")
    ap.add_argument("--batch", type=int, help="sequences per pass (default: 16 decode, 1 prefill)")
    ap.add_argument("--seq", type=int, help="prefill: prompt tokens (default 4096); decode: KV context (2048)")
    ap.add_argument("--rows", type=int, help="stop after exactly this many rows")
    ap.add_argument("--passes", type=int, help="stop after this many forward passes (default 6 without --rows)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pmu", action=argparse.BooleanOptionalAction, default=True,
                    help="append the 25 PipeUtilization PMU columns (default on)")
    ap.add_argument("--double-hcom", action=argparse.BooleanOptionalAction, default=True,
                    help="log each collective twice: aggregate row + hardware-stream row (default on)")
    a = ap.parse_args(argv)
    for flag in ("layers", "batch", "seq", "rows", "passes"):
        v = getattr(a, flag)
        if v is not None and v < 1:
            ap.error(f"--{flag} must be >= 1")
    t0 = time.perf_counter()
    n, p, nbytes = generate(a.out, a.model, a.layers, a.batch, a.seq, a.rows, a.passes, a.seed, a.pmu,
                            a.double_hcom)
    dt = time.perf_counter() - t0
    print(f"{a.out}: {n:,} rows, {p} passes ({a.model}), {nbytes / 1e6:.1f} MB in {dt:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
