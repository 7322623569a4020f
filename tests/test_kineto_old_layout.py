"""The PyTorch profiler's older trace layout (PyTorch 1.8-1.9, the torch-tb-profiler sample): ops of category
`Operator`, launch calls `Runtime`, device activities `Kernel` / `Memcpy` / `Memset`, a lower-case
"external id" on kernels and launch calls, and no Concrete Inputs. A small synthetic trace of that layout gets
the FLOPs and bytes computed here by hand, the same as its twin in today's layout; then the real ResNet-50
sample ($TRACEDB_TEST_DATA; skipped when absent) against a Python reading of its raw JSON (docs/roofline.md's
formulas, not tracedb's SQL)."""
import csv
import gzip
import io
import json
import math

import duckdb
import pytest

from helpers import cli, real_trace

T0 = 1_623_142_623_460_000          # epoch µs, as that layout writes ts
F = "float"


def _q(db, sql, params=()):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


# --------------------------------------------------------------------------------------- the synthetic trace
# ops: (thread, name, start µs, dur µs, External id, Input Dims, Input type, modern Concrete Inputs,
#       (sequence number, forward thread id) or None, kernels [(name, start µs, dur µs)]); each kernel is
#       launched by a call 1 µs after its op starts (1 µs apart).
CONV_X, CONV_W, CONV_DY = [2, 3, 10, 10], [4, 3, 3, 3], [2, 4, 8, 8]      # 3x3, stride 1, no padding: 10 -> 8
OPS = [
    (1, "ProfilerStep#1", 0, 500, 1, None, None, None, None, []),
    (1, "aten::linear", 10, 30, 2, [[8, 32], [64, 32], [64]], [F, F, F], None, (5, 0), []),
    (1, "aten::addmm", 15, 20, 3, [[64], [8, 32], [32, 64], [], []], [F, F, F, "Int", "Int"], None, (6, 0),
     [("gemm_addmm", 100, 4)]),
    (1, "aten::mm", 50, 10, 4, [[16, 32], [32, 8]], [F, F], None, None,
     [("gemm_splitk", 110, 5), ("splitk_reduce", 120, 2)]),
    (1, "aten::conv2d", 70, 40, 5, [CONV_X, CONV_W, [], [], [], [], []], [F, F, "", "GenericList", "GenericList",
                                                                            "GenericList", "Int"],
     None, (7, 0), []),
    (1, "aten::cudnn_convolution", 75, 30, 6, [CONV_X, CONV_W, [], [], [], [], [], [], []],
     [F, F, "GenericList", "GenericList", "GenericList", "Int", "Bool", "Bool", "Bool"],
     ["", "", "[0, 0]", "[1, 1]", "[1, 1]", "1", "False", "False", "True"], (7, 0), [("conv_fwd", 130, 8)]),
    # the backward, on the autograd engine's thread: the node (its input: dy), the op, the two gradients
    (2, "CudnnConvolutionBackward", 200, 100, 7, [CONV_DY], [F], None, (7, 1), []),
    (2, "aten::cudnn_convolution_backward", 205, 90, 8, [CONV_X, CONV_DY, CONV_W] + [[]] * 8, [F, F, F], None,
     None, []),
    (2, "aten::cudnn_convolution_backward_input", 210, 20, 9, [[], CONV_DY, CONV_W] + [[]] * 7,
     ["GenericList", F, F], ["[2, 3, 10, 10]", "", ""], None, [("conv_dgrad", 300, 9)]),
    (2, "aten::cudnn_convolution_backward_weight", 240, 20, 10, [[], CONV_DY, CONV_X] + [[]] * 7,
     ["GenericList", F, F], ["[4, 3, 3, 3]", "", ""], None, [("conv_wgrad", 320, 11)]),
    (1, "aten::to", 400, 20, 11, [[1024]], [F], None, None, [("Memcpy HtoD (Pageable -> Device)", 420, 3)]),
]
# by hand (docs/roofline.md): GEMM 2MNK and A + B + output; convolution 2 N Cout Ho Wo (Cin/groups) Kh Kw and
# x + w + y (forward) or dy + x + w (each gradient); fp32: 4 bytes
ADDMM = (2 * 8 * 64 * 32, (8 * 32 + 32 * 64 + 8 * 64) * 4)                  # 32,768 FLOPs, 11,264 bytes
MM = (2 * 16 * 8 * 32, (16 * 32 + 32 * 8 + 16 * 8) * 4)                     # 8,192, 3,584
CONV = (2 * 2 * 4 * 8 * 8 * 3 * 3 * 3, (2 * 3 * 10 * 10 + 4 * 3 * 3 * 3 + 2 * 4 * 8 * 8) * 4)   # 27,648, 4,880
WANT = {
    "gemm_addmm": (*ADDMM, "gemm 2MNK"),
    "gemm_splitk": (*MM, "gemm 2MNK"),
    "splitk_reduce": (0, 0, "gemm 2MNK (on its op's longest kernel)"),
    "conv_fwd": (*CONV, "conv 2NCoHoWoCiKhKw (grad shape)"),
    "conv_dgrad": (*CONV, "conv dgrad 2NCoHoWoCiKhKw (grad shape)"),
    "conv_wgrad": (*CONV, "conv wgrad 2NCoHoWoCiKhKw (grad shape)"),
}


