#!/usr/bin/env python3
'''Deterministic generator of realistic PyTorch-profiler (Kineto) Chrome-trace JSON files.

Plain stdlib Python, for the JSON ingest benchmark (bench/bench_json.py) and for tests: the trace of a
DeepSeek-V3-like decode served by SGLang on H800 GPUs (rank 0 of TP16 over two nodes), recorded in
eager mode, so every kernel comes with its host-side launch. The same arguments give the same bytes.

Usage:
    python bench/gen_kineto_trace.py OUT [--mb N | --passes P] [--compact] [--gzip] [--seed S]
        [--layers L] [--dense-layers D] [--memcpy]

    OUT              output path (give it a .json or .json.gz name; the content decides, not the name)
    --mb N           stop after the forward pass at which the *uncompressed* JSON reaches N MB (1e6 bytes),
                     so `--compact --gzip` holds exactly the bytes of `--compact` (default 100)
    --passes P       stop after exactly P forward passes instead
    --compact        one-line JSON as `json.dumps` writes it (`{"ph": "X", "cat": ...}, {...}`), like the
                     SGLang/vLLM traces people pass around; default: Kineto's own pretty-printed layout
    --gzip           gzip the output (level 6, mtime 0: still deterministic)

It also writes OUT.truth.json: kernel events and their exact total duration in ns, passes, layers,
anchors, event counts and byte sizes, for checking an ingester's result.

What is realistic, and why
--------------------------
* File layout. Pretty (default) is what libkineto's ChromeTraceLogger prints (output_json.cpp): the file
  starts with a newline and `  {`, `"schemaVersion": 1`, `deviceProperties` (one H800), the metadata key
  `distributedInfo` (nccl, rank 0, world 16), `displayTimeUnit`, `baseTimeNanoseconds`, then
  `"traceEvents": [` with every event on its own lines (`{` and `}` on their own lines, 2-space indents,
  fields grouped on lines as Kineto groups them, args one level deeper), the trailing instant
  `{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", ...}` and, after the array,
  `traceName`. Compact holds the same keys and values on one line, separated by `, ` and `: `.
* Time. Everything is integer ns internally; ts and dur are printed as µs with exactly 3 decimals
  (`12345.678`), relative to baseTimeNanoseconds as Kineto has done since 2024-04, so the printed
  values are exact and `round(x * 1000)` recovers the ns.
* Events per kernel, as Kineto links them: a `cpu_op` (aten::mm, sgl_kernel::..., record_param_comms,
  ...) on the host thread that encloses a `cuda_runtime` `cudaLaunchKernel` (cbid 211), the `kernel` on
  the GPU (pid 0 = device, tid 7 = stream) with args External id, queued, device, context, stream,
  correlation, registers per thread, shared memory, blocks per SM, warps per SM, grid, block,
  est. achieved occupancy % (+ the Collective keys for NCCL kernels), and an `ac2g` flow pair: `s` on
  the host thread at the launch, `f` with `"bp": "e"` on the stream at the kernel start, id =
  correlation. External id links cpu_op, runtime and kernel; correlation links runtime and kernel.
  `python_function` frames (the scheduler's Python stack, then `nn.Module: DeepseekV3ForCausalLM_0`,
  `nn.Module: DeepseekV2DecoderLayer_<i>`, `nn.Module: DeepseekV2AttentionMLA_<i>`, `..MoE_<i>`/`..MLP_<i>`)
  enclose their cpu_ops with Python id / parent id. `M` events name the processes and threads; a `Trace`
  span on pid "Spans" and an `Iteration Start` instant on pid "Traces" (string pids) come at the end.
  Within a pass events are grouped like Kineto groups them (host-side profiler events first, then the
  CUPTI records: runtime calls with their flow starts, then kernels with their flow ends), not sorted.
* Model. DeepSeek-V3 decode, batch 64, TP16 attention (8 local heads), EP16 MoE (16 local experts,
  DeepGEMM masked grouped GEMMs), 61 layers of which the first 3 are dense. Per layer ~20 kernels:
  FusedAddRMSNorm (RMSNorm in layer 0), _per_token_group_quant_fp8, deep_gemm fp8 GEMMs (fused
  qkv_a, q_b, o_proj, dense MLP), q_a RMSNorm, cuBLAS bmm (absorbed w_kc / w_vc), rotary, FlashMLA
  split-KV decode and `flash_fwd_mla_combine_kernel` (the anchor: the regex `flash_fwd_mla_combine`
  matches exactly once per layer), NCCL all-reduce after attention and after the MLP/MoE, router GEMM,
  moe_fused_gate, grouped GEMMs, silu_and_mul, an elementwise mul. Every pass starts with the embedding
  and its all-reduce and ends with the final norm, lm_head, all-gather, softmax and argmax, then the
  host's cudaStreamSynchronize for the sampled ids (with --memcpy preceded by a 256 B device-to-host
  copy: a `gpu_memcpy` device activity that is not a kernel; off by default, so that every device
  activity of the default trace is a `kernel` event).
* Timing. Kernel durations come from a small H800 roofline (weights over ~3 TB/s plus fixed costs),
  with seeded noise (+-2 %, +-6 % for collectives); kernels run back to back on stream 7 with 0.8-2 µs
  gaps; the host takes 10-16 µs per launch and runs ahead of the GPU (launch to start >= 3.5 µs).
  Passes 0 and 1 are cold (x1.25 and x1.10 on the GPU, x1.3 on the host); passes are separated by
  3-5 ms of idle GPU while the scheduler prepares the next batch.
* Size and speed. Events are %-formatted from templates pre-rendered per kernel kind and written in
  multi-MB chunks by a writer thread (which also does the gzip compression, outside the GIL):
  ~1.5 KB per kernel pretty, ~1.2 KB compact, so 1 GB is about 650 k kernels / 500 passes and takes
  well under 2 minutes.
'''
import argparse
import gzip
import json
import os
import queue
import random
import re
import sys
import threading
import time

