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
  host      in step 2 the host spends 400 µs in the op before each launch on thread 100 (flash, both GEMMs) and the
            device waits for it: on step 2's critical path, back from its last launch, the host's own work;
            the Ascend form (no host side) carries only the device's 400 µs waits, which rule low-utilisation
            reads (planted there: the device's gaps into, in and out of step 2, device_gaps)
  sync      between the layers of every step (not after the last), the host calls cudaDeviceSynchronize right
            after launching the layer's last GEMM; it returns SYNC_RETURN_US after the rank's device drains, and
            the next layer starts SYNC_RELAUNCH_US after the last rank's call returned: planted, the device's idle
            from its drain to the next layer's start; the Ascend form (no host side) carries only the idle
  small     every layer's gradients all-reduced as SMALL_COUNT messages of SMALL_NELEMS bf16 elements (64 KiB)
            instead of one bucket: the first waits for the last rank as the bucket did, each takes SMALL_US once
            all are in, back to back, still under the second GEMM: planted, their device time on every rank (the
            Ascend form has no message sizes: there no rule may fire)
  pageable  at the start of every step a 150 µs copy of the batch from pageable host memory (Kineto's "Memcpy
            HtoD (Pageable -> Device)") before the first layer: planted, its time on every rank; the Ascend form
            has no host copies (runtime tasks kernel_details.csv leaves out): there no rule may fire
  link      in step 2 every layer's all-reduce transfers LINK_FACTOR times as long (after the last rank arrived,
            still under the second GEMM): planted, the excess transfer on every rank; each all-reduce carries
            c10d's metadata (16 Mi bf16 elements a layer, 128 Mi for the exposed fault's), which the Ascend form
            (no communication.json) does not: there no rule may fire

  moe       every layer's first GEMM is an MoE layer's two expert GEMMs instead (vLLM's fused_moe_kernel, gate-up
            then down, launched by one vllm::outplace_fused_experts op whose input shapes give their work; Ascend:
            two GroupedMatmul), and rank MOE_HOT's experts get MOE_FACTOR times the routed tokens of the others,
            so its GEMMs take that much longer: planted, as the slow fault's, the others' wait for it at every
            all-reduce (moe_even: the same layers with every rank's tokens equal, a clean job no rule may flag)
  moe_a2a   expert parallel instead: every layer's first GEMM is the shared expert's (SHARED_US) under the
            dispatch all-to-all (c10d's all_to_allv on an ncclDevKernel_SendRecv, A2A_US once every rank is in;
            Ascend: hcom_alltoallv), then the rank's MOE_LOCAL experts' GEMMs one by one (aten::mm, gate-up then
            down per expert, their M the tokens the rank received; Ascend: MatMulV3), then the combine all-to-all
            under the second GEMM, no all-reduce; rank MOE_HOT receives MOE_FACTOR times the tokens: planted, the
            others' wait for it at every combine (moe_a2a_even: every rank's tokens equal, a clean job)
  launch    in step 2, after the last layer, LAUNCH_COUNT elementwise kernels of LAUNCH_DUR_US, each launched
            by its own 3 µs op, one every LAUNCH_EVERY_US on thread 100: each starts 3 µs after its launch call
            and ends before the next call, so the device waits for every launch: planted, the device's idle
            before each but the first (LAUNCH_EVERY_US - LAUNCH_DUR_US) on every rank (launched at once, by one
            graph launch, the first would wait all the same); the Ascend form (no host side, no launches) carries
            only the short kernels and their gaps, which no rule may flag
  fusion    after every layer's second GEMM, FUSION_OPS elementwise ops over two 4096x4096 bf16 tensors back to
            back (aten::add, aten::mul in turn; Ascend: Add, Mul on the vector core), each at FUSION_BW of its
            memory roofline (no roofline finding): planted, per sequence its time beyond its longest kernel, what
            one fused kernel saves, on every rank
  lowutil   in step 2, between layers 2 and 3, LOWUTIL_COUNT kernels of LOWUTIL_DUR_US, each after a gap of
            LOWUTIL_GAP_US (each launched 8 µs before it by its own op, the host thread idle in between: no
            launch-bound, no host work to speak of), then the same gap before the next layer: the device 40 %
            busy for 5 ms; planted, the stretch's gaps on every rank
  regress   every attention kernel REGRESS_FACTOR times as long on every rank, beside the clean job of the same
            seed stored as job `base` (runs base-rank<N>), its baseline: planted, the steps' added time on every
            rank (ProfilerStep#N's durations, the same as the Step Ids' device spans here)

AMD form (form="amd", write / store): the same Kineto traces on MI300Xs (5.3 TB/s, 1,307 bf16 TFLOP/s: the GEMMs
at ~53 % of peak), as ROCm's Kineto writes them: HIP runtime calls (hipLaunchKernel, hipStreamSynchronize,
hipDeviceSynchronize) and copies named by their direction (CopyHostToDevice), so the pageable fault is one no
rule may flag there.