def _trace(path, old=True, shift=0):
    """The trace of OPS in the older layout (old) or in today's (categories cpu_op, cuda_runtime, kernel,
    gpu_memcpy; "External id" everywhere; Concrete Inputs recorded, no sequence numbers); `shift` µs later."""
    ext = "external id" if old else "External id"
    op_cat, rt_cat = ("Operator", "Runtime") if old else ("cpu_op", "cuda_runtime")
    ev, corr = [], 1000
    for tid, name, start, dur, xid, dims, types, concrete, seq, kernels in OPS:
        args = {"Device": 1, "External id": xid, "Trace name": "PyTorch Profiler", "Trace iteration": 0}
        if dims is not None:
            args.update({"Input Dims": dims, "Input type": types})
        if not old and concrete is not None:
            args["Concrete Inputs"] = concrete
        if old and seq is not None:
            args.update({"Fwd thread id": seq[1], "Sequence number": seq[0]})
        ev.append({"ph": "X", "cat": op_cat, "name": name, "pid": 1, "tid": str(tid), "ts": T0 + shift + start,
                   "dur": dur, "args": args})
        for i, (kname, kstart, kdur) in enumerate(kernels):
            corr += 1
            memcpy = kname.startswith("Memcpy")
            ev.append({"ph": "X", "cat": rt_cat, "name": "cudaMemcpyAsync" if memcpy else "cudaLaunchKernel",
                       "pid": 1, "tid": str(tid), "ts": T0 + shift + start + 1 + i, "dur": 1,
                       "args": {"cbid": 211, "correlation": corr, ext: xid, "external ts": T0 + start}})
            cat = ("Memcpy" if old else "gpu_memcpy") if memcpy else ("Kernel" if old else "kernel")
            ev.append({"ph": "X", "cat": cat, "name": kname, "pid": 0, "tid": "stream 7", "ts": T0 + shift + kstart,
                       "dur": kdur, "args": {"device": 0, "context": 1, "stream": 7, "correlation": corr, ext: xid,
                                             "grid": [1, 1, 1], "block": [128, 1, 1]}})
    ev.append({"name": "process_name", "ph": "M", "ts": T0, "pid": 1, "tid": 0, "args": {"name": "python"}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Tesla V100-DGXS-32GB"}],
                                "traceEvents": ev}, indent=1))
    return str(path)


def _ingest(tmp_path, path, name):
    db = tmp_path / f"{name}.duckdb"
    cli("ingest", path, "--db", db, "--name", name)
    return db


def _work(db):
    """{kernel name: (flops, bytes, flops_source)} of every device activity."""
    return {r[0]: r[1:] for r in _q(db, "SELECT k.name, w.flops, w.bytes, w.flops_source FROM kernels k "
                                        "LEFT JOIN kernel_work w USING (run_id, seq)")}


def test_old_layout_links_kernels_and_counts_their_ops_work(tmp_path):
    db = _ingest(tmp_path, _trace(tmp_path / "old.pt.trace.json"), "old")
    # every device activity and launch call carries its op's External id
    ext = {op[1]: op[4] for op in OPS}
    kernels = _q(db, "SELECT k.name, k.kind, k.external_id, h.external_id, o.name FROM kernels k "
                     "JOIN host_events h ON h.run_id = k.run_id AND h.correlation_id = k.correlation_id "
                     "JOIN host_events o ON o.run_id = k.run_id AND o.external_id = k.external_id AND o.cat = 'cpu_op' "
                     "ORDER BY k.start_ns")
    assert [(k[0], k[1]) for k in kernels] == [
        ("gemm_addmm", "kernel"), ("gemm_splitk", "kernel"), ("splitk_reduce", "kernel"), ("conv_fwd", "kernel"),
        ("conv_dgrad", "kernel"), ("conv_wgrad", "kernel"), ("Memcpy HtoD (Pageable -> Device)", "memcpy")]
    assert all(k[2] == k[3] == ext[k[4]] for k in kernels)
    # Operator is stored as cpu_op, but a record_function range (NAME#QUALIFIER) as user_annotation; Runtime as
    # runtime (a launch call: launch_call in macros.sql)
    assert _q(db, "SELECT cat, count(*) FROM host_events GROUP BY 1 ORDER BY 1") == [
        ("cpu_op", 10), ("runtime", 7), ("user_annotation", 1)]
    assert _q(db, "SELECT name FROM host_events WHERE cat = 'user_annotation'") == [("ProfilerStep#1",)]
    # that layout writes tids as strings ("1", "stream 7"): stored as their text, without JSON's quotes, so a
    # host lane reads host:1:1 and joins what today's layout writes as numbers
    assert _q(db, "SELECT DISTINCT pid, tid FROM trace_events ORDER BY ALL") == [
        ("0", "stream 7"), ("1", "0"), ("1", "1"), ("1", "2")]
    work = _work(db)
    assert {k: v for k, v in work.items() if v[0] is not None} == WANT


