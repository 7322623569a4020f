"""FLOPs and bytes of the kernel_work formulas beyond plain GEMMs and the attention forward: each recomputed here
by an independent Python reading of the same shapes (docs/roofline.md): Ascend FlashAttentionScoreGrad,
FRACTAL_NZ GEMMs, GroupedMatmul, convolutions (Ascend 5-D and NCHW, Kineto with stride/padding or the gradient's
shape), 0-d tensors, MoE expert GEMMs of a fused-experts op; then `report roofline --phase all` and the Ascend
chip's peak. Synthetic rows first, then the real traces of the shared data folder (skipped when absent)."""
import csv
import gzip
import json

import duckdb
import pytest

import tiny_trace
from helpers import cli, real_trace, write_csv

BASE_NS = 1_700_000_000_000_000_000
HEADER = ["Step Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State", "Accelerator Core",
          "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Mix Block Dim", "HF32 Eligible",
          "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "Output Data Types",
          "Output Formats"]
ELEM = {"DT_BF16": 2, "FLOAT16": 2, "FLOAT": 4, "INT32": 4, "INT64": 8, "BOOL": 1, "UINT8": 1, "UINT64": 8}


# ------------------------------------------------------------------------------------------- helpers
def _shape(text):
    return [int(x) for x in text.split(",")] if text.strip() else None


def _prod(dims):
    out = 1
    for d in dims:
        out *= d
    return out


def _nz_matrix(dims):
    """A FRACTAL_NZ tensor [..., N1, M1, M0, N0] as the matrix it stores: (rows M1*M0, columns N1*N0)."""
    n1, m1, m0, n0 = dims[-4:]
    return m1 * m0, n1 * n0


def _npu_csv(path, rows):
    """rows: (name, type, core, input shapes, dtypes, formats, output shapes, dtypes, formats)."""
    out = []
    for i, (name, op, core, ins, idt, ifmt, outs, odt, ofmt) in enumerate(rows):
        out.append([1, 0, 4294967295, i, 2, name, op, "dynamic", core,
                    tiny_trace.us_text(tiny_trace.T0_NS + i * 100_000) + "\t", "10.000", "0", 24, 0, "NO",
                    f'"""{ins}"""', idt, ifmt, f'"""{outs}"""', odt, ofmt])
    return write_csv(path, HEADER, out)


