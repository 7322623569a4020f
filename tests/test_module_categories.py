"""Categories by evidence: a kernel's launching module first, then its launching op, then its name.

An eager model's RMSNorm is several elementwise kernels (pow, mean, rsqrt, mul): 'other' by name alone.
The trace below has two passes of two layers; per layer, in µs from the layer's start L:
  nn.Module: Qwen2RMSNorm_i  [0, 10)  launches elementwise_kernel<mul>  at 1  -> device [100+L, 104+L)   4 µs
  nn.Module: Qwen2Attention_i [10, 30) launches flash_fwd_kernel        at 11 -> device [105+L, 111+L)  6 µs
    nn.Module: Linear_i       [12, 20) launches gemm_kernel             at 13 -> device [112+L, 120+L)  8 µs
  (no nn.Module frame)                 launches reduce_kernel<sum>      at 31 -> device [121+L, 124+L)  3 µs
so per pass: norm 8 µs (by module), attention 12, gemm 16, other 6 (no module to take it from).
"""
import csv
import io
import json

import tracedb
from tracedb.engine.segmentation import binding
from tracedb.engine.segmentation import persist as segment_store
from tracedb.engine.reports.registry import render_report


def _events():
    """An empty Kineto event list, and writers of a host event (x) and of a kernel launched by its runtime
    call (launch) into it, times in µs."""
    ev, corr = [], [0]

    def x(cat, name, ts, dur, pid=1, tid=1, **args):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})

    def launch(kname, at, kstart, kdur):
        corr[0] += 1
        x("cuda_runtime", "cudaLaunchKernel", at, 0.5, correlation=corr[0])
        x("kernel", kname, kstart, kdur, pid=0, tid=7, device=0, stream=7, correlation=corr[0])

    return ev, x, launch


def _trace(path):
    ev, x, launch = _events()

    for p in range(2):
        for i in range(2):
            L = p * 10_000 + i * 50
            x("python_function", f"nn.Module: Qwen2RMSNorm_{i}", L, 10)
            launch("void at::native::vectorized_elementwise_kernel<4, at::native::mul>", L + 1, 100 + L, 4)
            x("python_function", f"nn.Module: Qwen2Attention_{i}", L + 10, 20)
            launch("flash_fwd_kernel", L + 11, 105 + L, 6)
            x("python_function", f"nn.Module: Linear_{i}", L + 12, 8)
            launch("gemm_kernel", L + 13, 112 + L, 8)
            launch("void at::native::reduce_kernel<512, 1, at::native::sum>", L + 31, 121 + L, 3)
    path.write_text(json.dumps({"traceEvents": ev}))
    return str(path)


def test_generic_kernels_take_their_modules_category(con, tmp_path):
    tracedb.ingest_trace(con, _trace(tmp_path / "m.json"), name="m")
    res = tracedb.report(con, "layers", run="m", anchor="flash_fwd", layers=2)
    rows = res.arrow().to_pylist()
    by_pass = {}
    for r in rows:
        agg = by_pass.setdefault(r["pass"], {})
        for c in ("norm_us", "attention_us", "gemm_us", "other_us"):
            agg[c] = agg.get(c, 0) + round(float(r[c]) * 1000)
    assert by_pass == {0: {"norm_us": 8000, "attention_us": 12000, "gemm_us": 16000, "other_us": 6000},
                       1: {"norm_us": 8000, "attention_us": 12000, "gemm_us": 16000, "other_us": 6000}}
    # 84 us in all: the norm's mul by its module (16), flash_fwd by its module Qwen2Attention (24), the GEMM
    # by its name (Linear says nothing, and no cpu_op: 32), the reduce by nothing (12)
    assert ("categories by evidence, of 84.000 us of device time: the launching module decided 47.6 % (40.000 us), "
            "the kernel name decided 38.1 % (32.000 us); nothing decided 14.3 % (other)") in res.notes
    assert ("16.000 us take another category than their name gives, from their launching module, op or frame: "
            "norm 16.000 us (4; by name other)") in res.notes
    assert ("12.000 us (4), 14.3 % of device time, stay other: neither their launching module, their launching op "
            "nor their name gives a category; 12.000 us (4) of them launched outside any nn.Module frame") in res.notes