HOST_PID = 1523807
HOST_TID = 1523807
STREAM = 7
NUM_SMS = 132
BASE_TIME_NS = 1_759_312_345_678_901_234          # baseTimeNanoseconds (2025-10-01)
T0_NS = 8_123_456_789                              # first event, relative to the base (~8 s after load)
CHUNK_BYTES = 8 << 20

PY_ROOT_ID = 1                                     # Python parent id of the outermost frames

# --------------------------------------------------------------------------- kernel names

K_ADD_RMSNORM = ("void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, "
                 "__nv_bfloat16*, __nv_bfloat16*, unsigned int, unsigned int, unsigned int, float, float)")
K_RMSNORM = ("void flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, "
             "__nv_bfloat16*, unsigned int, unsigned int, unsigned int, unsigned int, float, float)")
K_QUANT = "_per_token_group_quant_fp8"                # Triton kernels keep their Python name


def k_deep_gemm(n, k, block_n, groups, stages, gemm_type):
    return (f"void deep_gemm::fp8_gemm_kernel<{n}u, {k}u, 64u, {block_n}u, 128u, 0u, 0u, {groups}u, {stages}u, "
            f"128u, 128u, 1u, false, (deep_gemm::GemmType){gemm_type}>(__nv_bfloat16*, float*, int*, unsigned int, "
            "CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap)")


def k_cublas(layout, tile, split_k="off"):
    return (f"sm90_xmma_gemm_bf16bf16_bf16f32_f32_{layout}_n_tilesize{tile}_warpgroupsize1x1x1_"
            f"execute_segment_k_{split_k}_kernel__5x_cublas")


K_ROTARY = ("void flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheKernel<false, 64u, 8u, 16u, __nv_bfloat16, long>"
            "(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, float*, long*, unsigned int, "
            "unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, "
            "unsigned int, unsigned int)")
K_MLA_SPLITKV = ("void flash::flash_fwd_splitkv_mla_kernel<Flash_fwd_kernel_traits_mla<576, 64, 64, 8, "
                 "cutlass::bfloat16_t, 512>, true, flash::SharedStorageMLA<Flash_fwd_kernel_traits_mla<576, 64, "
                 "64, 8, cutlass::bfloat16_t, 512> > >(Flash_fwd_mla_params)")
K_MLA_COMBINE = "void flash_fwd_mla_combine_kernel<cutlass::bfloat16_t, float, 512, 32>(Flash_fwd_mla_params)"
K_ALLREDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
K_ALLGATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
K_MOE_GATE = ("void moe_fused_gate_kernel<__nv_bfloat16, 256, 8, 8, 4, 32, 8>(void*, void*, float*, int*, long, "
              "long, long, long, long, bool, double)")
K_SILU_MUL = ("void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, &silu<float> >(__nv_bfloat16*, "
              "__nv_bfloat16 const*, int)")
K_MUL = ("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<c10::BFloat16, c10::BFloat16, "
         "c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, "
         "at::native::AUnaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
         "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)")
K_EMBED = ("void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, "
           "-2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo"
           "<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, "
           "unsigned int, unsigned int, long)")
K_SOFTMAX = ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
             "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)")
K_ARGMAX = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, "
            "unsigned int, long, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, "
            "long, 4>)")
ANCHOR_RE = re.compile("flash_fwd_mla_combine")

# Python stacks (python_function frames), outermost first. "{i}" is the layer, "{m}" the MoE index.
PY_RUN_BATCH = "sglang/srt/managers/scheduler.py(1712): run_batch"
PY_FWD_GEN = "sglang/srt/managers/tp_worker.py(241): forward_batch_generation"
PY_FWD_DECODE = "sglang/srt/model_executor/model_runner.py(1303): forward_decode"
PY_SAMPLE = "sglang/srt/model_executor/model_runner.py(1402): sample"
PY_RESULT = "sglang/srt/managers/scheduler_output_processor_mixin.py(214): process_batch_result_decode"
FWD = (PY_RUN_BATCH, PY_FWD_GEN, PY_FWD_DECODE, "nn.Module: DeepseekV3ForCausalLM_0")
MODEL = FWD + ("nn.Module: DeepseekV2Model_0",)
LAYER = MODEL + ("nn.Module: DeepseekV2DecoderLayer_{i}",)
ATTN = LAYER + ("nn.Module: DeepseekV2AttentionMLA_{i}",)
MOE = LAYER + ("nn.Module: DeepseekV2MoE_{m}",)
MLP = LAYER + ("nn.Module: DeepseekV2MLP_{i}",)


# --------------------------------------------------------------------------- op specs

