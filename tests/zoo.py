"""A zoo of small synthetic PyTorch-profiler (Kineto) traces over randomised model architectures, each built
with its truth: how many forward passes the trace holds and how many layers (anchors) each has, and what
each serving step was.

    arch = draw(seed)                  # the architecture, serving stack and workload a seed gives
    doc, truth = build(arch)           # the Kineto trace object and what a correct tool reads from it
    arch, truth = write(path, seed)    # both, the trace written as JSON (.json.gz: gzipped)
    python tests/zoo.py SEED [PATH]    # writes the trace and prints the draw and its truth

Every draw is a function of the seed alone (random.Random(seed)); nothing reads the clock.

What a seed draws (Arch):
- family: dense; moe (router top-k, permute / align, two expert grouped GEMMs, combine, sometimes shared
  experts); moe_first_dense (DeepSeek: the first 1-3 layers dense, MLA projections); alternating (gpt-oss,
  Gemma: sliding-window and full-attention layers take turns, under two kernel names where the stack gives
  them two; sometimes Gemma 3's five local layers to one global); hybrid (Qwen3-Next: gated-delta-rule
  linear attention in three layers of four, full attention in the fourth; layers a multiple of 4).
- layers 1-128: mostly 12-64, sometimes 1, 2, 3 or over 100.
- vendor: nvidia (flash_fwd, FlashInfer, fmha, nvjet / cuBLAS xmma / cutlass / ampere GEMMs, triton_) or amd
  (Cijk_ hipBLASLt GEMMs, ck_tile / ck::, aiter::, paged_attention_ll4mi).
- stack: hf (transformers eager: unfused RMSNorm and rotary as elementwise kernels, nn.Module frames
  Qwen2DecoderLayer > Qwen2Attention > Linear), sglang, vllm (fused kernels; RadixAttention / Attention,
  QKVParallelLinear frames), pipeline (one stage of a pipeline-parallel model).
- launch: eager (a cudaLaunchKernel / cudaLaunchKernelExC / cuLaunchKernel or hip* per kernel), graph (one
  cudaGraphLaunch / hipGraphLaunch per step whose correlation every kernel of the graph shares; no per-kernel
  launch), piecewise (vLLM: a graph launch per piece between attention kernels launched eagerly).
  SGLang replays graphs for decode steps only, so a capture can mix eager prefill with graph-replayed decode.
- modules: nn.Module frames (python_function) around the launches, when the stack runs eagerly; a
  graph-replayed step keeps only the frames outside the graph (LogitsProcessor, Sampler). Without them, a
  third of the seeds record a user annotation model.layers.N around each eager layer instead (layerwise
  NVTX markers, a record_function per layer).
- annotation: none; ProfilerStep#N (user_annotation on the host, gpu_user_annotation on the stream);
  sglang step[EXTEND bs=B toks=T] / step[DECODE bs=B] / step[MIXED bs=B toks=T] (sometimes inside vLLM's
  execute_ form, as SGLang writes both); vllm execute_<tokens>_context_<n>(...)_generation_<m>(...);
  vllm_old execute_context_<n>(<tokens>_<sum sq>)_generation_<m>(<m>_<m>).
- workload: prefill, decode, mixed (chunked prefill and decode in one batch), steps (1-6 serving steps in
  one capture, kinds drawn per step), train (forward, loss, backward on the autograd thread with
  autograd::engine::evaluate_function: <Op>Backward0 cpu_ops, optimizer Adam multi_tensor_apply kernels
  under Optimizer.step#AdamW.step; 1-3 steps of 1-2 micro-batches), pipeline (2-6 forward micro-batches
  of one stage, a NCCL SendRecv kernel before and/or after each).
- timing: kernel durations jittered around a per-kind base (prefill scaled by its tokens), launch gaps of
  a few µs, host launch overhead in eager runs, now and then a longer wait before an anchor (eager: a host
  stall of 0.2-1.5 layers; a replayed graph: up to half a layer); between steps the scheduler's or data
  loader's idle time, always well above any such wait.
- before and after the layers: input preparation and embedding, final norm, lm_head, logits and
  sampling (serving) or the loss (training).
- sometimes (eager runs) a capture that starts mid-pass or stops mid-pass: the events before the start
  (or after the stop) are not in the trace, as a profiler started late records none of them.

Truth (Truth): forward = the anchors of each forward pass in order (a pass cut by the capture's start or
stop holds fewer); passes = how many are whole; anchors = layers per whole pass (one per layer: the
attention or linear-attention kernel); backward = the same for backward passes (training); step_kinds,
tokens, requests per forward pass: from the step annotation when there is one (SGLang: EXTEND prefill,
DECODE decode with tokens = bs, MIXED mixed; vLLM: n = 0 decode, m = 0 prefill, else mixed; requests =
bs or n + m), else from what the attention kernels' names say (FlashInfer / CK BatchPrefill,
BatchDecode: both in a pass is mixed), else '' and no tokens or requests; training: every pass 'train'.
vLLM's kernel_unified_attention_3d says decode too (vLLM launches it for decode-only batches). A trace
without annotations never uses attention names that say the kind in other words (TRT-LLM's ForGen,
Context), so what it says is unambiguous. backward_layers: per backward pass, the model layer of each
kernel it launches, in time order (a layer's gradients run MLP first, then the post-attention norm, output
projection, attention, rope, QKV projection and input norm, and the add after it, the residual stream's
gradient accumulation: see gradient_layers; None: the loss, lm_head and final norm gradients before the
top layer, the embedding's after layer 0); backward_first: where each backward pass's kernels start among
all the trace's kernels in time order.
"""
import dataclasses
import gzip
import json
import random
import sys
from contextlib import contextmanager

BASE_NS = 1_775_078_550_000_000_000
HOST_PID, MAIN_TID, BWD_TID = 4242, 4242, 4305
GPU_PID, STREAM = 0, 7

# vLLM's triton attention launches its 3d (split-KV) kernel for decode-only batches: the name says decode
DECODE_ONLY = "kernel_unified_attention_3d"
FAMILIES = ("dense", "moe", "moe_first_dense", "alternating", "hybrid")
WORKLOADS = ("prefill", "decode", "mixed", "steps", "train", "pipeline")


@dataclasses.dataclass
class Step:
    kind: str                    # prefill | decode | mixed (serving), train, pipeline
    requests: int = 0
    tokens: int = 0
    n_context: int = 0           # prefill requests (vLLM's context_<n>)
    n_generation: int = 0        # decode requests (generation_<m>)


@dataclasses.dataclass
class Arch:
    seed: int
    family: str
    layers: int
    vendor: str                  # nvidia | amd
    stack: str                   # hf | sglang | vllm | pipeline
    workload: str
    steps: list                  # [Step]: one forward pass each (train: micro_batches each)
    annotation: str              # none | profiler_step | sglang | sglang_execute | vllm | vllm_old
    launch: str                  # eager | graph | piecewise (the decode steps' mode for sglang)
    modules: bool
    attention: str               # attention kernel style (see Names.attention)
    gemm: str                    # GEMM kernel family
    first_dense: int = 0         # moe_first_dense: the dense layers before the MoE ones
    local_per_global: int = 1    # alternating: sliding-window layers per full-attention layer
    shared_experts: bool = False
    tp: int = 1                  # tensor parallel ranks (an all-reduce after o_proj and down_proj)
    micro_batches: int = 1       # train: forward/backward pairs per optimizer step
    stage: int = 0               # pipeline: this rank's stage of `stages`
    stages: int = 1
    cut_start: bool = False      # the capture starts mid-pass
    cut_end: bool = False        # the capture stops mid-pass
    gz: bool = False
    layer_ranges: bool = False   # a user annotation (an NVTX range) named model.layers.N around each layer

    def launch_of(self, step: Step) -> str:
        """How a step's forward is launched: SGLang captures graphs for decode batches only, vLLM's FULL
        graphs hold decode batches and the rest runs piecewise."""
        if self.stack == "sglang" and step.kind != "decode":
            return "eager"
        if self.stack == "vllm" and self.launch == "graph" and step.kind != "decode":
            return "piecewise"
        return self.launch

    def label(self) -> str:
        """One line naming the draw, for failure messages and the survey."""
        extra = [f"first_dense={self.first_dense}"] * bool(self.first_dense)
        extra += [f"local:global={self.local_per_global}:1"] * (self.family == "alternating")
        extra += [f"tp={self.tp}"] * (self.tp > 1)
        extra += [f"stage {self.stage}/{self.stages}"] * (self.stack == "pipeline")
        extra += [f"micro_batches={self.micro_batches}"] * (self.workload == "train")
        extra += ["cut_start"] * self.cut_start + ["cut_end"] * self.cut_end
        extra += ["layer ranges"] * self.layer_ranges
        kinds = ",".join(s.kind for s in self.steps)
        launches = "+".join(dict.fromkeys(self.launch_of(s) for s in self.steps))
        return (f"{self.family} {self.layers} layers, {self.vendor} {self.stack} {self.workload} [{kinds}], "
                f"launch {launches}, annotation {self.annotation}, modules {'on' if self.modules else 'off'}, "
                f"attention {self.attention}, gemm {self.gemm}" + "".join(f", {e}" for e in extra))


