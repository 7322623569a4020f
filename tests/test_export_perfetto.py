"""`tracedb export perfetto`: the layer slices equal `report layers` (wall and start, in the original file's
time base), the file re-ingests to the run's own kernels, --ranges holds only the annotation tracks, and
wrong calls end in one error line. Over the tiny traces (tests/tiny_trace.py, an Ascend decode;
tests/tiny_kineto.py, a Kineto trace with host events) and, when present, the real traces."""
import csv
import gzip
import io
import json
import os
from decimal import Decimal

import pytest

import tiny_kineto
import tiny_trace
import tracedb
from helpers import assert_one_line_error, cli, real_trace, slow_beyond
from tracedb import sql
from tracedb.engine.exports import perfetto
from tracedb.engine.reports.registry import render_report

NPU = {"profile": "qwen3-npu", "layers": 2}
GPU = {"anchor": "flash_fwd", "layers": 2}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("perfetto")
    db = str(d / "s.duckdb")
    con = tracedb.connect(db)
    tracedb.ingest_trace(con, tiny_trace.write(d / "kernel_details.csv"), name="tiny")
    tracedb.ingest_trace(con, tiny_kineto.write(d / "trace.json"), name="gpu")
    tracedb.ingest_trace(con, tiny_trace.write(d / "slow.csv", dur_factor=2), name="tiny_x2")
    con.close()
    return db


def load(path):
    """The trace's top-level object, numbers as Decimal (the file's exact digits)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=Decimal)


def tracks(doc):
    """(pid, tid) -> thread name of the annotation process's threads."""
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}


def slices(doc, thread_word):
    names = tracks(doc)
    return sorted((e for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") == "tracedb"
                   and thread_word in names.get((e["pid"], e["tid"]), "")), key=lambda e: (e["ts"], -e["dur"]))


def layer_rows(con, run, **opts):
    text = render_report(con, "layers", fmt="csv", runs=[run], pass_spec="all", **opts)
    return [r for r in csv.DictReader(io.StringIO(text)) if r["unit"] == "layer"]


def export(db, path, run, **opts):
    con = tracedb.connect(db, read_only=True)
    try:
        return perfetto.export(con, str(path), runs=[run], **opts)
    finally:
        con.close()


@pytest.mark.parametrize("run,opts", slow_beyond([
    ("tiny", {**NPU, "window": "strict"}), ("tiny", {**NPU, "window": "full"}),
    ("gpu", {**GPU, "window": "full"}), ("gpu", {**GPU, "window": "strict"})], {0, 2}))
def test_layer_slices_are_report_layers_in_the_file_time_base(store, tmp_path, run, opts):
    done = export(store, tmp_path / "x.json", run, **opts)
    doc = load(tmp_path / "x.json")
    got = [e for e in slices(doc, "layers") if e["name"].startswith("layer")]
    con = tracedb.connect(store, read_only=True)
    try:
        want = layer_rows(con, run, **opts)
        first_ns, base_ns = con.execute("SELECT first_start_ns, coalesce(time_base_ns, 0) FROM runs WHERE name = $n",
                                        {"n": run}).fetchone()
    finally:
        con.close()
    assert done.layers == len(got) == len(want) > 0
    for e, r in zip(got, want):
        assert e["name"] == f"layer {r['layer']}" and e["args"]["pass"] == int(r["pass"])
        assert e["dur"] == Decimal(r["wall_us"]) == e["args"]["wall_us"]
        assert e["args"]["sum_us"] == Decimal(r["sum_us"])
        # start: the run's first kernel in the file's own µs, plus report layers' start_us
        assert e["ts"] == (Decimal(first_ns - base_ns) / 1000 + Decimal(r["start_us"]))
        assert e["args"]["attention_us"] == Decimal(r["attention_us"])


