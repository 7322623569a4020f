"""`tracedb report critical-path` over the real GPU traces ($TRACEDB_TEST_DATA; skipped when absent), against a
plain Python walk over the raw Kineto JSON written here (not from tracedb's SQL): the nodes (device activities;
the runtime calls that launched them; synchronising calls), each node's candidates and the one released last,
the walk back from the last node, and the host gaps split by the thread's ops. The two paths must agree segment
by segment, and `--by category` must add up to the window's wall time. Thirteen more real traces (MORE) are held to
the same walk in the slow tier; the AlexNet Ascend captures, text and SQLite exports, to what their files say."""
import csv
import gzip
import io
import json
import re
from decimal import Decimal

import pytest

from helpers import cli, real_trace
from schedule_sim import merge

pytestmark = pytest.mark.real_data

RUNTIME = ("cuda_runtime", "cuda_driver", "runtime", "privateuse1_runtime", "privateuse1_driver")
DEVICE = {"kernel": "kernel", "gpu_memcpy": "memcpy", "memcpy": "memcpy", "gpu_memset": "memset", "memset": "memset"}
OWN = {"kernel": "device_compute", "memcpy": "device_memcpy", "memset": "device_memcpy", "launch": "host_op",
       "sync": "sync_wait"}
GAP = {"stream": "device_gap", "launch": "launch_latency", "thread": "host_gap", "sync": "sync_wait"}
# a synchronising call: *Synchronize, or a blocking copy or fill (cudaMemcpy, hipMemcpyWithStream, ...)
SYNC = re.compile(r"(?i)synchronize$|^(cuda|hip)Mem(cpy|set)(?!.*Async)")
# a step annotation covers no host time: SGLang's step[EXTEND bs=15 ...], vLLM's execute_..._context_...
SERVING_STEP = re.compile(r"^step\[[A-Z]+ bs=\d+|^execute_(\d+_)?context_\d+\(.*\)_generation_\d+\(")
TRACES = {
    "h100": ("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
    "mi300": ("amd-tracelens", "mi300", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
    "vllm_full": ("amd-tracelens", "inference", "vllm_decode_full", "graph_execution.json.gz"),
    "nccl": ("hta-multirank", "nccl_parser_config", "nccl_data.json.gz"),
}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def to_ns(v) -> int:
    return int(Decimal(str(v)) * 1000)


def expected_path(events):
    """The path by the definition in docs/critical-path.md, from the raw events: (start, end, category)
    relative to the window's start, in time order."""
    dev, host, ops = [], [], {}
    for e in events:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        cat = str(e.get("cat", "")).lower()
        s = to_ns(e["ts"])
        d = to_ns(e.get("dur", 0))
        args = e.get("args") or {}
        if cat in DEVICE:
            dev.append({"side": "device", "kind": DEVICE[cat], "s": s, "e": s + d, "corr": args.get("correlation"),
                        "lane": ("device", args.get("device"), args.get("stream", e.get("tid")))})
        elif cat in RUNTIME:
            host.append({"side": "host", "name": e["name"], "s": s, "e": s + d, "corr": args.get("correlation"),
                         "lane": ("host", str(e.get("pid")), str(e.get("tid")))})
        elif cat in ("cpu_op", "operator", "python_function", "user_annotation") and "#" not in e["name"] \
                and not SERVING_STEP.match(e["name"]):
            ops.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append((s, s + d))
    launched = {n["corr"] for n in dev if n["corr"] is not None}
    calls = []
    for h in host:
        if SYNC.search(h["name"]):
            calls.append({**h, "kind": "sync"})
        elif h["corr"] in launched:
            calls.append({**h, "kind": "launch"})
    nodes = sorted(dev + calls, key=lambda n: (n["s"], n["e"], n["side"]))
    cands = {i: [] for i in range(len(nodes))}
    last_on = {}
    for i, n in enumerate(nodes):
        if n["lane"] in last_on:
            p = last_on[n["lane"]]
            cands[i].append((nodes[p]["e"], 0, p, "stream" if n["side"] == "device" else "thread"))
        last_on[n["lane"]] = i
    first_launch = {}
    for i, n in enumerate(nodes):
        if n["side"] == "host" and n["corr"] in launched and n["corr"] not in first_launch:
            first_launch[n["corr"]] = i
    own_start = {}      # a blocking copy's own copy: the call waited for what ended by its start
    for n in nodes:
        if n["side"] == "device" and n["corr"] is not None:
            own_start[n["corr"]] = min(own_start.get(n["corr"], n["s"]), n["s"])
    device_by_end = sorted((n["e"], i) for i, n in enumerate(nodes) if n["side"] == "device")
    ends = [e for e, _ in device_by_end]
    import bisect
    for i, n in enumerate(nodes):
        if n["side"] == "device" and n["corr"] in first_launch:
            h = first_launch[n["corr"]]
            cands[i].append((min(nodes[h]["e"], n["s"]), -1, h, "launch"))
        if n["side"] == "host" and n["kind"] == "sync":
            k = bisect.bisect_right(ends, own_start.get(n["corr"], n["e"])) - 1
            if k >= 0 and ends[k] > n["s"]:
                # the last to end at or before the call's end; on equal ends the later node
                j = max(i2 for e2, i2 in device_by_end if e2 == ends[k])
                cands[i].append((ends[k], -1, j, "sync"))
    bound = {i: max(c) for i, c in cands.items() if c}
    w_start = nodes[0]["s"]
    w_end = max(n["e"] for n in nodes)
    node = max(range(len(nodes)), key=lambda i: (nodes[i]["e"], nodes[i]["side"] == "device", i))
    out, x = [], w_end
    while node is not None and x > w_start:
        n = nodes[node]
        release, _, pred, edge = bound.get(node, (None, None, None, None))
        if release is not None:
            release = min(release, x)
        own_from = min(max(max(n["s"], release) if release is not None else n["s"], w_start), x)
        if x > own_from:
            out.append((own_from, x, OWN[n["kind"]], n))
        if pred is None or release <= w_start:
            if own_from > w_start:
                out.append((w_start, own_from, GAP[edge] if pred is not None else
                            "device_gap" if n["side"] == "device" else "host_gap", n))
            break
        if own_from > release:
            out.append((release, own_from, GAP[edge], n))
        x, node = release, pred
    segs = []
    for s, e, c, n in reversed(out):
        if c != "host_gap":
            segs.append((s, e, c))
            continue
        covered = sorted((max(a, s), min(b, e)) for a, b in ops.get(n["lane"][1:], []) if a < e and b > s)
        t = s
        for a, b in covered:
            if b <= t:
                continue
            a = max(a, t)
            if a > t:
                segs.append((t, a, "host_gap"))
            if b > a:       # an op of no duration covers nothing
                segs.append((a, b, "host_op"))
            t = b
        if e > t:
            segs.append((t, e, "host_gap"))
    return [(s - w_start, e - w_start, c) for s, e, c in merge(segs)]


# more real traces against the same walk, each on its own (slow tier): serving steps replayed as graphs and their
# captures, a diffusion transformer, MoE and dense decode steps on MI300X and B300, HTA's and TensorBoard's
# training samples (PyTorch 1.8's `Operator` category), a DeepSeek training step
MORE = {
    "sglang": ("amd-tracelens", "inference", "sglang_prefilldecode", "sglang_Qwen3-8B_prefilldecode.json.gz"),
    "vllm_piecewise": ("amd-tracelens", "inference", "vllm_prefilldecode_piecewise", "graph_execution.json.gz"),
    "vllm_full_capture": ("amd-tracelens", "inference", "vllm_decode_full", "capture_traces",
                          "graph_capture_rank_0.1773709742341309550.pt.trace.json.gz"),
    "vllm_piecewise_capture": ("amd-tracelens", "inference", "vllm_prefilldecode_piecewise", "capture_traces",
                               "graph_capture_rank_0.1773709679453551615.pt.trace.json.gz"),
    "flux": ("amd-tracelens", "inference", "xdit_flux.1_aiter_sage", "profile_trace_rank_0.json.gz"),
    "flux_capture": ("amd-tracelens", "inference", "xdit_flux.1_aiter_sage", "capture_traces",
                     "capture_trace_rank_0.json.gz"),
    "qwen3_moe_mi300": ("amd-tracelens", "semantic_purity", "semantic_purity_qwen3_30b_a3b", "MI300",
                        "1782859605.7198358-TP-0-DECODE.trace.json.gz"),
    "llama_b300": ("amd-tracelens", "semantic_purity", "semantic_purity_deepseek_r1", "B300",
                   "1782843274.7730265-TP-0-DECODE.trace.json.gz"),
    "hta_control": ("hta-tests-data", "trace_diff", "control", "control.json.gz"),
    "mi250_train": ("hta-tests-data", "amd_trace", "mi250_minitoy_train_ROCm6_2_kineto.json.gz"),
    "tensorboard": ("torch-tb-profiler-sample", "worker0.1623143089861.pt.trace.json.gz"),
    "hta_sampled": ("hta-multirank", "trace_filter", "sampled_rank-0.json.gz"),
    "deepseek_train": ("deepseek-profile-data", "train.json"),
}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    d = tmp_path_factory.mktemp("cp_real")
    path = str(d / "s.duckdb")
    for name, parts in TRACES.items():
        cli("ingest", real_trace(*parts), "--db", path, "--name", name)
    return path


@pytest.mark.parametrize("name", TRACES)
def test_path_equals_a_plain_walk_over_the_raw_json(db, name):
    out = cli("report", "critical-path", "--db", db, "--run", name, "--format", "csv").stdout
    got = [(int(Decimal(r["start_us"]) * 1000), int(Decimal(r["end_us"]) * 1000), r["category"])
           for r in csv.DictReader(io.StringIO(out))]
    want = expected_path(load(real_trace(*TRACES[name])))
    assert merge(got) == want
    assert len(want) > 10


@pytest.mark.slow
@pytest.mark.parametrize("name", MORE)
def test_more_real_paths_equal_the_plain_walk(tmp_path, name):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", real_trace(*MORE[name]), "--db", db, "--name", name)
    out = cli("report", "critical-path", "--db", db, "--run", name, "--format", "csv").stdout
    got = [(int(Decimal(r["start_us"]) * 1000), int(Decimal(r["end_us"]) * 1000), r["category"])
           for r in csv.DictReader(io.StringIO(out))]
    assert merge(got) == expected_path(load(real_trace(*MORE[name])))


@pytest.mark.parametrize("name", TRACES)
def test_by_category_adds_up_to_the_window(db, name):
    seg = list(csv.DictReader(io.StringIO(
        cli("report", "critical-path", "--db", db, "--run", name, "--format", "csv").stdout)))
    by = list(csv.DictReader(io.StringIO(
        cli("report", "critical-path", "--db", db, "--run", name, "--by", "category", "--format", "csv").stdout)))
    assert sum(Decimal(r["dur_us"]) for r in by) == Decimal(seg[-1]["end_us"])
    assert abs(sum(Decimal(r["pct"]) for r in by) - 100) < Decimal("0.1")


def test_stages_and_modules_of_the_path(db):
    """Each segment carries its kernel's stage in its layer and its launching module, as report layers --by
    stage and report modules find them (H100 Qwen1.5-0.5B, step 6): the flash-attention kernels are attention,
    and those of the step's own pass (1; pass 0 ran before the capture's host side began) were launched by the
    attention module; --by stage and --by module add up to the window."""
    seg = list(csv.DictReader(io.StringIO(cli("report", "critical-path", "--db", db, "--run", "h100", "--step", "6",
                                              "--format", "csv").stdout)))
    flash = [r for r in seg if "flash_fwd_kernel" in r["name"] and r["segment"] == "kernel"]
    assert len(flash) >= 24
    assert {r["stage"] for r in flash} == {"attention"}
    assert {r["module"] for r in flash if r["pass"] == "1"} == {"Qwen2Model/Qwen2DecoderLayer/Qwen2Attention"}
    assert {r["module"] for r in flash if r["pass"] == "0"} == {"(no host launch)"}
    assert {r["stage"] for r in seg if r["layer"]} == {"attention", "ffn"}
    wall = Decimal(seg[-1]["end_us"])
    for by in ("stage", "module"):
        rows = list(csv.DictReader(io.StringIO(cli("report", "critical-path", "--db", db, "--run", "h100", "--step",
                                                   "6", "--by", by, "--format", "csv").stdout)))
        assert sum(Decimal(r["dur_us"]) for r in rows) == wall, by
        keys = {r["key"] for r in rows}
        assert {"attention", "ffn"} <= keys if by == "stage" else "Qwen2Model/Qwen2DecoderLayer/Qwen2Attention" in keys


def test_a_layer_window_adds_up_to_its_wall(db):
    """--pass N --layer L: the window is the layer's kernels' first start to last end, so the path's time is
    report layers' wall_us of that layer (H100 Qwen1.5-0.5B, anchor proposed as report layers proposes it)."""
    layers = list(csv.DictReader(io.StringIO(
        cli("report", "layers", "--db", db, "--run", "h100", "--format", "csv").stdout)))
    full = [r for r in layers if r["unit"] == "layer"]
    assert len(full) >= 24
    for r in full[::6]:
        by = list(csv.DictReader(io.StringIO(cli(
            "report", "critical-path", "--db", db, "--run", "h100", "--pass", r["pass"], "--layer", r["layer"],
            "--by", "category", "--format", "csv").stdout)))
        assert sum(Decimal(x["dur_us"]) for x in by) == Decimal(r["wall_us"])


def test_an_ascend_folder_links_its_launches_and_reads_its_event_waits(tmp_path):
    """The AlexNet Ascend capture (kernel_details.csv beside trace_view.json): each CSV kernel reaches the op
    its task's flow leads from, so no note says the path follows streams only. Its four all-reduces run on
    stream 4 (their hardware tasks' stream; HCCL's thread in the trace), and the compute stream 2 waits for
    them by EVENT_WAIT tasks (from the raw trace_view.json: 72.8 ms and three more over 1 ms): each all-reduce
    is on the path whole, as device_comm of exactly its raw length, and no wait of stream 2 is idle
    (device_gap) on it."""
    folder = real_trace("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt")
    db = str(tmp_path / "s.duckdb")
    cli("ingest", folder, "--db", db, "--name", "alexnet")
    r = cli("report", "critical-path", "--db", db, "--format", "csv")
    assert "no launch call" not in r.stderr, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    raw = load(f"{folder}/ASCEND_PROFILER_OUTPUT/trace_view.json")
    waits = sorted(to_ns(e["dur"]) for e in raw
                   if e.get("ph") == "X" and e.get("name") == "EVENT_WAIT" and str(e.get("tid")) == "2"
                   and to_ns(e["dur"]) > 1_000_000)
    assert len(waits) == 4 and waits[-1] == 72_785_634
    colls = sorted(to_ns(e["dur"]) for e in raw if e.get("ph") == "X" and str(e.get("name")).startswith("hcom_"))
    on_path = sorted(int(Decimal(x["dur_us"]) * 1000) for x in rows if x["category"] == "device_comm")
    assert len(colls) == 4 and on_path == colls
    assert {x["lane"] for x in rows if x["category"] == "device_comm"} == {"device::4"}
    assert not [x for x in rows if x["category"] == "device_gap" and x["lane"] == "device::2"
                and Decimal(x["dur_us"]) > 1000]


def test_an_ascend_sqlite_export_gives_the_path_its_text_export_gives(tmp_path):
    """The AlexNet capture's SQLite export (ascend_pytorch_profiler_0.db): its tasks reach the framework ops
    that launched them, its all-reduces run on their hardware tasks' stream (4), and the compute stream's
    EVENT_WAIT tasks make it wait for them, as trace_view.json says of the text export. Each all-reduce is on the
    path whole, as device_comm of exactly its COMMUNICATION_OP length, and stream 2 is never idle on the path for
    long. The text export, another capture of the same step, gives the same segments in the same order but for
    what the two files name differently: its collectives' instance names, and the host time between two
    synchronising calls, which the SQLite export's thread holds in Python frames (host_op) while trace_view.json
    puts CANN's calls in a process of their own (host_gap)."""
    import sqlite3
    folder = real_trace("ascend-msinsight", "alexnet_level2_db", "rank0_ascend_pt")
    db = str(tmp_path / "s.duckdb")
    cli("ingest", folder, "--db", db, "--name", "sqlite")
    cli("ingest", real_trace("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt"), "--db", db, "--name",
        "text")
    r = cli("report", "critical-path", "--db", db, "--run", "sqlite", "--format", "csv")
    assert "no launch call" not in r.stderr, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    lite = sqlite3.connect(f"file:{folder}/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db?mode=ro", uri=True)
    colls = sorted(e - s for s, e in lite.execute("SELECT startNs, endNs FROM COMMUNICATION_OP"))
    lite.close()
    on_path = sorted(int(Decimal(x["dur_us"]) * 1000) for x in rows if x["category"] == "device_comm")
    assert len(colls) == 4 and on_path == colls
    assert {x["lane"] for x in rows if x["category"] == "device_comm"} == {"device:0:4"}
    assert not [x for x in rows if x["category"] == "device_gap" and x["lane"] == "device:0:2"
                and Decimal(x["dur_us"]) > 1000]
    text = list(csv.DictReader(io.StringIO(cli("report", "critical-path", "--db", db, "--run", "text",
                                               "--format", "csv").stdout)))

    def shape(segments):
        out = []
        for x in segments:
            host_time = x["segment"] == "gap" and x["category"] in ("host_op", "host_gap") and x["lane"].startswith(
                "host:") and x["api"].startswith("AscendCL@aclrtSynchronize")
            item = (x["segment"], "host time" if host_time else x["category"], x["kernel"],
                    re.sub(r"__\d+_", "__N_", x["name"]), x["api"], x["unit"])
            if not (out and host_time and out[-1] == item):      # one stretch of host time, however split
                out.append(item)
        return out
    assert shape(rows) == shape(text) and len(shape(rows)) > 50
