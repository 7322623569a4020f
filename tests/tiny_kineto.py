"""A tiny PyTorch-profiler (Kineto) trace for the GPU tests, with its expected numbers derived here.

Two forward passes of a 2-layer model, T = p x 1000 µs (relative to baseTimeNanoseconds). Host thread
pid/tid 100 (named "python"), GPU stream pid 0 / tid 7. Per pass, in µs from T:

  host (thread 100)                                   device (stream 7)            launched by
  python_function nn.Module: Layer_0   [0, 40)
    cpu_op aten::mm                    [1, 4)         gemm_kernel      [10, 20)    cudaLaunchKernel [2, 3)
    user_annotation attn               [5, 9)         flash_fwd_kernel [21, 26)    cudaLaunchKernel [6, 7)
  python_function nn.Module: Layer_1   [40, 80)
    cpu_op aten::mm                    [41, 44)       gemm_kernel      [50, 60)    cudaLaunchKernel [42, 43)
    user_annotation attn               [45, 49)       flash_fwd_kernel [61, 66)    cudaLaunchKernel [46, 47)
  (no frame)                                          Memcpy HtoD      [70, 72)    cudaMemcpyAsync [85, 86)
                                                      orphan_kernel    [90, 91.5)  (none: correlation unknown)

Device time per pass: 10 + 5 + 10 + 5 + 2 + 1.5 = 33.5 µs; 67 µs in all.
Modules (innermost frame; the nn.Module instance number is dropped): gemm_kernel under
'nn.Module: Layer' (20 µs a pass), flash_fwd_kernel under 'nn.Module: Layer' too (the annotation is
inside the module frame, and nn.Module frames win), the memcpy under '(no host frame)', orphan_kernel
under '(no host launch)'.
With anchor flash_fwd and 2 layers, strict window [T+21, T+66]: layer 0 = flash (21) + gemm (50) =
15 µs over 21 -> 60 = 39 µs; layer 1 = flash (61) alone, 5 µs. gemm (10), memcpy and orphan lie outside.
"""
import gzip
import json

BASE_NS = 1_751_410_836_000_000_000
HOST, GPU = 100, 0


def events(legacy=False, string_pids=False, dur_factor=1):
    """Kineto events of both passes. legacy: capitalised categories and 'external id' (tb-profiler era).
    dur_factor: device durations multiplied (slower hardware: with factor 2 the memcpy at 70 µs falls in
    the strict window of flash_fwd, whose last kernel then ends at 71)."""
    kcat, mcat = ("Kernel", "Memcpy") if legacy else ("kernel", "gpu_memcpy")
    ext = "external id" if legacy else "External id"
    host = str(HOST) if string_pids else HOST
    ev = [{"ph": "M", "name": "process_name", "pid": host, "tid": 0, "args": {"name": "python3"}},
          {"ph": "M", "name": "thread_name", "pid": host, "tid": HOST, "args": {"name": "python"}},
          {"ph": "M", "name": "process_name", "pid": GPU, "tid": 0, "args": {"name": "GPU 0"}},
          {"ph": "M", "name": "thread_name", "pid": GPU, "tid": 7, "args": {"name": "stream 7"}}]
    corr = 1000
    for p in range(2):
        t = p * 1000

        def x(cat, name, start, dur, pid=host, tid=HOST, **args):
            ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(t + start, 3),
                       "dur": dur, "args": args})

        def launch(kname, at, kstart, kdur, cat=kcat, api="cudaLaunchKernel"):
            nonlocal corr
            corr += 1
            x("cuda_runtime", api, at, 1, correlation=corr, **{ext: corr})
            x(cat, kname, kstart, kdur * dur_factor, pid=GPU, tid=7, device=0, stream=7, correlation=corr,
              grid=[132, 1, 1], block=[256, 1, 1], **{"registers per thread": 128, "shared memory": 4096, ext: corr})

        for layer, off in ((0, 0), (1, 40)):
            x("python_function", f"nn.Module: Layer_{layer}", off, 40)
            x("cpu_op", "aten::mm", off + 1, 3)
            launch("gemm_kernel", off + 2, off + 10, 10)
            x("user_annotation", "attn", off + 5, 4)
            launch("flash_fwd_kernel", off + 6, off + 21, 5)
        launch("Memcpy HtoD (Pageable -> Device)", 85, 70, 2, cat=mcat, api="cudaMemcpyAsync")
        x(kcat, "orphan_kernel", 90, 1.5 * dur_factor, pid=GPU, tid=7, correlation=999999)
    ev.append({"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 2500.0})
    return ev


def document(**kw):
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H800", "numSms": 132}],
            "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
            "displayTimeUnit": "ms", "baseTimeNanoseconds": BASE_NS,
            "traceEvents": events(**kw), "traceName": "tiny.pt.trace.json"}


def write(path, form="object", compact=True, gz=False, truncate_at=None, **kw):
    """form: object ({"traceEvents": ...}) or array (bare list). truncate_at: cut the text at that
    fraction of its length (a crashed run's file)."""
    doc = document(**kw)
    data = doc if form == "object" else doc["traceEvents"]
    text = json.dumps(data, separators=(",", ":")) if compact else json.dumps(data, indent=1)
    if truncate_at is not None:
        text = text[:int(len(text) * truncate_at)]
    raw = text.encode()
    with (gzip.open if gz else open)(path, "wb") as f:
        f.write(raw)
    return str(path)
