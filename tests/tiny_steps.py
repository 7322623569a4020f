"""Tiny synthetic Kineto traces of training and serving schedules, with the segmentation a correct tool gives.

Every builder returns a Kineto trace object ({"traceEvents": ..., "baseTimeNanoseconds": ...}); write(path,
builder, **kw) writes one as JSON. Host thread pid/tid 100, GPU stream pid 0 / tid 7. Each kernel on stream
7 is launched by a cudaLaunchKernel on the host thread 1 µs before it starts (unique correlation id); kernels
are serialised 1 µs apart, more where stated. A kernel's start_ns is BASE_NS + ts x 1000.

A model layer is 9 forward kernels (anchor flash_fwd_kernel) or 13 backward kernels (anchor
flash_bwd_kernel), see FWD_ATTN, FWD_MLP, BWD_MLP, BWD_ATTN. A forward pass is embedding_kernel, the layers,
then the serving tail (rms_norm, gemm_lm_head, softmax, argmax_sample) or training tail (rms_norm,
gemm_lm_head, cross_entropy). A backward pass is the head (cross_entropy_backward, lm_head dgrad and wgrad,
rms_norm_backward), the layers last to first, then embedding_backward_kernel. The optimizer is
ncclDevKernel_AllReduce_Sum_bf16_RING_LL then two multi_tensor_apply_kernel_adam.

Phases (expected_phases): *backward*, *dgrad*, *wgrad*, *bwd* kernels are backward; the AllReduce and
Adam kernels optimizer; a pipeline ncclDevKernel_SendRecv takes the phase of the pass it follows (it sends
that pass's output); all else forward. Passes (expected_passes): each has L anchors (one per layer).

1. one_f_one_b(layers=4, microbatches=2, steps=2, annotate=True): stage 0 of a 2-stage Megatron pipeline
   (distributedInfo rank 0 of 4, pp 2, dp 2, tp 1). Not the last stage, so no forward tail and no backward
   head: forward pass = embedding + L layers (1 + 9L kernels), backward pass = L layers + embedding_backward
   (13L + 1). Per step, in 1F1B order (one warm-up forward): F0, F1, B0, F2, B1, ..., B(m-1) (m=2: F0 F1
   B0 B1), a SendRecv (15 µs) after every pass but the step's last, 20 µs idle before each next pass and
   before the optimizer. Expected: steps x m forward and steps x m backward passes, L anchors each;
   steps x (2m - 1) SendRecv, forward after a forward pass, backward after a backward pass; 3 optimizer
   kernels per step. ProfilerStep#N on the host and as gpu_user_annotation over the step's kernels; with
   annotate, each forward pass's launches lie in a user_annotation forward_step, backward's in backward_step.
2. dualpipe(layers=4): one forward chunk and one backward chunk of L layers (layers only, no embedding, tail
   or head) interleaved on the stream: for i in 0..L-1, j = L-1-i: forward layer i attention part, backward
   layer j MLP part, forward layer i MLP part, backward layer j attention part. Launch annotations attn(F) /
   mlp(F), attn(B) / mlp(B), and attn(W) / mlp(W) for *_wgrad kernels, all inside ProfilerStep#1 > 1F1B.
   Expected: 1 forward pass (9L kernels, L flash_fwd anchors) and 1 backward pass (13L kernels, L flash_bwd
   anchors) overlapping in time; no optimizer.
3. sequential_training(layers=4, steps=3): per step a forward pass (1 + 9L + 3 kernels), 20 µs idle, a
   backward pass (4 + 13L + 1), 20 µs idle, the optimizer; 50 µs between steps. Only ProfilerStep#N
   annotations. Expected: `steps` forward and `steps` backward passes, L anchors each, 3 optimizer kernels a step.
4. alternating_attention(layers=6, passes=2): serving forward passes (1 + 9L + 4 kernels), attention
   "flash_fwd_kernel_sliding_window<128, true>" in even layers and "flash_fwd_kernel_full<128, false>" in odd
   ones; ProfilerStep#N per pass, 200 µs idle between passes. Expected: `passes` forward passes of L layers
   each (both attention names are anchors: ceil(L/2) sliding + floor(L/2) full); all kernels forward.
5. serving(kind, steps, layers=3): one serving forward pass per step (1 + 9L + 4 kernels), 300 µs idle
   between steps; the step annotation on the host encloses the pass's launches. Expected: len(steps) forward
   passes of L anchors, and per pass expected_serving(kind, steps) = (step_kind, tokens, requests):
   - sglang, steps like "EXTEND bs=2 toks=64", "DECODE bs=4", "MIXED bs=3 toks=40", annotation
     f"step[{s}]": EXTEND -> prefill, tokens = toks; DECODE -> decode, tokens = bs; MIXED -> mixed, tokens =
     toks; requests = bs. Default ("EXTEND bs=2 toks=64", "DECODE bs=4").
   - vllm, steps (tokens, n_context, n_generation), annotation
     execute_<tokens>_context_<n>(sq..sk..sqsq..sqsk..)_generation_<m>(sq..sk..sqsq..sqsk..): tokens =
     <tokens>, requests = n + m, prefill if m == 0, decode if n == 0, else mixed. Default ((64, 2, 0),
     (4, 0, 4), (40, 1, 3)).
   - vllm_old, same steps, annotation execute_context_<n>(<ctx tokens>_<sum sq^2>)_generation_<m>(<m>_<m>):
     tokens = context + generation tokens (= <tokens>), requests = n + m, kind as for vllm.
   - plain, steps "prefill" / "decode" (default ("prefill", "decode", "decode")): only ProfilerStep#N;
     attention BatchPrefillWithPagedKVCacheKernel or BatchDecodeWithPagedKVCacheKernel; step_kind as given,
     tokens and requests None (not recorded).
"""
import itertools
import json
import re
from contextlib import contextmanager, nullcontext