def _work(db, run=None):
    """{kernel name: (flops, bytes, flops_source, dtype)}; every kernel, work or none."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {r[0]: r[1:] for r in con.execute(
            "SELECT k.name, w.flops, w.bytes, w.flops_source, w.dtype FROM kernels k JOIN runs r USING (run_id) "
            "LEFT JOIN kernel_work w USING (run_id, seq) WHERE ? IS NULL OR r.name = ?", [run, run]).fetchall()}
    finally:
        con.close()


def _query(db, q, params=()):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(q, list(params)).fetchall()
    finally:
        con.close()


def _report(db, *args, check=True):
    r = cli("report", "roofline", "--db", db, "--format", "json", *args, check=check)
    return json.loads(r.stdout) if r.returncode == 0 else r


# ------------------------------------------------------------------------------------------- Ascend, synthetic
FA_GRAD_CAUSAL = ("4096,1,2048;4096,1,1024;4096,1,1024;4096,1,2048;2048,2048;1,16,4096,8;1,16,4096,8;;4096,1,2048"
                  ";;;;;;",
                  "DT_BF16;DT_BF16;DT_BF16;DT_BF16;BOOL;FLOAT;FLOAT;DT_BF16;DT_BF16;INT64;FLOAT;FLOAT;FLOAT;FLOAT;FLOAT")
NPU_ROWS = [
    # the Megatron rank's backward row as written: SBH layout, GQA (16 query heads, 8 key heads), causal band mask
    ("fa_grad", "FlashAttentionScoreGrad", "MIX_AIC", *FA_GRAD_CAUSAL,
     "NCL;NCL;NCL;NCL;ND;NCHW;NCHW;ND;NCL;ND;ND;ND;ND;ND;ND", "4096,1,2048;4096,1,1024;4096,1,1024;;;",
     "DT_BF16;DT_BF16;DT_BF16;DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND;ND;ND;ND"),
    # BSND, no mask: the full score matrix
    ("fa_grad_full", "FlashAttentionScoreGrad", "MIX_AIC",
     "2,1024,16,128;2,1024,4,128;2,1024,4,128;2,1024,16,128;2,16,1024,8;2,16,1024,8;;2,1024,16,128",
     "DT_BF16;DT_BF16;DT_BF16;DT_BF16;FLOAT;FLOAT;DT_BF16;DT_BF16", "ND;ND;ND;ND;ND;ND;ND;ND",
     "2,1024,16,128;2,1024,4,128;2,1024,4,128", "DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND"),
    # a mask of its own (BOOL [B,1,Sq,Sk]): its content is not in the trace
    ("fa_grad_masked", "FlashAttentionScoreGrad", "MIX_AIC",
     "2,1024,16,128;2,1024,4,128;2,1024,4,128;2,1024,16,128;2,1,1024,1024;2,16,1024,8;2,16,1024,8",
     "DT_BF16;DT_BF16;DT_BF16;DT_BF16;BOOL;FLOAT;FLOAT", "ND;ND;ND;ND;ND;ND;ND",
     "2,1024,16,128;2,1024,4,128;2,1024,4,128", "DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND"),
    # a decode GEMM with its weight in FRACTAL_NZ (vllm-ascend's weight cast): [N,K] = [12288, 4096] tiled
    ("mm_nz", "MatMulV2", "AI_CORE", "8,4096;256,768,16,16", "DT_BF16;DT_BF16", "ND;FRACTAL_NZ", "8,12288",
     "DT_BF16", "ND"),
    # K = 1000 is stored as 63 tiles of 16 (1008): the ND operand gives the exact size
    ("mm_nz_pad", "MatMulV2", "AI_CORE", "32,1000;63,64,16,16", "DT_BF16;DT_BF16", "ND;FRACTAL_NZ", "32,1024",
     "DT_BF16", "ND"),
    # every operand tiled: A [16, 4096], B [12288, 4096] (as [N,K]), C [16, 12288]
    ("mm_nz_all", "MatMulV3", "AI_CORE", "256,1,16,16;256,768,16,16", "DT_BF16;DT_BF16", "FRACTAL_NZ;FRACTAL_NZ",
     "768,1,16,16", "DT_BF16", "FRACTAL_NZ"),
    # an output that fits no reading of the tiled weight: no answer
    ("mm_nz_bad", "MatMulV2", "AI_CORE", "8,4096;256,768,16,16", "DT_BF16;DT_BF16", "ND;FRACTAL_NZ", "8,4000",
     "DT_BF16", "ND"),
    # a grouped expert GEMM: x [M, K] of every routed token, weight [E, N, K], y [M, N]; group_list [E]
    ("gmm", "GroupedMatmul", "MIX_AIC", "512,16;8,2048,16;;;;;;8",
     "DT_BF16;DT_BF16;FLOAT;UINT64;FLOAT;FLOAT16;FLOAT16;INT64", "ND;NCL;ND;ND;ND;ND;ND;ND", "512,2048", "DT_BF16",
     "ND"),
    # its weight tiled: [E, N1, M1, 16, 16] holding [K, N] = [4096, 2048] per expert
    ("gmm_nz", "GroupedMatmul", "MIX_AIC", "512,4096;8,128,256,16,16;;;;;;8",
     "DT_BF16;DT_BF16;FLOAT;UINT64;FLOAT;FLOAT16;FLOAT16;INT64", "ND;FRACTAL_NZ;ND;ND;ND;ND;ND;ND", "512,2048",
     "DT_BF16", "ND"),
    # NCHW convolutions, groups 2 (weight [Cout, Cin/2, 3, 3]); backward input and filter have the same count
    ("conv_nchw", "Conv2D", "AI_CORE", "8,64,56,56;128,32,3,3;128", "DT_BF16;DT_BF16;DT_BF16", "NCHW;NCHW;ND",
     "8,128,56,56", "DT_BF16", "NCHW"),
    ("dgrad_nchw", "Conv2DBackpropInput", "AI_CORE", "4;128,32,3,3;8,128,56,56", "INT32;DT_BF16;DT_BF16",
     "ND;NCHW;NCHW", "8,64,56,56", "DT_BF16", "NCHW"),
    ("wgrad_nchw", "Conv2DBackpropFilter", "AI_CORE", "8,64,56,56;4;8,128,56,56", "DT_BF16;INT32;DT_BF16",
     "NCHW;ND;NCHW", "128,32,3,3", "DT_BF16", "NCHW"),
    # AlexNet's second convolution as the Ascend profiler writes it: NC1HWC0 (C0 = 8 for fp32), FRACTAL_Z filter
    ("conv_5hd", "Conv2D", "AI_CORE", "32,8,27,27,8;200,12,16,8;192", "FLOAT;FLOAT;FLOAT", "NC1HWC0;FRACTAL_Z;NCHW",
     "32,24,27,27,8", "FLOAT", "NC1HWC0"),
    # a filter whose 6 tiles of 16 hold 96 output channels, not the bias's 192 (a grouped layout): no answer
    ("conv_5hd_grouped", "Conv2D", "AI_CORE", "32,8,27,27,8;200,6,16,8;192", "FLOAT;FLOAT;FLOAT",
     "NC1HWC0;FRACTAL_Z;NCHW", "32,24,27,27,8", "FLOAT", "NC1HWC0"),
    # 0-d tensors (an empty shape with a dtype): one element each
    ("mul_scalar", "Mul", "AI_VECTOR_CORE", "1000,4096;", "FLOAT;FLOAT", "ND;ND", "1000,4096", "FLOAT", "ND"),
    ("add_0d", "Add", "AI_VECTOR_CORE", ";", "FLOAT;FLOAT", "ND;ND", "", "FLOAT", "ND"),
    ("sub_0d_i64", "Sub", "AI_VECTOR_CORE", ";", "INT64;INT64", "ND;ND", "", "INT64", "ND"),
]


def _fa_flops(ins_text, backward):
    """Independent reading of a FlashAttentionScore[Grad] row: B, N, Sq from the [B,N,Sq,8] statistics, the
    layout from the query, Sk from the key; 4 (10 backward) * B*N*Sq*Sk*D, halved with a 2048x2048 band."""
    shapes = [_shape(s) for s in ins_text.split(";")]
    stats = next(s for s in shapes if s and len(s) == 4 and s[3] == 8)
    b, n, sq = stats[:3]
    q, k = shapes[0], shapes[1]
    d = _prod(q) // (b * n * sq)
    if len(q) == 3:
        sk = k[1] if (q[0], q[1]) == (b, sq) else k[0]      # BSH or SBH
    else:
        sk = k[1] if (q[1], q[2]) == (sq, n) else k[2]      # BSND or BNSD
    causal = [2048, 2048] in shapes
    return (10 if backward else 4) * b * n * sq * sk * d // (2 if causal else 1)


def test_npu_formulas(tmp_path):
    db = tmp_path / "n.duckdb"
    cli("ingest", _npu_csv(tmp_path / "kernel_details.csv", NPU_ROWS), "--db", db, "--name", "n")
    got = _work(db, "n")
    # attention backward: 10*B*N*Sq*Sk*D, 2.5 times the forward of the same shapes; causal halves it
    assert got["fa_grad"][0] == _fa_flops(FA_GRAD_CAUSAL[0], True) == 10 * 1 * 16 * 4096 * 4096 * 128 // 2
    assert got["fa_grad"][0] * 2 == 5 * _fa_flops(FA_GRAD_CAUSAL[0], False)
    assert got["fa_grad"][2] == "attention bwd causal 10BNSqSkD/2"
    # bytes: every input and output present (dq, dk, dv written); the empty optional ones none
    read = sum(_prod(s) * ELEM[t] for s, t in zip([_shape(x) for x in FA_GRAD_CAUSAL[0].split(";")],
                                                    FA_GRAD_CAUSAL[1].split(";")) if s)
    assert read == (3 * 4096 * 2048 + 2 * 4096 * 1024) * 2 + 2048 * 2048 + 2 * 16 * 4096 * 8 * 4
    assert got["fa_grad"][1] == read + (4096 * 2048 + 2 * 4096 * 1024) * 2
    assert got["fa_grad_full"][:3] == (10 * 2 * 16 * 1024 * 1024 * 128, got["fa_grad_full"][1],
                                      "attention bwd 10BNSqSkD")
    assert got["fa_grad_masked"][:3] == (None, None, None)
    # FRACTAL_NZ: unfolded to the matrix it stores, sizes from the ND operands where they are exact
    rows, cols = _nz_matrix([256, 768, 16, 16])
    assert (rows, cols) == (12288, 4096)
    assert got["mm_nz"][:3] == (2 * 8 * rows * cols, (8 * 4096 + 256 * 768 * 256 + 8 * 12288) * 2,
                                "gemm 2MNK (FRACTAL_NZ)")
    assert _nz_matrix([63, 64, 16, 16]) == (1024, 1008)
    assert got["mm_nz_pad"][0] == 2 * 32 * 1024 * 1000
    assert got["mm_nz_all"][0] == 2 * _nz_matrix([256, 1, 16, 16])[0] * _nz_matrix([768, 1, 16, 16])[1] * 4096
    assert got["mm_nz_bad"][:3] == (None, None, None)
    # GroupedMatmul: 2 * M * N * K over every routed token
    assert got["gmm"][:3] == (2 * 512 * 2048 * 16, 512 * 16 * 2 + 8 * 2048 * 16 * 2 + 8 * 8 + 512 * 2048 * 2,
                              "moe gemm 2MNK (GroupedMatmul)")
    assert _nz_matrix([128, 256, 16, 16]) == (4096, 2048)
    assert got["gmm_nz"][0] == 2 * 512 * 2048 * 4096
    # convolutions: 2 * N * Cout * Ho * Wo * (Cin/groups) * Kh * Kw, the same for both gradients
    conv = 2 * 8 * 128 * 56 * 56 * 32 * 3 * 3
    assert got["conv_nchw"][:3] == (conv, (8 * 64 * 56 * 56 + 128 * 32 * 9 + 128 + 8 * 128 * 56 * 56) * 2,
                                    "conv 2NCoHoWoCiKhKw (output shape)")
    assert got["dgrad_nchw"][:3] == (conv, got["dgrad_nchw"][1], "conv dgrad 2NCoHoWoCiKhKw (grad shape)")
    assert got["wgrad_nchw"][:3] == (conv, got["wgrad_nchw"][1], "conv wgrad 2NCoHoWoCiKhKw (grad shape)")
    assert got["dgrad_nchw"][3] == got["wgrad_nchw"][3] == "bf16"
    # 5-D: Cin*Kh*Kw = the filter's C1*Kh*Kw rows times C0; Cout from the bias; Ho, Wo from the output
    assert got["conv_5hd"][:2] == (2 * 32 * 192 * 27 * 27 * (200 * 8), (32 * 8 * 27 * 27 * 8 + 200 * 12 * 16 * 8 + 192
                                                                       + 32 * 24 * 27 * 27 * 8) * 4)
    assert got["conv_5hd"][3] == "fp32"
    assert got["conv_5hd_grouped"][:3] == (None, None, None)
    # 0-d tensors count their element: the Mul's factor, both operands and the result of a scalar Add
    assert got["mul_scalar"][:3] == (None, (2 * 1000 * 4096 + 1) * 4, "memory r+w")
    assert got["add_0d"][1] == 3 * 4 and got["sub_0d_i64"][1] == 3 * 8


# ------------------------------------------------------------------------------------------- Kineto, synthetic
def _kineto(path, ops):
    """ops: (name, ts µs, dur µs, dims, types, concrete, kernels [(name, dur µs)]); ops may nest (an outer op
    without kernels around an inner one). A kernel's launch call is inside its op."""
    ev, corr = [], [0]
    for name, ts, dur, dims, types, concrete, kernels in ops:
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
                   "args": {"Input Dims": dims, "Input type": types,
                            "Concrete Inputs": concrete or [""] * len(dims)}})
        for i, (kname, kdur) in enumerate(kernels):
            corr[0] += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": ts + 1 + i, "dur": 0.5, "args": {"correlation": corr[0]}})
            ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": ts + 20 + 30 * i,
                       "dur": kdur, "args": {"correlation": corr[0], "device": 0, "stream": 7}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                                "baseTimeNanoseconds": BASE_NS, "traceEvents": ev}))
    return str(path)