class Op:
    """One GPU activity of a pass: its names, cost, launch config and pre-rendered event templates."""
    __slots__ = ("kernel", "cpu_op", "ns", "noise", "path", "kind", "regs", "smem", "grid", "block", "occ",
                 "coll", "cpu_tpl", "rt_tpl", "gpu_tpl", "is_anchor")

    def __init__(self, kernel, cpu_op, us, path, grid=(132, 1, 1), block=(128, 1, 1), regs=32, smem=0, occ=25,
                 kind="kernel", coll=None, noise=0.02):
        self.kernel, self.cpu_op, self.ns, self.path = kernel, cpu_op, int(us * 1000), path
        self.grid, self.block, self.regs, self.smem, self.occ = grid, block, regs, smem, occ
        self.kind, self.coll, self.noise = kind, coll, noise
        self.is_anchor = kind == "kernel" and bool(ANCHOR_RE.search(kernel))


def attention_ops(first_layer):
    return [
        Op(K_RMSNORM if first_layer else K_ADD_RMSNORM,
           "sgl_kernel::rmsnorm" if first_layer else "sgl_kernel::fused_add_rmsnorm",
           2.9 if first_layer else 3.6, LAYER, grid=(64, 1, 1), block=(32, 16, 1), regs=32, smem=64, occ=48),
        Op(K_QUANT, "sgl_kernel::sgl_per_token_group_quant_fp8", 2.5, ATTN, grid=(3584, 1, 1), block=(32, 1, 1),
           regs=24, occ=62),
        Op(k_deep_gemm(2112, 7168, 64, 1, 8, 0), "deep_gemm::gemm_fp8_fp8_bf16_nt", 8.2, ATTN,
           grid=(132, 1, 1), block=(384, 1, 1), regs=168, smem=215040, occ=19),
        Op(K_RMSNORM, "sgl_kernel::rmsnorm", 2.7, ATTN, grid=(64, 1, 1), block=(32, 12, 1), regs=32, smem=64,
           occ=37),
        Op(k_deep_gemm(1536, 1536, 64, 1, 8, 0), "deep_gemm::gemm_fp8_fp8_bf16_nt", 4.3, ATTN,
           grid=(132, 1, 1), block=(384, 1, 1), regs=168, smem=215040, occ=19),
        Op(k_cublas("tn", "64x64x64"), "aten::bmm", 5.2, ATTN, grid=(2, 1, 8), block=(384, 1, 1), regs=168,
           smem=147456, occ=19),
        Op(K_ROTARY, "sgl_kernel::apply_rope_pos_ids_cos_sin_cache", 3.1, ATTN, grid=(64, 1, 1),
           block=(8, 16, 1), regs=40, occ=12),
        Op(K_MLA_SPLITKV, "_flashmla_C::fwd_kvcache_mla", 31.0, ATTN, grid=(1, 1, 66), block=(256, 1, 1),
           regs=168, smem=230528, occ=13),
        Op(K_MLA_COMBINE, "_flashmla_C::fwd_kvcache_mla", 4.2, ATTN, grid=(64, 8, 1), block=(128, 1, 1),
           regs=90, smem=0, occ=31),
        Op(k_cublas("nn", "64x128x64"), "aten::bmm", 5.6, ATTN, grid=(8, 1, 8), block=(384, 1, 1), regs=168,
           smem=213248, occ=19),
        Op(K_QUANT, "sgl_kernel::sgl_per_token_group_quant_fp8", 2.5, ATTN, grid=(512, 1, 1), block=(32, 1, 1),
           regs=24, occ=62),
        Op(k_deep_gemm(7168, 1024, 128, 1, 8, 0), "deep_gemm::gemm_fp8_fp8_bf16_nt", 6.1, ATTN,
           grid=(132, 1, 1), block=(384, 1, 1), regs=168, smem=215040, occ=19),
        Op(K_ALLREDUCE, "record_param_comms", 36.0, LAYER, grid=(24, 1, 1), block=(512, 1, 1), regs=96,
           smem=8992, occ=25, coll=("allreduce", 64 * 7168), noise=0.06),
    ]


def dense_mlp_ops():
    return [
        Op(K_ADD_RMSNORM, "sgl_kernel::fused_add_rmsnorm", 3.6, LAYER, grid=(64, 1, 1), block=(32, 16, 1),
           regs=32, smem=64, occ=48),
        Op(K_QUANT, "sgl_kernel::sgl_per_token_group_quant_fp8", 2.5, MLP, grid=(3584, 1, 1), block=(32, 1, 1),
           regs=24, occ=62),
        Op(k_deep_gemm(2304, 7168, 128, 1, 6, 0), "deep_gemm::gemm_fp8_fp8_bf16_nt", 8.8, MLP,
           grid=(132, 1, 1), block=(384, 1, 1), regs=168, smem=225280, occ=19),
        Op(K_SILU_MUL, "sgl_kernel::silu_and_mul", 2.9, MLP, grid=(64, 1, 1), block=(1024, 1, 1), regs=28, occ=87),
        Op(K_QUANT, "sgl_kernel::sgl_per_token_group_quant_fp8", 2.4, MLP, grid=(576, 1, 1), block=(32, 1, 1),
           regs=24, occ=62),
        Op(k_deep_gemm(7168, 1152, 128, 1, 8, 0), "deep_gemm::gemm_fp8_fp8_bf16_nt", 6.2, MLP,
           grid=(132, 1, 1), block=(384, 1, 1), regs=168, smem=215040, occ=19),
        Op(K_ALLREDUCE, "record_param_comms", 36.0, LAYER, grid=(24, 1, 1), block=(512, 1, 1), regs=96,
           smem=8992, occ=25, coll=("allreduce", 64 * 7168), noise=0.06),
    ]