BASE_NS = 1_751_410_836_000_000_000
HOST, GPU, STREAM = 100, 0, 7
GAP, PASS_GAP = 1.0, 20.0

FWD_ATTN = [("rms_norm_kernel", 2), ("gemm_qkv_kernel", 5), ("rotary_kernel", 1), ("flash_fwd_kernel", 6),
            ("gemm_o_kernel", 3)]
FWD_MLP = [("rms_norm_kernel", 2), ("gemm_up_kernel", 6), ("silu_mul_kernel", 1), ("gemm_down_kernel", 5)]
BWD_MLP = [("gemm_down_dgrad_kernel", 5), ("gemm_down_wgrad_kernel", 5), ("silu_mul_backward_kernel", 1),
           ("gemm_up_dgrad_kernel", 6), ("gemm_up_wgrad_kernel", 6), ("rms_norm_backward_kernel", 2)]
BWD_ATTN = [("gemm_o_dgrad_kernel", 3), ("gemm_o_wgrad_kernel", 3), ("flash_bwd_kernel", 12),
            ("rotary_backward_kernel", 1), ("gemm_qkv_dgrad_kernel", 5), ("gemm_qkv_wgrad_kernel", 5),
            ("rms_norm_backward_kernel", 2)]
PROLOGUE = [("embedding_kernel", 2)]
SERVE_TAIL = [("rms_norm_kernel", 2), ("gemm_lm_head_kernel", 40), ("softmax_kernel", 3), ("argmax_sample_kernel", 2)]
TRAIN_TAIL = [("rms_norm_kernel", 2), ("gemm_lm_head_kernel", 40), ("cross_entropy_kernel", 3)]
BWD_HEAD = [("cross_entropy_backward_kernel", 3), ("gemm_lm_head_dgrad_kernel", 40),
            ("gemm_lm_head_wgrad_kernel", 40), ("rms_norm_backward_kernel", 2)]