@pytest.mark.parametrize("run,opts", [("tiny", NPU), ("gpu", GPU)])
def test_slices_carry_report_timeline_times(store, tmp_path, run, opts):
    """args.start_s is report timeline's start_s; the slice's ts x 1000 is its ts_ns (Perfetto's slice.ts)."""
    export(store, tmp_path / "x.json", run, **opts)
    got = [e for e in slices(load(tmp_path / "x.json"), "layers")]
    con = tracedb.connect(store, read_only=True)
    try:
        text = render_report(con, "timeline", fmt="csv", runs=[run], pass_spec="all", **opts)
    finally:
        con.close()
    want = [r for r in csv.DictReader(io.StringIO(text)) if r["layer"]]
    assert len(got) == len(want) > 0
    for e, r in zip(got, want):
        assert e["args"]["start_s"] == Decimal(r["start_s"]) and e["ts"] * 1000 == int(r["ts_ns"])
        assert (e["ts"] + e["dur"]) * 1000 == int(r["end_ns"])


def test_overlapping_layer_walls_go_on_their_own_thread(store, tmp_path):
    """tiny_x2 doubles every duration at the same starts: layer 0's last MatMul (43 + 20 µs) ends after layer 1's
    anchor starts (55 µs), so layer 1 goes on a second thread; no thread holds two partly overlapping slices."""
    export(store, tmp_path / "x.json", "tiny_x2", **NPU, window="strict")
    doc = load(tmp_path / "x.json")
    got = slices(doc, "layers")
    names = tracks(doc)
    assert {names[(e["pid"], e["tid"])] for e in got} == {"layers", "layers (overlap 1)"}
    con = tracedb.connect(store, read_only=True)
    try:
        assert len(got) == len(layer_rows(con, "tiny_x2", **NPU, window="strict"))
    finally:
        con.close()
    for tid in {e["tid"] for e in got}:
        on = sorted((e["ts"], e["ts"] + e["dur"]) for e in got if e["tid"] == tid)
        assert all(a[1] <= b[0] for a, b in zip(on, on[1:]))


def test_a_csv_run_keeps_its_absolute_us_and_a_kineto_run_its_relative_ts(store, tmp_path):
    export(store, tmp_path / "a.json", "tiny", **NPU)
    export(store, tmp_path / "g.json", "gpu", **GPU)
    a, g = load(tmp_path / "a.json"), load(tmp_path / "g.json")
    assert "baseTimeNanoseconds" not in a
    assert g["baseTimeNanoseconds"] == tiny_kineto.BASE_NS
    first_kernel = min(e["ts"] for e in a["traceEvents"] if e.get("cat") == "kernel")
    assert first_kernel == Decimal(tiny_trace.T0_NS) / 1000          # 1764246877073569.640, all 19 digits
    # tiny_kineto: pass 0's gemm_kernel at 10 µs after the base, flash_fwd_kernel (layer 0's anchor) at 21
    assert min(e["ts"] for e in g["traceEvents"] if e.get("cat") == "kernel") == Decimal("10.000")
    assert slices(g, "layers")[0]["ts"] == Decimal("21.000")


def test_passes_and_prologue_on_the_passes_track(store, tmp_path):
    export(store, tmp_path / "a.json", "tiny", **NPU, window="full")
    doc = load(tmp_path / "a.json")
    passes = [e for e in slices(doc, "passes") if e["name"].startswith("pass")]
    prologues = [e for e in slices(doc, "passes") if e["name"] == "prologue"]
    assert [e["name"] for e in passes] == ["pass 0", "pass 1", "pass 2", "pass 3"]
    # full window: each pass opens with its prologue (GatherV2, RmsNorm, MatMul: 16 µs at scale 1, pass 3)
    assert len(prologues) == 4 and prologues[3]["args"]["sum_us"] == Decimal("16.000")
    for p, pro in zip(passes, prologues):
        assert p["tid"] == pro["tid"] and p["ts"] == pro["ts"] and pro["ts"] + pro["dur"] <= p["ts"] + p["dur"]


def test_counters_and_layer_types(store, tmp_path):
    config = os.path.join(os.path.dirname(__file__), "data", "tiny_config.json")
    export(store, tmp_path / "a.json", "tiny", profile="qwen3-npu", config=config, window="strict")
    doc = load(tmp_path / "a.json")
    names = [e["name"] for e in slices(doc, "layers")]
    assert names[:2] == ["layer 0 (full_attention)", "layer 1 (linear_attention)"]
    counters = [e for e in doc["traceEvents"] if e["ph"] == "C"]
    # strict window, layer 0 of pass 3: attention 5 µs (its anchor), gemm 16 µs (the two MatMuls)
    at = slices(doc, "layers")[6]["ts"]
    value = {e["name"]: e["args"]["us"] for e in counters if e["ts"] == at}
    assert value["attention"] == Decimal("5.000") and value["gemm"] == Decimal("16.000")
    assert "moe" not in {e["name"] for e in counters}                  # no time in the run: no track
    assert {e["name"] for e in counters} >= {"comm overlap", "communication"}