def test_stored_segments_and_kernels_carry_the_module_category(con, tmp_path):
    tracedb.ingest_trace(con, _trace(tmp_path / "m.json"), name="m")
    segment_store.segment_runs(con, binding.Options(runs=["m"], anchor="flash_fwd", layers=2))
    got = con.execute("SELECT category, count(*), sum(dur_ns) FROM kernel_layers WHERE run = 'm' "
                      "GROUP BY ALL ORDER BY 1").fetchall()
    assert got == [("attention", 4, 24000), ("gemm", 4, 32000), ("norm", 4, 16000), ("other", 4, 12000)]
    out = render_report(con, "kernels", runs=["m"], anchor="flash_fwd", layers=2, pass_spec="0", fmt="csv")
    by_name = {r["name"]: r["category"] for r in csv.DictReader(io.StringIO(out))}
    assert by_name["void at::native::vectorized_elementwise_kernel<4, at::native::mul>"] == "norm"
    assert by_name["void at::native::reduce_kernel<512, 1, at::native::sum>"] == "other"


def test_runs_without_module_frames_are_left_alone(con, tmp_path):
    """A trace without nn.Module frames: no note, categories by name only."""
    path = tmp_path / "bare.json"
    ev = json.loads(open(_trace(tmp_path / "m.json")).read())["traceEvents"]
    path.write_text(json.dumps({"traceEvents": [e for e in ev if e["cat"] != "python_function"]}))
    tracedb.ingest_trace(con, str(path), name="bare")
    res = tracedb.report(con, "layers", run="bare", anchor="flash_fwd", layers=2)
    assert not any("launching module" in n for n in res.notes)
    assert sum(round(float(r["other_us"]) * 1000) for r in res.arrow().to_pylist()) == 2 * (8000 + 6000)


def test_roles_number_distinct_instances_and_group_calls_of_one(con, tmp_path):
    """Two layers, each with two Linear instances (q, k: ordinals 0 and 1, the same in both layers), then one
    instance called three times under the model (vLLM's piecewise graph pieces are all 'GraphModule_0'):
    one role for all three calls, with no ordinal."""
    from tracedb import sql
    ev, corr = [], 0

    def x(cat, name, ts, dur, pid=1, tid=1, **args):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})

    def launch(at, kname="k"):
        nonlocal corr
        corr += 1
        x("cuda_runtime", "cudaLaunchKernel", at, 0.5, correlation=corr)
        x("kernel", kname, 1000 + at, 1, pid=0, tid=7, device=0, stream=7, correlation=corr)

    x("python_function", "nn.Module: Model_0", 0, 200)
    for i in range(2):
        L = i * 50
        x("python_function", f"nn.Module: Layer_{i}", L, 40)
        x("python_function", f"nn.Module: Linear_{2 * i}", L + 1, 5)
        launch(L + 2)
        x("python_function", f"nn.Module: Linear_{2 * i + 1}", L + 10, 5)
        launch(L + 11)
    for j in range(3):
        x("python_function", "nn.Module: Graph_0", 120 + 20 * j, 10)
        launch(121 + 20 * j)
    path = tmp_path / "roles.json"
    path.write_text(json.dumps({"traceEvents": ev}))
    tracedb.ingest_trace(con, str(path), name="r")
    sql.run(con, "attribute_scope_runs", {"run_ids": [1]})
    sql.run(con, "attribute_modules", {"run_ids": [1]})
    got = con.execute("SELECT module, module_path FROM _attr ORDER BY launch_ns").fetchall()
    assert got == [("Model/Layer/Linear#0", "Model_0/Layer_0/Linear_0"),
                   ("Model/Layer/Linear#1", "Model_0/Layer_0/Linear_1"),
                   ("Model/Layer/Linear#0", "Model_0/Layer_1/Linear_2"),
                   ("Model/Layer/Linear#1", "Model_0/Layer_1/Linear_3"),
                   ("Model/Graph", "Model_0/Graph_0"), ("Model/Graph", "Model_0/Graph_0"),
                   ("Model/Graph", "Model_0/Graph_0")]