def test_old_layout_gives_the_work_of_its_twin_in_todays_layout(tmp_path):
    """The same ops in today's layout (Concrete Inputs recorded: Ho, Wo from stride and padding; the gradients'
    sizes recorded) give every kernel the same FLOPs and bytes."""
    old = _work(_ingest(tmp_path, _trace(tmp_path / "old.json"), "old"))
    new = _work(_ingest(tmp_path, _trace(tmp_path / "new.json", old=False), "new"))
    assert {k: v[:2] for k, v in old.items()} == {k: v[:2] for k, v in new.items()}
    assert new["conv_fwd"] == (*CONV, "conv 2NCoHoWoCiKhKw (stride, padding)")
    assert {k: v for k, v in new.items() if k != "conv_fwd"} == {k: v for k, v in old.items() if k != "conv_fwd"}


def test_old_layout_traces_go_in_together(tmp_path):
    """Small plain traces of a folder ingest's batch are read by one statement (chrome_json/together.py), those of
    the older layout apart from those of today's."""
    import tracedb
    from tracedb.ingest.chrome_json import together
    paths = [_trace(tmp_path / f"old{r}.json", shift=1000 * r) for r in range(2)]
    paths += [_trace(tmp_path / f"new{r}.json", old=False, shift=1000 * r) for r in range(2)]
    con = tracedb.connect(str(tmp_path / "t.duckdb"))
    try:
        assert set(together.load_together(con, [(901 + i, p) for i, p in enumerate(paths)])) == {901, 902, 903, 904}
        rows = con.execute("SELECT run_id, count(*), count(external_id) FROM trace_events WHERE kind IS NOT NULL "
                           "GROUP BY 1 ORDER BY 1").fetchall()
        cats = con.execute("SELECT DISTINCT cat FROM trace_events WHERE ph = 'X' AND kind IS NULL "
                           "ORDER BY 1").fetchall()
    finally:
        con.close()
    assert rows == [(r, 7, 7) for r in (901, 902, 903, 904)]
    assert cats == [("cpu_op",), ("cuda_runtime",), ("runtime",), ("user_annotation",)]


def test_old_layout_args_key_written_twice_is_refused_at_its_byte(tmp_path):
    path = tmp_path / "dup.json"
    _trace(path)
    text = path.read_text()
    at = text.index('"name": "conv_fwd"')
    bad = text[:at] + text[at:].replace('"stream": 7,', '"stream": 7, "stream": 8,', 1)
    path.write_text(bad)
    r = cli("ingest", path, "--db", tmp_path / "d.duckdb", "--name", "d", check=False)
    assert r.returncode != 0
    assert "the event 'conv_fwd' (ph 'X') has the key 'stream' twice" in r.stderr
    byte = int(r.stderr.split("byte ")[1].split(":")[0])
    assert bad.encode()[byte:byte + 1] == b"{" and '"conv_fwd"' in bad.encode()[byte:byte + 200].decode()


# ------------------------------------------------------------------------------------ the real ResNet-50 sample
RESNET = ("torch-tb-profiler-sample", "worker0.1623143089861.pt.trace.json.gz")