BWD_END = [("embedding_backward_kernel", 2)]
OPTIMIZER = [("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 20), ("multi_tensor_apply_kernel_adam", 30),
             ("multi_tensor_apply_kernel_adam", 30)]
SEND = ("ncclDevKernel_SendRecv", 15)
ANCHOR = re.compile(r"flash_fwd_kernel|flash_bwd_kernel|Batch(Prefill|Decode)WithPagedKVCacheKernel")


def forward_layer(attention="flash_fwd_kernel"):
    return [(attention if n == "flash_fwd_kernel" else n, d) for n, d in FWD_ATTN] + FWD_MLP


class _Trace:
    """Appends kernels to stream 7 after the previous one, each with its launch 1 µs before on the host
    thread; annotate() opens host ranges between launches (0.1 µs steps, so they nest)."""

    def __init__(self, dist=None):
        self.dist = dist or {"backend": "nccl", "rank": 0, "world_size": 1}
        self.events = [{"ph": "M", "name": "process_name", "pid": HOST, "tid": 0, "args": {"name": "python3"}},
                       {"ph": "M", "name": "thread_name", "pid": HOST, "tid": HOST, "args": {"name": "python"}},
                       {"ph": "M", "name": "process_name", "pid": GPU, "tid": 0, "args": {"name": "GPU 0"}},
                       {"ph": "M", "name": "thread_name", "pid": GPU, "tid": STREAM, "args": {"name": "stream 7"}}]
        self.spans = []            # (start, end) of each kernel, µs
        self.host, self.device, self.corr = 0.0, 10.0, 0

    def _x(self, cat, name, ts, dur, pid=HOST, tid=HOST, **args):
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3),
                            "dur": round(dur, 3), "args": args})

    def kernel(self, name, dur, gap=GAP):
        start = self.device + gap
        at = start - 1.0
        assert self.host < at, "host annotations overran the launch slot"
        self.corr += 1
        self._x("cuda_runtime", "cudaLaunchKernel", at, 0.5, correlation=self.corr, **{"External id": self.corr})
        self._x("kernel", name, start, dur, pid=GPU, tid=STREAM, device=0, stream=STREAM, correlation=self.corr,
                grid=[132, 1, 1], block=[256, 1, 1], **{"External id": self.corr})
        self.spans.append((start, start + dur))
        self.host, self.device = at + 0.5, start + dur

    def run(self, kernels, gap=GAP):
        """The kernels in order, the first `gap` µs after the stream's last kernel."""
        for i, (name, dur) in enumerate(kernels):
            self.kernel(name, dur, gap if i == 0 else GAP)

    @contextmanager
    def annotate(self, name, gpu=False):
        """A user_annotation over the launches made inside; gpu: also a gpu_user_annotation over their kernels."""
        self.host += 0.1
        start, first = self.host, len(self.spans)
        yield
        self.host += 0.1
        self._x("user_annotation", name, start, self.host - start)
        if gpu:
            begin, end = self.spans[first][0], self.spans[-1][1]
            self._x("gpu_user_annotation", name, begin, end - begin, pid=GPU, tid=STREAM)

    def document(self):
        return {"schemaVersion": 1,
                "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
                "distributedInfo": self.dist, "displayTimeUnit": "ms", "baseTimeNanoseconds": BASE_NS,
                "traceEvents": self.events, "traceName": "tiny_steps.pt.trace.json"}