# An eager vLLM MoE decoder (gpt-oss on Blackwell): per layer, in µs from the layer's host start L, the kernels
# it launches and where their device time lies from the layer's device start D (anchor: flash_fwd):
#   nn.Module: TransformerBlock_i                  [L, L+90)
#     nn.Module: OAIAttention_i                    [L+1, L+30)
#       (no cpu_op)      flash_fwd_kernel             [D, D+10)     attention: module (and name)
#       nn.Module: QKVParallelLinear_i, aten::mm  nvjet_tst_128x64  [D+10, D+14)  gemm: op (Linear says nothing)
#     nn.Module: MLPBlock_i                        [L+31, L+80)
#       nn.Module: ReplicatedLinear_i, aten::mm  nvjet_tst_64x8     [D+14, D+16)  gemm: op (the router GEMM)
#       nn.Module: FusedMoE_i                      [L+40, L+78)
#         bmm_E2m1_..._swiGlu (expert GEMM 1)        [D+16, D+46)  moe: module (activation by name)
#         bmm_Bfloat16_..._sm100f (expert GEMM 2)    [D+46, D+61)  moe: module (other by name)
#         moe::dev::finalize::finalizeKernel<cutlass> [D+61, D+64) moe: module (gemm by name)
#         aten::mm: nvjet_tst_256x8                   [D+64, D+68)  moe: module (gemm by op and name)
#         (with nccl) ncclDevKernel_AllReduce         [D+68, D+76)  communication, whatever launched it
#     aten::add: elementwise add (residual)        [D+76, D+78)  other: the decoder layer is a wrapper
# and before the model's frame, in no module, aten::addmm launches Kernel2 (a name no rule knows): gemm by op,
# the pass's prologue. Per layer: attention 10, gemm 6, moe 52, other 2 µs (+ communication 8): the module
# tree puts 52 of the layer's 70 µs of computing under FusedMoE, and so does the moe column.
EXPERT1 = ("bmm_E2m1_E4m3E4m3_Fp32_t128x8x256u2_s6_et128x8_m128x8x32_cga1x1x1_16dp256b_TN_transOut_schedS_bN_dynBatch_"
           "sm100f_swiGlu")
EXPERT2 = ("bmm_Bfloat16_E2m1E2m1_Fp32_t128x8x256u2_s6_et128x8_m128x8x32_cga1x1x1_16dp256b_TN_transOut_schedS_bN_"
           "dynBatch_sm100f")
FINALIZE = ("void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::bfloat16_t, "
            "cutlass::bfloat16_t, true> >(moe::dev::finalize::KernelParams<cutlass::bfloat16_t, cutlass::bfloat16_t, "
            "true>)")
NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>(int)"


def _moe_trace(path, nccl=False):
    ev, x, launch = _events()

    for p in range(2):
        P = p * 10_000
        x("cpu_op", "aten::addmm", P + 1, 3)
        launch("Kernel2", P + 2, P + 1000, 5)
        x("python_function", "nn.Module: GptOssForCausalLM_0", P + 5, 300)
        for i in range(2):
            L, D = P + 10 + i * 100, P + 1010 + i * 100
            x("python_function", f"nn.Module: TransformerBlock_{i}", L, 90)
            x("python_function", f"nn.Module: OAIAttention_{i}", L + 1, 29)
            launch("flash_fwd_kernel", L + 2, D, 10)
            x("python_function", f"nn.Module: QKVParallelLinear_{i}", L + 5, 10)
            x("cpu_op", "aten::mm", L + 6, 6)
            launch("nvjet_tst_128x64_64x6_2x1_v_bz_TNT", L + 7, D + 10, 4)
            x("python_function", f"nn.Module: MLPBlock_{i}", L + 31, 49)
            x("python_function", f"nn.Module: ReplicatedLinear_{i}", L + 32, 6)
            x("cpu_op", "aten::mm", L + 33, 4)
            launch("nvjet_tst_64x8_64x16_4x1_v_bz_TNN", L + 34, D + 14, 2)
            x("python_function", f"nn.Module: FusedMoE_{i}", L + 40, 38)
            launch(EXPERT1, L + 41, D + 16, 30)
            launch(EXPERT2, L + 43, D + 46, 15)
            launch(FINALIZE, L + 45, D + 61, 3)
            x("cpu_op", "aten::mm", L + 47, 3)
            launch("nvjet_tst_256x8_64x6_2x1_v_bz_TNT", L + 48, D + 64, 4)
            if nccl:
                x("cpu_op", "vllm::all_reduce", L + 52, 4)
                launch(NCCL, L + 53, D + 68, 8)
            x("cpu_op", "aten::add", L + 82, 3)
            launch(ADD, L + 83, D + 76, 2)
    path.write_text(json.dumps({"traceEvents": ev}))
    return str(path)


