"""Tiny graph replay traces and the graph capture traces of their graphs (ROCm-style Kineto JSON), for the
tests of `tracedb ingest REPLAY --capture CAPTURE` (tests/test_capture.py), with their expected numbers.

The model: an embedding, then per layer a norm, a QKV GEMM, attention and an MoE, each launched inside its own
module frame (`nn.Module: Layer_<l>` > `nn.Module: <Class>_<l>` > cpu_op > hipLaunchKernel), all inside
`nn.Module: Model_0`. Host thread pid/tid 100; the GPU's stream pid 0 / tid 1.

A capture trace records, per graph, hipStreamBeginCapture, the frames and launch calls of the graph's kernels
(args.kernel, grid and block on each launch call, as ROCm writes them; no kernel event: a captured launch does
not run), hipStreamEndCapture and hipGraphInstantiateWithFlags; plus one eager warm-up kernel that does run.
A replay trace records, per step, `execute_step_<s>` around one hipGraphLaunch per graph (PIECEWISE: attention
launched eagerly between the graphs, under cpu_op vllm::attention), the graph's kernels carrying the graph
launch's correlation id and no grid (as ROCm records them), and one eager sampler kernel under
`nn.Module: Sampler_0` > aten::argmax.

FULL, LAYERS = 2: one graph of 1 + 4 x 2 = 9 kernels, replayed STEPS = 2 times: 18 graph kernels, each
attributed to 'Model/Layer/<Class>' (instance path 'Model_0/Layer_<l>/<Class>_<l>'), the embedding to
'Model/Embedding'.
PIECEWISE, LAYERS = 3: graphs [embed, norm0, qkv0], [moe0, norm1, qkv1], [moe1, norm2, qkv2], [moe2, final
norm]: 3 + 3 + 3 + 2 = 11 kernels a step, and 3 eager attention kernels between them. Graphs 2 and 3 launch the
same kernels: the second replay of those kernels in a step is layer 1's (moe1 under 'Model_0/Layer_1/MoE_1').
"""
import gzip
import json

BASE_NS = 1_767_189_312_000_000_000
HOST, GPU, STREAM = 100, 0, 1
LAYERS = 2
STEPS = 2
STEP_US = 1000
DUR = {"embed_kernel": 2, "rms_kernel": 3, "qkv_gemm": 10, "attn_kernel": 5, "moe_kernel": 20, "final_norm": 4,
       "argmax_kernel": 1, "extra_kernel": 7, "fill_kernel": 1, "stray_gemm": 6}
OP = {"Embedding": "aten::embedding", "Norm": "aiter::rms_norm", "Linear": "aten::mm",
      "Attention": "vllm::attention", "MoE": "vllm::moe_forward", "FinalNorm": "aiter::rms_norm"}
KERNEL = {"Embedding": "embed_kernel", "Norm": "rms_kernel", "Linear": "qkv_gemm", "Attention": "attn_kernel",
          "MoE": "moe_kernel", "FinalNorm": "final_norm"}
GRID = {"embed_kernel": [64, 1, 1], "rms_kernel": [32, 1, 1], "qkv_gemm": [128, 2, 1], "attn_kernel": [16, 8, 1],
        "moe_kernel": [256, 1, 1], "final_norm": [32, 1, 1], "extra_kernel": [8, 1, 1], "stray_gemm": [4, 1, 1]}


def full_graph(layers=LAYERS) -> list[tuple]:
    """The one graph of FULL mode: (layer or None, module class) per kernel, in launch order."""
    return [(None, "Embedding")] + [(lay, cls) for lay in range(layers)
                                    for cls in ("Norm", "Linear", "Attention", "MoE")]


def piecewise_graphs(layers=3) -> list[list[tuple]]:
    """PIECEWISE: the graphs between the attention of each layer (attention itself runs eagerly)."""
    graphs = [[(None, "Embedding"), (0, "Norm"), (0, "Linear")]]
    for lay in range(1, layers):
        graphs.append([(lay - 1, "MoE"), (lay, "Norm"), (lay, "Linear")])
    graphs.append([(layers - 1, "MoE"), (None, "FinalNorm")])
    return graphs