def moe_ops():
    return [
        Op(K_ADD_RMSNORM, "sgl_kernel::fused_add_rmsnorm", 3.6, LAYER, grid=(64, 1, 1), block=(32, 16, 1),
           regs=32, smem=64, occ=48),
        Op(k_cublas("tn", "64x32x64", "on"), "aten::mm", 4.8, MOE, grid=(4, 1, 8), block=(128, 1, 1), regs=168,
           smem=65536, occ=6),
        Op(K_MOE_GATE, "sgl_kernel::moe_fused_gate", 4.3, MOE, grid=(8, 1, 1), block=(32, 8, 1), regs=56, occ=6),
        Op(K_QUANT, "sgl_kernel::sgl_per_token_group_quant_fp8", 2.5, MOE, grid=(3584, 1, 1), block=(32, 1, 1),
           regs=24, occ=62),
        Op(k_deep_gemm(4096, 7168, 128, 16, 5, 2), "deep_gemm::m_grouped_gemm_fp8_fp8_bf16_nt_masked", 156.0, MOE,
           grid=(132, 1, 1), block=(384, 1, 1), regs=168, smem=229376, occ=19),
        Op(K_SILU_MUL, "sgl_kernel::silu_and_mul", 3.3, MOE, grid=(1024, 1, 1), block=(1024, 1, 1), regs=28,
           occ=87),
        Op(k_deep_gemm(7168, 2048, 128, 16, 8, 2), "deep_gemm::m_grouped_gemm_fp8_fp8_bf16_nt_masked", 81.0, MOE,
           grid=(132, 1, 1), block=(384, 1, 1), regs=168, smem=215040, occ=19),
        Op(K_MUL, "aten::mul_", 2.6, MOE, grid=(448, 1, 1), block=(128, 1, 1), regs=20, occ=90),
        Op(K_ALLREDUCE, "record_param_comms", 36.0, LAYER, grid=(24, 1, 1), block=(512, 1, 1), regs=96,
           smem=8992, occ=25, coll=("allreduce", 64 * 7168), noise=0.06),
    ]


def pass_ops(layers, dense_layers, memcpy=False):
    """The op list of one forward pass, frames resolved to names."""
    prefix = [
        Op(K_EMBED, "aten::embedding", 3.8, MODEL + ("nn.Module: VocabParallelEmbedding_0",), grid=(512, 1, 1),
           block=(128, 1, 1), regs=30, occ=75),
        Op(K_ALLREDUCE, "record_param_comms", 34.0, MODEL + ("nn.Module: VocabParallelEmbedding_0",),
           grid=(24, 1, 1), block=(512, 1, 1), regs=96, smem=8992, occ=25, coll=("allreduce", 64 * 7168),
           noise=0.06),
    ]
    suffix = [
        Op(K_ADD_RMSNORM, "sgl_kernel::fused_add_rmsnorm", 3.6, MODEL + ("nn.Module: RMSNorm_{n}",),
           grid=(64, 1, 1), block=(32, 16, 1), regs=32, smem=64, occ=48),
        Op(k_cublas("tn", "128x128x64"), "aten::mm", 42.0, FWD + ("nn.Module: LogitsProcessor_0",),
           grid=(64, 1, 1), block=(384, 1, 1), regs=168, smem=213248, occ=19),
        Op(K_ALLGATHER, "record_param_comms", 28.0, FWD + ("nn.Module: LogitsProcessor_0",), grid=(24, 1, 1),
           block=(512, 1, 1), regs=96, smem=8992, occ=25, coll=("allgather", 64 * 8080), noise=0.06),
        Op(K_SOFTMAX, "aten::_softmax", 9.1, (PY_RUN_BATCH, PY_FWD_GEN, PY_SAMPLE, "nn.Module: Sampler_0"),
           grid=(64, 1, 1), block=(1024, 1, 1), regs=38, occ=50),
        Op(K_ARGMAX, "aten::argmax", 6.3, (PY_RUN_BATCH, PY_FWD_GEN, PY_SAMPLE, "nn.Module: Sampler_0"),
           grid=(64, 1, 1), block=(32, 16, 1), regs=32, smem=16, occ=50),
        # the sampled ids go to the host: a 256 B copy (--memcpy) or only the synchronisation
        Op("Memcpy DtoH (Device -> Pinned)", "aten::_local_scalar_dense", 2.1, (PY_RUN_BATCH, PY_RESULT),
           kind="memcpy" if memcpy else "sync"),
    ]
    ops = prefix[:]
    for i in range(layers):
        layer_ops = attention_ops(i == 0) + (dense_mlp_ops() if i < dense_layers else moe_ops())
        for op in layer_ops:
            op.path = tuple(p.format(i=i, m=i - dense_layers) for p in op.path)
        ops += layer_ops
    for op in suffix:
        op.path = tuple(p.format(n=2 * layers + 1) for p in op.path)
    return ops + suffix