@dataclasses.dataclass
class Truth:
    forward: list                # anchors per forward pass, in time order (cut passes included)
    passes: int                  # whole forward passes
    anchors: int                 # anchors (layers) per whole pass
    step_kinds: list             # per forward pass: prefill | decode | mixed | train | ''
    tokens: list                 # per forward pass: int or None
    requests: list               # per forward pass: int or None
    training: bool
    backward: list               # anchors per backward pass (training), else []
    # per backward pass, the model layer whose gradient each of its kernels computes, in launch (= time) order
    # on the stream; None: no layer's (the loss, lm_head and final norm gradients before the top layer, the
    # embedding's after layer 0)
    backward_layers: list = dataclasses.field(default_factory=list)
    # per backward pass, the position of its first kernel among all the trace's kernels in time order: its
    # kernels are the len(backward_layers[i]) from there
    backward_first: list = dataclasses.field(default_factory=list)


# ---- the draw ---------------------------------------------------------------------------------------------

def _layers(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.08:
        return rng.choice((1, 2, 3))
    if r < 0.14:
        return rng.randint(100, 128)
    if r < 0.24:
        return rng.randint(4, 11)
    if r < 0.30:
        return rng.randint(65, 99)
    return rng.randint(12, 64)


def _serving_step(rng, kind) -> Step:
    if kind == "prefill":
        n = rng.randint(1, 16)
        lens = [rng.randint(16, 2048) for _ in range(n)]
        return Step("prefill", n, sum(lens), n_context=n)
    if kind == "decode":
        m = rng.choice((1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 200, 256))
        return Step("decode", m, m, n_generation=m)
    n, m = rng.randint(1, 4), rng.randint(1, 96)
    return Step("mixed", n + m, rng.randint(64, 4096) + m, n_context=n, n_generation=m)


def draw(seed: int) -> Arch:
    """The architecture, stack, workload and recording options of a seed."""
    rng = random.Random(seed)
    family = rng.choices(FAMILIES, weights=(40, 20, 10, 15, 15))[0]
    layers = _layers(rng)
    if family == "hybrid":
        layers = max(4, layers // 4 * 4)
    if family == "alternating":
        layers = max(2, layers)
    first_dense = rng.randint(1, min(3, layers - 1)) if family == "moe_first_dense" and layers > 1 else 0
    if family == "moe_first_dense" and not first_dense:
        family = "moe"
    vendor = rng.choice(("nvidia", "amd"))
    workload = rng.choices(WORKLOADS, weights=(14, 20, 10, 26, 18, 12))[0]
    stack = {"train": "hf", "pipeline": "pipeline", "mixed": rng.choice(("sglang", "vllm"))}.get(
        workload, rng.choices(("hf", "sglang", "vllm"), weights=(30, 40, 30))[0])

    if workload in ("prefill", "decode", "mixed"):
        steps = [_serving_step(rng, workload)]
    elif workload == "steps":
        first = rng.choices(("prefill", "decode", "mixed"), weights=(5, 4, 1 if stack != "hf" else 0))[0]
        steps = [_serving_step(rng, first)]
        for _ in range(rng.randint(1, 5)):
            steps.append(_serving_step(rng, "decode" if rng.random() < 0.75 or stack == "hf" else
                                       rng.choice(("prefill", "mixed"))))
    elif workload == "train":
        steps = [Step("train") for _ in range(rng.randint(1, 3))]
    else:
        steps = [Step("pipeline") for _ in range(rng.randint(2, 6))]

    annotation = {"hf": rng.choice(("none", "profiler_step")),
                  "sglang": rng.choices(("sglang", "sglang_execute", "none"), weights=(5, 3, 2))[0],
                  "vllm": rng.choices(("vllm", "vllm_old", "none"), weights=(5, 2, 2))[0],
                  "pipeline": rng.choice(("none", "profiler_step"))}[stack]
    if stack == "hf":
        launch = "eager"
    elif stack == "sglang":
        launch = rng.choices(("graph", "eager"), weights=(4, 1))[0]
    elif stack == "vllm":
        launch = rng.choices(("graph", "piecewise", "eager"), weights=(3, 3, 1))[0]
    else:
        launch = "eager"
    modules = rng.random() < (0.7 if stack in ("hf", "pipeline") else 0.5)

    attention = _attention_style(rng, vendor, stack, annotation)
    gemm = rng.choice(("nvjet", "xmma", "cutlass", "ampere") if vendor == "nvidia" else ("cijk", "cijk_ext"))

    # keep each trace small, at most ~5,000 kernels: a 128-layer model gets few passes. HF eager runs ~30
    # kernels a layer (unfused norms and rotary), the serving stacks ~14; a training pass ~2.5x its forward
    per_pass = layers * (30 if stack == "hf" else 14) * (2.5 if workload == "train" else 1)
    cap = max(1, int(5000 // per_pass))
    micro = 1
    if workload == "train":
        micro = min(rng.choice((1, 1, 2)), cap)
        steps = steps[:max(1, cap // micro)]
    else:
        steps = steps[:max(1 if workload != "pipeline" else 2, cap)]

    arch = Arch(seed=seed, family=family, layers=layers, vendor=vendor, stack=stack, workload=workload,
                steps=steps, annotation=annotation, launch=launch, modules=modules, attention=attention,
                gemm=gemm, first_dense=first_dense, micro_batches=micro, gz=rng.random() < 0.15)
    if family == "alternating":
        arch.local_per_global = 5 if rng.random() < 0.2 else 1
    if family in ("moe", "moe_first_dense"):
        arch.shared_experts = rng.random() < 0.5
    if stack in ("sglang", "vllm") and rng.random() < 0.3:
        arch.tp = rng.choice((2, 4, 8))
    if stack == "pipeline":
        arch.stages = rng.choice((2, 4))
        arch.stage = rng.randrange(arch.stages)
    # a capture cut mid-pass: a profiler started or stopped by time in an eager serving or pipeline run (a
    # training capture follows the ProfilerStep schedule, whole steps); the later passes stay whole
    if workload != "train" and len(steps) >= 2 and all(arch.launch_of(s) == "eager" for s in steps):
        arch.cut_start = rng.random() < 0.12
        arch.cut_end = annotation == "none" and rng.random() < 0.10
    # layer ranges instead of module frames in a third of the eager draws without them (SGLang's and vLLM's
    # layerwise NVTX markers, a record_function per layer): from the seed, not the generator, so that every
    # other draw stays as it was
    arch.layer_ranges = not modules and seed % 3 == 1
    return arch


def _attention_style(rng, vendor, stack, annotation) -> str:
    """Which attention kernels the stack runs. TRT-LLM's, whose names tell the step's kind by other words
    (ForGen, Context), only in annotated traces."""
    annotated = annotation not in ("none", "profiler_step")
    if stack == "hf":
        return rng.choice(("fa2", "memeff") if vendor == "nvidia" else ("ck_fmha", "aiter_fmha"))
    if stack == "sglang":
        if vendor == "nvidia":
            return rng.choice(("flashinfer", "fa3") + (("trtllm",) if annotated else ()))
        return rng.choice(("ck_paged", "aiter_fmha"))
    if stack == "vllm":
        return rng.choice(("unified",) * 2 + (("fa2",) if vendor == "nvidia" else ("ck_paged",)))
    return rng.choice(("fa2", "flashinfer") if vendor == "nvidia" else ("ck_fmha", "ck_paged"))


# ---- kernel names -----------------------------------------------------------------------------------------

@dataclasses.dataclass
class K:
    """A kernel to launch: its name, base duration (µs, for a small decode batch), the cpu_op that launches
    it, how (rt: cudaLaunchKernel, ex: cudaLaunchKernelExC / hipExtModuleLaunchKernel, mod: cuLaunchKernel /
    hipModuleLaunchKernel for triton), what it is for the backward pass (gemm, attn, lin, elem, none) and
    whether it anchors its layer."""
    name: str
    us: float
    op: str = "aten::empty"
    api: str = "rt"
    role: str = "elem"
    anchor: bool = False
    scales: bool = True          # grows with the step's tokens
    proj: str = ""               # a GEMM's projection (qkv, o, gate_up, ...): its backward GEMMs' shapes
    fused_act: bool = False      # an expert GEMM with the SiLU-and-mul fused in (its backward has the SiLU's)


@dataclasses.dataclass
class M:
    """An nn.Module frame: class name and its children (M or K), instance number filled in per model; layer:
    the model layer a decoder layer's frame is (None: the embedding, final norm, lm_head and the model)."""
    cls: str
    children: list
    index: int = -1
    layer: int | None = None


_AT = "void at::native::"
_ELEM = {
    "copy": _AT + "elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda("
                  "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::"
                  "{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda("
                  "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::"
                  "{lambda(float)#1} const&)::"
                  "{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda("
                  "at::TensorIteratorBase&)::{lambda(int)#1})",
    "pow": _AT + "vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl"
                 "<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#2}, std::array<char*, 2ul> >(int, "
                 "at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>("
                 "at::TensorIteratorBase&, float)::{lambda(float)#2}, std::array<char*, 2ul>)",
    "mean": _AT + "reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
                  "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
                  "float>, unsigned int, float, 4, 4>)",
    "add": _AT + "vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, "
                 "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
    "rsqrt": _AT + "vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::"
                   "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, "
                   "std::array<char*, 2ul> >(int, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::"
                   "{lambda(float)#1}, std::array<char*, 2ul>)",
    "mul": _AT + "elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, "
                 "float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, "
                 "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > "
                 "const&)::{lambda(int)#1}>(int, at::native::BinaryFunctor<float, float, float, "
                 "at::native::binary_internal::MulFunctor<float> >)",
    "mul_bf16": _AT + "vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
                      "c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, "
                      "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::"
                      "binary_internal::MulFunctor<float> >, std::array<char*, 3ul>)",
    "add_bf16": _AT + "vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, "
                      "3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
    "neg": _AT + "vectorized_elementwise_kernel<4, at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::"
                 "operator()() const::{lambda()#8}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, "
                 "2ul> >(int, at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda(c10::BFloat16)#1}, "
                 "std::array<char*, 2ul>)",
    "cat": _AT + "(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::(anonymous namespace)::"
                 "OpaqueType<2u>, unsigned int, 4, 128, 1>(at::native::(anonymous namespace)::OpaqueType<2u>*, "
                 "at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::"
                 "OpaqueType<2u>, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned "
                 "int, 4u>, int, unsigned int)",
    "silu": _AT + "vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel("
                  "at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() const::"
                  "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::"
                  "silu_kernel(at::TensorIteratorBase&)::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
    "sigmoid": _AT + "vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::"
                     "{lambda()#2}::operator()() const::{lambda()#3}::operator()() const::{lambda(c10::BFloat16)#1}, "
                     "std::array<char*, 2ul> >(int, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::"
                     "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
}


class Names:
    """The kernel names of one draw: vendor, stack, attention style and GEMM family."""

    def __init__(self, arch: Arch, rng: random.Random):
        self.a, self.rng = arch, rng
        self.nv = arch.vendor == "nvidia"
        self.tiles = {}
        self.custom_allreduce = rng.random() < 0.5     # vLLM / SGLang's own all-reduce kernel, else NCCL's

    # GEMMs: one kernel per projection shape, as cuBLAS / hipBLASLt pick a tile per shape
    def gemm(self, role: str, backward: str = "") -> K:
        key = (role, backward)
        if key not in self.tiles:
            r = self.rng
            self.tiles[key] = (r.choice((64, 128, 192, 256)), r.choice((8, 16, 32, 64, 128, 256)),
                               r.choice((64, 128, 256)))
        a, b, c = self.tiles[key]
        lay = {"": "tn", "dgrad": "nn", "wgrad": "nt"}[backward]
        g = self.a.gemm
        if g == "nvjet":
            name = f"nvjet_tst_{a}x{b}_64x{c // 32}_{1 + (a > 128)}x1_v_bz_{lay.upper()}T"
        elif g == "xmma":
            name = (f"sm90_xmma_gemm_bf16bf16_bf16f32_f32_{lay}_n_tilesize{a}x{b}x{c // 2}_warpgroupsize1x1x1_"
                    f"execute_segment_k_off_kernel__5x_cublas")
        elif g == "cutlass":
            name = (f"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_{a}x{b}_32x3_{lay}_align8>"
                    f"(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_{a}x{b}_32x3_{lay}_align8::Params)")
        elif g == "ampere":
            name = f"ampere_bf16_s16816gemm_bf16_{a}x{b}_ldg8_f2f_stages_64x3_{lay}"
        else:
            aa, bb = {"tn": ("Alik", "Bljk"), "nn": ("Ailk", "Bljk"), "nt": ("Alik", "Bjlk")}[lay]
            name = (f"Cijk_{aa}_{bb}_BBS_BH_Bias_HA_S_SAV_UserArgs_MT{a}x{b}x{c}_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_"
                    f"ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA512_"
                    f"LBSPPB512_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_"
                    f"NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW8_SK3_SKFTR0_SKXCCM0_"
                    f"SGROB0_TT1_16_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG32_4_1")
        us = {"qkv": 12, "o": 8, "gate_up": 22, "down": 14, "lm_head": 60, "router": 4, "shared": 10,
              "q_a": 6, "kv_a": 6, "q_b": 8, "kv_b": 8, "gate": 5}.get(role, 10)
        api = "ex" if g in ("xmma", "cijk_ext") else "rt"
        op = "aten::mm" if backward else ("aten::addmm" if self.a.stack == "hf" else "aten::mm")
        return K(name, us, op, api, role="gemm", proj=role)

    def norm(self, first=False) -> list:
        """An RMSNorm: six unfused kernels under HF eager, one fused kernel otherwise."""
        if self.a.stack == "hf":
            return [K(_ELEM["copy"], 2, "aten::to"), K(_ELEM["pow"], 2, "aten::pow"),
                    K(_ELEM["mean"], 3, "aten::mean"), K(_ELEM["add"], 2, "aten::add"),
                    K(_ELEM["rsqrt"], 2, "aten::rsqrt"), K(_ELEM["mul"], 2, "aten::mul"),
                    K(_ELEM["mul_bf16"], 2, "aten::mul")]
        if self.nv:
            if self.a.stack == "sglang":
                kind = "RMSNormKernel" if first else "FusedAddRMSNormKernel"
                return [K(f"void flashinfer::norm::{kind}<8u, __nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, "
                          f"__nv_bfloat16*, unsigned int, unsigned int, unsigned int, float, float)", 4,
                          "sgl_kernel::fused_add_rmsnorm")]
            kind = "rms_norm_kernel" if first else "fused_add_rms_norm_kernel"
            return [K(f"void vllm::{kind}<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, "
                      f"float, int, int)", 4, "_C::fused_add_rms_norm")]
        if self.a.stack == "sglang":
            return [K("_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_"
                      "diiiiiiib", 4, "aiter::add_rmsnorm")]
        return [K("_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2dFwd"
                  "PipelineProblemIDF16bDF16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeINS_8sequenceIJLi1ELi3072EEEE"
                  "NS5_IJLi1ELi128EEEENS5_IJLi1ELi8EEEEEENS_18Rmsnorm2dFwdTraitsILb1ELb0ELb1EEEvPv", 4,
                  "vllm::rocm_aiter_rmsnorm2d_fwd_with_add")]

    def rope(self) -> list:
        if self.a.stack == "hf":
            return [K(_ELEM["mul_bf16"], 2, "aten::mul"), K(_ELEM["neg"], 2, "aten::neg"),
                    K(_ELEM["cat"], 2, "aten::cat"), K(_ELEM["mul_bf16"], 2, "aten::mul"),
                    K(_ELEM["add_bf16"], 2, "aten::add")]
        if self.nv:
            if self.a.stack == "sglang":
                return [K("void flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheKernel<true, 128u, 8u, 16u, "
                          "__nv_bfloat16, long>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, "
                          "float*, long*, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int)", 3,
                          "sgl_kernel::apply_rope_pos_ids_cos_sin_cache")]
            return [K("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, "
                      "c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)", 3,
                      "_C::rotary_embedding")]
        return [K("_fused_qk_rope_reshape_and_cache_kernel", 4, "aiter::fused_qk_rope_reshape_and_cache", "mod")]

    def kv_write(self) -> list:
        if self.a.stack == "hf" or not self.nv:
            return []    # HF's DynamicCache concatenates (the cat above); aiter's rope kernel writes the cache
        if self.a.stack == "sglang":
            return [K("void (anonymous namespace)::store_kvcache<2048l, 4, true, long>((anonymous namespace)::"
                      "StoreKVCacheParams)", 3, "sgl_kernel::store_kvcache")]
        return [K("void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)"
                  "0>(__nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16*, __nv_bfloat16*, long const*, long, "
                  "long, long, long, long, int, int, int, float const*, float const*)", 3,
                  "_C_cache_ops::reshape_and_cache_flash")]

    def attention(self, kind: str, sliding=None) -> list:
        """The attention kernels of one layer: the first is the anchor. sliding: None (no window), True
        (a sliding-window layer) or False (a full-attention layer of a model that has both)."""
        s, loc = self.a.attention, bool(sliding)
        w = "true" if loc else "false"
        op = ("aten::_scaled_dot_product_flash_attention" if self.a.stack == "hf" else
              "vllm::unified_attention_with_output")
        if s == "fa2":
            if kind == "decode" and self.a.stack != "hf":
                return [K(f"void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, "
                          f"false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, "
                          f"{w}, true, false, false, true, true, false, false>(flash::Flash_fwd_params)", 10, op,
                          role="attn", anchor=True),
                        K("void flash::flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, "
                          "false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, "
                          "cutlass::bfloat16_t> >, 4, 1, true>(flash::Flash_fwd_params)", 3, op, role="none")]
            return [K(f"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
                      f"cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, "
                      f"{w}, false, false, true, false, false>(pytorch_flash::Flash_fwd_params)", 12, op,
                      role="attn", anchor=True)]
        if s == "memeff":
            return [K(f"fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::"
                      f"bfloat16_t, cutlass::arch::Sm80, true, 64, 128, 128, true, {w}>::Params)", 14,
                      "aten::_scaled_dot_product_efficient_attention", role="attn", anchor=True)]
        if s == "flashinfer":
            pre = (f"void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits<(flashinfer::"
                   f"MaskMode)1, 128u, 2u, 8u, 4u, 4u, 1u, (flashinfer::PosEncodingMode)0, __nv_bfloat16, "
                   f"__nv_bfloat16, __nv_bfloat16, float, int, flashinfer::DefaultAttention<false, {w}, false, false> "
                   f">, flashinfer::PagedParams>(flashinfer::PagedParams)")
            dec = (f"void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, 4u, 8u, "
                   f"16u, 1u, 8u, flashinfer::DefaultAttention<false, {w}, false, false>, flashinfer::PagedParams>"
                   f"(flashinfer::PagedParams)")
            op = "sgl_kernel::batch_attention"
            if kind == "prefill":
                return [K(pre, 14, op, role="attn", anchor=True)]
            if kind == "decode":
                return [K(dec, 9, op, role="attn", anchor=True)]
            # a mixed batch: the prefill wrapper for the extend requests, the decode wrapper for the rest
            return [K(pre, 12, op, role="attn", anchor=True), K(dec, 6, op, role="none")]
        if s == "fa3":
            return [K(f"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::"
                      f"CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cute::tuple<"
                      f"cute::C<128l>, cute::C<128l>, cute::C<128l> >, 128, cutlass::bfloat16_t, float, cutlass::arch::"
                      f"Sm90, true, {w}, false, true, false, true, false, false, true, true, false, false>, flash::"
                      f"CollectiveEpilogueFwd<cute::tuple<cute::C<128l>, cute::C<128l>, cute::C<128l> >, cute::tuple<"
                      f"cute::C<1>, cute::C<1>, cute::C<1> >, cutlass::bfloat16_t, cutlass::arch::Sm90, 256, true, "
                      f"true, false, false>, flash::VarlenDynamicPersistentTileScheduler<128, 256, 128, false, true, "
                      f"true> > > >(flash::FlashAttnFwdSm90<...>::Params)", 10, "sgl_kernel::fwd", role="attn",
                      anchor=True)]
        if s == "trtllm":
            tail = "PersistentContext" if kind != "decode" else "PersistentSwapsAbForGen"
            win = "SlidingOrChunked" if loc else "Causal"
            return [K(f"fmhaSm100fKernel_QkvBfloat16OBfloat16H128PagedKv{win}P64VarSeqQ128Kv128{tail}", 10,
                      "sgl_kernel::trtllm_batch_attention", role="attn", anchor=True)]
        if s == "unified":
            # vLLM's triton attention: the 3d kernel (with reduce_segments) for decode batches of full-attention
            # layers, the 2d kernel otherwise (sliding-window layers of a decode batch too)
            if kind == "decode" and sliding is not True:
                return [K(DECODE_ONLY, 10, op, "mod", role="attn", anchor=True),
                        K("reduce_segments", 2, op, "mod", role="none")]
            return [K("kernel_unified_attention_2d", 11, op, "mod", role="attn", anchor=True)]
        if s == "ck_paged":
            if kind == "decode":
                win = 1 if loc else 0
                return [K(f"void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, (vllm::"
                          f"Fp8KVCacheDataType)0, 1, 128, 256, false, 8, {win}, ck_tile::ComposedAttention<0u, false>"
                          f">(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, int, float, int "
                          f"const*, int const*, int const*, int, float const*, int, int, int, float*, float*, "
                          f"__hip_bfloat16*, __hip_bfloat16*, int, float const*, float const*, float const*)", 20, op,
                          role="attn", anchor=True),
                        K("void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, "
                          "3, false>(__hip_bfloat16*, float const*, float const*, __hip_bfloat16 const*, int const*, "
                          "int const*, int, float const*)", 4, op, role="none")]
            return [K(f"_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_40BlockFmhaBatchPrefill"
                      f"PipelineQRKSVSAsyncINS_36BlockFmhaBatchPrefillPipelineProblemIDF16bDF16bDF16bffDF16bhfDF16bf"
                      f"DF16bNS_13TileFmhaShapeINS_8sequenceIJLi128ELi128ELi32ELi128ELi32ELi128EEEELb{int(loc)}EEEEEE"
                      f"EEvT0_", 16, op, role="attn", anchor=True)]
        if s == "ck_fmha":
            return [K(f"_ZN7ck_tile6kentryILi1ENS_13FmhaFwdKernelINS_24BlockFmhaPipelineQRKSVSAsyncINS_24BlockFmha"
                      f"PipelineProblemIDF16bDF16bDF16bffDF16bhfDF16bfDF16bNS_13TileFmhaShapeINS_8sequenceIJLi128ELi"
                      f"128ELi32ELi128ELi32ELi128EEEELb{int(loc)}EEEEEEEvT0_", 14, op, role="attn", anchor=True)]
        # aiter_fmha
        return [K(f"_ZN5aiter34fmha_fwd_hd128_bf16_causal_{'swa' if loc else 'full'}_a16_rtne_kernelEPv", 13,
                  "aiter::mha_varlen_fwd", "mod", role="attn", anchor=True)]

    def linear_attention(self, kind: str) -> list:
        """Qwen3-Next's gated DeltaNet token mixer (flash-linear-attention triton kernels): the anchor is the
        gated delta rule kernel, chunked for prefill, recurrent for decode."""
        if kind == "decode":
            return [K("_causal_conv1d_update_kernel", 3, "vllm::causal_conv1d_update", "mod", role="none"),
                    K("fused_gdn_gating_kernel", 2, "vllm::fused_gdn_gating", "mod", role="none"),
                    K("fused_recurrent_gated_delta_rule_fwd_kernel", 8, "vllm::gdn_attention", "mod", role="lin",
                      anchor=True),
                    K("layer_norm_fwd_kernel", 3, "vllm::gated_rmsnorm", "mod", role="none")]
        return [K("causal_conv1d_fwd_kernel", 5, "vllm::causal_conv1d_fn", "mod", role="none"),
                K("fused_gdn_gating_kernel", 2, "vllm::fused_gdn_gating", "mod", role="none"),
                K("chunk_local_cumsum_scalar_kernel", 2, "vllm::gdn_attention", "mod", role="none"),
                K("chunk_scaled_dot_kkt_fwd_kernel", 4, "vllm::gdn_attention", "mod", role="none"),
                K("solve_tril_16x16_kernel", 3, "vllm::gdn_attention", "mod", role="none"),
                K("recompute_w_u_fwd_kernel", 4, "vllm::gdn_attention", "mod", role="none"),
                K("chunk_gated_delta_rule_fwd_kernel_h_blockdim64", 12, "vllm::gdn_attention", "mod", role="lin",
                  anchor=True),
                K("chunk_fwd_kernel_o", 6, "vllm::gdn_attention", "mod", role="none"),
                K("layer_norm_fwd_kernel", 3, "vllm::gated_rmsnorm", "mod", role="none")]

    def act(self) -> list:
        if self.a.stack == "hf":
            return [K(_ELEM["silu"], 3, "aten::silu"), K(_ELEM["mul_bf16"], 3, "aten::mul")]
        if self.nv:
            return [K("void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, &(silu(float const&))>("
                      "__nv_bfloat16*, __nv_bfloat16 const*, int)", 3, "sgl_kernel::silu_and_mul")]
        return [K("_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_"
                  "EEEEvPS3_PS4_i", 3, "sgl_kernel::silu_and_mul")]

    def residual(self) -> list:
        return [K(_ELEM["add_bf16"], 2, "aten::add")] if self.a.stack == "hf" else []

    def allreduce(self) -> list:
        if self.a.tp == 1:
            return []
        if not self.custom_allreduce:
            return [K("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 9,
                      "c10d::allreduce_", role="none", scales=False)]
        dt = "__nv_bfloat16" if self.nv else "__hip_bfloat16"
        ns = "vllm" if self.nv else "aiter"
        return [K(f"void {ns}::cross_device_reduce_1stage<{dt}, {self.a.tp}>({ns}::RankData*, {ns}::RankSignals, "
                  f"{ns}::Signal*, {dt}*, int, int)", 6, "vllm::all_reduce", role="none", scales=False)]

    def moe(self) -> list:
        """A MoE FFN: router GEMM, top-k, token sort / permute, two expert grouped GEMMs, combine."""
        if self.nv and self.a.family == "moe_first_dense":
            out = [self.gemm("router"),
                   K("void biased_grouped_topk_kernel<__nv_bfloat16, 8, 256, 8, 4>(...)", 4,
                     "sgl_kernel::biased_grouped_topk"),
                   K("void moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int, int, int, "
                     "unsigned long, int*)", 4, "sgl_kernel::moe_align_block_size"),
                   K("void deep_gemm::fp8_gemm_kernel<7168u, 4096u, 128u, 128u, 128u, 256u, 1u, 4u, 128u, 1u, "
                     "(deep_gemm::GemmType)1>(__nv_bfloat16*, float*, int*, unsigned int, CUtensorMap, CUtensorMap, "
                     "CUtensorMap, CUtensorMap)", 60, "sgl_kernel::m_grouped_gemm_fp8", role="gemm"),
                   *self.act(),
                   K("void deep_gemm::fp8_gemm_kernel<2048u, 7168u, 128u, 128u, 128u, 256u, 1u, 4u, 128u, 1u, "
                     "(deep_gemm::GemmType)1>(__nv_bfloat16*, float*, int*, unsigned int, CUtensorMap, CUtensorMap, "
                     "CUtensorMap, CUtensorMap)", 40, "sgl_kernel::m_grouped_gemm_fp8", role="gemm"),
                   K("void moe_sum_reduce_kernel<__nv_bfloat16, 8>(...)", 4, "sgl_kernel::moe_sum_reduce")]
        elif self.nv:
            out = [self.gemm("router"),
                   K("void vllm::moe::topkGatingSoftmax<4, 128, 4, 16, 32, int, float>(float const*, bool const*, "
                     "float*, int, int*, int*, int, int, int)", 4, "_moe_C::topk_softmax"),
                   K("void vllm::moe::moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int, int, "
                     "int, unsigned long, int*)", 4, "_moe_C::moe_align_block_size"),
                   K("fused_moe_kernel", 60, "vllm::fused_moe", "mod", role="gemm"),
                   *self.act(),
                   K("fused_moe_kernel", 35, "vllm::fused_moe", "mod", role="gemm"),
                   K("void vllm::moe::moe_sum_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16 const*, int)",
                     3, "_moe_C::moe_sum")]
        elif self.a.attention == "unified":
            out = [self.gemm("router"),
                   K("_topk_forward", 4, "vllm::moe_forward", "mod"),
                   K("_combined_routing_compute", 3, "vllm::moe_forward", "mod"),
                   K("_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", 60, "vllm::moe_forward", "mod",
                     role="gemm", fused_act=True),
                   K("_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1", 35, "vllm::moe_forward", "mod", role="gemm"),
                   K("_finalize_matmul_scatter_bf16", 4, "vllm::moe_forward", "mod")]
        else:
            gemm = ("void ck::kernel_moe_gemm<ck::GridwiseMoeGemm<ck::tensor_layout::gemm::RowMajor, "
                    "ck::tensor_layout::gemm::ColumnMajor, ck::tensor_layout::gemm::RowMajor, __hip_bfloat16, "
                    "__hip_bfloat16, float, __hip_bfloat16, {}, 256, 32, 128, 128, 16, 16, 16, 16, 1, 2, "
                    "(ck::BlockGemmPipelineVersion)0> "
                    ">(ck::GridwiseMoeGemm<...>::Argument)")
            out = [self.gemm("router"),
                   K("aiter::topksoftmax_4x128x8_bf16", 4, "aiter::topk_softmax", "mod"),
                   K("void ck_tile::kentry<2, ck_tile::MoeSortingKernel<ck_tile::MoeSortingProblemEx<int, float, 1, "
                     "true, false, true, 0> > >(ck_tile::MoeSortingKernel<...>::Kargs)", 8, "aiter::moe_sorting"),
                   K(gemm.format("true"), 130, "aiter::ck_moe_stage1", role="gemm", fused_act=True),
                   K(gemm.format("false"), 66, "aiter::ck_moe_stage2", role="gemm")]
        if self.a.shared_experts:
            out += [self.gemm("shared"), *self.act(), self.gemm("down")]
        return out

    def embedding(self) -> list:
        return [K("void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, "
                  "2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::"
                  "TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned "
                  "int>, int, int, unsigned int, unsigned int, long)", 6, "aten::embedding")]

    def prepare(self) -> list:
        """A serving step's input preparation before the forward (positions, KV indices, copies)."""
        out = [K("void at::native::(anonymous namespace)::elementwise_kernel_with_index<int, at::native::"
                 "arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::"
                 "{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#1}>(int, ...)", 2,
                 "aten::arange", scales=False),
               K(_ELEM["copy"], 2, "aten::copy_", scales=False)]
        if self.a.stack == "sglang":
            out += [K("compute_position_kernel", 2, "sgl_kernel::compute_position", "mod", scales=False),
                    K("create_flashinfer_kv_indices_triton", 3, "triton", "mod", scales=False)]
        return out

    def logits(self) -> list:
        return [K("void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16tofloat32_copy_kernel_cuda("
                  "at::TensorIteratorBase&)::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, ...)", 5,
                  "aten::to")]

    def sampling(self) -> list:
        out = [K("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::"
                 "(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)", 6, "aten::softmax",
                 scales=False)]
        if self.nv and self.a.stack == "sglang":
            out.append(K("void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024u, (cub::CUB_200200_800_NS::"
                         "BlockScanAlgorithm)2, (cub::CUB_200200_800_NS::BlockReduceAlgorithm)0, 4u, false, float, "
                         "int>(float*, int*, float*, float*, int*, unsigned int, float, unsigned int, unsigned long, "
                         "unsigned long)", 8, "sgl_kernel::top_k_top_p_sampling_from_probs", scales=False))
        else:
            out.append(K("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::"
                         "ArgMaxOps<float>, unsigned int, long, 4, 4> >(at::native::ReduceOp<float, at::native::"
                         "ArgMaxOps<float>, unsigned int, long, 4, 4>)", 5, "aten::argmax", scales=False))
        return out

    def loss(self) -> list:
        return [K(_ELEM["copy"], 8, "aten::to"),
                K("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::"
                  "(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)", 30,
                  "aten::_log_softmax"),
                K("void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>("
                  "float*, float*, float const*, long const*, float const*, bool, long, long, long, long)", 4,
                  "aten::nll_loss_forward")]

    def send_recv(self) -> K:
        return K("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", 15, "nccl:send", role="none",
                 scales=False)

    # the backward pass
    def attention_backward(self, fwd: K) -> list:
        if fwd.role == "lin":
            return [K("chunk_gated_delta_rule_bwd_kernel_dhu_blockdim64", 20, "ChunkGatedDeltaRuleFunctionBackward",
                      "mod", anchor=True),
                    K("chunk_bwd_kernel_dqkwg", 12, "ChunkGatedDeltaRuleFunctionBackward", "mod"),
                    K("chunk_bwd_kernel_dv_local", 8, "ChunkGatedDeltaRuleFunctionBackward", "mod")]
        if self.nv and self.a.attention == "memeff":
            return [K("fmha_cutlassB_bf16_aligned_64x64_k128_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<"
                      "cutlass::arch::Sm80, cutlass::bfloat16_t, true, false, true, 64, 64, 128, false>::Params)", 30,
                      "aten::_efficient_attention_backward", anchor=True)]
        if self.nv:
            t = ("Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
                 "Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >")
            return [K(f"void pytorch_flash::flash_bwd_dot_do_o_kernel<true, {t}>(pytorch_flash::Flash_bwd_params)", 3,
                      "aten::_flash_attention_backward"),
                    K(f"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<{t}, false, true, false, "
                      f"false, false, true, false, false>(pytorch_flash::Flash_bwd_params)", 30,
                      "aten::_flash_attention_backward", anchor=True),
                    K(f"void pytorch_flash::flash_bwd_convert_dq_kernel<{t}>(pytorch_flash::Flash_bwd_params, int)", 3,
                      "aten::_flash_attention_backward")]
        return [K("_ZN7ck_tile6kentryILi1ENS_22FmhaBwdOGradDotOKernelINS_32BlockFmhaBwdOGradDotOPipelineProblemIDF16b"
                  "DF16bfLb1ELb0EEEEEEvT0_", 3, "aten::_efficient_attention_backward"),
                K("_ZN7ck_tile6kentryILi1ENS_19FmhaBwdDQDKDVKernelINS_34BlockFmhaBwdDQDKDVPipelineKRKTRVRProblemIDF16b"
                  "DF16bDF16bfffDF16bDF16bDF16bDF16bDF16bEEEEEEvT0_", 32, "aten::_efficient_attention_backward",
                  anchor=True),
                K("_ZN7ck_tile6kentryILi1ENS_25FmhaBwdConvertQGradKernelINS_36BlockFmhaBwdConvertQGradPipelineProblem"
                  "IfDF16bLb1ELb0EEEEEEvT0_", 3, "aten::_efficient_attention_backward")]

    def elementwise_backward(self, fwd: K) -> K:
        for word, name in (("silu", "silu_backward_kernel"), ("pow", "pow_backward_kernel"),
                           ("rsqrt", "rsqrt_backward_kernel")):
            if word in fwd.op:
                return K(_AT + f"vectorized_elementwise_kernel<4, at::native::{name}(at::TensorIteratorBase&)::"
                               f"{{lambda()#1}}::operator()() const::{{lambda(float, float)#1}}, "
                               f"std::array<char*, 3ul> >(int, ..., std::array<char*, 3ul>)", fwd.us, fwd.op)
        return K(fwd.name, fwd.us, fwd.op)


_BACKWARD_NODE = {"aten::addmm": "AddmmBackward0", "aten::mm": "MmBackward0", "aten::silu": "SiluBackward0",
                  "aten::mul": "MulBackward0", "aten::add": "AddBackward0", "aten::pow": "PowBackward0",
                  "aten::mean": "MeanBackward1", "aten::rsqrt": "RsqrtBackward0", "aten::to": "ToCopyBackward0",
                  "aten::neg": "NegBackward0", "aten::cat": "CatBackward0", "aten::embedding": "EmbeddingBackward0",
                  "aten::_scaled_dot_product_flash_attention": "ScaledDotProductFlashAttentionBackward0",
                  "aten::_scaled_dot_product_efficient_attention": "ScaledDotProductEfficientAttentionBackward0"}


# ---- the model --------------------------------------------------------------------------------------------

class Model:
    """The model's module tree for one step kind, built once per kind with the same instance numbers (the
    nn.Module frames of a real trace name the same instances pass after pass)."""

    PREFIX = {"dense": "Qwen2", "moe": "Qwen3Moe", "moe_first_dense": "DeepseekV3", "alternating": "GptOss",
              "hybrid": "Qwen3Next"}

    def __init__(self, arch: Arch, names: Names):
        self.a, self.n = arch, names
        self.p = self.PREFIX[arch.family]
        if arch.family == "alternating" and arch.local_per_global > 1:
            self.p = "Gemma3"
        self.serving = arch.stack != "hf"
        self._trees = {}

    def layer_kind(self, i: int) -> str:
        a = self.a
        if a.family == "hybrid":
            return "full" if i % 4 == 3 else "linear"
        if a.family == "alternating":
            return "global" if i % (a.local_per_global + 1) == a.local_per_global else "local"
        return "attn"

    def ffn_kind(self, i: int) -> str:
        if self.a.family in ("moe", "hybrid") or self.a.family == "moe_first_dense" and i >= self.a.first_dense:
            return "moe"
        return "mlp"

    def _lin(self, role, cls=None) -> M:
        cls = cls or ("Linear" if not self.serving else
                      {"qkv": "QKVParallelLinear", "o": "RowParallelLinear", "gate_up": "MergedColumnParallelLinear",
                       "down": "RowParallelLinear", "router": "ReplicatedLinear",
                       "shared": "MergedColumnParallelLinear", "lm_head": "ParallelLMHead"}.get(role,
                                                                                                "ColumnParallelLinear"))
        return M(cls, [self.n.gemm(role)])

    def attention_block(self, i, kind) -> M:
        n, lk = self.n, self.layer_kind(i)
        if lk == "linear":
            return M(f"{self.p}GatedDeltaNet", [self._lin("qkv"), *n.linear_attention(kind), self._lin("o")])
        sliding = None if lk in ("attn", "full") else (lk == "local")
        if self.a.family == "alternating" and self.a.local_per_global == 1:
            sliding = i % 2 == 0
        if self.serving:
            inner = M("RadixAttention" if self.a.stack == "sglang" else "Attention",
                      [*n.kv_write(), *n.attention(kind, sliding)])
            parts = [self._lin("qkv"), M("RotaryEmbedding", n.rope()), inner, self._lin("o"), *n.allreduce()]
        elif self.a.family == "moe_first_dense":
            parts = [self._lin("q_a"), M(f"{self.p}RMSNorm", n.norm()), self._lin("q_b"), self._lin("kv_a"),
                     M(f"{self.p}RMSNorm", n.norm()), self._lin("kv_b"), *n.rope(), *n.attention(kind, sliding),
                     self._lin("o")]
        else:
            parts = [self._lin("qkv", "Linear"), *n.rope(), *n.attention(kind, sliding), self._lin("o", "Linear")]
        if self.a.family == "hybrid":   # Qwen3-Next's full attention is gated: a sigmoid gate on its output
            parts.insert(-1, K(_ELEM["sigmoid"], 2, "aten::sigmoid"))
        cls = f"{self.p}Attention" if not (self.serving and self.a.family == "moe_first_dense") else \
            f"{self.p}AttentionMLA"
        return M(cls, parts)

    def ffn_block(self, i) -> M:
        n = self.n
        if self.ffn_kind(i) == "moe":
            experts = n.moe()
            return M(f"{self.p}SparseMoeBlock", [M("FusedMoE" if self.serving else f"{self.p}Experts", experts)])
        act = M("SiluAndMul" if self.serving else "SiLU", n.act())
        return M(f"{self.p}MLP", [self._lin("gate_up"), act, self._lin("down"), *n.allreduce()])

    def layer(self, i, kind) -> M:
        n = self.n
        norm_cls = "RMSNorm" if self.serving else f"{self.p}RMSNorm"
        return M(f"{self.p}DecoderLayer", [M(norm_cls, n.norm(first=i == 0)), self.attention_block(i, kind),
                                           *n.residual(), M(norm_cls, n.norm()), self.ffn_block(i), *n.residual()],
                 layer=i)

    def tree(self, kind: str, first=True, last=True) -> M:
        """The forward pass of a step of `kind`: the model (embedding when `first`, the layers, the final norm
        when `last`) and, when `last`, the lm_head; numbered once per kind."""
        key = (kind, first, last)
        if key not in self._trees:
            inner = [M("VocabParallelEmbedding" if self.serving else "Embedding", self.n.embedding())] if first else []
            inner += [self.layer(i, kind) for i in range(self.a.layers)]
            if last:
                inner.append(M("RMSNorm" if self.serving else f"{self.p}RMSNorm", self.n.norm()))
            top = M(f"{self.p}Model", inner)
            model = M(f"{self.p}ForCausalLM", [top] + ([self._lin("lm_head", "ParallelLMHead" if self.serving
                                                                   else "Linear")] if last else []))
            counters = {}

            def number(m):
                m.index = counters.get(m.cls, 0)
                counters[m.cls] = m.index + 1
                for c in m.children:
                    if isinstance(c, M):
                        number(c)
            number(model)
            self._trees[key] = model
        return self._trees[key]


def flatten(node) -> list:
    if isinstance(node, K):
        return [node]
    return [k for c in node.children for k in flatten(c)]


def flatten_layers(node, layer=None) -> list:
    """(kernel, model layer) of every kernel of a tree, in order: the layer of the nearest decoder layer
    around it, None outside every layer (embedding, final norm, lm_head)."""
    if isinstance(node, K):
        return [(node, layer)]
    layer = node.layer if node.layer is not None else layer
    return [kl for c in node.children for kl in flatten_layers(c, layer)]


def gradient_layers(tree, layers: int) -> list:
    """(kernel, the model layer its backward kernels are the gradient work of) of every kernel of a forward
    tree, in forward order: its own layer, except the residual add that closes a decoder layer (HF eager).
    PyTorch's AddBackward0 launches no kernel; the add a backward runs at that place, between the input norm
    gradient of layer i + 1 and layer i's MLP gradient, is the autograd engine accumulating the two gradients
    of layer i + 1's input (its input norm's and its residual's), launched as that norm's gradient ends:
    layer i + 1's work (above the top layer, the final norm's: no layer's)."""
    kl = flatten_layers(tree)
    out = []
    for j, (k, layer) in enumerate(kl):
        closes = layer is not None and (j + 1 == len(kl) or kl[j + 1][1] != layer)
        if closes and k.op == "aten::add":
            layer = layer + 1 if layer + 1 < layers else None
        out.append((k, layer))
    return out


# ---- the trace --------------------------------------------------------------------------------------------

class Trace:
    """Host threads (a cursor each, µs) and one GPU stream; events appended as they are made."""

    def __init__(self, arch: Arch, rng: random.Random):
        self.a, self.rng = arch, rng
        self.nv = arch.vendor == "nvidia"
        self.events = []
        self.host = {MAIN_TID: 1000.0, BWD_TID: 0.0}
        self.tid = MAIN_TID
        self.dev = 1000.0
        self.corr = 80_000
        self.ext = 500_000
        self.kernels = []     # (start, end, K, pass index) of every kernel on the stream
        self.pass_index = None
        self.scale = 1.0

    # raw events
    def _x(self, cat, name, ts, dur, pid=HOST_PID, tid=None, **args):
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": self.tid if tid is None else tid,
                            "ts": round(ts, 3), "dur": round(max(dur, 0.001), 3), "args": args})

    def jitter(self, us: float, spread=0.08) -> float:
        return us * max(0.5, self.rng.gauss(1.0, spread))

    def advance(self, us: float):
        self.host[self.tid] += us

    @property
    def now(self) -> float:
        return self.host[self.tid]

    @contextmanager
    def frame(self, cat, name, gpu=False, **args):
        """A host range (python_function, user_annotation, cpu_op) over what runs inside; gpu: also a
        gpu_user_annotation over the kernels that run inside."""
        self.advance(self.jitter(0.8, 0.3))
        start, first = self.now, len(self.kernels)
        yield
        self.advance(self.jitter(0.6, 0.3))
        self.ext += 1
        self._x(cat, name, start, self.now - start, **args, **({"External id": self.ext} if cat != "python_function"
                                                                else {}))
        if gpu and len(self.kernels) > first:
            begin, end = self.kernels[first][0], max(k[1] for k in self.kernels[first:])
            self._x("gpu_user_annotation", name, begin, end - begin, pid=GPU_PID, tid=STREAM,
                    **{"External id": self.ext})

    def _kernel(self, k: K, start: float, corr: int, ext=None) -> float:
        dur = self.jitter(k.us * (self.scale if k.scales else 1.0))
        args = {"device": 0, "stream": STREAM, "correlation": corr, "grid": [132, 1, 1], "block": [256, 1, 1]}
        if ext is not None and self.nv:
            args["External id"] = ext
        if not self.nv:
            args["kind"] = "Dispatch Kernel"
        self._x("kernel", k.name, start, dur, pid=GPU_PID, tid=STREAM, **args)
        self.kernels.append((start, start + dur, k, self.pass_index))
        self.dev = start + dur
        return dur

    def api_name(self, k: K) -> str:
        if self.nv:
            return {"rt": "cudaLaunchKernel", "ex": "cudaLaunchKernelExC", "mod": "cuLaunchKernel"}[k.api]
        return {"rt": "hipLaunchKernel", "ex": "hipExtModuleLaunchKernel", "mod": "hipModuleLaunchKernel"}[k.api]

    def launch(self, k: K, hiccup=0.0):
        """One eager launch: the cpu_op, inside it the runtime call, the kernel once the stream is free."""
        self.advance(self.jitter(3.0, 0.4) + hiccup)      # Python between ops (and a host sync, sometimes)
        self.ext += 1
        op_start = self.now
        self.advance(self.jitter(4.0, 0.3))
        at, api_dur = self.now, self.jitter(4.0, 0.3)
        self.corr += 1
        self._x("cuda_runtime", self.api_name(k), at, api_dur, correlation=self.corr, **{"External id": self.ext})
        self.advance(api_dur + self.jitter(1.0, 0.3))
        self._x("cpu_op", k.op, op_start, self.now - op_start, **{"External id": self.ext})
        start = max(self.dev + self.jitter(1.2, 0.3), at + self.jitter(5.0, 0.2))
        self._kernel(k, start, self.corr, self.ext)

    def graph(self, ks: list, hiccups: dict):
        """One graph launch for the kernels `ks`: one runtime call, every kernel with its correlation, back to
        back on the stream (a hiccup: a longer wait before kernel i)."""
        self.advance(self.jitter(6.0, 0.3))
        at, dur = self.now, self.jitter(25.0, 0.3)
        self.corr += 1
        self._x("cuda_runtime", "cudaGraphLaunch" if self.nv else "hipGraphLaunch", at, dur, correlation=self.corr)
        self.advance(dur)
        t = max(self.dev + self.jitter(2.0, 0.3), at + self.jitter(12.0, 0.2))
        for i, k in enumerate(ks):
            t += hiccups.get(i, 0.0)
            d = self._kernel(k, t, self.corr)
            t += d + self.jitter(1.0, 0.3)

    def wait_device(self):
        """The host blocks until the stream is idle (a sync: sampling's token ids copied back)."""
        self.advance(self.jitter(3.0, 0.3))
        at = self.now
        end = max(at + 2.0, self.dev + 3.0)
        self.corr += 1
        self._x("cuda_runtime", "cudaStreamSynchronize" if self.nv else "hipStreamSynchronize", at, end - at,
                correlation=self.corr)
        self.host[self.tid] = end

    def document(self) -> dict:
        head = [{"ph": "M", "name": "process_name", "pid": HOST_PID, "tid": 0, "args": {"name": "python3"}},
                {"ph": "M", "name": "process_labels", "pid": HOST_PID, "tid": 0, "args": {"labels": "CPU"}},
                {"ph": "M", "name": "thread_name", "pid": HOST_PID, "tid": MAIN_TID,
                 "args": {"name": f"thread {MAIN_TID} (python3)"}},
                {"ph": "M", "name": "process_name", "pid": GPU_PID, "tid": 0, "args": {"name": "python3"}},
                {"ph": "M", "name": "process_labels", "pid": GPU_PID, "tid": 0, "args": {"labels": "GPU 0"}},
                {"ph": "M", "name": "thread_name", "pid": GPU_PID, "tid": STREAM,
                 "args": {"name": f"stream {STREAM} "}}]
        if any(e.get("tid") == BWD_TID for e in self.events):
            head.append({"ph": "M", "name": "thread_name", "pid": HOST_PID, "tid": BWD_TID,
                         "args": {"name": f"thread {BWD_TID} (pt_autograd_0)"}})
        dev = ({"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
                "warpSize": 32} if self.nv else
               {"id": 0, "name": "AMD Instinct MI300X", "computeMajor": 9, "computeMinor": 4, "numSms": 304,
                "warpSize": 64})
        doc = {"schemaVersion": 1, "deviceProperties": [dev],
               "distributedInfo": {"backend": "nccl", "rank": self.a.stage, "world_size": self.a.tp * self.a.stages},
               "with_stack": 1, "record_shapes": 1, "displayTimeUnit": "ms", "baseTimeNanoseconds": BASE_NS,
               "traceEvents": head + self.events, "traceName": f"zoo_{self.a.seed}.pt.trace.json"}
        if self.nv:
            doc.update({"cuda_runtime_version": 12080, "cupti_version": 26})
        else:
            doc.update({"roctracer_version": 4.1, "hip_runtime_version": 70253211})
        return doc


# ---- building the trace -----------------------------------------------------------------------------------

# vLLM splits its piecewise graphs at these ops: attention (KV-cache write included) runs eagerly between pieces
PIECEWISE_SPLIT = {"vllm::unified_attention_with_output", "vllm::gdn_attention",
                   "_C_cache_ops::reshape_and_cache_flash"}

class Builder:
    def __init__(self, arch: Arch):
        self.a = arch
        self.rng = random.Random(arch.seed * 7919 + 17)
        self.n = Names(arch, self.rng)
        self.model = Model(arch, self.n)
        self.t = Trace(arch, self.rng)
        self.passes = []        # per forward pass: {"step": Step, "annotated": bool}
        self.backward = 0
        self.backward_layers = []   # per backward pass: the model layer of each kernel it launches (None: none)
        self.backward_first = []    # per backward pass: how many kernels ran before it
        self.profiler_step = self.rng.randint(1, 40)
        # the host's time between steps (a serving scheduler; transformers' generate loop: logits processors,
        # stopping criteria, cache and input updates, slowed by the profiler's Python tracing)
        self.idle = self.rng.uniform(250.0, 2500.0) if arch.stack != "hf" else self.rng.uniform(500.0, 3000.0)
        self.hiccup_p = self.rng.choice((0.0, 0.02, 0.05))
        self.layer_us = 100.0

    def hiccup(self, replay=False) -> float:
        """Now and then a longer wait before an anchor, well under the idle time between steps: in an eager
        run the host stalls (a sync, the garbage collector) for a fifth of a layer to one and a half layers;
        a replayed graph has no host in the loop, only a slow kernel or a wait on memory, up to half a layer."""
        if self.rng.random() >= self.hiccup_p:
            return 0.0
        lo, hi = (0.1, 0.5) if replay else (0.2, 1.5)
        return min(self.rng.uniform(lo, hi) * self.layer_us, 0.35 * self.idle)

    def scale_for(self, step: Step) -> float:
        if step.kind in ("prefill", "mixed"):
            return max(1.5, min(80.0, step.tokens / 96.0))
        if step.kind == "decode":
            return 1.0 + step.requests / 128.0
        if step.kind == "train":
            return self.rng.uniform(12.0, 40.0)
        return self.rng.uniform(2.0, 10.0)

    # eager walk of a module tree: frames (when recorded) around cpu_ops and launches
    def run_eager(self, node, modules: bool):
        if isinstance(node, K):
            self.t.launch(node, self.hiccup() if node.anchor else 0.0)
            return
        if modules:
            with self.t.frame("python_function", f"nn.Module: {node.cls}_{node.index}"):
                for c in node.children:
                    self.run_eager(c, modules)
        elif self.a.layer_ranges and node.layer is not None:
            with self.t.frame("user_annotation", f"model.layers.{node.layer}"):
                for c in node.children:
                    self.run_eager(c, modules)
        else:
            for c in node.children:
                self.run_eager(c, modules)

    def run_graph(self, node):
        ks = flatten(node)
        hic = {i: self.hiccup(replay=True) for i, k in enumerate(ks) if k.anchor}
        self.t.graph(ks, {i: h for i, h in hic.items() if h})

    def run_piecewise(self, node, modules: bool):
        """vLLM piecewise graphs: a graph per stretch between attention ops, the attention launched eagerly."""
        piece, n = [], 0

        def flush():
            nonlocal piece, n
            if piece:
                if modules:
                    with self.t.frame("python_function", f"nn.Module: GraphModule_{n}"):
                        self.t.graph(piece, {})
                else:
                    self.t.graph(piece, {})
                n += 1
                piece = []

        ks = flatten(node)
        i = 0
        while i < len(ks):
            k = ks[i]
            if k.op in PIECEWISE_SPLIT or k.role in ("attn", "lin"):
                flush()
                self.t.launch(k, self.hiccup() if k.anchor else 0.0)
            else:
                piece.append(k)
            i += 1
        flush()

    def forward(self, step: Step, launch: str, first=True, last=True):
        tree = self.model.tree(step.kind if step.kind in ("prefill", "decode", "mixed") else
                               ("prefill" if step.kind == "train" else "decode"), first, last)
        self.t.scale = self.scale_for(step)
        ks = flatten(tree)
        per_kernel = 14.0 if launch == "eager" else 1.0     # host launch overhead bounds an eager stream
        self.layer_us = sum(max(k.us * (self.t.scale if k.scales else 1.0), per_kernel) for k in ks) / self.a.layers
        modules = self.a.modules
        if launch == "eager":
            self.run_eager(tree, modules)
        elif launch == "graph":
            self.run_graph(tree)      # a replay calls no module: no frame around it
        else:
            self.run_piecewise(tree, modules)

    def serving_annotation(self, step: Step, i: int):
        a = self.a.annotation
        if step.kind == "prefill":
            sg = f"step[EXTEND bs={step.requests} toks={step.tokens}]"
        elif step.kind == "decode":
            sg = f"step[DECODE bs={step.requests}]"
        else:
            sg = f"step[MIXED bs={step.requests} toks={step.tokens}]"
        n, m = step.n_context, step.n_generation
        ctx_tokens = step.tokens - m
        kv = self.rng.randint(1000, 9000)
        sq = ctx_tokens * 97       # vLLM prints sums of squared lengths; any plausible number does here
        vl = (f"execute_{step.tokens}_context_{n}(sq{ctx_tokens}sk{ctx_tokens}sqsq{sq}sqsk{sq})"
              f"_generation_{m}(sq{m}sk{m * kv}sqsq{m}sqsk{m * kv})")
        old = f"execute_context_{n}({ctx_tokens}_{sq})_generation_{m}({m}_{m})"
        return {"sglang": (None, sg), "sglang_execute": (vl, sg), "vllm": (vl, None), "vllm_old": (old, None)}.get(a)

    def serving_step(self, i: int, step: Step):
        a, t = self.a, self.t
        launch = a.launch_of(step)
        outer, inner = self.serving_annotation(step, i) or (None, None)
        self.passes.append({"step": step, "annotated": outer is not None or inner is not None})
        t.pass_index = len(self.passes) - 1

        def body():
            for k in self.n.prepare():
                t.launch(k)
            if inner:
                with t.frame("user_annotation", inner, gpu=True):
                    self.forward(step, launch)
            else:
                self.forward(step, launch)
            self.sample()

        if a.annotation == "profiler_step":
            with t.frame("user_annotation", f"ProfilerStep#{self.profiler_step + i}", gpu=True):
                body()
        elif outer:
            with t.frame("user_annotation", outer, gpu=True):
                body()
        else:
            body()
        t.wait_device()
        t.advance(self.rng.uniform(0.8, 1.25) * self.idle)

    def sample(self):
        t, modules = self.t, self.a.modules
        ks = self.n.logits() + self.n.sampling()
        t.scale = 1.0
        if modules:
            with t.frame("python_function", "nn.Module: LogitsProcessor_0"):
                t.launch(ks[0])
            with t.frame("python_function", "nn.Module: Sampler_0"):
                for k in ks[1:]:
                    t.launch(k)
        else:
            for k in ks:
                t.launch(k)

    def pipeline_step(self):
        a, t = self.a, self.t
        first, last = a.stage == 0, a.stage == a.stages - 1
        send = self.n.send_recv()
        recv = dataclasses.replace(send, op="nccl:recv", us=self.rng.uniform(20, 200))

        def body():
            for mb, step in enumerate(a.steps):
                self.passes.append({"step": step, "annotated": False})
                t.pass_index = len(self.passes) - 1
                if not first:
                    t.launch(recv)
                self.forward(step, "eager", first=first, last=last)
                if last:
                    self.sample()
                else:
                    t.launch(send)
                t.advance(self.rng.uniform(5.0, 40.0))   # the schedule's bookkeeping between micro-batches

        if a.annotation == "profiler_step":
            with t.frame("user_annotation", f"ProfilerStep#{self.profiler_step}", gpu=True):
                body()
        else:
            body()
        t.wait_device()
        t.advance(self.idle)

    def train_step(self, i: int):
        a, t = self.a, self.t

        def body():
            for _ in range(a.micro_batches):
                step = Step("train")
                self.passes.append({"step": step, "annotated": False})
                t.pass_index = len(self.passes) - 1
                self.forward(step, "eager")
                t.scale = self.scale_for(step)
                for k in self.n.loss():
                    t.launch(k)
                self.backward_pass()
            self.optimizer()

        if a.annotation == "profiler_step":
            with t.frame("user_annotation", f"ProfilerStep#{self.profiler_step + i}", gpu=True):
                body()
        else:
            body()
        t.wait_device()
        t.advance(self.idle)

    def backward_pass(self):
        """loss.backward(): the autograd engine's thread runs each node's backward, last layer first, each
        kernel launched inside autograd::engine::evaluate_function: <Node>Backward0 > <Node>Backward0."""
        t, n = self.t, self.n
        t.pass_index = None
        self.backward += 1
        layers = []
        self.backward_layers.append(layers)
        self.backward_first.append(len(t.kernels))   # a training capture is never cut: nothing drops a kernel
        main = t.tid
        with t.frame("cpu_op", "autograd::engine::evaluate_function: torch::autograd::GraphRoot"):
            pass
        t.host[BWD_TID] = t.now + 2.0
        t.tid = BWD_TID
        tree = self.model.tree("prefill")
        # the loss's backward first (no layer's), then the forward kernels in reverse, each backward kernel in
        # its forward kernel's model layer (gradient_layers)
        head = [K("void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>("
                  "float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)", 4,
                  "aten::nll_loss_backward"),
                K("void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::"
                  "(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)", 30,
                  "aten::_log_softmax_backward_data")]
        for k in head:
            node = "NllLossBackward0" if "nll" in k.op else "LogSoftmaxBackward0"
            with t.frame("cpu_op", f"autograd::engine::evaluate_function: {node}"):
                with t.frame("cpu_op", node):
                    t.launch(k)
                    layers.append(None)
        for k, layer in reversed(gradient_layers(tree, self.a.layers)):
            if k.fused_act:
                # an expert GEMM that fused the SiLU-and-mul into its epilogue (aiter's ck_moe_stage1) is an
                # inference kernel with no backward; a training run computes the same function with autograd
                # (transformers' experts: Linear, SiLU, mul), whose SiluBackward0 runs before the gate-up
                # projection's gradient GEMMs
                act = n.elementwise_backward(K(_ELEM["silu"], 3, "aten::silu"))
                with t.frame("cpu_op", "autograd::engine::evaluate_function: SiluBackward0"):
                    with t.frame("cpu_op", "SiluBackward0"):
                        t.launch(act)
                        layers.append(layer)
            if k.role in ("attn", "lin"):
                node = _BACKWARD_NODE.get(k.op, "FlashAttentionBackward0" if k.role == "attn" else
                                          "ChunkGatedDeltaRuleFunctionBackward")
                bks = n.attention_backward(k)
            elif k.role == "gemm":
                node = _BACKWARD_NODE.get(k.op, "MmBackward0")
                bks = [n.gemm(k.proj, "dgrad"), n.gemm(k.proj, "wgrad")]
                for b in bks:
                    b.us = k.us * 1.1
            elif k.role == "none":
                continue               # fused into its neighbour's backward
            else:
                node = _BACKWARD_NODE.get(k.op, "MulBackward0")
                bks = [n.elementwise_backward(k)]
            with t.frame("cpu_op", f"autograd::engine::evaluate_function: {node}"):
                with t.frame("cpu_op", node):
                    for b in bks:
                        t.launch(b, self.hiccup() if b.anchor else 0.0)
                        layers.append(layer)
        t.tid = main
        t.host[main] = max(t.host[main], t.host[BWD_TID]) + 2.0

    def optimizer(self):
        t = self.t
        t.scale = 1.0
        adam = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
                "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4, "
                "(at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float "
                "const*, float const*>(at::native::(anonymous namespace)::TensorListMetadata<4>, ...)")
        norm = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
                "TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<c10::BFloat16, (at::native::"
                "(anonymous namespace)::NormType)1, float, float>, float*, int>(...)")
        t.advance(self.rng.uniform(20.0, 80.0))
        for _ in range(self.rng.randint(1, 3)):
            t.launch(K(norm, 15, "aten::_foreach_norm", scales=False))
        with t.frame("user_annotation", "Optimizer.step#AdamW.step"):
            for _ in range(self.rng.randint(2, 6)):
                t.launch(K(adam, 40, "aten::_fused_adamw_", scales=False))

    def build(self):
        a = self.a
        if a.workload == "train":
            for i, _ in enumerate(a.steps):
                self.train_step(i)
        elif a.workload == "pipeline":
            self.pipeline_step()
        else:
            for i, step in enumerate(a.steps):
                self.serving_step(i, step)
        return self


# ---- the capture window and the truth ---------------------------------------------------------------------

def _names_say(names) -> str:
    """prefill / decode / mixed when the attention kernels' own names say it (Prefill, Decode; vLLM's 3d
    unified attention runs decode-only batches), else ''."""
    pre = any("Prefill" in n for n in names)
    dec = any("Decode" in n or n == DECODE_ONLY for n in names)
    return "mixed" if pre and dec else "prefill" if pre else "decode" if dec else ""


def _cut(b: Builder):
    """Drop what a capture started late or stopped early would not hold; returns the kept kernels."""
    a, t, rng = b.a, b.t, b.rng
    kernels = t.kernels
    lo, hi = float("-inf"), float("inf")

    def anchors_of(p):
        return [s for s, _, k, q in kernels if q == p and k.anchor]
    if a.cut_start:
        first = anchors_of(0)
        if len(first) >= 2:
            j = rng.randrange(1, len(first))
            lo = (first[j - 1] + first[j]) / 2          # mid-layer: after anchor j-1, before anchor j
    if a.cut_end:
        last = anchors_of(len(b.passes) - 1)
        if len(last) >= 2:
            j = rng.randrange(1, len(last))
            hi = (last[j - 1] + last[j]) / 2
    if lo == float("-inf") and hi == float("inf"):
        return
    keep = []
    for e in t.events:
        if e.get("ph") != "X":
            keep.append(e)
            continue
        s = e["ts"]
        if s < lo or s > hi:
            continue
        if e["cat"] != "kernel" and s + e["dur"] > hi:
            continue      # a range still open when the capture stopped is not written
        keep.append(e)
    t.events = keep
    t.kernels = [k for k in kernels if lo <= round(k[0], 3) <= hi]


def build(arch: Arch):
    """The Kineto trace object of a draw and its Truth."""
    b = Builder(arch).build()
    _cut(b)
    t, a = b.t, arch
    per_pass = {}
    attn_names = {}
    for s, _, k, p in t.kernels:
        if p is None:
            continue
        if k.anchor:
            per_pass[p] = per_pass.get(p, 0) + 1
        if k.role in ("attn", "none") and ("Prefill" in k.name or "Decode" in k.name or k.name == DECODE_ONLY):
            attn_names.setdefault(p, set()).add(k.name)
    forward, kinds, tokens, requests = [], [], [], []
    for p, info in enumerate(b.passes):
        n = per_pass.get(p, 0)
        if not n:
            continue
        step, whole = info["step"], n == a.layers
        forward.append(n)
        if a.workload == "train":
            kinds.append("train")
            tokens.append(None)
            requests.append(None)
        elif info["annotated"] and whole:
            kinds.append(step.kind)
            tokens.append(step.tokens)
            requests.append(step.requests)
        else:
            kinds.append(_names_say(attn_names.get(p, ())))
            tokens.append(None)
            requests.append(None)
    truth = Truth(forward=forward, passes=sum(1 for n in forward if n == a.layers), anchors=a.layers,
                  step_kinds=kinds, tokens=tokens, requests=requests, training=a.workload == "train",
                  backward=[a.layers] * b.backward, backward_layers=b.backward_layers,
                  backward_first=b.backward_first)
    return t.document(), truth


def write(path, seed: int):
    """Draw `seed`, write its trace to `path` (gzipped when the path ends in .gz); returns (arch, truth)."""
    arch = draw(seed)
    doc, truth = build(arch)
    raw = json.dumps(doc, separators=(",", ":")).encode()
    with (gzip.open if str(path).endswith(".gz") else open)(path, "wb") as f:
        f.write(raw)
    return arch, truth


def suffix(arch: Arch) -> str:
    return ".json.gz" if arch.gz else ".json"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python tests/zoo.py SEED [PATH]: write the seed's trace (default zoo_SEED.json) and "
                 "print its draw and truth")
    seed = int(sys.argv[1])
    path = sys.argv[2] if len(sys.argv) > 2 else f"zoo_{seed}{suffix(draw(seed))}"
    arch, truth = write(path, seed)
    print(f"{path}: seed {seed}: {arch.label()}")
    # the backward kernels' layers, one per kernel, summed up: kernels of each layer (None: of none) per pass
    shown = dataclasses.asdict(truth)
    shown["backward_layers"] = [{str(k): p.count(k) for k in dict.fromkeys(p)} for p in truth.backward_layers]
    print(json.dumps(shown))