def _categories(con, run):
    """{kernel name: {category: µs}} of every pass, from report kernels."""
    out = render_report(con, "kernels", runs=[run], anchor="flash_fwd", layers=2, pass_spec="all", top=0, fmt="csv")
    got = {}
    for r in csv.DictReader(io.StringIO(out)):
        by = got.setdefault(r["name"], {})
        by[r["category"]] = by.get(r["category"], 0) + round(float(r["sum_us"]) * 1000)
    return got


def test_a_kernel_takes_its_module_then_its_op_then_its_name(con, tmp_path):
    tracedb.ingest_trace(con, _moe_trace(tmp_path / "moe.json", nccl=True), name="moe")
    got = _categories(con, "moe")
    # 2 passes x 2 layers of each kernel (the prologue's Kernel2 once a pass), in ns
    assert got == {
        EXPERT1: {"moe": 120_000},                  # activation by name ("swiGlu"): FusedMoE decides
        EXPERT2: {"moe": 60_000},                   # other by name
        FINALIZE: {"moe": 12_000},                  # gemm by name ("cutlass")
        "nvjet_tst_256x8_64x6_2x1_v_bz_TNT": {"moe": 16_000},   # aten::mm under FusedMoE
        "flash_fwd_kernel": {"attention": 40_000},
        "nvjet_tst_128x64_64x6_2x1_v_bz_TNT": {"gemm": 16_000},  # Linear under attention: a GEMM
        "nvjet_tst_64x8_64x16_4x1_v_bz_TNN": {"gemm": 8_000},    # the router's GEMM, beside FusedMoE
        NCCL: {"communication": 32_000},            # under FusedMoE, still communication
        "Kernel2": {"gemm": 10_000},                # no module; aten::addmm
        ADD: {"other": 8_000},                      # TransformerBlock wraps attention and MLP: says nothing
    }
    res = tracedb.report(con, "layers", run="moe", anchor="flash_fwd", layers=2)
    # 322 us: module 248 (moe 208, attention 40), op 34 (gemm 24 + Kernel2 10), name 32 (NCCL), nothing 8
    assert ("categories by evidence, of 322.000 us of device time: the launching module decided 77.0 % "
            "(248.000 us), the launching op decided 10.6 % (34.000 us), the kernel name decided 9.9 % (32.000 us); "
            "nothing decided 2.5 % (other)") in res.notes
    # every kernel under FusedMoE but the NCCL one moved (4 names x 4 layers), and the prologue's Kernel2
    assert ("218.000 us take another category than their name gives, from their launching module, op or frame: "
            "moe 208.000 us (16; by name activation, other, gemm), gemm 10.000 us (2; by name other)") in res.notes
    assert ("8.000 us (4), 2.5 % of device time, stay other: neither their launching module, their launching op "
            "nor their name gives a category") in res.notes


def test_the_moe_share_of_layer_time_is_the_module_trees(con, tmp_path):
    tracedb.ingest_trace(con, _moe_trace(tmp_path / "moe.json"), name="moe")
    rows = [r for r in tracedb.report(con, "layers", run="moe", anchor="flash_fwd", layers=2).arrow().to_pylist()
            if r["layer"] is not None]
    layer_ns = sum(round(float(r[c]) * 1000) for r in rows for c in r if c.endswith("_us") and c not in
                   ("sum_us", "wall_us", "start_us", "end_us", "avg_us"))
    moe_ns = sum(round(float(r["moe_us"]) * 1000) for r in rows)
    assert (moe_ns, layer_ns) == (208_000, 280_000)       # 52 of 70 µs a layer, 4 layers
    out = render_report(con, "modules", runs=["moe"], anchor="flash_fwd", layers=2, by="module", fmt="csv")
    mods = [r for r in csv.DictReader(io.StringIO(out)) if r["layer"] not in ("", "prologue")]
    tree_ns = sum(round(float(r["sum_us"]) * 1000) for r in mods if "FusedMoE" in r["module"])
    assert (tree_ns, sum(round(float(r["sum_us"]) * 1000) for r in mods)) == (208_000, 280_000)