# --------------------------------------------------------------------------- templates

def _compact(pretty):
    """Kineto's pretty event text -> the json.dumps one-line form of the same event."""
    t = pretty.lstrip("\n ")
    t = re.sub(r",\n\s*", ", ", t)
    t = re.sub(r"\{\n\s*", "{", t)
    t = re.sub(r"\[\n\s*", "[", t)
    t = re.sub(r"\n\s*\}", "}", t)
    t = re.sub(r"\n\s*\]", "]", t)
    t = t.replace(',"', ', "')
    assert "\n" not in t, t
    return t


class Layout:
    def __init__(self, compact):
        self.compact = compact
        self.sep = ", " if compact else ","

    def event(self, pretty):
        """A pretty event template (starting with "\\n  {") as written in this layout, separator included."""
        return (_compact(pretty) if self.compact else pretty) + self.sep

    def last_event(self, pretty):
        return _compact(pretty) if self.compact else pretty


def _esc(s):
    return s.replace("%", "%%")


def _js(s):
    return json.dumps(s)


def host_x(cat, name, args_pretty):
    """Pretty template of an X event on the host thread: (ts, dur) then the args placeholders."""
    return ('\n  {\n    "ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d,\n    "ts": %%s, "dur": %%s,\n'
            '    "args": {\n      %s\n    }\n  }' % (cat, _esc(_js(name)), HOST_PID, HOST_TID, args_pretty))


FLOW_S = ('\n  {\n    "ph": "s", "id": %%d, "pid": %d, "tid": %d, "ts": %%s,\n    "cat": "ac2g", "name": "ac2g"\n  }'
          % (HOST_PID, HOST_TID))
FLOW_F = ('\n  {\n    "ph": "f", "id": %%d, "pid": 0, "tid": %d, "ts": %%s,\n    "cat": "ac2g", "name": "ac2g", '
          '"bp": "e"\n  }' % STREAM)