def _conv_out(size, k, stride, pad, dil):
    return (size + 2 * pad - dil * (k - 1) - 1) // stride + 1


BF = "c10::BFloat16"
T, K, E, N, TOPK = 64, 2048, 8, 768, 2          # tokens, hidden, experts, intermediate, top-k
MOE_DIMS = [[T, K], [E, 2 * N, K], [E, K, N], [T, TOPK], [T, TOPK]]
MOE_TYPES = [BF, BF, BF, "float", "int"]
MOE_KERNELS = [("moe_align_block_size_kernel", 2), ("fused_moe_kernel", 9), ("act_and_mul_kernel", 2),
               ("fused_moe_kernel", 7), ("moe_sum_kernel", 1)]
KINETO_OPS = [
    # conv2d around the cudnn op that launches: 3x3, stride 2, padding 1 (cudnn_convolution: padding, stride,
    # dilation are its 3rd to 5th inputs; conv2d's stride, padding, dilation its 4th to 6th)
    ("aten::conv2d", 0, 40, [[4, 64, 57, 57], [128, 64, 3, 3], [128], [], [], [], []],
     [BF, BF, BF, "ScalarList", "ScalarList", "ScalarList", "Scalar"], ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"],
     []),
    ("aten::cudnn_convolution", 5, 30, [[4, 64, 57, 57], [128, 64, 3, 3], [], [], [], [], [], [], []],
     [BF, BF, "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar"],
     ["", "", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False", "True"], [("conv_fwd_kernel", 12)]),
    # the backward of a depthwise-like grouped conv (groups 4): both gradients asked, two kernels
    ("aten::convolution_backward", 100, 40,
     [[4, 128, 29, 29], [4, 64, 57, 57], [128, 16, 3, 3], [], [], [], [], [], [], [], []],
     [BF, BF, BF, "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar",
      "ScalarList"],
     ["", "", "", "[128]", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "4", "[True, True, False]"],
     [("conv_dgrad_kernel", 10), ("conv_wgrad_kernel", 14)]),
    # a transposed convolution's backward (weight [Cin, Cout/g, k]): another formula, not counted
    ("aten::convolution_backward", 150, 20,
     [[4, 64, 57, 57], [4, 64, 29, 29], [64, 64, 3, 3], [], [], [], [], [], [], [], []],
     [BF, BF, BF, "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar",
      "ScalarList"],
     ["", "", "", "[64]", "[2, 2]", "[1, 1]", "[1, 1]", "True", "[0, 0]", "1", "[True, True, False]"],
     [("conv_transposed_bwd_kernel", 10)]),
    # no stride or padding recorded and no output shape: no answer
    ("aten::miopen_convolution", 200, 10, [[4, 64, 57, 57], [128, 64, 3, 3], [128], [], [], [], [], [], []],
     [BF, BF, BF, "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar"], None,
     [("conv_unknown_kernel", 5)]),
    # a 0-d tensor operand: one element (a Python Scalar argument: none)
    ("aten::mul", 300, 5, [[1024], []], ["float", "float"], None, [("mul_0d_kernel", 2)]),
    # vLLM's fused experts: two expert GEMMs (gate-up, then down) among other kernels
    ("vllm::outplace_fused_experts", 400, 200, MOE_DIMS, MOE_TYPES, None, MOE_KERNELS),
    # the same op chunked (four expert GEMMs): which chunk holds which tokens is not in the shapes
    ("vllm::outplace_fused_experts", 700, 200, MOE_DIMS, MOE_TYPES, None,
     [("fused_moe_kernel", 3)] * 4),
    # int4-packed weights (K / 2 in the last dimension): the shapes do not match hidden_states
    ("vllm::outplace_fused_experts", 1000, 200, [[T, K], [E, 2 * N, K // 2], [E, K, N // 2], [T, TOPK], [T, TOPK]],
     MOE_TYPES, None, [("fused_moe_kernel_gptq_awq", 3), ("fused_moe_kernel_gptq_awq", 3)]),
]


def test_kineto_formulas(tmp_path):
    db = tmp_path / "k.duckdb"
    cli("ingest", _kineto(tmp_path / "t.json", KINETO_OPS), "--db", db, "--name", "k")
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT k.name, w.flops, w.bytes, w.flops_source, w.dtype FROM trace_events k "
                           "LEFT JOIN kernel_work w USING (run_id, seq) WHERE k.kind = 'kernel' "
                           "ORDER BY k.start_ns").fetchall()
    finally:
        con.close()
    by = {}
    for name, *rest in rows:
        by.setdefault(name, []).append(tuple(rest))
    # forward: Ho = Wo = (57 + 2 - 2 - 1) // 2 + 1 = 29, from cudnn_convolution's own stride and padding
    ho = _conv_out(57, 3, 2, 1, 1)
    assert ho == 29
    fwd = 2 * 4 * 128 * ho * ho * 64 * 3 * 3
    out_numel = 4 * 128 * ho * ho
    assert by["conv_fwd_kernel"] == [(fwd, (4 * 64 * 57 * 57 + 128 * 64 * 9 + out_numel) * 2,
                                      "conv 2NCoHoWoCiKhKw (stride, padding)", "bf16")]
    # backward: the gradient's shape gives Ho, Wo; two gradients: twice the count, on the longest kernel
    bwd = 2 * (2 * 4 * 128 * 29 * 29 * 16 * 3 * 3)
    x, w, dy = 4 * 64 * 57 * 57, 128 * 16 * 9, 4 * 128 * 29 * 29
    assert by["conv_wgrad_kernel"] == [(bwd, (dy + x + w + x + w) * 2, "conv dgrad+wgrad 2NCoHoWoCiKhKw each "
                                        "(grad shape)", "bf16")]
    assert by["conv_dgrad_kernel"][0][:2] == (0, 0)
    assert by["conv_unknown_kernel"] == by["conv_transposed_bwd_kernel"] == [(None, None, None, None)]
    assert by["mul_0d_kernel"] == [(None, (1024 + 1) * 4 + 1024 * 4, "memory r+w", "fp32")]
    # MoE: gate-up 2*T*topk*(2N)*K then down 2*T*topk*K*N; the other kernels of the op have no formula
    moe = by["fused_moe_kernel"]
    assert moe[:2] == [(2 * T * TOPK * 2 * N * K, None, "moe gemm gate-up 2TkNK", "bf16"),
                       (2 * T * TOPK * K * N, None, "moe gemm down 2TkNK", "bf16")]
    assert moe[2:] == [(None, None, None, None)] * 4                      # the chunked op
    assert by["fused_moe_kernel_gptq_awq"] == [(None, None, None, None)] * 2
    for other in ("moe_align_block_size_kernel", "act_and_mul_kernel", "moe_sum_kernel"):
        assert by[other] == [(None, None, None, None)]


# ------------------------------------------------------------------------------------------- real traces
def _csv_rows(path, op_type):
    with open(path, encoding="utf-8-sig") as f:
        return [r for r in csv.DictReader(f) if (r.get("Type") or r.get("OP Type")) == op_type]


def test_real_megatron_attention_backward(tmp_path):
    path = real_trace("ascend-megatron-job", "rank_0_ascend_pt", "ASCEND_PROFILER_OUTPUT", "kernel_details.csv")
    db = tmp_path / "a.duckdb"
    cli("ingest", path, "--db", db, "--name", "a")
    want = sorted(_fa_flops(r["Input Shapes"].strip('"'), True) for r in _csv_rows(path, "FlashAttentionScoreGrad"))
    fwd = sorted(_fa_flops(r["Input Shapes"].strip('"') + ";" + r["Output Shapes"].strip('"'), False)
                 for r in _csv_rows(path, "FlashAttentionScore"))
    got = sorted(f for (f,) in _query(db, "SELECT w.flops FROM kernels k LEFT JOIN kernel_work w USING (run_id, seq) "
                                          "WHERE k.op_type = 'FlashAttentionScoreGrad'"))
    assert len(got) == 28 and got == want
    assert got[0] == 171_798_691_840                   # 10 * 1 * 16 * 4096 * 4096 * 128 / 2
    # the forward of the same shapes: 2.5 times less, on every layer
    got_fwd = sorted(f for (f,) in _query(db, "SELECT w.flops FROM kernels k JOIN kernel_work w USING (run_id, seq) "
                                              "WHERE k.op_type = 'FlashAttentionScore'"))
    assert got_fwd == fwd and [2 * g for g in got] == [5 * f for f in got_fwd]


def test_real_alexnet_convolutions(tmp_path):
    """Ascend 5-D convolutions: forward, backward input and filter, read independently from the CSV."""
    path = real_trace("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT",
                      "kernel_details.csv")
    db = tmp_path / "a.duckdb"
    cli("ingest", path, "--db", db, "--name", "a")

    def conv(x5, fz, y5, cout):
        n, _, _, _, c0 = x5
        assert fz[3] == c0 and cout <= fz[1] * fz[2]
        return 2 * n * cout * y5[2] * y5[3] * fz[0] * fz[3]

    want = {}
    for r in _csv_rows(path, "Conv2D"):
        x5, fz, bias = (_shape(s) for s in r["Input Shapes"].strip('"').split(";"))
        want.setdefault("Conv2D", []).append(conv(x5, fz, _shape(r["Output Shapes"].strip('"')), bias[0]))
    for r in _csv_rows(path, "Conv2DBackpropInput"):
        _, fz, dy = (_shape(s) for s in r["Input Shapes"].strip('"').split(";"))
        dx = _shape(r["Output Shapes"].strip('"'))
        want.setdefault("Conv2DBackpropInput", []).append(conv(dx, fz, dy, dy[1] * dy[4]))
    for r in _csv_rows(path, "Conv2DBackpropFilter"):
        x5, _, dy = (_shape(s) for s in r["Input Shapes"].strip('"').split(";"))
        fz = _shape(r["Output Shapes"].strip('"'))
        want.setdefault("Conv2DBackpropFilter", []).append(conv(x5, fz, dy, dy[1] * dy[4]))
    got = {}
    for op, flops in _query(db, "SELECT k.op_type, w.flops FROM kernels k LEFT JOIN kernel_work w USING (run_id, seq) "
                                "WHERE k.op_type LIKE 'Conv2D%'"):
        got.setdefault(op, []).append(flops)
    assert {op: sorted(v) for op, v in got.items()} == {op: sorted(v) for op, v in want.items()}
    assert (len(got["Conv2D"]), len(got["Conv2DBackpropInput"]), len(got["Conv2DBackpropFilter"])) == (5, 4, 5)
    # each gradient of a layer counts what its forward counts (AlexNet computes no input gradient of layer 1)
    assert sorted(got["Conv2DBackpropFilter"]) == sorted(got["Conv2D"])
    assert set(got["Conv2DBackpropInput"]) < set(got["Conv2D"])


def test_real_grouped_matmul(tmp_path):
    path = real_trace("ascend-msprof-op_summary-vllm-ascend-tmp", "op_summary_20260823165421.csv")
    db = tmp_path / "g.duckdb"
    cli("ingest", path, "--db", db, "--name", "g")
    (row,) = _csv_rows(path, "GroupedMatmul")
    (m, k), (e, n, k2) = (_shape(s) for s in row["Input Shapes"].strip('"').split(";")[:2])
    assert k == k2 and _shape(row["Output Shapes"].strip('"')) == [m, n]
    assert _query(db, "SELECT w.flops, w.flops_source FROM kernels k JOIN kernel_work w USING (run_id, seq) "
                      "WHERE k.op_type = 'GroupedMatmul'") == [(2 * m * n * k, "moe gemm 2MNK (GroupedMatmul)")]


def test_real_kineto_convolutions(tmp_path):
    """FLUX.1's VAE convolutions (MIOpen, recorded with stride, padding and dilation): the FLOPs of each op once,
    recomputed from the trace's own JSON."""
    path = real_trace("amd-tracelens", "inference", "xdit_flux.1_aiter_sage", "profile_trace_rank_0.json.gz")
    db = tmp_path / "f.duckdb"
    cli("ingest", path, "--db", db, "--name", "f")
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    want = []
    for e in events:
        if e.get("cat") == "cpu_op" and e.get("name") == "aten::miopen_convolution":
            (x, w, *_), c = e["args"]["Input Dims"], e["args"]["Concrete Inputs"]
            pad, stride, dil = (json.loads(c[i]) for i in (3, 4, 5))
            ho, wo = (_conv_out(x[2 + i], w[2 + i], stride[i], pad[i], dil[i]) for i in (0, 1))
            want.append(2 * x[0] * w[0] * ho * wo * w[1] * w[2] * w[3])
    got = [f for (f,) in _query(db, "SELECT flops FROM kernel_work WHERE flops_source = "
                                    "'conv 2NCoHoWoCiKhKw (stride, padding)'")]
    assert len(want) == 35 and sorted(got) == sorted(want)


# ------------------------------------------------------------------------------------------- --phase all
def test_phase_all_covers_the_whole_step(tmp_path):
    path = real_trace("ascend-megatron-job", "rank_0_ascend_pt", "ASCEND_PROFILER_OUTPUT", "kernel_details.csv")
    db = tmp_path / "a.duckdb"
    cli("ingest", path, "--db", db, "--name", "a")
    n, flops, ns = _query(db, "SELECT count(*), sum(w.flops), sum(k.dur_ns) FROM kernels k "
                              "LEFT JOIN kernel_work w USING (run_id, seq) WHERE k.run_id = 1")[0]
    peak = ("--peak-tflops", "313", "--peak-tbs", "1.6")
    whole = _report(db, "--run", "a", "--by", "run", "--phase", "all", *peak)
    (row,) = whole["rows"]
    assert (row["count"], row["flops"]) == (n, flops) == (2463, 17_557_826_306_048)
    # MFU over the whole step's kernel time: the FLOPs at 313 TFLOP/s over the summed durations
    assert float(row["mfu_pct"]) == pytest.approx(100 * flops / 313e12 / (ns * 1e-9), abs=0.05)
    assert any("--phase all covers every kernel of the run" in note and "forward, backward or optimizer" in note
               for note in whole["notes"])
    # the default: the forward passes only, and the note says so
    fwd = _report(db, "--run", "a", "--by", "run", *peak)
    assert fwd["rows"][0]["count"] == 888
    assert any("covers the forward passes: 888 of the run's 2,463 kernels" in note and "--phase all" in note
               for note in fwd["notes"])
    bwd = _report(db, "--run", "a", "--by", "run", "--phase", "backward", *peak)
    assert any("covers the backward passes" in note and "forward and optimizer kernels are not counted" in note
               for note in bwd["notes"])
    # per pass or layer there is no answer over a whole run; other reports refuse --phase all
    r = cli("report", "roofline", "--db", db, "--run", "a", "--by", "pass", "--phase", "all", check=False)
    assert r.returncode == 2 and "--phase all" in r.stderr
    r = cli("report", "roofline", "--db", db, "--run", "a", "--pass", "1", "--phase", "all", check=False)
    assert r.returncode == 2 and "--phase all" in r.stderr
    r = cli("report", "layers", "--db", db, "--run", "a", "--phase", "all", check=False)
    assert r.returncode == 2 and "all" in r.stderr


def test_phase_all_needs_no_anchor(tmp_path):
    """A trace no attention kernel segments (AlexNet on Ascend): the whole run answers."""
    path = real_trace("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt")
    db = tmp_path / "a.duckdb"
    cli("ingest", path, "--db", db, "--name", "alex")
    rows = _report(db, "--run", "alex", "--by", "category", "--phase", "all")["rows"]
    assert sum(r["count"] for r in rows) == _query(db, "SELECT count(*) FROM kernels")[0][0]


# ------------------------------------------------------------------------------------------- the chip
@pytest.mark.parametrize("name,device", [("Ascend910B3", "Ascend 910B3"), ("Ascend910B2C", "Ascend 910B2"),
                                         ("Ascend910_9391", "Ascend 910_93 (per die)"),
                                         ("Ascend910_9362", "Ascend 910_93 (per die)"), ("Ascend910B", None)])
def test_ascend_chip_names(name, device):
    from tracedb.engine.reports import peaks
    got = peaks.match(name)
    assert (got[0] if got else None) == device
    if device and "910_93" in device:
        assert got[1:] == (1.6, {"bf16": 376, "fp16": 376})


def test_chip_from_the_profiler_folder(tmp_path):
    """The chip named in msprof's device info under PROF_* (a kernel_details.csv names none) gives the peaks."""
    pt = tmp_path / "rank_0_ascend_pt"
    (pt / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    tiny_trace.write(pt / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")
    (pt / "profiler_info_0.json").write_text(json.dumps({"rank_id": 0, "config": {}}))
    (pt / "PROF_000001_x" / "device_0").mkdir(parents=True)
    (pt / "PROF_000001_x" / "device_0" / "info.json.0").write_text(
        json.dumps({"DeviceInfo": [{"id": 0, "ai_core_num": 20, "chip_name": "Ascend910B3"}]}))
    # an unreadable device info file names no chip and refuses nothing
    (pt / "PROF_000001_x" / "host").mkdir()
    (pt / "PROF_000001_x" / "host" / "info.json").write_text("{not json")
    db = tmp_path / "c.duckdb"
    cli("ingest", str(pt), "--db", db, "--name", "c")
    meta = json.loads(_query(db, "SELECT metadata FROM runs")[0][0])
    assert meta["profiler_info"]["chip"] == "Ascend910B3"
    notes = _report(db, "--run", "c", "--by", "run", "--profile", "qwen3-npu", "--layers", "2")["notes"]
    assert any("peaks of Ascend 910B3" in note for note in notes)


def test_family_only_chip_says_why(tmp_path):
    """msprof's NPU_INFO writes Ascend910B for every bin: no peak, and a note naming the bins."""
    path = real_trace("ascend-msinsight", "alexnet_level2_db", "rank0_ascend_pt")
    db = tmp_path / "d.duckdb"
    cli("ingest", path, "--db", db, "--name", "d")
    notes = _report(db, "--run", "d", "--by", "run", "--phase", "all")["notes"]
    assert any("'Ascend910B' names the Ascend 910B family but not its bin" in note for note in notes)
    # the run's convolutions are counted as the text export counts them
    assert _query(db, "SELECT count(*) FROM kernel_work WHERE flops_source LIKE 'conv%'")[0][0] == 14