def test_overlapping_layers_go_on_a_second_lane():
    lanes = []
    assert perfetto._lane(lanes, 0, 10, perfetto.LAYER_TID) == perfetto.LAYER_TID
    assert perfetto._lane(lanes, 8, 20, perfetto.LAYER_TID) == perfetto.LAYER_TID + perfetto.LANE_STRIDE
    assert perfetto._lane(lanes, 10, 30, perfetto.LAYER_TID) == perfetto.LAYER_TID


def test_exact_decimal_text():
    assert perfetto.us(1234567) == "1234.567" and perfetto.us(-5) == "-0.005" and perfetto.us(0) == "0.000"
    assert perfetto.us(1_764_246_877_073_569_640) == "1764246877073569.640"


def kernel_rows(db, run):
    con = tracedb.connect(db, read_only=True)
    try:
        return sorted(con.execute("SELECT k.start_ns, k.dur_ns, k.name, k.kind, k.device_id FROM kernels k "
                                  "JOIN runs r USING (run_id) WHERE r.name = $n", {"n": run}).fetchall())
    finally:
        con.close()


@pytest.mark.parametrize("run,opts", [("tiny", NPU), ("gpu", GPU)])
def test_round_trip_gives_the_run_back(store, tmp_path, run, opts):
    out = tmp_path / "x.json.gz"
    export(store, out, run, **opts)
    with open(out, "rb") as f:
        assert f.read(2) == b"\x1f\x8b"
    db2 = str(tmp_path / "rt.duckdb")
    con = tracedb.connect(db2)
    try:
        tracedb.ingest_trace(con, str(out), name="rt")
        host = con.execute("SELECT cat, count(*) FROM host_events GROUP BY cat").fetchall()
    finally:
        con.close()
    # every counted row, with its exact start, duration, name and kind (the Ascend hcom ops come back as comm;
    # the tiny trace's duplicated hcom rows are not exported, as they are not counted)
    assert kernel_rows(db2, "rt") == kernel_rows(store, run)
    assert dict(host)["tracedb"] > 0          # the annotation slices are host events, never kernels
    if run == "gpu":
        assert dict(host)["cpu_op"] == 4 and dict(host)["cuda_runtime"] == 10


def test_events_read_in_slices_are_each_written_once(store, tmp_path, monkeypatch):
    """A large run is read in slices of seq: with slices of 5 events, every kernel and host event once, in order."""
    export(store, tmp_path / "whole.json", "gpu", **GPU)
    monkeypatch.setattr(perfetto, "CHUNK", 5)
    done = export(store, tmp_path / "sliced.json", "gpu", **GPU)
    assert (done.device_events, done.host_events) == (12, 22)
    assert (tmp_path / "sliced.json").read_text() == (tmp_path / "whole.json").read_text()


def test_ranges_holds_only_the_annotation_tracks(store, tmp_path):
    done = export(store, tmp_path / "r.json", "gpu", **GPU, ranges=True)
    doc = load(tmp_path / "r.json")
    assert done.device_events == 0 and done.host_events == 0
    assert {e.get("cat") for e in doc["traceEvents"] if e["ph"] != "M"} == {"tracedb"}
    assert {e["pid"] for e in doc["traceEvents"]} == {tiny_kineto.HOST + 2}   # above every pid of the run
    assert len(slices(doc, "layers")) == 4


def test_plain_and_gzip_hold_the_same_text_and_gzip_is_reproducible(store, tmp_path):
    for name in ("a.json", "a.json.gz", "b.json.gz"):
        export(store, tmp_path / name, "gpu", **GPU)
    with open(tmp_path / "a.json", "rb") as f, gzip.open(tmp_path / "a.json.gz", "rb") as g:
        assert f.read() == g.read()
    assert (tmp_path / "a.json.gz").read_bytes() == (tmp_path / "b.json.gz").read_bytes()