Ascend forms (form="ascend" or "ascend_host", write_ascend / store): the same job as 4 torch_npu profiler folders
`<folder>/rank_N_ascend_pt/` (ASCEND_PROFILER_OUTPUT/kernel_details.csv, profiler_info_N.json naming the rank and
an Ascend910B3 chip, profiler_metadata.json naming rank and world size), ingested as one folder
(`tracedb ingest FOLDER --name job`: runs tagged job=job). Per layer: FlashAttentionScore (AI_CORE, no shapes),
MatMulV3 (AI_CORE, 4096x1024 @ 1024x4096 bf16: ~73 % of the 910B3's 313 TFLOP/s), hcom_allReduce__271_<n>_1
(COMMUNICATION; its time holds the wait for the last rank, as HCCL's does), MatMulV3. Steps are the Step Id
column (form ascend: no host side). The roofline fault's Add runs on AI_VECTOR_CORE: 100.7 MB at 1.6 TB/s is
62.9 µs of its 300 µs (~21 % of its roofline).
Form ascend_host adds each folder's ASCEND_PROFILER_OUTPUT/trace_view.json, as torch_npu's Level1 writes it
beside the CSV (_trace_view): the Kineto form's host ops and ProfilerStep#N on the Python process, each launch
as an aclnn op an async_npu flow leads from to its task, the synchronising calls as AscendCL calls on the CANN
process, the all-reduces as hcom ops on the HCCL process; and ASCEND_PROFILER_OUTPUT/communication.json, the
profiler's communication analysis, with each all-reduce's wait, transit and bytes (_communication). The host
faults show there as on a GPU, and link and small with their message sizes; host copies are still missing, so
pageable stays silent.
"""
import json
import os
import random

RANKS, STEPS, LAYERS = 4, 3, 4
A_US, G1_US, G2_US, D_US = 100.0, 150.0, 150.0, 60.0
IDLE_US, EXPOSED_US, ADD_US, HOST_US = 2000.0, 300.0, 300.0, 400.0
SYNC_RETURN_US, SYNC_RELAUNCH_US = 5.0, 40.0
LINK_FACTOR = 2.5
SMALL_COUNT, SMALL_NELEMS, SMALL_US = 16, 32 * 2 ** 10, 8.0
PAGEABLE_US = 150.0
LAYER_NELEMS, EXPOSED_NELEMS = 16 * 2 ** 20, 128 * 2 ** 20     # a layer's gradient bucket; the step's last one
SLOW, SLOW_FACTOR = 2, 1.3
BASE_NS = 1_751_410_836_000_000_000
BF = "c10::BFloat16"
MM_DIMS = [[4096, 3072], [3072, 4096]]
ADD_DIMS = [[4096, 4096], [4096, 4096], []]
ADD_BYTES = 3 * 4096 * 4096 * 2
H100_TBS = 3.35e12
# MoE layers (faults moe, moe_even): hidden_states [MOE_T, MOE_K], top-k MOE_TOPK of MOE_E experts, intermediate
# MOE_N: gate-up 2*T*k*2N*K = 68.7 GFLOP in 2/3 of G1_US (~70 % of the H100's 989 TFLOP/s), down half that
MOE_T, MOE_K, MOE_N, MOE_E, MOE_TOPK = 2048, 2048, 2048, 8, 2
MOE_HOT, MOE_FACTOR = 1, 1.3
# expert parallel (faults moe_a2a, moe_a2a_even): MOE_LOCAL experts a rank, each of its tokens' expert GEMMs
# (gate-up [M, K] @ [K, 2N] then down [M, N] @ [N, K], M = the tokens it received / MOE_LOCAL) at ~70 % of the
# H100's peak (the same 68.7 + 34.4 GFLOP in G1_US as the fused layer); the shared expert's GEMM, [2048, 2048] @
# [2048, 4096] (34.4 GFLOP, 69 %), SHARED_US under the dispatch, whose transfer takes A2A_US
MOE_LOCAL, SHARED_US, A2A_US = MOE_E // 4, 50.0, 20.0
SHARED_DIMS = [[2048, 2048], [2048, 4096]]
REGRESS_FACTOR = 1.5
LAUNCH_COUNT, LAUNCH_DUR_US, LAUNCH_EVERY_US = 200, 2.0, 8.0
FUSION_OPS, FUSION_BW = 4, 0.8
LOWUTIL_COUNT, LOWUTIL_DUR_US, LOWUTIL_GAP_US = 20, 100.0, 150.0
FAULTS = ("clean", "idle", "exposed", "slow", "roofline", "host", "sync", "link", "small", "pageable", "moe",
          "moe_a2a", "regress", "launch", "fusion", "lowutil")
# clean jobs of another shape: no rule may fire on them
CLEAN = ("clean", "moe_even", "moe_a2a_even")
# faults the Ascend form cannot show (no host side; no message sizes without communication.json): no rule may fire
# (the host fault's device waits it shows: rule low-utilisation's there, RULE_BY_FORM)
KINETO_ONLY = ("sync", "link", "small", "pageable", "launch")
FORMS = ("kineto", "ascend", "ascend_host", "amd")
# per form, the faults it cannot show: no rule may fire on them (AMD: ROCm's Kineto names a copy by its direction,
# not by pageable memory)
# (ascend_host: the host side and communication.json are there, host copies are not)
SILENT = {"ascend": KINETO_ONLY, "ascend_host": ("pageable",), "amd": ("pageable",)}
TBS = {"kineto": H100_TBS, "ascend": 1.6e12, "ascend_host": 1.6e12, "amd": 5.3e12}   # 910B3, MI300X: peaks.py
BASE_US = BASE_NS // 1000
CHIP = "Ascend910B3"
ASCEND_MM = ('"4096,1024;1024,4096"', "DT_BF16;DT_BF16", "ND;ND", '"4096,4096"', "DT_BF16", "ND")
# the Ascend form's expert GEMMs: gate-up x [tokens x top-k / 2, 1024] @ [E, 1024, 4096], down [.., 2048] @ [E, 2048,
# 1024]: 17.2 and 8.6 GFLOP in 100 and 50 µs, ~55 % of the 910B3's 313 TFLOP/s
ASCEND_MOE_K = 1024
ASCEND_ADD = ('"4096,4096;4096,4096"', "DT_BF16;DT_BF16", "ND;ND", '"4096,4096"', "DT_BF16", "ND")
# kernel_details.csv as torch_npu writes it (tests/test_ascend_host.py FULL)
KD_COLUMNS = ["Step Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State",
              "Accelerator Core", "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Mix Block Dim",
              "HF32 Eligible", "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes",
              "Output Data Types", "Output Formats", "Context ID", "aicore_time(us)"]
RULE_OF = {"idle": "idle-gap", "exposed": "exposed-comm", "slow": "slow-rank", "roofline": "roofline-gap",
           "host": "host-bound", "sync": "sync-in-step", "link": "slow-link", "small": "small-collectives",
           "pageable": "pageable-copy", "moe": "moe-imbalance", "moe_a2a": "moe-imbalance", "regress": "regression",
           "launch": "launch-bound", "fusion": "fusion", "lowutil": "low-utilisation"}
# a fault a form shows otherwise: without the host side, the host fault is the device idle most of step 2, in
# gaps of 400 µs, which rule low-utilisation reads (planted: device_gaps)
RULE_BY_FORM = {("ascend", "host"): "low-utilisation"}
# the faults judged against a baseline: advise's arguments for them
ARGS = {"regress": ("--baseline", "base-*")}


def job(seed=0, fault="clean", form="kineto", late_us=0.0):
    """(events per rank, planted time at stake in µs: the sum the fault's rule should report over the job).
    `late_us` (fault exposed): rank SLOW's host starts the step's last all-reduce that much later, after a
    c10d op of its own, and the others' wait for it inside the all-reduce (a late rank, not missing overlap).
    Each kernel event also lands, as (kind, start µs, dur µs, step), in the `kernels` list the Ascend form
    writes: job(...)[0] is the Kineto events, job.kernels (set on the call) the abstract kernels per rank."""
    assert fault in FAULTS + CLEAN and form in FORMS, (fault, form)
    rnd = random.Random(seed)
    ev = [[] for _ in range(RANKS)]
    corr = [0] * RANKS
    kernels = [[] for _ in range(RANKS)]
    step = [0]
    planted = 0.0

    def jit(v):
        return round(v * (1 + rnd.uniform(-0.005, 0.005)), 3)

    def op(r, name, start, dur, tid=100, cat="cpu_op", **args):
        ev[r].append({"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": tid, "ts": round(start, 3),
                      "dur": round(dur, 3), "args": args})

    def kernel(r, name, start, dur, stream=7, dims=None, types=None, host_op="aten::op", at=None, host_us=0.0,
               nelems=None, coll=None, abstract=None):
        """A kernel, launched by a cudaLaunchKernel 1 µs into a 3 µs op 8 µs before it starts; `host_us`: the
        op starts that much earlier (the host busy in it while the device waits: fault host); `nelems`: an
        all-reduce's bf16 elements, written as c10d's metadata on the kernel (Collective name, msg nelems, ...);
        `coll`: other c10d metadata; `abstract`: its name in `kernels` (the Ascend form's), else `name`."""
        corr[r] += 1
        t = round(start - 8, 3) if at is None else at
        tid = 101 if stream == 13 else 100
        args = {"Input Dims": dims, "Input type": types, "Concrete Inputs": [""] * len(dims)} if dims else {}
        op(r, host_op, t - host_us, 3 + host_us, tid=tid, **args)
        if host_us and s_of[0] == 2:
            host_ops[r].append((t - host_us, t + 3, t + 1.5))
        op(r, "cudaLaunchKernel", t + 1, 0.5, tid=tid, cat="cuda_runtime", correlation=corr[r])
        kargs = {"device": r, "stream": stream, "correlation": corr[r]}
        if nelems:
            kargs.update({"Collective name": "allreduce", "In msg nelems": nelems, "Out msg nelems": nelems,
                          "dtype": "BFloat16", "Group size": RANKS, "Process Group Name": "0"})
        kargs.update(coll or {})
        ev[r].append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": round(start, 3),
                      "dur": round(dur, 3), "args": kargs})
        kernels[r].append((abstract or name, round(start, 3), round(dur, 3), step[0]))

    def a2a(r, start, dur, sent, received):
        """An all_to_allv of the expert-parallel group sending `sent` and receiving `received` tokens (MOE_K bf16
        elements each, split evenly over the ranks), as c10d records it on the NCCL kernel."""
        def split(n):
            return str([n // RANKS] * RANKS)
        kernel(r, "ncclDevKernel_SendRecv", start, dur, stream=13, host_op="c10d::alltoall_", coll={
            "Collective name": "all_to_allv", "In msg nelems": sent * MOE_K, "Out msg nelems": received * MOE_K,
            "In split size": split(sent), "Out split size": split(received), "dtype": "BFloat16",
            "Group size": RANKS, "Process Group Name": "1"})

    def experts(r, start, dur, tokens):
        """An MoE layer's two expert GEMMs (gate-up 2/3 of `dur`, then down), launched 1 and 3 µs into one 6 µs
        vllm::outplace_fused_experts op with `tokens` routed tokens; Ascend: two GroupedMatmul."""
        t = round(start - 8, 3)
        op(r, "vllm::outplace_fused_experts", t, 6, **{
            "Input Dims": [[tokens, MOE_K], [MOE_E, 2 * MOE_N, MOE_K], [MOE_E, MOE_K, MOE_N], [tokens, MOE_TOPK],
                           [tokens, MOE_TOPK]],
            "Input type": [BF, BF, BF, "float", "int"], "Concrete Inputs": [""] * 5})
        at = start
        for part, share, dt in (("gate", 2 / 3, 1), ("down", 1 / 3, 3)):
            corr[r] += 1
            op(r, "cudaLaunchKernel", t + dt, 0.5, cat="cuda_runtime", correlation=corr[r])
            d = round(dur * share, 3)
            ev[r].append({"ph": "X", "cat": "kernel", "name": "fused_moe_kernel", "pid": 0, "tid": 7,
                          "ts": round(at, 3), "dur": d, "args": {"device": r, "stream": 7, "correlation": corr[r]}})
            kernels[r].append((f"fused_moe_kernel:{part}:{tokens}", round(at, 3), d, step[0]))
            at = round(at + d, 3)

    moe = fault in ("moe", "moe_even")
    ep = fault in ("moe_a2a", "moe_a2a_even")
    tokens = [round(MOE_T * (MOE_FACTOR if fault in ("moe", "moe_a2a") and r == MOE_HOT else 1))
              for r in range(RANKS)]
    def ep_layer(b, a, tokens):
        """An expert-parallel layer at `b` (moe_a2a): its end; adds the others' wait for the hot rank to
        `planted`."""
        nonlocal planted
        sent = MOE_T * MOE_TOPK
        sh = [jit(SHARED_US) for _ in range(RANKS)]
        g1 = [jit(G1_US * tokens[r] / MOE_T) for r in range(RANKS)]
        g2 = [jit(G2_US) for _ in range(RANKS)]
        start = [b + a[r] + 1 for r in range(RANKS)]
        dispatched = max(start) + A2A_US
        arrival = []
        for r in range(RANKS):
            kernel(r, "flash_fwd_kernel", b, a[r], host_op="aten::_flash_attention_forward")
            kernel(r, "gemm_kernel", start[r], sh[r], dims=SHARED_DIMS, types=[BF, BF], host_op="aten::mm",
                   abstract="shared_gemm")
            a2a(r, start[r], dispatched - start[r], sent, sent * tokens[r] // MOE_T)
            at = start[r] + sh[r] + 1
            m = sent * tokens[r] // MOE_T // MOE_LOCAL
            for _ in range(MOE_LOCAL):
                for part, share, dims in (("gate", 2 / 3, [[m, MOE_K], [MOE_K, 2 * MOE_N]]),
                                          ("down", 1 / 3, [[m, MOE_N], [MOE_N, MOE_K]])):
                    d = round(g1[r] * share / MOE_LOCAL, 3)
                    kernel(r, "gemm_kernel", at, d, dims=dims, types=[BF, BF], host_op="aten::mm",
                           abstract=f"expert_gemm:{part}:{m}")
                    at = round(at + d, 3)
            arrival.append(at + 1)
        combined = max(arrival) + A2A_US
        for r in range(RANKS):
            a2a(r, arrival[r], combined - arrival[r], sent * tokens[r] // MOE_T, sent)
            kernel(r, "gemm_kernel", arrival[r], g2[r], dims=MM_DIMS, types=[BF, BF], host_op="aten::mm")
        if fault == "moe_a2a":
            planted += sum(arrival[MOE_HOT] - arrival[r] for r in range(RANKS) if r != MOE_HOT)
        return max(max(arrival[r] + g2[r] for r in range(RANKS)), combined) + 2

    t = 100.0
    steps = []       # each step's duration (µs)
    s_of = step      # the step being written (fault host plants its ops in step 2)
    host_ops = [[] for _ in range(RANKS)]    # fault host: (op start, op end, its launch's end) on thread 100
    for s in range(STEPS):
        step[0] = s + 1
        step_start = t
        b = t + 10
        if fault == "pageable":   # the step's batch copied from pageable memory before its first layer
            for r in range(RANKS):
                corr[r] += 1
                op(r, "aten::copy_", b - 8, 3)
                op(r, "cudaMemcpyAsync", b - 7, 1, cat="cuda_runtime", correlation=corr[r])
                ev[r].append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
                              "tid": 7, "ts": round(b, 3), "dur": PAGEABLE_US,
                              "args": {"device": r, "stream": 7, "correlation": corr[r], "bytes": 64 * 2 ** 20}})
            b += PAGEABLE_US + 2
            planted += PAGEABLE_US * RANKS
        for layer in range(LAYERS):
            if fault == "idle" and s == 1 and layer == 2:
                for r in range(RANKS):
                    op(r, "cudaStreamSynchronize", b, IDLE_US - 12, cat="cuda_runtime")
                b += IDLE_US
                planted += IDLE_US * RANKS
            slow = [SLOW_FACTOR if (fault == "slow" and r == SLOW) else 1.0 for r in range(RANKS)]
            a = [jit(A_US * (REGRESS_FACTOR if fault == "regress" else 1)) for _ in range(RANKS)]
            # an MoE layer's expert GEMMs take as long as their tokens make them
            g1 = [jit(G1_US * slow[r] * tokens[r] / MOE_T) for r in range(RANKS)]
            g2 = [jit(G2_US * slow[r]) for r in range(RANKS)]
            arrival = [b + a[r] + 1 + g1[r] + 1 for r in range(RANKS)]
            d = D_US * (LINK_FACTOR if fault == "link" and s == 1 else 1)
            if fault == "small":
                d = SMALL_US * SMALL_COUNT
            end = max(arrival) + d
            if fault == "link" and d != D_US:
                planted += (d - D_US) * RANKS
            if fault == "small":
                planted += sum(end - arrival[r] for r in range(RANKS))
            if fault in ("slow", "moe"):
                late = SLOW if fault == "slow" else MOE_HOT
                planted += sum(arrival[late] - arrival[r] for r in range(RANKS) if r != late)
            if ep:     # the expert-parallel layer, then the next (the faults below are not planted with it)
                b = ep_layer(b, a, tokens)
                continue
            h = HOST_US if fault == "host" and s == 1 else 0.0
            if h:   # the device waits H for each launch on thread 100: the kernels start H later, one after another
                arrival = [b + h + a[r] + 1 + h + g1[r] + 1 for r in range(RANKS)]
                end = max(arrival) + d
            for r in range(RANKS):
                kernel(r, "flash_fwd_kernel", b + h, a[r], host_op="aten::_flash_attention_forward", host_us=h)
                if moe:
                    experts(r, b + a[r] + 1, g1[r], tokens[r])
                else:
                    kernel(r, "gemm_kernel", b + h + a[r] + 1 + h, g1[r], dims=MM_DIMS, types=[BF, BF],
                           host_op="aten::mm", host_us=h)
                if fault == "small":      # SMALL_COUNT messages back to back, the first waiting for the last rank
                    at = arrival[r]
                    for i in range(SMALL_COUNT):
                        stop = max(arrival) + SMALL_US * (i + 1)
                        kernel(r, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", at, stop - at, stream=13,
                               host_op="c10d::allreduce_", nelems=SMALL_NELEMS)
                        at = stop
                else:
                    kernel(r, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", arrival[r], end - arrival[r], stream=13,
                           host_op="c10d::allreduce_", nelems=LAYER_NELEMS)
                kernel(r, "gemm_kernel", arrival[r] + h, g2[r], dims=MM_DIMS, types=[BF, BF], host_op="aten::mm",
                       host_us=h)
            done = [arrival[r] + h + g2[r] for r in range(RANKS)]
            if fault == "fusion":     # elementwise ops back to back after the second GEMM, near their roofline
                for r in range(RANKS):
                    at, ds = done[r] + 1, []
                    for i in range(FUSION_OPS):
                        d_ = jit(ADD_BYTES / (FUSION_BW * TBS[form]) * 1e6)
                        kind = ("add", "mul")[i % 2]
                        kernel(r, f"elementwise_{kind}_kernel", at, d_, dims=ADD_DIMS, types=[BF, BF, "Scalar"],
                               host_op=f"aten::{kind}")
                        ds.append(d_)
                        at = round(at + d_ + 1, 3)
                    planted += sum(ds) - max(ds)
                    done[r] = at - 1
            b = max(max(done), end) + 2
            if fault == "lowutil" and s == 1 and layer == 1:
                # LOWUTIL_COUNT kernels, each after a gap of LOWUTIL_GAP_US (launched 8 µs before it, the host idle
                # in between), then the gap before the next layer
                b += LOWUTIL_GAP_US - 2
                for i in range(LOWUTIL_COUNT):
                    for r in range(RANKS):
                        kernel(r, "reduce_kernel", b, LOWUTIL_DUR_US, host_op="aten::sum")
                    b += LOWUTIL_DUR_US + LOWUTIL_GAP_US
                planted += RANKS * (LOWUTIL_COUNT + 1) * LOWUTIL_GAP_US
            if fault == "sync" and layer < LAYERS - 1:
                drained = [max(arrival[r] + h + g2[r], end) for r in range(RANKS)]
                for r in range(RANKS):    # after the last GEMM's launch op (arrival - 8, 3 µs) on thread 100
                    op(r, "cudaDeviceSynchronize", arrival[r] - 4, drained[r] + SYNC_RETURN_US - (arrival[r] - 4),
                       cat="cuda_runtime")
                b = max(drained) + SYNC_RETURN_US + SYNC_RELAUNCH_US
                planted += sum(b - d for d in drained)
        if fault == "launch" and s == 1:
            # the device ended its last activity at b - 2; each kernel starts 3 µs after its launch call
            for r in range(RANKS):
                for i in range(LAUNCH_COUNT):
                    at = b + LAUNCH_EVERY_US * i
                    corr[r] += 1
                    op(r, "aten::add_", at, 3)
                    op(r, "cudaLaunchKernel", at + 1, 0.5, cat="cuda_runtime", correlation=corr[r])
                    ev[r].append({"ph": "X", "cat": "kernel", "name": "vectorized_elementwise_kernel", "pid": 0,
                                  "tid": 7, "ts": round(at + 4, 3), "dur": LAUNCH_DUR_US,
                                  "args": {"device": r, "stream": 7, "correlation": corr[r]}})
                    kernels[r].append(("vectorized_elementwise_kernel", round(at + 4, 3), LAUNCH_DUR_US, step[0]))
            b += LAUNCH_EVERY_US * LAUNCH_COUNT + 2
            planted += RANKS * (LAUNCH_COUNT - 1) * (LAUNCH_EVERY_US - LAUNCH_DUR_US)
        if fault == "exposed":
            for r in range(RANKS):
                start = b + (late_us if r == SLOW else 0.0)
                kernel(r, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", start, b + late_us + EXPOSED_US - start,
                       stream=13, host_op="c10d::allreduce_", nelems=EXPOSED_NELEMS)
            b += late_us + EXPOSED_US + 2
            planted += EXPOSED_US * RANKS + late_us * (RANKS - 1)
        if fault == "roofline":
            for r in range(RANKS):
                kernel(r, "elementwise_add_kernel", b, ADD_US, dims=ADD_DIMS, types=[BF, BF, "Scalar"],
                       host_op="aten::add")
            b += ADD_US + 2
            planted += (ADD_US - ADD_BYTES / TBS[form] * 1e6) * RANKS
        t = b + 50
        for r in range(RANKS):
            op(r, f"ProfilerStep#{s + 1}", step_start, t - step_start, cat="user_annotation")
        steps.append(t - step_start)
        if fault == "host" and s == 1 and form != "ascend":
            # on step 2's path, back from its last launch (the last GEMM's, which the host made the device wait
            # for) to the step's start, the host works in every op of thread 100: planted, per rank, their time
            for r in range(RANKS):
                last_launch = host_ops[r][-1][2]
                planted += sum(min(e, last_launch) - max(a_, step_start) for a_, e, _ in host_ops[r]
                               if a_ < last_launch and e > step_start)
    if fault == "regress":     # against the clean job of the same seed: the same jitter, the attention longer
        job(seed, "clean", form)
        planted = RANKS * (sum(steps) - sum(job.steps))
    if fault == "host" and form == "ascend":
        planted = sum(device_gaps(ks, 2) for ks in kernels)
    job.kernels, job.steps = kernels, steps
    return ev, planted


def device_gaps(kernels, step, min_gap_us=20.0) -> float:
    """A rank's device idle around step `step`, from its kernels (name, start µs, dur µs, step): the gaps of at
    least `min_gap_us` in the union of their intervals that start between the end of the step before and the end
    of the step's last kernel (so the gap into the step counts, and the one out of it)."""
    spans = sorted((a, a + d, st) for _, a, d, st in kernels)
    before = max((e for _, e, st in spans if st == step - 1), default=spans[0][0])
    last = max(e for _, e, st in spans if st == step)
    total, end = 0.0, None
    for a, e, _ in spans:
        if end is not None and a - end >= min_gap_us and before - 1e-6 <= end <= last + 1e-6:
            total += a - end
        end = e if end is None else max(end, e)
    return total


def _us(t: float) -> str:
    """An epoch time or a duration in µs with 3 decimals, as kernel_details.csv writes it."""
    return f"{t:.3f}"


def write_ascend(folder, seed=0, fault="clean", host=False):
    """One torch_npu profiler folder per rank under `folder` (rank_N_ascend_pt/): (folder, planted µs). `host`:
    with the host side beside kernel_details.csv, as torch_npu's Level1 writes it (trace_view.json: _trace_view)."""
    events, planted = job(seed, fault, "ascend_host" if host else "ascend")
    for r, ks in enumerate(job.kernels):
        pt = os.path.join(str(folder), f"rank_{r}_ascend_pt")
        out = os.path.join(pt, "ASCEND_PROFILER_OUTPUT")
        os.makedirs(out, exist_ok=True)
        rows, hccl, named = [], 0, {}
        for task, (name, start, dur, step) in enumerate(sorted(ks, key=lambda k: (k[1], k[0]))):
            shapes = ("", "", "", "", "", "")
            key = (name, start)
            if name.startswith("ncclDevKernel"):
                op = "hcom_alltoallv" if name == "ncclDevKernel_SendRecv" else "hcom_allReduce"
                name, op_type, core, stream = f"{op}__271_{hccl}_1", f"{op}_", "COMMUNICATION", 5
                hccl += 1
            elif name == "shared_gemm":         # [1024, 1024] @ [1024, 4096]: 8.6 GFLOP in 50 µs, ~55 %
                name = op_type = "MatMulV3"
                core, stream = "AI_CORE", 2
                shapes = ('"1024,1024;1024,4096"', *ASCEND_MM[1:3], '"1024,4096"', *ASCEND_MM[4:])
            elif name.startswith("expert_gemm:"):  # per expert: M = the Kineto form's / 2, K, N as GroupedMatmul's
                _, part, tok = name.split(":")
                m = int(tok) // 2
                k, n = (ASCEND_MOE_K, 4 * ASCEND_MOE_K) if part == "gate" else (2 * ASCEND_MOE_K, ASCEND_MOE_K)
                name = op_type = "MatMulV3"
                core, stream = "AI_CORE", 2
                shapes = (f'"{m},{k};{k},{n}"', *ASCEND_MM[1:3], f'"{m},{n}"', *ASCEND_MM[4:])
            elif name == "gemm_kernel":
                name = op_type = "MatMulV3"
                core, stream, shapes = "AI_CORE", 2, ASCEND_MM
            elif name.startswith("fused_moe_kernel:"):      # x [M, K] (M = tokens x top-k), weight [E, K, N]
                _, part, tok = name.split(":")
                m = int(tok) * MOE_TOPK // 2
                k, n = (ASCEND_MOE_K, 4 * ASCEND_MOE_K) if part == "gate" else (2 * ASCEND_MOE_K, ASCEND_MOE_K)
                name = op_type = "GroupedMatmul"
                core, stream = "AI_CORE", 2
                shapes = (f'"{m},{k};{MOE_E},{k},{n};{MOE_E}"', "DT_BF16;DT_BF16;INT64", "ND;ND;ND", f'"{m},{n}"',
                          "DT_BF16", "ND")
            elif name == "flash_fwd_kernel":
                name = op_type = "FlashAttentionScore"
                core, stream = "AI_CORE", 2
            elif name == "reduce_kernel":
                name = op_type = "ReduceSum"
                core, stream = "AI_VECTOR_CORE", 2
            else:
                name = op_type = "Mul" if name == "elementwise_mul_kernel" else "Add"
                core, stream, shapes = "AI_VECTOR_CORE", 2, ASCEND_ADD
            named[key] = (name, core, stream, 100 + task)
            aicore = _us(dur) if core == "AI_CORE" else "N/A"
            rows.append([step, r, 4294967295, 100 + task, stream, name, op_type, "dynamic", core,
                         _us(BASE_US + start), _us(dur), "0", 24, 0, "NO", *shapes, "N/A", aicore])
        with open(os.path.join(out, "kernel_details.csv"), "w", encoding="utf-8", newline="") as f:
            f.write(",".join(KD_COLUMNS) + "\n" + "".join(",".join(map(str, row)) + "\n" for row in rows))
        if host:
            with open(os.path.join(out, "trace_view.json"), "w", encoding="utf-8") as f:
                json.dump(_trace_view(events[r], ks, named), f)
            with open(os.path.join(out, "communication.json"), "w", encoding="utf-8") as f:
                json.dump(_communication(events, job.kernels, r, named), f)
        with open(os.path.join(pt, f"profiler_info_{r}.json"), "w", encoding="utf-8") as f:
            json.dump({"rank_id": r, "torch_npu_version": "2.5.1", "cann_version": "8.1.RC1",
                       "config": {"experimental_config": {"_profiler_level": "Level1"}},
                       "device_info": {"chip_name": CHIP}}, f)
        with open(os.path.join(pt, "profiler_metadata.json"), "w", encoding="utf-8") as f:
            json.dump({"distributed_args": {"rank": r, "world_size": RANKS}}, f)
    return str(folder), planted


HCCL_GROUP = "9347182634981734215"      # the communication group's id, as HCCL names it after the op


def _communication(events, kernels, r, named) -> dict:
    """Rank r's communication.json, as the Ascend profiler's communication analysis writes it: step -> collective
    -> `<op>@<group>` -> its time (start, elapse; wait: until the last rank's op began, as HCCL counts it;
    transit: the rest) and its bytes per link type (SDMA and HCCS both holding the message: c10d's elements x 2
    bytes of bf16), in MB of 10^6 bytes."""
    def colls(rank):       # the rank's collectives in order: (start µs, dur µs, step, elements sent, kernel)
        device = [e for e in events[rank] if e.get("cat") == "kernel"]
        return sorted((start, dur, step, e["args"].get("In msg nelems", 0), name)
                      for e, (name, start, dur, step) in zip(device, kernels[rank]) if name.startswith("ncclDev"))
    every = [colls(rank) for rank in range(RANKS)]
    out = {}
    for k, (start, dur, step, nelems, kernel) in enumerate(every[r]):
        last = max(c[k][0] for c in every)
        name = named[(kernel, start)][0]
        wait, mb = round((last - start) / 1000, 6), nelems * 2 / 1e6
        transit = round(dur / 1000 - wait, 6)
        link = {"Transit Size(MB)": mb, "Transit Time(ms)": transit, "Bandwidth(GB/s)": round(mb / 1000 / transit, 4)
                if transit > 0 else 0, "Large Packet Ratio": 0}
        out.setdefault(f"step{step}", {"collective": {}})["collective"][f"{name}@{HCCL_GROUP}"] = {
            "Communication Time Info": {"Start Timestamp(us)": BASE_US + start, "Elapse Time(ms)": dur / 1000,
                                        "Transit Time(ms)": transit, "Wait Time(ms)": wait,
                                        "Synchronization Time(ms)": 0, "Idle Time(ms)": 0,
                                        "Wait Time Ratio": round(wait / (wait + transit), 4) if wait + transit else 0,
                                        "Synchronization Time Ratio": 0},
            "Communication Bandwidth Info": {"SDMA": link, "HCCS": dict(link)}}
    return out


# trace_view.json's processes (torch_npu names them; the ids are its own)
PY_PID, CANN_PID, HW_PID, HCCL_PID = 3178231, 3254508768, 3254508960, 3254509024
ACL_CALL = {"cudaStreamSynchronize": "AscendCL@aclrtSynchronizeStream",
            "cudaDeviceSynchronize": "AscendCL@aclrtSynchronizeDevice"}


def _trace_view(events, kernels, named) -> list:
    """A rank's host side and device tasks as torch_npu's trace_view.json: the Kineto form's ops and steps on
    the Python process (its threads), each launch (cudaLaunchKernel) as the op `aclnn<Name>` an async_npu
    flow leads from to its task on the Ascend Hardware process (a thread per stream, the task named as
    kernel_details.csv names it, at the same start), each synchronising call as its AscendCL call on the CANN
    process (the same thread id), each all-reduce as an hcom op on the HCCL process's "Group 0 Communication"
    thread, where its flow ends, with a Notify Wait task on its stream (the same connection id). Host copies
    are not written (torch_npu records them as runtime tasks kernel_details.csv leaves out)."""
    def ts(us):
        return _us(BASE_US + us)
    ev = [{"ph": "M", "name": "process_name", "pid": PY_PID, "tid": 0, "args": {"name": "Python"}},
          {"ph": "M", "name": "process_name", "pid": CANN_PID, "tid": 0, "args": {"name": "CANN"}},
          {"ph": "M", "name": "process_name", "pid": HW_PID, "tid": 0, "args": {"name": "Ascend Hardware"}},
          {"ph": "M", "name": "process_name", "pid": HCCL_PID, "tid": 0, "args": {"name": "HCCL"}},
          {"ph": "M", "name": "thread_name", "pid": HCCL_PID, "tid": 1, "args": {"name": "Group 0 Communication"}}]
    ev += [{"ph": "M", "name": "thread_name", "pid": HW_PID, "tid": s, "args": {"name": f"Stream {s}"}}
           for s in (2, 5)]
    device = [e for e in events if e.get("cat") == "kernel"]
    task_of = {}       # correlation -> (csv name, core, stream, task id)
    for e, (name, start, _, _) in zip(device, kernels):
        task_of[e["args"]["correlation"]] = named[(name, start)]
    for e in events:
        cat = e.get("cat")
        if cat in ("cpu_op", "user_annotation"):
            ev.append({"ph": "X", "cat": "cpu_op", "name": e["name"], "pid": PY_PID, "tid": e["tid"], "ts": ts(e["ts"]),
                       "dur": e["dur"], "args": e["args"]})
        elif cat == "cuda_runtime" and e["name"] in ACL_CALL:
            ev.append({"ph": "X", "name": ACL_CALL[e["name"]], "pid": CANN_PID, "tid": e["tid"], "ts": ts(e["ts"]),
                       "dur": e["dur"], "args": {"Thread Id": e["tid"], "Mode": "ACL_RTS", "level": "acl"}})
        elif cat == "cuda_runtime" and "correlation" in e["args"] and e["args"]["correlation"] in task_of:
            corr = e["args"]["correlation"]
            name = task_of[corr][0]
            op = name.split("__")[0] if name.startswith("hcom_") else name
            ev.append({"ph": "X", "cat": "cpu_op", "name": f"aclnn{op}", "pid": PY_PID, "tid": e["tid"],
                       "ts": ts(e["ts"]), "dur": e["dur"], "args": {}})
            ev.append({"ph": "s", "cat": "async_npu", "name": "torch_to_npu", "id": corr, "pid": PY_PID,
                       "tid": e["tid"], "ts": ts(e["ts"]), "bp": "e"})
    for e in device:
        corr = e["args"]["correlation"]
        name, core, stream, task = task_of[corr]
        at = {"ph": "f", "cat": "async_npu", "name": "torch_to_npu", "id": corr, "ts": ts(e["ts"]), "bp": "e"}
        if core == "COMMUNICATION":
            ev.append({"ph": "X", "name": name, "pid": HCCL_PID, "tid": 1, "ts": ts(e["ts"]), "dur": e["dur"],
                       "args": {"connection_id": corr}})
            ev.append({"ph": "X", "name": "Notify Wait", "pid": HW_PID, "tid": stream, "ts": ts(e["ts"]),
                       "dur": e["dur"], "args": {"Task Type": "Notify Wait", "Physic Stream Id": stream,
                                                 "Task Id": task, "connection_id": corr}})
            ev.append({**at, "pid": HCCL_PID, "tid": 1})
        else:
            ev.append({"ph": "X", "name": name, "pid": HW_PID, "tid": stream, "ts": ts(e["ts"]), "dur": e["dur"],
                       "args": {"Model Id": 4294967295, "Task Type": core, "Physic Stream Id": stream,
                                "Task Id": task, "connection_id": corr}})
            ev.append({**at, "pid": HW_PID, "tid": stream})
    return ev


def _on_rocm(e: dict) -> dict:
    """An event as PyTorch's Kineto on ROCm writes it: HIP runtime calls (hipLaunchKernel, hipStreamSynchronize,
    ...) and copies named by their direction only."""
    if e.get("cat") == "cuda_runtime":
        e = {**e, "name": "hip" + e["name"][len("cuda"):]}
    elif e.get("cat") == "gpu_memcpy":
        e = {**e, "name": "CopyHostToDevice"}
    return e


def write(folder, seed=0, fault="clean", name="job", form="kineto", late_us=0.0):
    """One trace per rank, `<folder>/<name>_rank<N>.json`: (paths, planted µs). `form` kineto: H100s; amd: the
    same job on MI300Xs, as ROCm's Kineto writes it; `late_us`: job()'s."""
    events, planted = job(seed, fault, form, late_us)
    device = ({"name": "AMD Instinct MI300X", "gcnArchName": "gfx942", "numSms": 304} if form == "amd" else
              {"name": "NVIDIA H100 80GB HBM3", "numSms": 132})
    paths = []
    for r, ev in enumerate(events):
        if form == "amd":
            ev = [_on_rocm(e) for e in ev]
        meta = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": f"GPU {r}"}},
                {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python3"}}]
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": r, **device}],
               "distributedInfo": {"backend": "nccl", "rank": r, "world_size": RANKS},
               "baseTimeNanoseconds": BASE_NS, "traceEvents": meta + sorted(ev, key=lambda e: e["ts"])}
        path = os.path.join(str(folder), f"{name}_rank{r}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        paths.append(path)
    return paths, planted


def store(db, folder, seed=0, fault="clean", form="kineto", name="job"):
    """The job of `form` in the store `db`, its ranks tagged job=<name>; returns the planted µs. Kineto: each rank
    as run `<name>-rank<N>`; Ascend: the folder of rank folders as one `tracedb ingest FOLDER --name <name>`."""
    if fault == "regress":   # its baseline first: the clean job of the same seed, as job `base`
        base = os.path.join(str(folder), "base")
        os.makedirs(base)
        store(db, base, seed, "clean", form, "base")
    if form in ("ascend", "ascend_host"):
        from helpers import cli
        where = os.path.join(str(folder), "job") if fault == "regress" else str(folder)
        _, planted = write_ascend(where, seed, fault, host=form == "ascend_host")
        cli("ingest", where, "--db", db, "--name", name)
        return planted
    import tracedb
    con = tracedb.connect(db)
    try:
        return ingest(con, folder, seed, fault, name, form)
    finally:
        con.close()


def ingest(con, folder, seed=0, fault="clean", name="job", form="kineto", late_us=0.0):
    """Each rank as run `<name>-rank<N>`, tagged job=<name>; returns the planted µs."""
    import tracedb
    paths, planted = write(folder, seed, fault, name, form, late_us)
    for r, path in enumerate(paths):
        tracedb.ingest_trace(con, path, name=f"{name}-rank{r}", tags={"job": name})
    return planted