class _Trace:
    def __init__(self, rank=None):
        self.ev = [{"ph": "M", "name": "process_name", "pid": HOST, "tid": 0, "args": {"name": "python3"}},
                   {"ph": "M", "name": "thread_name", "pid": HOST, "tid": HOST, "args": {"name": "python"}},
                   {"ph": "M", "name": "process_name", "pid": GPU, "tid": 0, "args": {"name": "GPU 0"}},
                   {"ph": "M", "name": "thread_name", "pid": GPU, "tid": STREAM, "args": {"name": "stream 1"}}]
        self.corr = 7000
        self.rank = rank

    def x(self, cat, name, ts, dur, pid=HOST, tid=HOST, **args):
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3), "dur": dur,
                        "args": args})

    def call(self, name, ts, **args) -> int:
        self.corr += 1
        self.x("cuda_runtime", name, ts, 1, correlation=self.corr, **args)
        return self.corr

    def kernel(self, name, ts, corr, grid=None):
        geometry = {"grid": grid, "block": [256, 1, 1]} if grid else {}
        self.x("kernel", name, ts, DUR[name], pid=GPU, tid=STREAM, device=0, stream=STREAM, correlation=corr,
               **geometry)

    def eager(self, module, op, kname, ts):
        """A kernel launched and run: [ts, ts + 8) host frames, the kernel at ts + 20."""
        if module:
            self.x("python_function", f"nn.Module: {module}", ts, 8)
        self.x("cpu_op", op, ts + 1, 6)
        corr = self.call("hipLaunchKernel", ts + 2, kernel=kname, grid=[1, 1, 1], block=[256, 1, 1])
        self.kernel(kname, ts + 20, corr, grid=[1, 1, 1])

    def document(self):
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}],
               "roctracer_version": 4.1, "hip_runtime_version": 70051831, "displayTimeUnit": "ms",
               "baseTimeNanoseconds": BASE_NS}
        if self.rank is not None:       # before the events, as Kineto writes it
            doc["distributedInfo"] = {"backend": "nccl", "rank": self.rank, "world_size": 2}
        return {**doc, "traceEvents": self.ev}

    def write(self, path):
        text = json.dumps(self.document(), separators=(",", ":")).encode()
        with (gzip.open if str(path).endswith(".gz") else open)(path, "wb") as f:
            f.write(text)
        return str(path)


def write_capture(path, graphs, names=True, stray=False, rank=None):
    """A graph capture trace of `graphs` (lists of (layer, class)): each between its own begin and end capture
    calls, 10 µs a launch. `names`: launch calls carry args.kernel (ROCm; CUDA's do not). `stray`: the first
    graph's capture also launches 'stray_gemm', a kernel its graph does not hold (set aside when matched)."""
    t = _Trace(rank)
    t.eager(None, "aten::fill_", "fill_kernel", 10)        # the warm-up that runs: device activity
    at = 100
    for g, graph in enumerate(graphs):
        t.call("hipStreamBeginCapture", at)
        start = at + 5
        t.x("python_function", "nn.Module: Model_0", start, 10 * len(graph) + 10 + (10 if stray and g == 0 else 0))
        at = start + 2
        for i, (lay, cls) in enumerate(graph):
            kname = KERNEL[cls]
            inst = "0" if lay is None else str(lay)
            if lay is not None:
                t.x("python_function", f"nn.Module: Layer_{lay}", at, 8)
            t.x("python_function", f"nn.Module: {cls}_{inst}", at + 1, 6)
            t.x("cpu_op", OP[cls], at + 2, 4)
            t.call("hipModuleLaunchKernel", at + 3, **({"kernel": kname} if names else {}), grid=GRID[kname],
                   block=[256, 1, 1])
            at += 10
            if stray and g == 0 and i == 0:
                t.x("cpu_op", "aten::mm", at + 2, 4)
                t.call("hipExtModuleLaunchKernel", at + 3, **({"kernel": "stray_gemm"} if names else {}),
                       grid=GRID["stray_gemm"], block=[256, 1, 1])
                at += 10
        at += 10
        t.call("hipStreamEndCapture", at)
        t.call("hipGraphInstantiateWithFlags", at + 2)
        at += 20
    return t.write(path)


def write_replay(path, graphs, steps=STEPS, eager_attention=False, extra=None, rank=None, grids=None):
    """A replay trace: per step, one hipGraphLaunch per graph, its kernels back to back on the stream from 50 µs
    after the launch; `eager_attention`: layer l's attention kernel launched eagerly after graph l (PIECEWISE).
    `extra`: (step, graph) whose replay runs one more kernel, 'extra_kernel', after its first (so it matches
    no captured graph). `grids`: the graph kernels' grid by name (CUDA records them; ROCm does not)."""
    t = _Trace(rank)
    for s in range(steps):
        base = 100 + s * STEP_US
        t.x("user_annotation", f"execute_step_{s}", base, STEP_US - 100)
        at, gpu = base + 5, base + 50
        for g, graph in enumerate(graphs):
            corr = t.call("hipGraphLaunch", at)
            names = [KERNEL[cls] for _, cls in graph]
            if extra == (s, g):
                names.insert(1, "extra_kernel")
            for kname in names:
                t.kernel(kname, gpu, corr, grid=(grids or {}).get(kname))
                gpu += DUR[kname] + 1
            at += 5
            if eager_attention and g < len(graphs) - 1:
                t.x("cpu_op", "vllm::attention", at, 4)
                c = t.call("hipLaunchKernel", at + 1, kernel="attn_kernel", grid=GRID["attn_kernel"],
                           block=[256, 1, 1])
                t.kernel("attn_kernel", gpu, c, grid=GRID["attn_kernel"])
                gpu += DUR["attn_kernel"] + 1
                at += 5
        t.eager("Sampler_0", "aten::argmax", "argmax_kernel", base + 400)
    return t.write(path)


def graph_kernels(graphs, steps=STEPS) -> int:
    return steps * sum(len(g) for g in graphs)