def test_cli_writes_the_file_and_says_what_it_holds(store, tmp_path):
    out = tmp_path / "x.json.gz"
    r = cli("export", "perfetto", "--db", store, "--run", "tiny", "--profile", "qwen3-npu", "--layers", "2",
            "--pass", "3", "-o", out)
    assert "wrote" in r.stderr and "1 pass, 2 layer slices" in r.stderr and r.stdout == ""
    assert [e["name"] for e in slices(load(out), "layers")] == ["layer 0", "layer 1"]
    r = cli("export", "perfetto", "--db", store, "--run", "gpu", "--anchor", "flash_fwd", "--ranges")
    assert json.loads(r.stdout)["traceEvents"]


def test_a_run_without_anchor_still_gives_its_device_timeline(store, tmp_path):
    out = tmp_path / "x.json"
    r = cli("export", "perfetto", "--db", store, "--run", "tiny", "--anchor", "^NoSuchKernel$", "-o", out)
    assert "note: no passes or layers drawn" in r.stderr and "0 layer slices" in r.stderr
    doc = load(out)
    assert not slices(doc, "layers")
    device = [e for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") != "tracedb"]
    assert len(device) == len(kernel_rows(store, "tiny"))
    # the critical path's track is still drawn: the device's own chain in a run without host calls
    path = [e for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") == "tracedb"]
    assert path and {e["name"] for e in path} <= {"device_compute", "device_comm", "device_memcpy", "device_gap"}
    r = cli("export", "perfetto", "--db", store, "--run", "tiny", "--anchor", "^NoSuchKernel$", "--ranges",
            "-o", out, check=False)
    assert_one_line_error(r, "no kernel name or op type matches anchor", 2)


@pytest.mark.parametrize("args,message", [
    (["--run", "nope"], "nope"),
    (["--run", "*"], "export perfetto writes one run; the selection matches 3"),
    (["--run", "tiny", "--pass", "mean"], "--pass mean"),
    (["--run", "tiny", "--profile", "qwen3-npu", "--pass", "9"], "--pass 9 does not exist"),
    (["--run", "tiny", "-o", "/nonexistent-folder/x.json.gz"], "does not exist"),
])
def test_wrong_calls_end_in_one_error_line(store, args, message):
    r = cli("export", "perfetto", "--db", store, *args, check=False)
    assert_one_line_error(r, message, 2)


def test_output_under_a_file_is_refused(store, tmp_path):
    (tmp_path / "f").write_text("")
    r = cli("export", "perfetto", "--db", store, "--run", "tiny", "-o", tmp_path / "f" / "x.json.gz", check=False)
    assert_one_line_error(r, "is not a folder", 2)
    r = cli("export", "perfetto", "--db", store, "--run", "tiny", "-o", store, check=False)
    assert_one_line_error(r, "that is the store", 2)


def test_unwritable_output(store, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    os.chmod(folder, 0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as a user who can write a read-only folder (root)")
        r = cli("export", "perfetto", "--db", store, "--run", "tiny", "-o", folder / "x.json", check=False)
        assert_one_line_error(r, "cannot write there", 2)
    finally:
        os.chmod(folder, 0o700)


def test_sql_headers_match_what_duckdb_gives(store, tmp_path, monkeypatch):
    """The export's query files, held to their headers as tests/test_sql_headers.py holds the others."""
    import test_sql_headers as th
    names = [n for n, where in sql.files().items() if where.startswith("export/")]

    def calls():
        export(store, tmp_path / "a.json", "tiny", **NPU)
        export(store, tmp_path / "g.json", "gpu", **GPU)
    th.check_headers_over(monkeypatch, names, calls)


# ------------------------------------------------------------------------------------------- real traces
REAL = [
    (("amd-tracelens", "inference", "sglang_prefilldecode", "sglang_Qwen3-8B_prefilldecode.json.gz"),
     {"anchor": "FmhaBatchPrefillWithPagedKVCache", "layers": 36}),
    (("ascend-msinsight", "st_level2_qwen3_megatron", "rank_0_ascend_pt", "ASCEND_PROFILER_OUTPUT",
      "kernel_details.csv"),
     {"anchor": "^FlashAttentionScore$", "layers": 14}),
]


@pytest.mark.real_data
@pytest.mark.parametrize("parts,opts", REAL, ids=["sglang-mi300x", "ascend-megatron"])
@pytest.mark.slow
def test_real_trace_layers_and_round_trip(tmp_path, parts, opts):
    path = real_trace(*parts)
    db = str(tmp_path / "s.duckdb")
    con = tracedb.connect(db)
    try:
        tracedb.ingest_trace(con, path, name="R")
        want = layer_rows(con, "R", **opts)
        first_ns, base_ns = con.execute("SELECT first_start_ns, coalesce(time_base_ns, 0) FROM runs").fetchone()
    finally:
        con.close()
    out = tmp_path / "x.json.gz"
    export(db, out, "R", **opts)
    got = [e for e in slices(load(out), "layer") if e["name"].startswith("layer")]
    assert len(got) == len(want) > 0
    assert all(e["dur"] == Decimal(r["wall_us"]) for e, r in zip(got, want))
    assert all(e["ts"] == Decimal(first_ns - base_ns) / 1000 + Decimal(r["start_us"]) for e, r in zip(got, want))
    db2 = str(tmp_path / "rt.duckdb")
    con = tracedb.connect(db2)
    try:
        tracedb.ingest_trace(con, str(out), name="RT")
    finally:
        con.close()
    assert kernel_rows(db2, "RT") == kernel_rows(db, "R")


ROUND_TRIP = [
    # Ascend trace_view.json: kernels on 'Ascend Hardware' without a category, hcom_* collectives on the HCCL process
    ("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT", "trace_view.json"),
    # an on-device per-core swimlane: tasks on threads named like cores
    ("npu-swimlane-simpler", "yanghaoran29_simpler", "merged_swimlane.json"),
    # a tb-profiler era Kineto trace: capitalised categories, memcpy and memset
    ("torch-tb-profiler-sample", "worker0.1623143089861.pt.trace.json.gz"),
]


@pytest.mark.real_data
@pytest.mark.parametrize("parts", ROUND_TRIP, ids=["ascend-trace-view", "npu-swimlane", "tb-profiler"])
@pytest.mark.slow
def test_real_trace_round_trip_of_every_kind(tmp_path, parts):
    """No anchor given and none proposed for these: the export holds the device timeline and the host events
    alone, and re-ingests to the same kernels (kinds comm and task included) and host events."""
    path = real_trace(*parts)
    db, db2, out = str(tmp_path / "s.duckdb"), str(tmp_path / "rt.duckdb"), tmp_path / "x.json.gz"
    con = tracedb.connect(db)
    try:
        tracedb.ingest_trace(con, path, name="R")
        hosts = con.execute("SELECT count(*) FROM host_events").fetchone()[0]
    finally:
        con.close()
    r = cli("export", "perfetto", "--db", db, "--run", "R", "-o", out)
    assert "wrote" in r.stderr
    con = tracedb.connect(db2)
    try:
        tracedb.ingest_trace(con, str(out), name="R")
        assert con.execute("SELECT count(*) FROM host_events "
                           "WHERE cat IS DISTINCT FROM 'tracedb'").fetchone()[0] == hosts
    finally:
        con.close()
    assert kernel_rows(db2, "R") == kernel_rows(db, "R")


@pytest.mark.real_data
def test_an_ascend_folder_runs_device_work_on_device_tracks(tmp_path):
    """A kernel_details.csv run with its trace_view.json beside it: a CSV row's seq is of another table than
    the trace's events, so no host event may claim it; every device activity is drawn on the device's (or
    HCCL's) process, none on the host's, and the critical path's process has a name when no layers are drawn."""
    db, out = str(tmp_path / "s.duckdb"), tmp_path / "x.json"
    cli("ingest", real_trace("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt"), "--db", db, "--name", "R")
    cli("export", "perfetto", "--db", db, "--run", "R", "-o", out)
    events = load(out)["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    device = [names.get(e["pid"]) for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", None)
              and (e["name"].startswith("hcom_") or e.get("cat") == "kernel")]
    assert len(device) == 191 and set(device) == {"NPU 0", "HCCL"}
    path = [e for e in events if e.get("ph") == "X" and e.get("cat") == "tracedb"]
    assert path and all(e["pid"] in names for e in path)