def compile_templates(ops, lay):
    """Per op: cpu_tpl % (ts, dur, ext, ev_idx); rt_tpl % (ts, dur, ext, corr, corr, ts);
    gpu_tpl % (ts, dur, ext, corr, corr, ts)   (memcpy ops: rt_tpl also takes the sync's ts, dur, ext, corr;
    sync ops: rt_tpl % (ts, dur, ext, corr) and no gpu_tpl)."""
    for op in ops:
        cpu_args = '"External id": %d,"Record function id": 0, "Ev Idx": %d'
        if op.coll:
            cname, nelems = op.coll
            cpu_args += (', "Collective name": "%s", "dtype": "BFloat16", "In msg nelems": %d, '
                         '"Out msg nelems": %d, "Group size": 16, "Process Group Name": "0", '
                         '"Process Group Description": "default_pg", "Process Group Ranks": '
                         '"[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]", "Rank": 0'
                         % (cname, nelems, nelems * (16 if cname == "allgather" else 1)))
        op.cpu_tpl = lay.event(host_x("cpu_op", op.cpu_op, cpu_args))
        if op.kind == "kernel":
            rt = host_x("cuda_runtime", "cudaLaunchKernel", '"External id": %d,\n      "cbid": 211, "correlation": %d')
            op.rt_tpl = lay.event(rt) + lay.event(FLOW_S)
            blocks = op.grid[0] * op.grid[1] * op.grid[2]
            threads = op.block[0] * op.block[1] * op.block[2]
            bps = blocks / NUM_SMS
            wps = bps * ((threads + 31) // 32)
            args = ('"External id": %%d,\n      "queued": 0, "device": 0, "context": 1,\n      "stream": %d, '
                    '"correlation": %%d,\n      "registers per thread": %d,\n      "shared memory": %d,\n'
                    '      "blocks per SM": %f,\n      "warps per SM": %f,\n      "grid": [%d, %d, %d],\n'
                    '      "block": [%d, %d, %d],\n      "est. achieved occupancy %%%%": %d'
                    % ((STREAM, op.regs, op.smem, bps, wps) + op.grid + op.block + (op.occ,)))
            if op.coll:
                cname, nelems = op.coll
                args += (', "Collective name": "%s", "In msg nelems": %d, "Out msg nelems": %d, "Group size": 16, '
                         '"dtype": "BFloat16", "Process Group Name": "0", "Process Group Description": "default_pg", '
                         '"Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]"'
                         % (cname, nelems, nelems * (16 if cname == "allgather" else 1)))
            kernel = ('\n  {\n    "ph": "X", "cat": "kernel", "name": %s, "pid": 0, "tid": %d,\n'
                      '    "ts": %%s, "dur": %%s,\n    "args": {\n      %s\n    }\n  }'
                      % (_esc(_js(op.kernel)), STREAM, args))
            op.gpu_tpl = lay.event(kernel) + lay.event(FLOW_F)
        elif op.kind == "sync":     # a cudaStreamSynchronize alone: no GPU activity, no flow
            op.rt_tpl = lay.event(host_x("cuda_runtime", "cudaStreamSynchronize",
                                         '"External id": %d,\n      "cbid": 131, "correlation": %d'))
            op.gpu_tpl = None
        else:   # memcpy: cudaMemcpyAsync (linked) then a cudaStreamSynchronize in the same cpu_op
            rt = host_x("cuda_runtime", "cudaMemcpyAsync", '"External id": %d,\n      "cbid": 41, "correlation": %d')
            sync = host_x("cuda_runtime", "cudaStreamSynchronize",
                          '"External id": %d,\n      "cbid": 131, "correlation": %d')
            op.rt_tpl = lay.event(rt) + lay.event(FLOW_S) + lay.event(sync)
            memcpy = ('\n  {\n    "ph": "X", "cat": "gpu_memcpy", "name": %s, "pid": 0, "tid": %d,\n'
                      '    "ts": %%s, "dur": %%s,\n    "args": {\n      "External id": %%d,\n      "device": 0, '
                      '"context": 1,\n      "stream": %d, "correlation": %%d,\n      "bytes": 256, '
                      '"memory bandwidth (GB/s)": 0.121905\n    }\n  }' % (_js(op.kernel), STREAM, STREAM))
            op.gpu_tpl = lay.event(memcpy) + lay.event(FLOW_F)
    py = ('\n  {\n    "ph": "X", "cat": "python_function", "name": %%s, "pid": %d, "tid": %d,\n'
          '    "ts": %%s, "dur": %%s,\n    "args": {\n      "Python parent id": %%d, "Python id": %%d, '
          '"Python thread": 0\n    }\n  }' % (HOST_PID, HOST_TID))
    return lay.event(py)


def header(lay):
    dev = ('\n      {\n      "id": 0, "name": "NVIDIA H800", "totalGlobalMem": 85031714816,\n'
           '      "computeMajor": 9, "computeMinor": 0,\n'
           '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
           '      "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32,\n'
           '      "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 233472,\n'
           '      "numSms": %d, "sharedMemPerBlockOptin": 232448\n    }' % NUM_SMS)
    pg = ('{"pg_name": "%s", "pg_desc": "%s", "backend_config": "cuda:nccl", "pg_size": %d, "ranks": [%s]}')
    all16 = ", ".join(str(r) for r in range(16))
    dist = ('{"backend": "nccl", "rank": 0, "world_size": 16, "pg_count": 3, "pg_config": [%s, %s, %s], '
            '"nccl_version": "2.21.5"}' % (pg % ("0", "default_pg", 16, all16), pg % ("1", "undefined", 16, all16),
                                          pg % ("2", "undefined", 1, "0")))
    if lay.compact:
        dev_c = re.sub(r"\s*\n\s*", " ", dev).strip().replace("{ ", "{").replace(" }", "}")
        return ('{"schemaVersion": 1, "deviceProperties": [%s], "distributedInfo": %s, "displayTimeUnit": "ms", '
                '"baseTimeNanoseconds": %d, "traceEvents": [' % (dev_c, dist, BASE_TIME_NS))
    return ('\n  {\n    "schemaVersion": 1,\n    "deviceProperties": [%s\n    ],\n      "distributedInfo": %s,\n'
            '  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": %d,\n  "traceEvents": [' % (dev, dist, BASE_TIME_NS))


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def metadata_events(lay, ts):
    t = us(ts)
    out = []
    for pid, name, label, sort in ((HOST_PID, "sglang::scheduler_TP0", "CPU", HOST_PID), (0, "python3", "GPU 0", 0)):
        out.append(lay.event('\n  {\n    "name": "process_name", "ph": "M", "ts": %s, "pid": %d, "tid": 0,\n'
                             '    "args": {\n      "name": "%s"\n    }\n  }' % (t, pid, name)))
        out.append(lay.event('\n  {\n    "name": "process_labels", "ph": "M", "ts": %s, "pid": %d, "tid": 0,\n'
                             '    "args": {\n      "labels": "%s"\n    }\n  }' % (t, pid, label)))
        out.append(lay.event('\n  {\n    "name": "process_sort_index", "ph": "M", "ts": %s, "pid": %d, "tid": 0,\n'
                             '    "args": {\n      "sort_index": %d\n    }\n  }' % (t, pid, sort)))
    for pid, tid, name, sort in ((HOST_PID, HOST_TID, "thread %d (python3)" % HOST_TID, HOST_TID),
                                 (0, STREAM, "stream %d" % STREAM, STREAM)):
        out.append(lay.event('\n  {\n    "name": "thread_name", "ph": "M", "ts": %s, "pid": %d, "tid": %d,\n'
                             '    "args": {\n      "name": "%s"\n    }\n  }' % (t, pid, tid, name)))
        out.append(lay.event('\n  {\n    "name": "thread_sort_index", "ph": "M", "ts": %s, "pid": %d, "tid": %d,\n'
                             '    "args": {\n      "sort_index": %d\n    }\n  }' % (t, pid, tid, sort)))
    return out


def trailer(lay, start_ns, end_ns, trace_name):
    span = lay.event('\n  {\n    "ph": "X", "cat": "Trace", "ts": %s, "dur": %s,\n    "pid": "Spans", '
                     '"tid": "PyTorch Profiler",\n    "name": "PyTorch Profiler (0)",\n    "args": {\n'
                     '      "Op count": 0\n    }\n  }' % (us(start_ns), us(end_ns - start_ns)))
    sort = lay.event('\n  {\n    "name": "process_sort_index", "ph": "M", "ts": %s,\n    "pid": "Spans", '
                     '"tid": 0,\n    "args": {\n      "sort_index": 536870912\n    }\n  }' % us(start_ns))
    it = lay.event('\n  {\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n'
                   '    "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": %s\n  }' % us(start_ns))
    end = lay.last_event('\n  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n    "pid": "", "tid": "", '
                         '"ts": %s\n  }' % us(end_ns))
    if lay.compact:
        return span + sort + it + end + '], "traceName": %s}' % _js(trace_name)
    return span + sort + it + end + '\n  ],\n  "traceName": %s\n}' % _js(trace_name)


# --------------------------------------------------------------------------- writer

class Writer:
    """Writes chunks from a thread (file writes and zlib release the GIL): generation overlaps I/O."""

    def __init__(self, path, use_gzip):
        self.raw = open(path, "wb")
        self.f = gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=self.raw, mtime=0) \
            if use_gzip else self.raw
        self.q = queue.Queue(maxsize=4)
        self.err = None
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while True:
            item = self.q.get()
            if item is None:
                return
            if self.err is None:
                try:
                    self.f.write(item.encode("ascii"))
                except Exception as e:          # reported by close()
                    self.err = e

    def put(self, text):
        if self.err is not None:
            raise self.err
        self.q.put(text)

    def close(self):
        self.q.put(None)
        self.t.join()
        if self.f is not self.raw:
            self.f.close()
        self.raw.close()
        if self.err is not None:
            raise self.err