def one_f_one_b(layers=4, microbatches=2, steps=2, annotate=True):
    t = _Trace({"backend": "nccl", "rank": 0, "world_size": 4, "pp_size": 2, "dp_size": 2, "tp_size": 1})
    fwd = PROLOGUE + forward_layer() * layers
    bwd = (BWD_MLP + BWD_ATTN) * layers + BWD_END
    order = [("F", 0)] + [p for i in range(1, microbatches) for p in (("F", i), ("B", i - 1))] \
        + [("B", microbatches - 1)]
    for step in range(1, steps + 1):
        with t.annotate(f"ProfilerStep#{step}", gpu=True):
            for k, (kind, _) in enumerate(order):
                gap = GAP if step == 1 and k == 0 else PASS_GAP
                with t.annotate(f"{'forward' if kind == 'F' else 'backward'}_step") if annotate else nullcontext():
                    t.run(fwd if kind == "F" else bwd, gap)
                if k < len(order) - 1:
                    t.kernel(*SEND)
            t.run(OPTIMIZER, PASS_GAP)
    return t.document()


def dualpipe(layers=4):
    t = _Trace()

    def labelled(kernels, part, direction):
        return [(f"{part}(W)" if "wgrad" in n else f"{part}({direction})", (n, d)) for n, d in kernels]

    with t.annotate("ProfilerStep#1"), t.annotate("1F1B"):
        for _ in range(layers):
            blocks = (labelled(FWD_ATTN, "attn", "F") + labelled(BWD_MLP, "mlp", "B")
                      + labelled(FWD_MLP, "mlp", "F") + labelled(BWD_ATTN, "attn", "B"))
            for label, group in itertools.groupby(blocks, key=lambda b: b[0]):
                with t.annotate(label):
                    t.run([k for _, k in group])
    return t.document()


def sequential_training(layers=4, steps=3):
    t = _Trace({"backend": "nccl", "rank": 0, "world_size": 2})
    for step in range(1, steps + 1):
        with t.annotate(f"ProfilerStep#{step}"):
            t.run(PROLOGUE + forward_layer() * layers + TRAIN_TAIL, GAP if step == 1 else 50.0)
            t.run(BWD_HEAD + (BWD_MLP + BWD_ATTN) * layers + BWD_END, PASS_GAP)
            t.run(OPTIMIZER, PASS_GAP)
    return t.document()


def alternating_attention(layers=6, passes=2):
    t = _Trace()
    attention = ("flash_fwd_kernel_sliding_window<128, true>", "flash_fwd_kernel_full<128, false>")
    body = [k for i in range(layers) for k in forward_layer(attention[i % 2])]
    for p in range(1, passes + 1):
        with t.annotate(f"ProfilerStep#{p}"):
            t.run(PROLOGUE + body + SERVE_TAIL, GAP if p == 1 else 200.0)
    return t.document()


SERVING_STEPS = {"sglang": ("EXTEND bs=2 toks=64", "DECODE bs=4"),
                 "vllm": ((64, 2, 0), (4, 0, 4), (40, 1, 3)),
                 "vllm_old": ((64, 2, 0), (4, 0, 4), (40, 1, 3)),
                 "plain": ("prefill", "decode", "decode")}
KV_CACHED = 128   # key tokens already cached for each generation request (vllm annotations)


