"""Reports over the real traces in the real-trace folder ($TRACEDB_TEST_DATA; skipped when absent), checked
against a plain Python computation written here from the definitions in docs/segmentation.md (not from
tracedb's SQL)."""
import bisect
import csv
import functools
import io
import statistics

import pytest

from helpers import cli, real_trace

pytestmark = pytest.mark.real_data

QWEN3 = ("ascend-msinsight", "st_level2_qwen3_megatron", "rank_0_ascend_pt")


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """ingested(*parts) -> a store holding the real trace at `parts` as run 'R', ingested by `tracedb ingest`
    once for the module: the tests that only read it share it (reports and SQL open stores read-only)."""
    stores = {}

    def store(*parts):
        if parts not in stores:
            path = real_trace(*parts)
            db = str(tmp_path_factory.mktemp("real") / "r.duckdb")
            cli("ingest", path, "--db", db, "--name", "R")
            stores[parts] = db
        return stores[parts]
    return store


def us_ns(text):
    whole, _, frac = text.strip("\t ").partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


def reference_layers(path, anchor_type, layers=None, gap_factor=10):
    """(pass, layer) -> (kernels, sum_ns, wall_ns) in the strict window, by the definitions of docs/segmentation.md."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    seen_rows, seen_comm, ks = set(), set(), []
    for i, r in enumerate(rows):
        key = tuple(r.values())
        if key in seen_rows:
            continue
        seen_rows.add(key)
        start, dur = us_ns(r["Start Time(us)"]), us_ns(r["Duration(us)"])
        if r["Accelerator Core"] in ("HCCL", "COMMUNICATION") or r["Name"].startswith("hcom_"):
            ck = (start // 1000, r["Type"])
            if ck in seen_comm:
                continue
            seen_comm.add(ck)
        ks.append((start, i, dur, r["Type"]))
    ks.sort()
    anchors = [k for k in ks if k[3] == anchor_type]
    if layers:
        groups = [anchors[i:i + layers] for i in range(0, len(anchors), layers)]
    else:
        gaps = [b[0] - (a[0] + a[2]) for a, b in zip(anchors, anchors[1:])]
        cut = gap_factor * max(statistics.median(gaps), 1)
        groups = [[anchors[0]]]
        for g, a in zip(gaps, anchors[1:]):
            (groups.append([a]) if g > cut else groups[-1].append(a))
    out = {}
    for p, g in enumerate(groups):
        lo, hi = g[0][0], g[-1][0] + g[-1][2]
        starts = [a[0] for a in g]
        for k in ks:
            if lo <= k[0] <= hi:
                layer = bisect.bisect_right(starts, k[0]) - 1
                n, s, first, last = out.get((p, layer), (0, 0, k[0], 0))
                out[(p, layer)] = (n + 1, s + k[2], min(first, k[0]), max(last, k[0] + k[2]))
    return {key: (n, s, last - first) for key, (n, s, first, last) in out.items()}


def cli_layers(db, *args):
    out = cli("report", "layers", "--db", db, "--run", "R", "--window", "strict", "--pass", "all", "--format", "csv",
              *args).stdout
    got = {}
    for r in csv.DictReader(io.StringIO(out)):
        if r["layer"] != "":
            got[(int(r["pass"]), int(r["layer"]))] = (int(r["kernels"]), round(float(r["sum_us"]) * 1000),
                                                      round(float(r["wall_us"]) * 1000))
    return got


@pytest.mark.parametrize("layers", [14, None])
@pytest.mark.slow
def test_qwen3_megatron_layers_equal_reference(ingested, layers):
    folder = real_trace(*QWEN3)
    db = ingested(*QWEN3)
    args = ["--anchor", "^FlashAttentionScore$"] + (["--layers", str(layers)] if layers else [])
    # without --layers, the pipeline send/receive between the two micro-batches splits them as 14 does
    want = reference_layers(f"{folder}/ASCEND_PROFILER_OUTPUT/kernel_details.csv", "FlashAttentionScore", 14)
    got = cli_layers(db, *args)
    assert len(want) == 28           # 28 FlashAttentionScore = 14 layers x 2 micro-batches
    assert got == want


def test_qwen3_megatron_run_metadata(tmp_path):
    folder = real_trace(*QWEN3)
    db = str(tmp_path / "r.duckdb")
    cli("ingest", folder, "--db", db, "--name", "R", "--tag", "hw=910B")
    out = cli("sql", "--db", db, "--format", "csv", "select format, rank, device_id, kernel_count, "
              "tags['hw'] as hw, len(metric_columns) as metrics, extra_columns from runs").stdout
    # 47 columns, 21 mapped to canonical ones (Step Id ... Context ID) -> 26 others: 25 PMU metrics and
    # HF32 Eligible (YES/NO); rank_id 0 from profiler_info_0.json; 2463 rows, none duplicated
    assert out.splitlines()[1] == "ascend-kernel-details,0,0,2463,910B,25,[HF32 Eligible]"


def test_mstt_compute_advice_has_three_exact_duplicates(tmp_path):
    path = real_trace("ascend-mstt", "kernel_details_compute_advice_fa.csv")
    db = str(tmp_path / "r.duckdb")
    out = cli("ingest", path, "--db", db).stdout
    with open(path, newline="") as f:
        rows = [tuple(r) for r in csv.reader(f)][1:]
    dups = len(rows) - len(set(rows))
    assert dups == 3 and "(3 duplicates not counted)" in out


def test_malformed_op_summary_names_its_line(tmp_path):
    # MindStudio Insight's parser test file: line 17 lacks one column
    path = real_trace("ascend-msinsight", "test_kernel_parse", "op_summary_1.csv")
    p = cli("ingest", path, "--db", str(tmp_path / "r.duckdb"), check=False)
    assert p.returncode == 1
    assert p.stderr.strip() == f"error: {path}: line 17: expected 32 columns, found 31 (truncated or malformed row)"


@pytest.mark.parametrize("parts", [
    ("ascend-mstt", "kernel_details.csv"),
    ("ascend-msprof-op_summary-vllm-ascend-tmp", "op_summary_20260823165421.csv"),
    ("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt"),
])
@pytest.mark.slow
def test_other_real_files_ingest_exactly(tmp_path, parts):
    path = real_trace(*parts)
    db = str(tmp_path / "r.duckdb")
    cli("ingest", path, "--db", db, "--name", "R")
    csv_path = path if path.endswith(".csv") else f"{path}/ASCEND_PROFILER_OUTPUT/kernel_details.csv"
    with open(csv_path, newline="", encoding="utf-8-sig") as f:
        rd = csv.DictReader(f)
        col = "Start Time(us)" if "Start Time(us)" in rd.fieldnames else "Task Start Time(us)"
        starts = [us_ns(r[col]) for r in rd]
    got = cli("sql", "--db", db, "--format", "csv", "select count(*), sum(start_ns)::HUGEINT from kernels_raw").stdout
    assert got.splitlines()[1] == f"{len(starts)},{sum(starts)}"


# ----------------------------------------------------------------------------------------- GPU traces
SGLANG = ("amd-tracelens", "inference", "sglang_prefilldecode", "sglang_Qwen3-8B_prefilldecode.json.gz")
DEVICE_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset")


def chrome_device_events(path):
    """(start_ns, index, dur_ns, name) of every device event of a Chrome trace, as read by the json module."""
    return read_chrome_trace(path)[0]


def base_ns(path):
    """baseTimeNanoseconds of a Kineto trace (0 when absent), read with the json module."""
    return read_chrome_trace(path)[1]


@functools.lru_cache(maxsize=None)
def read_chrome_trace(path):
    """The device events and time base of a trace, parsed once per path: several tests check the same
    trace against them, and parsing one takes up to a second."""
    import gzip
    import json
    from decimal import Decimal
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal)   # exact: epoch µs * 1000 does not fit a float
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    ns = lambda v: int((Decimal(v) * 1000).to_integral_value())   # noqa: E731
    device = tuple((ns(e["ts"]), i, ns(e.get("dur", 0)), e.get("name", ""))
                   for i, e in enumerate(events) if e.get("ph") == "X" and str(e.get("cat", "")).lower() in DEVICE_CATS)
    return device, (doc.get("baseTimeNanoseconds", 0) if isinstance(doc, dict) else 0)


@pytest.mark.slow
def test_sglang_mi300x_layers_equal_reference(ingested):
    path = real_trace(*SGLANG)
    db = ingested(*SGLANG)
    ks = sorted(chrome_device_events(path))
    anchors = [k for k in ks if "FmhaBatchPrefillWithPagedKVCache" in k[3]]
    want = {}
    for p in range(0, len(anchors), 36):   # 36 layers (Qwen3-8B): count-based passes
        g = anchors[p:p + 36]
        lo, hi, starts = g[0][0], g[-1][0] + g[-1][2], [a[0] for a in g]
        for k in ks:
            if lo <= k[0] <= hi:
                key = (p // 36, bisect.bisect_right(starts, k[0]) - 1)
                n, s, first, last = want.get(key, (0, 0, k[0], 0))
                want[key] = (n + 1, s + k[2], min(first, k[0]), max(last, k[0] + k[2]))
    want = {key: (n, s, last - first) for key, (n, s, first, last) in want.items()}
    got = cli_layers(db, "--anchor", "FmhaBatchPrefillWithPagedKVCache", "--layers", "36")
    assert len(want) == 36 and got == want


def test_sglang_modules_account_for_all_device_time(ingested):
    path = real_trace(*SGLANG)
    db = ingested(*SGLANG)
    out = cli("report", "modules", "--db", db, "--run", "R", "--format", "csv").stdout
    total_ns = sum(round(float(r["sum_us"]) * 1000) for r in csv.DictReader(io.StringIO(out)))
    assert total_ns == sum(k[2] for k in chrome_device_events(path))


@pytest.mark.parametrize("parts", [
    ("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
    ("amd-tracelens", "mi300", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
    ("amd-tracelens", "inference", "vllm_decode_full", "graph_execution.json.gz"),
    ("amd-tracelens", "inference", "vllm_prefilldecode_piecewise", "graph_execution.json.gz"),
    ("deepseek-profile-data", "train.json"),
    ("hta-tests-data", "amd_trace", "mi250_minitoy_train_ROCm6_2_kineto.json.gz"),
    ("hta-tests-data", "trace_diff", "control", "control.json.gz"),
    ("torch-tb-profiler-sample", "worker0.1623143089861.pt.trace.json.gz"),
])
@pytest.mark.slow
def test_real_gpu_traces_ingest_every_device_event_exactly(ingested, parts):
    path = real_trace(*parts)
    db = ingested(*parts)
    ks = chrome_device_events(path)
    # start times exact to the ns too (relative to the run's time base: baseTimeNanoseconds or 0)
    got = cli("sql", "--db", db, "--format", "csv", "select count(*), sum(dur_ns), sum(start_ns) from kernels").stdout
    want_starts = sum(k[0] for k in ks) + len(ks) * base_ns(path)
    assert got.splitlines()[1] == f"{len(ks)},{sum(k[2] for k in ks)},{want_starts}"


# The same HF-transformers run of Qwen1.5-0.5B-Chat (24 layers) on H100 and on MI300X. Each trace holds the
# tail of one forward pass (10 resp. 11 layers, without host events) and, after a pause of ~2.3 median anchor
# gaps, a whole pass with host events: passes by gaps (--pass-gap 2) give pass 0 (partial, different
# depths) and pass 1 (24 layers each).
QWEN15 = {"h100": ("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
          "mi300": ("amd-tracelens", "mi300", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")}
QWEN15_SEG = ("--anchor", "flash_fwd_kernel|^attn_fwd$", "--pass-gap", "2", "--pass", "all", "--window", "full")


@pytest.fixture(scope="module")
def qwen15(tmp_path_factory):
    paths = {run: real_trace(*parts) for run, parts in QWEN15.items()}
    db = str(tmp_path_factory.mktemp("qwen15") / "q.duckdb")
    for run, path in paths.items():
        cli("ingest", path, "--db", db, "--name", run)
    return db, paths


def compare_cli(db, by, fmt="csv"):
    return cli("report", "compare", "--db", db, "--run", "h100", "--run", "mi300", *QWEN15_SEG, "--by", by,
               "--format", fmt)


def compare_rows(db, by):
    p = compare_cli(db, by)
    return list(csv.DictReader(io.StringIO(p.stdout))), p.stderr


@pytest.mark.slow
def test_h100_vs_mi300_by_kernel_accounts_for_every_kernel(qwen15):
    db, paths = qwen15
    got, notes = compare_rows(db, "kernel")
    # pass 0 holds layers 14-23 (h100) and 13-23 (mi300) of a 24-layer pass, each fragment numbered from the
    # end as the full pass counts, plus the end of the layer before (13, 12): 11 and 12 layers
    assert "note: layer counts differ in pass 0: h100 11 layers, mi300 12 layers; layers of one run only are kept, " \
           "flagged aligned=false" in notes.splitlines()
    keys = {}
    for r in got:
        keys.setdefault((r["pass"], r["layer"], r["category"], r["ordinal"]), set()).add(r["run"])
    for r in got:   # aligned exactly when both runs have the key; the others are kept and flagged
        assert (r["aligned"] == "true") == (len(keys[(r["pass"], r["layer"], r["category"], r["ordinal"])]) == 2)
    for run, path in paths.items():
        ks = chrome_device_events(path)   # the full window covers every kernel of the run
        mine = [r for r in got if r["run"] == run]
        assert sum(int(r["kernels"]) for r in mine) == len(ks) == len(mine)
        assert sum(round(float(r["sum_us"]) * 1000) for r in mine) == sum(k[2] for k in ks)
        layers = cli("report", "layers", "--db", db, "--run", run, *QWEN15_SEG, "--format", "csv").stdout
        want = {(r["pass"], r["layer"]): (int(r["kernels"]), round(float(r["sum_us"]) * 1000))
                for r in csv.DictReader(io.StringIO(layers))}
        per = {}
        for r in mine:
            n, ns = per.get((r["pass"], r["layer"]), (0, 0))
            per[(r["pass"], r["layer"])] = (n + 1, ns + round(float(r["sum_us"]) * 1000))
        assert per == want
    # layer 12 of pass 0 exists on the MI300X only: kept, flagged; layer 20 lines up
    assert {(r["run"], r["aligned"]) for r in got if (r["pass"], r["layer"]) == ("0", "12")} == {("mi300", "false")}
    assert {r["run"] for r in got if (r["pass"], r["layer"]) == ("0", "20") and r["aligned"] == "true"} == {
        "h100", "mi300"}


@pytest.mark.slow
def test_h100_vs_mi300_by_module_uses_report_modules_attribution(qwen15):
    db, _ = qwen15
    got, _ = compare_rows(db, "module")
    for run in ("h100", "mi300"):
        out = cli("report", "modules", "--db", db, "--run", run, *QWEN15_SEG, "--by", "module",
                  "--format", "csv").stdout
        want = {(r["pass"], r["layer"], r["module"], r["kernels"], r["sum_us"])
                for r in csv.DictReader(io.StringIO(out))}
        assert {(r["pass"], r["layer"], r["module"], r["kernels"], r["sum_us"]) for r in got if r["run"] == run} == want
    # pass 1 was recorded with modules: per layer the same module roles on both GPUs, the seven projections
    # apart (q, k, v, o: Linear#0-3 of the attention; gate, up, down: Linear#0-2 of the MLP), the two norms
    # apart; pass 0 has no host side: one '(no host launch)' row per layer
    full = {(r["module"], r["aligned"]) for r in got if r["pass"] == "1" and r["layer"] == "5"}
    roles = [f"Qwen2Model/Qwen2DecoderLayer/Qwen2Attention/Linear#{i}" for i in range(4)] + \
        [f"Qwen2Model/Qwen2DecoderLayer/Qwen2MLP/Linear#{i}" for i in range(3)] + \
        ["Qwen2Model/Qwen2DecoderLayer/Qwen2RMSNorm#0", "Qwen2Model/Qwen2DecoderLayer/Qwen2RMSNorm#1",
         "Qwen2Model/Qwen2DecoderLayer/Qwen2Attention"]
    assert {(m, "true") for m in roles} <= full
    assert {r["module"] for r in got if r["pass"] == "0"} == {"(no host launch)"}
    md = compare_cli(db, "module", fmt="md").stdout
    assert "| pass | layer | module | h100_kernels | h100_us | mi300_kernels | mi300_us | delta_us | ratio |" in md


# ------------------------------------------------------------------------------------ per-core NPU traces
SWIMLANE = ("npu-swimlane-simpler", "yanghaoran29_simpler", "merged_swimlane.json")

@pytest.mark.slow
def test_swimlane_cores_equal_reference(ingested):
    import json
    import re
    path = real_trace(*SWIMLANE)
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    pname = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    tname = {(e["pid"], e["tid"]): e["args"]["name"]
             for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
    per = {}
    for e in ev:
        key = (e.get("pid"), e.get("tid"))
        m = re.match(r"(AIC|AIV)([_ (]|$)", tname.get(key, "").upper())
        if e.get("ph") == "X" and m and not re.search(r"AICPU|SCHED|ORCH", pname.get(key[0], "").upper()):
            s = round(float(e["ts"]) * 1000)
            per.setdefault((m.group(1), key), []).append((s, s + round(float(e["dur"]) * 1000)))
    lo = min(s for v in per.values() for s, _ in v)
    hi = max(e for v in per.values() for _, e in v)
    want = {}
    for (cls, _), iv in per.items():
        iv.sort()
        busy, (cs, ce) = 0, iv[0]
        for s, e in iv[1:]:
            if s > ce:
                busy, cs, ce = busy + ce - cs, s, e
            else:
                ce = max(ce, e)
        cores, tasks, b = want.get(cls, (0, 0, 0))
        want[cls] = (cores + 1, tasks + len(iv), b + busy + ce - cs)
    db = ingested(*SWIMLANE)
    out = cli("report", "cores", "--db", db, "--run", "R", "--format", "csv").stdout
    got = {r["core_class"]: (int(r["cores"]), int(r["tasks"]), round(float(r["busy_us"]) * 1000),
                             round(float(r["idle_us"]) * 1000)) for r in csv.DictReader(io.StringIO(out))}
    assert got == {c: (n, t, b, n * (hi - lo) - b) for c, (n, t, b) in want.items()}


# The passes an expert marks by hand on each shared real trace, with default flags (no anchor: proposed;
# no --layers; full window): (anchors, partial) per pass. Layer-count checks by eye on each trace:
# - Qwen1.5-0.5B (24 layers), HF transformers on H100 and MI300X: the capture starts in the middle of one
#   pass (its last 10 resp. 11 layers), then one whole pass; the break gap is 2.2x resp. 2.6x the largest
#   gap inside a pass.
# - SGLang Qwen3-8B (36 layers) prefill: one pass. vLLM decode on MI300X (24 layers): one pass whose layers
#   alternate kernel_unified_attention_2d / _3d; the piecewise trace runs _2d in all 24.
# - DeepSeek DualPipe training chunk (4 layers): one forward and one backward pass, interleaved kernel by
#   kernel, each anchored on its own attention kernel.
# - Megatron Qwen3 on Ascend (14 layers per pipeline stage, 2 micro-batches): the two forward micro-batches
#   are only 1.7x the largest in-pass gap apart, but a pipeline send/receive lies between them, so they are
#   two passes of 14 with or without --layers 14; then the two backward micro-batches.
EXPECTED_PASSES = [
    (("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"), [], [(10, True), (24, False)]),
    (("amd-tracelens", "mi300", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"), [], [(11, True), (24, False)]),
    (("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"), ["--layers", "24"],
     [(10, True), (24, False)]),
    (("amd-tracelens", "inference", "sglang_prefilldecode", "sglang_Qwen3-8B_prefilldecode.json.gz"), [],
     [(36, False)]),
    (("amd-tracelens", "inference", "vllm_decode_full", "graph_execution.json.gz"), [], [(24, False)]),
    (("amd-tracelens", "inference", "vllm_prefilldecode_piecewise", "graph_execution.json.gz"), [], [(24, False)]),
    (("deepseek-profile-data", "train.json"), [], [(4, False), ("backward", 4, False)]),
    ((*QWEN3, "ASCEND_PROFILER_OUTPUT", "kernel_details.csv"), [],
     [(14, False), (14, False), ("backward", 14, False), ("backward", 14, False)]),
    ((*QWEN3, "ASCEND_PROFILER_OUTPUT", "kernel_details.csv"), ["--layers", "14"],
     [(14, False), (14, False), ("backward", 14, False), ("backward", 14, False)]),
]


@pytest.mark.parametrize("parts, args, want", EXPECTED_PASSES,
                         ids=[f"{p[-1] if len(p[-1]) > 24 else '/'.join(p[-2:])}{' ' + ' '.join(a) if a else ''}"
                              for p, a, _ in EXPECTED_PASSES])
@pytest.mark.slow
def test_default_flags_give_the_passes_an_expert_marks(ingested, parts, args, want):
    db = ingested(*parts)
    got = list(csv.DictReader(io.StringIO(cli("report", "passes", "--db", db, "--run", "R", *args, "--format",
                                              "csv").stdout)))
    # (anchors, partial) of a forward pass, ("backward", anchors, partial) of a backward one
    assert [(int(r["anchors"]), r["note"] == "partial") if r["phase"] == "forward" else
            ("backward", int(r["anchors"]), r["note"] == "partial") for r in got] == want


def test_vllm_decode_anchor_is_both_attention_variants(ingested):
    db = ingested("amd-tracelens", "inference", "vllm_decode_full", "graph_execution.json.gz")
    p = cli("report", "layers", "--db", db, "--run", "R", "--format", "csv")
    assert "anchor chosen: kernel_unified_attention_2d | kernel_unified_attention_3d" in p.stderr
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    # 24 layers between the prologue and the epilogue, and every kernel of the trace in one of them (full window)
    assert [r["layer"] for r in rows] == ["prologue"] + [str(i) for i in range(24)] + ["epilogue"]
    assert sum(int(r["kernels"]) for r in rows) == 434


@pytest.mark.slow
def test_timeline_counts_from_the_traces_first_event_as_perfetto_does(ingested):
    # vLLM decode on MI300X: the first event (a host op) is 8,370.878 us before the first kernel; Perfetto's
    # UI puts its zero there, and its SQL sees the file's ts x 1000 (baseTimeNanoseconds not added)
    db = ingested("amd-tracelens", "inference", "vllm_decode_full", "graph_execution.json.gz")
    rows = list(csv.DictReader(io.StringIO(cli("report", "timeline", "--db", db, "--run", "R", "--layer", "0",
                                               "--format", "csv").stdout)))
    assert (rows[0]["layer"], rows[0]["start_s"], rows[0]["ts_ns"]) == ("", "0.008370878", "6520618861858561")


@pytest.mark.slow
def test_runs_lists_the_device_name_and_npu_for_per_core_traces(tmp_path):
    db = str(tmp_path / "d.duckdb")
    cli("ingest", real_trace("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
        "--db", db, "--name", "h")
    cli("ingest", real_trace(*SWIMLANE), "--db", db, "--name", "s")
    rows = {r["run"]: r["device"] for r in csv.DictReader(io.StringIO(cli("runs", "--db", db, "-f", "csv").stdout))}
    assert rows == {"h": "NVIDIA H100 80GB HBM3", "s": "npu"}