# --------------------------------------------------------------------------- generation

def generate(out, target_bytes=None, passes=None, compact=False, use_gzip=False, seed=1, layers=61,
             dense_layers=3, memcpy=False):
    lay = Layout(compact)
    ops = pass_ops(layers, dense_layers, memcpy)
    py_tpl = compile_templates(ops, lay)
    rng = random.Random(seed)
    rnd = rng.random
    trace_name = "/sgl-workspace/profiles/1759312353.8061163-TP-0.trace.json"

    tmp = out + ".tmp"
    w = Writer(tmp, use_gzip)
    text_bytes = 0
    head = header(lay) + "".join(metadata_events(lay, T0_NS - 2_000_000))
    w.put(head)
    text_bytes += len(head)

    host = T0_NS            # host thread clock (ns, relative to BASE_TIME_NS)
    gpu_free = T0_NS        # end of the last activity on stream 7
    ext = 100               # External id of cpu ops (runtime and kernel share it)
    corr = 3000             # CUPTI correlation id
    pyid = 10               # Python id counter
    n_kernels = n_anchors = n_memcpy = n_events = 0
    kernel_ns = memcpy_ns = 0
    kernels_per_pass = []
    n_pass = 0
    pending, pending_len = [], 0
    max_gpu_end = 0

    while True:
        if passes is not None and n_pass >= passes:
            break
        gpu_f = 1.25 if n_pass == 0 else 1.10 if n_pass == 1 else 1.0 + (rnd() - 0.5) * 0.008
        host_f = 1.3 if n_pass < 2 else 1.0
        cpu, cupti_rt, cupti_gpu = [], [], []
        stack = []          # open python frames: [name, start_ns, id, parent_id]
        last_end = host
        pass_kernels = 0
        for op in ops:
            path = op.path
            # python frames: close what the new op's path does not share, open the rest
            common = 0
            while common < len(stack) and common < len(path) and stack[common][0] == path[common]:
                common += 1
            closes = len(stack) - common
            opens = len(path) - common
            if closes or opens:
                for j in range(closes):
                    name, start, fid, parent = stack.pop()
                    end = last_end + 400 * (j + 1)
                    cpu.append(py_tpl % (_js(name), us(start), us(end - start), parent, fid))
                host += 1200 * (closes + opens)
            host += int((2000 + 2500 * rnd()) * host_f)
            cpu_ts = host
            for k in range(opens):
                pyid += 1
                parent = stack[-1][2] if stack else PY_ROOT_ID
                stack.append([path[common + k], cpu_ts - 400 * (opens - k), pyid, parent])

            ext += 1
            corr += 1
            rt_ts = cpu_ts + int((900 + 1300 * rnd()) * host_f)
            rt_dur = int((2600 + 2600 * rnd()) * host_f)
            rt_ts_s = us(rt_ts)
            if op.kind == "sync":
                sync_end = max(gpu_free, rt_ts + 1500) + 1800
                cupti_rt.append(op.rt_tpl % (rt_ts_s, us(sync_end - rt_ts), ext, corr))
                cpu.append(op.cpu_tpl % (us(cpu_ts), us(sync_end + 600 - cpu_ts), ext, ext - 1))
                host = last_end = sync_end + 600
                n_events += 2
                continue
            k_ts = gpu_free + 800 + int(1200 * rnd())
            earliest = rt_ts + 3500 + int(2000 * rnd())
            if k_ts < earliest:
                k_ts = earliest
            k_dur = int(op.ns * gpu_f * (1.0 + op.noise * (2.0 * rnd() - 1.0)))
            gpu_free = k_ts + k_dur
            k_ts_s = us(k_ts)
            if op.kind == "kernel":
                cpu_end = rt_ts + rt_dur + int((700 + 900 * rnd()) * host_f)
                cupti_rt.append(op.rt_tpl % (rt_ts_s, us(rt_dur), ext, corr, corr, rt_ts_s))
                cupti_gpu.append(op.gpu_tpl % (k_ts_s, us(k_dur), ext, corr, corr, k_ts_s))
                pass_kernels += 1
                kernel_ns += k_dur
                if op.is_anchor:
                    n_anchors += 1
                n_events += 5
            else:       # memcpy + stream sync: the host waits for the GPU
                sync_ts = rt_ts + rt_dur + 300
                sync_end = max(gpu_free, sync_ts + 1500) + 1800
                corr += 1
                cupti_rt.append(op.rt_tpl % (rt_ts_s, us(rt_dur), ext, corr - 1, corr - 1, rt_ts_s,
                                             us(sync_ts), us(sync_end - sync_ts), ext, corr))
                cupti_gpu.append(op.gpu_tpl % (k_ts_s, us(k_dur), ext, corr - 1, corr - 1, k_ts_s))
                cpu_end = sync_end + 600
                n_memcpy += 1
                memcpy_ns += k_dur
                n_events += 6
            cpu.append(op.cpu_tpl % (us(cpu_ts), us(cpu_end - cpu_ts), ext, ext - 1))
            host = last_end = cpu_end
        for j in range(len(stack)):
            name, start, fid, parent = stack.pop()
            end = last_end + 400 * (j + 1)
            cpu.append(py_tpl % (_js(name), us(start), us(end - start), parent, fid))
        n_events += len(cpu) - len(ops)
        max_gpu_end = max(max_gpu_end, gpu_free)
        # the scheduler prepares the next batch: 3-5 ms of idle GPU (longer while cold)
        host = max(host, gpu_free) + int((3_000_000 + 2_000_000 * rnd()) * host_f)
        n_kernels += pass_kernels
        kernels_per_pass.append(pass_kernels)
        n_pass += 1
        text = "".join(cpu) + "".join(cupti_rt) + "".join(cupti_gpu)
        text_bytes += len(text)
        pending.append(text)
        pending_len += len(text)
        if pending_len >= CHUNK_BYTES:
            w.put("".join(pending))
            pending, pending_len = [], 0
        if passes is None and text_bytes >= target_bytes:
            break

    end_ns = max(host, max_gpu_end) + 1_234_567
    tail = trailer(lay, T0_NS - 1_000_000, end_ns, trace_name)
    n_events += 4 + 10      # trailer + M events
    pending.append(tail)
    text_bytes += len(tail)
    w.put("".join(pending))
    w.close()
    file_bytes = os.path.getsize(tmp)

    truth = {
        "kernels": n_kernels,
        "kernel_dur_ns": kernel_ns,
        "passes": n_pass,
        "layers": layers,
        "dense_layers": dense_layers,
        "anchor_regex": ANCHOR_RE.pattern,
        "anchors": n_anchors,
        "kernels_per_pass": kernels_per_pass[0] if len(set(kernels_per_pass)) == 1 else kernels_per_pass,
        "gpu_memcpy": n_memcpy,
        "gpu_memcpy_dur_ns": memcpy_ns,
        "events": n_events,
        "json_bytes": text_bytes,
        "file_bytes": file_bytes,
        "layout": "compact" if compact else "pretty",
        "gzip": bool(use_gzip),
        "seed": seed,
        "base_time_ns": BASE_TIME_NS,
    }
    with open(out + ".truth.json", "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")
    os.replace(tmp, out)
    return truth


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate a realistic Kineto (PyTorch profiler) trace (deterministic).")
    ap.add_argument("out", help="output path (.json or .json.gz)")
    ap.add_argument("--mb", type=float, default=100.0,
                    help="stop after the pass at which the uncompressed JSON reaches this many MB (default 100)")
    ap.add_argument("--passes", type=int, help="stop after exactly this many forward passes (overrides --mb)")
    ap.add_argument("--compact", action="store_true", help="one-line JSON instead of Kineto's pretty layout")
    ap.add_argument("--gzip", action="store_true", help="gzip the output (level 6)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layers", type=int, default=61)
    ap.add_argument("--dense-layers", type=int, default=3)
    ap.add_argument("--memcpy", action="store_true",
                    help="end each pass with a 256 B DtoH gpu_memcpy (a device activity that is not a kernel)")
    a = ap.parse_args(argv)
    if a.passes is None and a.mb <= 0:
        ap.error("--mb must be positive")
    if not 0 <= a.dense_layers <= a.layers or a.layers < 1:
        ap.error("need 1 <= layers and 0 <= dense-layers <= layers")
    t0 = time.perf_counter()
    t = generate(a.out, target_bytes=int(a.mb * 1e6), passes=a.passes, compact=a.compact, use_gzip=a.gzip,
                 seed=a.seed, layers=a.layers, dense_layers=a.dense_layers, memcpy=a.memcpy)
    dt = time.perf_counter() - t0
    gz = f", gzip {t['file_bytes'] / 1e6:.1f} MB" if t['gzip'] else ""
    print(f"{a.out}: {t['json_bytes'] / 1e6:.1f} MB JSON ({t['layout']}{gz}), "
          f"{t['events']:,} events, {t['kernels']:,} kernels, {t['passes']} passes x {t['layers']} layers, "
          f"kernel time {t['kernel_dur_ns']:,} ns; {dt:.1f} s ({t['json_bytes'] / 1e6 / dt:.0f} MB/s)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