def _context_lengths(tokens, n):
    """Prompt lengths of n context requests sharing `tokens`, as even as possible."""
    return [tokens // n + (i < tokens % n) for i in range(n)]


def serving_annotation(kind, step, index):
    """The host annotation of one serving step (index from 1)."""
    if kind == "sglang":
        return f"step[{step}]"
    if kind == "plain":
        return f"ProfilerStep#{index}"
    tokens, n, m = step
    ctx = _context_lengths(tokens - m, n)
    if kind == "vllm_old":
        return f"execute_context_{n}({tokens - m}_{sum(q * q for q in ctx)})_generation_{m}({m}_{m})"
    gen_k = KV_CACHED + 1
    context = f"sq{sum(ctx)}sk{sum(ctx)}sqsq{sum(q * q for q in ctx)}sqsk{sum(q * q for q in ctx)}"
    generation = f"sq{m}sk{m * gen_k}sqsq{m}sqsk{m * gen_k}"
    return f"execute_{tokens}_context_{n}({context})_generation_{m}({generation})"


def serving(kind="sglang", steps=None, layers=3):
    """kind: sglang, vllm, vllm_old or plain; steps: None for SERVING_STEPS[kind]."""
    steps = SERVING_STEPS[kind] if steps is None else steps
    t = _Trace()
    for i, step in enumerate(steps, 1):
        attention = "flash_fwd_kernel"
        if kind == "plain":
            attention = {"prefill": "BatchPrefillWithPagedKVCacheKernel",
                         "decode": "BatchDecodeWithPagedKVCacheKernel"}[step]
        with t.annotate(serving_annotation(kind, step, i)):
            t.run(PROLOGUE + forward_layer(attention) * layers + SERVE_TAIL, GAP if i == 1 else 300.0)
    return t.document()


def expected_serving(kind, steps=None):
    """[(step_kind, tokens, requests)] per step, as a correct tool reads them from the annotations."""
    out = []
    for step in SERVING_STEPS[kind] if steps is None else steps:
        if kind == "plain":
            out.append((step, None, None))
        elif kind == "sglang":
            mode, fields = step.split(" ", 1)
            f = dict(kv.split("=") for kv in fields.split())
            bs = int(f["bs"])
            out.append(({"EXTEND": "prefill", "DECODE": "decode", "MIXED": "mixed"}[mode],
                        bs if mode == "DECODE" else int(f["toks"]), bs))
        else:
            tokens, n, m = step
            out.append(("prefill" if m == 0 else "decode" if n == 0 else "mixed", tokens, n + m))
    return out


def kernels(trace):
    """[(start_ns, end_ns, name)] of the trace's kernels, in time order."""
    return sorted((BASE_NS + round(e["ts"] * 1000), BASE_NS + round((e["ts"] + e["dur"]) * 1000), e["name"])
                  for e in trace["traceEvents"] if e.get("cat") == "kernel")


def phase_of(name, previous):
    """A kernel's phase by the names these builders use; previous: the phase of the kernel before it."""
    if "SendRecv" in name:
        return previous
    if "AllReduce" in name or "adam" in name:
        return "optimizer"
    if any(w in name for w in ("backward", "dgrad", "wgrad", "bwd")):
        return "backward"
    return "forward"


def expected_phases(trace):
    """{(start_ns, name): 'forward' | 'backward' | 'optimizer'} for every kernel."""
    out, phase = {}, None
    for start, _, name in kernels(trace):
        phase = out[start, name] = phase_of(name, phase)
    return out


def expected_passes(trace):
    """[{'direction', 'anchors', 'kernels': [(start_ns, name)]}] in order of each pass's first kernel. A forward
    pass starts at embedding_kernel, a backward one at cross_entropy_backward_kernel or after
    embedding_backward_kernel; a direction's kernels otherwise join its open pass (so interleaved forward and
    backward chunks stay two passes). SendRecv and optimizer kernels belong to no pass."""
    passes, open_pass = [], {}
    for start, _, name in kernels(trace):
        direction = phase_of(name, None)
        if direction not in ("forward", "backward"):
            continue
        cur = open_pass.get(direction)
        if cur is None or name in ("embedding_kernel", "cross_entropy_backward_kernel") \
                or cur["kernels"][-1][1] == "embedding_backward_kernel":
            cur = open_pass[direction] = {"direction": direction, "anchors": 0, "kernels": []}
            passes.append(cur)
        cur["kernels"].append((start, name))
        cur["anchors"] += bool(ANCHOR.match(name))
    return passes


BUILDERS = {f.__name__: f for f in (one_f_one_b, dualpipe, sequential_training, alternating_attention, serving)}


def write(path, builder, **kw):
    """Write BUILDERS[builder](**kw) as compact JSON; returns the path as text."""
    with open(path, "w") as f:
        json.dump(BUILDERS[builder](**kw), f, separators=(",", ":"))
    return str(path)