def _stacks_trace(path, kernels, layers=2):
    """A trace of `layers` layers (2 passes), each launching `kernels` in order: (nn.Module instances outermost
    first, innermost cpu_op or None (or its (category, name)), kernel name, µs). Each kernel gets its own
    frames, 10 µs of host time."""
    ev, corr = [], 0

    def x(cat, name, ts, dur, pid=1, tid=1, **args):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})

    for p in range(2):
        for i in range(layers):
            t, d = p * 10_000 + i * 1000, p * 10_000 + i * 1000 + 5000
            for mods, op, name, dur in kernels:
                for depth, m in enumerate(mods):
                    x("python_function", f"nn.Module: {m}_{i}", t + depth * 0.1, 10 - 2 * depth * 0.1)
                if op:
                    x(*op if isinstance(op, tuple) else ("cpu_op", op), t + 4, 2)
                corr += 1
                x("cuda_runtime", "cudaLaunchKernel", t + 5, 0.5, correlation=corr)
                x("kernel", name, d, dur, pid=0, tid=7, device=0, stream=7, correlation=corr)
                t, d = t + 10, d + dur
    path.write_text(json.dumps({"traceEvents": ev}))
    return str(path)


def test_moe_in_a_model_name_is_not_an_moe_block(con, tmp_path):
    """HF Qwen3-MoE names every class after the model: only the sparse block (and what it holds) is MoE; a grouped
    GEMM under the attention is the attention's GEMM; a decoder layer says nothing of its own kernels."""
    layer = ["Qwen3MoeDecoderLayer"]
    kernels = [
        (layer + ["Qwen3MoeRMSNorm"], "aten::mul", "elementwise_kernel<mul>", 2),
        (layer + ["Qwen3MoeAttention"], None, "flash_fwd_kernel", 10),
        (layer + ["Qwen3MoeAttention"], None, "void grouped_gemm_fp8_e4m3_kernel<128>", 4),
        (layer + ["Qwen3MoeSparseMoeBlock", "Qwen3MoeTopKRouter"], "aten::topk", "gatherTopK", 1),
        (layer + ["Qwen3MoeSparseMoeBlock", "Qwen3MoeMLP", "Linear"], "aten::mm", "nvjet_tst_64x8", 6),
        (layer + ["Qwen3MoeSparseMoeBlock", "Qwen3MoeMLP", "SiLU"], "aten::silu", "silu_kernel", 3),
        (layer, "aten::add", "elementwise_kernel<add>", 1),
    ]
    tracedb.ingest_trace(con, _stacks_trace(tmp_path / "q.json", kernels), name="q")
    got = _categories(con, "q")
    assert got == {"elementwise_kernel<mul>": {"norm": 8_000}, "flash_fwd_kernel": {"attention": 40_000},
                   "void grouped_gemm_fp8_e4m3_kernel<128>": {"gemm_quant": 16_000},
                   "gatherTopK": {"moe": 4_000}, "nvjet_tst_64x8": {"moe": 24_000}, "silu_kernel": {"moe": 12_000},
                   "elementwise_kernel<add>": {"other": 4_000}}
    res = tracedb.report(con, "layers", run="q", anchor="flash_fwd", layers=2)
    assert ("categories by evidence, of 108.000 us of device time: the launching module decided 81.5 % (88.000 us), "
            "the kernel name refined by its launching frame (a grouped GEMM under attention is a GEMM, a top-k under "
            "an MoE block is routing) decided 14.8 % (16.000 us); nothing decided 3.7 % (other)") in res.notes


def test_an_op_says_what_its_kernels_do_not_its_library(con, tmp_path):
    """Op names get rules of their own: fbgemm's embedding lookup is no GEMM for its namespace, its fp8
    quantisation is quant although the kernel's name says fbgemm and fp8 (gemm_quant by name); a cuDNN
    batch norm is norm; the older profilers' Operator events are ops too."""
    emb = "void split_embedding_codegen_forward_unweighted_kernel<float, float>(int)"
    hfp8 = "void at::native::vectorized_elementwise_kernel<4, fbgemm_gpu::_float_to_hfp8_cuda_kernel>(int)"
    bn = "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(int)"
    kernels = [
        ([], None, "flash_fwd_kernel", 10),
        ([], "fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function", emb, 7),
        ([], "fbgemm::FloatToHFP8Quantized", hfp8, 5),
        ([], ("Operator", "aten::cudnn_batch_norm"), bn, 3),
    ]
    tracedb.ingest_trace(con, _stacks_trace(tmp_path / "o.json", kernels), name="o")
    assert _categories(con, "o") == {"flash_fwd_kernel": {"attention": 40_000}, emb: {"other": 28_000},
                                     hfp8: {"quant": 20_000}, bn: {"norm": 12_000}}