def reference_work(events):
    """{kernel correlation id: (flops, bytes)} for the kernels of GEMM and convolution ops, from the raw events:
    each Kernel joined to the Operator of its "external id"; 2MNK for addmm / mm; 2 N Cout Ho Wo (Cin/groups)
    Kh Kw for convolutions, where Ho, Wo are dy's (this PyTorch records no stride or padding: a forward op's dy
    is the input of the backward node of its sequence number) and the gradient ops' missing operand is the
    cudnn_convolution_backward's around them; an op's work on its longest kernel (the first in the file among
    equals), 0 on the others."""
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "Operator"]
    by_ext = {o["args"]["External id"]: o for o in ops}
    grads = {}
    for o in ops:
        if o["args"].get("Fwd thread id", 0) > 0:
            grads.setdefault(o["args"]["Sequence number"], []).append(o)
    bwd_ops = [o for o in ops if o["name"] == "aten::cudnn_convolution_backward"]

    def around(op):
        inside = [b for b in bwd_ops if b["tid"] == op["tid"] and b["ts"] <= op["ts"]
                  and op["ts"] + op["dur"] <= b["ts"] + b["dur"]]
        assert len(inside) == 1
        return inside[0]["args"]["Input Dims"]

    def conv(x, w, dy):
        n, cout, out = dy[0], dy[1], dy[2:]
        assert x[0] == n and w[0] == cout and len(x) == len(w) == len(dy) == 4
        return 2 * n * cout * math.prod(out) * math.prod(w[1:]), (math.prod(x) + math.prod(w) + math.prod(dy)) * 4

    def op_work(op):
        d, name = op["args"]["Input Dims"], op["name"]
        if name in ("aten::addmm", "aten::mm"):
            a, b = (d[1], d[2]) if name == "aten::addmm" else (d[0], d[1])
            m, k, n = a[0], a[1], b[1]
            assert b[0] == k and op["args"]["Input type"][:3].count("float") >= 2
            return 2 * m * n * k, (m * k + k * n + m * n) * 4
        if name == "aten::cudnn_convolution":
            node = grads[op["args"]["Sequence number"]]
            assert len(node) == 1 and node[0]["name"] == "CudnnConvolutionBackward"
            return conv(d[0], d[1], node[0]["args"]["Input Dims"][0])
        if name == "aten::cudnn_convolution_backward_input":       # (input size, dy, w)
            return conv(around(op)[0], d[2], d[1])
        if name == "aten::cudnn_convolution_backward_weight":      # (weight size, dy, x)
            return conv(d[2], around(op)[2], d[1])
        return None

    kernels = {}
    for i, e in enumerate(events):
        if e.get("ph") == "X" and e.get("cat") == "Kernel":
            op = by_ext[e["args"]["external id"]]
            kernels.setdefault(op["args"]["External id"], []).append((-e["dur"], i, e["args"]["correlation"], op))
    out = {}
    for ks in kernels.values():
        work = op_work(ks[0][3])
        if work is None:
            continue
        ks.sort()
        out.update({corr: (work if j == 0 else (0, 0)) for j, (_, _, corr, _) in enumerate(ks)})
    return out


@pytest.mark.real_data
def test_resnet50_sample_work_matches_its_raw_json(tmp_path):
    path = real_trace(*RESNET)
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    db = _ingest(tmp_path, path, "rn")
    # every kernel, copy and fill, and every launch call, has the external id the file gives it
    raw = {e["args"]["correlation"]: e["args"]["external id"] for e in events
           if e.get("ph") == "X" and e.get("cat") in ("Kernel", "Memcpy", "Memset")}
    got = dict(_q(db, "SELECT correlation_id, external_id FROM kernels"))
    assert len(raw) == len(got) == 9096 and got == raw
    raw_calls = sorted((e["args"]["correlation"], e["args"]["external id"]) for e in events
                       if e.get("ph") == "X" and e.get("cat") == "Runtime")
    assert sorted(_q(db, "SELECT correlation_id, external_id FROM host_events WHERE cat = 'runtime'")) == raw_calls
    # its 23,646 Operator events: 24 record_function ranges (ProfilerStep#N, Optimizer.step#SGD.step,
    # Optimizer.zero_grad#SGD.zero_grad, enumerate(DataLoader)#...), the others ops
    ranges = [e["name"] for e in events if e.get("ph") == "X" and e.get("cat") == "Operator" and "#" in e["name"]]
    assert len(ranges) == 24
    assert sorted(_q(db, "SELECT name FROM host_events WHERE cat = 'user_annotation'")) == sorted((n,) for n in ranges)
    assert _q(db, "SELECT count(*) FROM host_events WHERE cat = 'cpu_op'") == [(23646 - 24,)]

    want = reference_work(events)
    rows = _q(db, "SELECT k.correlation_id, w.flops, w.bytes, w.flops_source FROM kernels k "
                  "JOIN kernel_work w USING (run_id, seq) WHERE w.flops IS NOT NULL")
    assert {r[0]: (r[1], r[2]) for r in rows} == want
    by_source = {}
    for r in rows:
        key = r[3].replace(" (on its op's longest kernel)", "")
        by_source[key] = by_source.get(key, 0) + 1
    assert by_source == {"gemm 2MNK": 36, "conv 2NCoHoWoCiKhKw (grad shape)": 606,
                         "conv dgrad 2NCoHoWoCiKhKw (grad shape)": 816,
                         "conv wgrad 2NCoHoWoCiKhKw (grad shape)": 684}
    # the roofline report answers, its kernels' FLOPs those of kernel_work
    out = cli("report", "roofline", "--db", db, "--run", "rn", "--by", "kernel", "--format", "csv").stdout
    table = list(csv.DictReader(io.StringIO(out)))
    assert sum(int(r["flops"]) for r in table if r["flops"]) == sum(w[0] for w in want.values())

