"""`tracedb report launches`: launch calls, launch-to-start delay and idle time split by the next kernel's launch.
The expected figures are derived by hand below for a small Kineto trace written here; the real-trace checks
(against a plain Python computation over the raw JSON) are in tests/test_launches_real.py."""
import csv
import io
import json
from decimal import Decimal

import pytest

import tiny_kineto
import tiny_trace
import tracedb
from helpers import assert_one_line_error, cli, store_of

UNIT_COLUMNS = ["run", "step", "pass", "layer", "kernels", "launched", "launch_calls", "launch_us", "delay_p50_us",
                "delay_p95_us", "delay_max_us", "span_us", "free_us", "host_bound_idle_us", "other_idle_us",
                "unknown_idle_us", "gaps", "host_bound_gaps", "unit"]
KERNEL_COLUMNS = ["run", "pass", "layer", "name", "short_name", "kind", "launch_api", "count", "launched", "sum_us",
                  "launch_calls", "launch_us", "delay_p50_us", "delay_p95_us", "delay_max_us", "host_bound_idle_us",
                  "other_idle_us", "unknown_idle_us", "unit"]

# A Kineto trace, µs relative to the trace: one host thread, GPU streams 7 and 20, two profiler steps.
# Each activity: (name, cat, stream, start, end, launch): launch is (api, call start, call duration), None for no
# launch in the trace; activities with the same launch key share one call (a graph launch).
#
#   ProfilerStep#1 [0, 100)
#     k_a      s7  [10, 20)   cudaLaunchKernel @2 (3)         delay 8
#     k_b      s7  [20, 30)   cudaLaunchKernel @6 (2)         delay 14  (back to back: no gap)
#     k_c      s20 [25, 40)   cudaLaunchKernel @8 (2)         delay 17  (overlaps k_b: busy [10, 40))
#     k_a      s7  [50, 55)   cudaLaunchKernel @45.001 (4)    delay 4.999   gap 40-50: host-bound 40-45.001 = 5.001,
#                                                                           other 45.001-50 = 4.999
#     k_d      s7  [70, 80)   cudaLaunchKernel @30 (2)        delay 40  gap 55-70: launched at 30, before the gap
#                                                                       began: other 15 (work queued, device idle)
#     Memcpy   s7  [82, 84)   cudaMemcpyAsync @81 (1)         delay 1   (a memcpy: not busy, ends no gap)
#     k_e      s20 [90, 92)   no launch                                 gap 80-90: unknown 10
#   ProfilerStep#2 [100, 200)
#     g1, g2, g3  s7 [120, 125) [125, 130) [140, 150)  one cudaGraphLaunch @102 (6): delays 18, 23, 38
#                                                      gap 92-120: host-bound 92-102 = 10, other 18; gap 130-140:
#                                                      g3's graph was launched at 102: other 10
#     k_f      s7  [160, 165) cudaLaunchKernel @155 (2)       delay 5   k_f and k_g both end the gap 150-160; k_g,
#     k_g      s20 [160, 170) cudaLaunchKernel @145 (3)       delay 15  launched first (145 <= 150), decides: other 10
#     nccl     s20 [175, 185) cudaLaunchKernel @171 (1)       delay 4   gap 170-175: host-bound 1, other 4
#
# Run: span 10-185 = 175; busy [10,40) [50,55) [70,80) [90,92) [120,130) [140,150) [160,170) [175,185) = 87;
#   free 88 = host-bound 5.001 + 10 + 1 = 16.001, other 4.999 + 15 + 18 + 10 + 10 + 4 = 61.999, unknown 10.
#   Gaps 7, host-bound 3. Kernels and comm ops 12 (the memcpy is not one), launched 11, launch calls 9 (the graph
#   is one), launch time 3 + 2 + 2 + 4 + 2 + 6 + 2 + 3 + 1 = 25.
#   Delays sorted: 4, 4.999, 5, 8, 14, 15, 17, 18, 23, 38, 40: nearest rank p50 = 6th = 15, p95 = 11th = 40.
# Step 1 (launch in [0, 100); k_e has no launch: in no step): k_a k_b k_c k_a k_d, span 10-80 = 70, busy 45,
#   free 25 = host-bound 5.001 + other 19.999; calls 5, 13 us; delays 4.999, 8, 14, 17, 40: p50 14, p95 40.
# Step 2: g1 g2 g3 k_f k_g nccl, span 120-185 = 65, busy 40, free 25 = host-bound 1 + other 24 (the gap 92-120
#   lies before the step's span); calls 4, 12 us; delays 4, 5, 15, 18, 23, 38: p50 3rd = 15, p95 6th = 38.
GRAPH = ("cudaGraphLaunch", 102, 6)
ACTIVITIES = [
    ("k_a", "kernel", 7, 10, 20, ("cudaLaunchKernel", 2, 3)),
    ("k_b", "kernel", 7, 20, 30, ("cudaLaunchKernel", 6, 2)),
    ("k_c", "kernel", 20, 25, 40, ("cudaLaunchKernel", 8, 2)),
    ("k_a", "kernel", 7, 50, 55, ("cudaLaunchKernel", "45.001", 4)),
    ("k_d", "kernel", 7, 70, 80, ("cudaLaunchKernel", 30, 2)),
    ("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 7, 82, 84, ("cudaMemcpyAsync", 81, 1)),
    ("k_e", "kernel", 20, 90, 92, None),
    ("g1", "kernel", 7, 120, 125, GRAPH),
    ("g2", "kernel", 7, 125, 130, GRAPH),
    ("g3", "kernel", 7, 140, 150, GRAPH),
    ("k_f", "kernel", 7, 160, 165, ("cudaLaunchKernel", 155, 2)),
    ("k_g", "kernel", 20, 160, 170, ("cudaLaunchKernel", 145, 3)),
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "kernel", 20, 175, 185,
     ("cudaLaunchKernel", 171, 1)),
]
STEPS = [("ProfilerStep#1", 0, 100), ("ProfilerStep#2", 100, 100)]
D = Decimal
# span, free, host_bound, other, unknown; kernels, launched, launch_calls, launch_us; p50, p95, max; gaps, hb gaps
EXPECTED_RUN = {"kernels": 12, "launched": 11, "launch_calls": 9, "launch_us": D(25), "delay_p50_us": D(15),
                "delay_p95_us": D(40), "delay_max_us": D(40), "span_us": D(175), "free_us": D(88),
                "host_bound_idle_us": D("16.001"), "other_idle_us": D("61.999"), "unknown_idle_us": D(10), "gaps": 7,
                "host_bound_gaps": 3}
EXPECTED_STEPS = {
    1: {"kernels": 5, "launched": 5, "launch_calls": 5, "launch_us": D(13), "delay_p50_us": D(14),
        "delay_p95_us": D(40), "delay_max_us": D(40), "span_us": D(70), "free_us": D(25),
        "host_bound_idle_us": D("5.001"), "other_idle_us": D("19.999"), "unknown_idle_us": D(0), "gaps": 2,
        "host_bound_gaps": 1},
    2: {"kernels": 6, "launched": 6, "launch_calls": 4, "launch_us": D(12), "delay_p50_us": D(15),
        "delay_p95_us": D(38), "delay_max_us": D(38), "span_us": D(65), "free_us": D(25),
        "host_bound_idle_us": D(1), "other_idle_us": D(24), "unknown_idle_us": D(0), "gaps": 3, "host_bound_gaps": 1},
}
# per kernel name: count, launched, sum_us, launch_calls, launch_us, p50, p95, max, host_bound, other, unknown
EXPECTED_KERNELS = {
    "k_a": (2, 2, D(15), 2, D(7), D("4.999"), D(8), D(8), D("5.001"), D("4.999"), D(0)),
    "k_b": (1, 1, D(10), 1, D(2), D(14), D(14), D(14), D(0), D(0), D(0)),
    "k_c": (1, 1, D(15), 1, D(2), D(17), D(17), D(17), D(0), D(0), D(0)),
    "k_d": (1, 1, D(10), 1, D(2), D(40), D(40), D(40), D(0), D(15), D(0)),
    "Memcpy HtoD (Pageable -> Device)": (1, 1, D(2), 1, D(1), D(1), D(1), D(1), D(0), D(0), D(0)),
    "k_e": (1, 0, D(2), 0, D(0), None, None, None, D(0), D(0), D(10)),
    "g1": (1, 1, D(5), 1, D(6), D(18), D(18), D(18), D(10), D(18), D(0)),
    "g2": (1, 1, D(5), 1, D(6), D(23), D(23), D(23), D(0), D(0), D(0)),
    "g3": (1, 1, D(10), 1, D(6), D(38), D(38), D(38), D(0), D(10), D(0)),
    "k_f": (1, 1, D(5), 1, D(2), D(5), D(5), D(5), D(0), D(0), D(0)),
    "k_g": (1, 1, D(10), 1, D(3), D(15), D(15), D(15), D(0), D(10), D(0)),
    ACTIVITIES[-1][0]: (1, 1, D(10), 1, D(1), D(4), D(4), D(4), D(1), D(4), D(0)),
}


def write_kineto(path):
    host, gpu = 100, 0
    ev = [{"ph": "M", "name": "process_name", "pid": gpu, "tid": 0, "args": {"name": "GPU 0"}}]
    for name, start, dur in STEPS:
        ev.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": host, "tid": host, "ts": start,
                   "dur": dur, "args": {}})
    calls = {}
    for name, cat, stream, start, end, launch in ACTIVITIES:
        if launch is None:
            corr = 99999
        elif launch in calls:
            corr = calls[launch]
        else:
            corr = calls[launch] = 500 + len(calls)
            api, at, dur = launch
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": api, "pid": host, "tid": host, "ts": float(at),
                       "dur": dur, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": gpu, "tid": stream, "ts": start, "dur": end - start,
                   "args": {"device": 0, "stream": stream, "correlation": corr}})
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)
    return str(path)


def write_device_only(path):
    """A trace with kernels and no host side at all (as some exporters write)."""
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t, "dur": 5,
           "args": {"device": 0, "stream": 7, "correlation": 1 + t}} for t in (10, 20)]
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)
    return str(path)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("launches")
    return store_of(d, {"hand": write_kineto(d / "hand.json"), "gpu": tiny_kineto.write(d / "gpu.json"),
                        "ascend": tiny_trace.write(d / "kernel_details.csv"),
                        "device": write_device_only(d / "device.json")})


def rows(db, *args, columns=UNIT_COLUMNS):
    text = cli("report", "launches", "--db", db, "--format", "csv", *args).stdout
    got = list(csv.DictReader(io.StringIO(text)))
    assert list(got[0]) == columns
    return got


def typed(row):
    out = {}
    for k, v in row.items():
        if k in ("run", "name", "short_name", "kind", "launch_api"):
            out[k] = v
        elif v == "":
            out[k] = None
        else:
            out[k] = D(v) if "." in v or k.endswith("_us") else int(v)
    return out


def test_by_run_hand_derived(store):
    (row,) = rows(store, "--run", "hand", "--by", "run")
    got = typed(row)
    assert {k: got[k] for k in EXPECTED_RUN} == EXPECTED_RUN
    assert got["free_us"] == got["host_bound_idle_us"] + got["other_idle_us"] + got["unknown_idle_us"]


def test_by_step_hand_derived(store):
    r = cli("report", "launches", "--db", store, "--run", "hand", "--by", "step", "-f", "csv")
    got = {int(x["step"]): typed(x) for x in csv.DictReader(io.StringIO(r.stdout))}
    assert {s: {k: v[k] for k in EXPECTED_STEPS[s]} for s, v in got.items()} == EXPECTED_STEPS
    assert "1 kernels (2.000 us) are in no step" in r.stderr


def test_by_kernel_hand_derived(store):
    got = {}
    for row in rows(store, "--run", "hand", columns=KERNEL_COLUMNS):
        t = typed(row)
        got[t["name"]] = (t["count"], t["launched"], t["sum_us"], t["launch_calls"], t["launch_us"], t["delay_p50_us"],
                          t["delay_p95_us"], t["delay_max_us"], t["host_bound_idle_us"], t["other_idle_us"],
                          t["unknown_idle_us"])
        assert t["pass"] is None and t["layer"] is None
    assert got == EXPECTED_KERNELS
    apis = {r["name"]: (r["kind"], r["launch_api"]) for r in rows(store, "--run", "hand", columns=KERNEL_COLUMNS)}
    assert apis["g2"] == ("kernel", "cudaGraphLaunch") and apis["k_e"] == ("kernel", "")
    assert apis["Memcpy HtoD (Pageable -> Device)"] == ("memcpy", "cudaMemcpyAsync")
    # the idle time of the kernel rows is the run's free time, each gap on the row of the kernel that ended it
    for col in ("host_bound_idle_us", "other_idle_us", "unknown_idle_us"):
        assert sum(v[8 + ["host_bound_idle_us", "other_idle_us", "unknown_idle_us"].index(col)]
                   for v in got.values()) == EXPECTED_RUN[col]


def breakdown_free(db, *args):
    text = cli("report", "breakdown", "--db", db, "-f", "csv", *args).stdout
    return {(r["run"], r["step"], r["pass"], r["layer"]): D(r["free_us"]) for r in csv.DictReader(io.StringIO(text))}


@pytest.mark.parametrize("run,args", [
    ("hand", ["--by", "run"]),
    ("hand", ["--by", "step"]),
    ("gpu", ["--by", "run"]),
    ("gpu", ["--by", "pass", "--anchor", "flash_fwd", "--layers", "2"]),
    ("gpu", ["--by", "layer", "--anchor", "flash_fwd", "--layers", "2", "--window", "strict"]),
    ("gpu", ["--by", "layer", "--anchor", "flash_fwd", "--layers", "2", "--pass", "1"]),
])
def test_idle_adds_up_to_breakdowns_free(store, run, args):
    """host_bound_idle + other_idle + unknown_idle = free_us = report breakdown's free_us, unit by unit."""
    units = rows(store, "--run", run, *args)
    got = {(r["run"], r["step"], r["pass"], r["layer"]): D(r["free_us"]) for r in units}
    assert got == breakdown_free(store, "--run", run, *args)
    for r in units:
        assert D(r["free_us"]) == D(r["host_bound_idle_us"]) + D(r["other_idle_us"]) + D(r["unknown_idle_us"])
    assert any(v > 0 for v in got.values())


def test_tiny_gpu_trace_by_run(store):
    """tests/tiny_kineto.py, per pass: gemm [10,20) launched at 2, flash [21,26) at 6, gemm [50,60) at 42, flash
    [61,66) at 46, orphan [90,91.5) without a launch; the memcpy is not busy. Gaps of a pass: 20-21 (flash launched
    at 6: other 1), 26-50 (gemm launched at 42: host-bound 16, other 8), 60-61 (other 1), 66-90 (orphan: unknown
    24); between the passes 91.5-1010 (gemm launched at 1002: host-bound 910.5, other 8)."""
    (row,) = rows(store, "--run", "gpu", "--by", "run")
    got = typed(row)
    idle = ("span_us", "free_us", "host_bound_idle_us", "other_idle_us", "unknown_idle_us")
    assert tuple(got[c] for c in idle) == (D("1081.5"), D("1018.5"), D("942.5"), D(28), D(48))
    assert (got["kernels"], got["launched"], got["gaps"], got["host_bound_gaps"]) == (10, 8, 9, 3)
    # delays: gemm 8 (4 times), flash 15 (4 times): nearest rank p50 = 4th of 8 = 8, p95 = 8th = 15
    assert (got["delay_p50_us"], got["delay_p95_us"], got["delay_max_us"]) == (D(8), D(15), D(15))


def test_kernel_rows_per_layer_with_an_anchor(store):
    """With an anchor the kernel rows are per pass and layer (as report modules gives them); a kernel outside the
    selected passes has an empty pass. The memcpy of tiny_kineto, launched 15 us after it started (the trace says
    so), has a negative delay: the report keeps the trace's times, it does not clip them as HTA does."""
    got = rows(store, "--run", "gpu", "--anchor", "flash_fwd", "--layers", "2", "--window", "strict", "--pass", "1",
               columns=KERNEL_COLUMNS)
    keys = {(r["pass"], r["layer"], r["name"]) for r in got}
    assert ("1", "0", "flash_fwd_kernel") in keys and ("1", "1", "flash_fwd_kernel") in keys
    assert ("", "", "orphan_kernel") in keys
    memcpy = [r for r in got if r["kind"] == "memcpy"]
    assert {r["delay_max_us"] for r in memcpy} == {"-15.000"}


def test_table_shows_short_names_and_hides_empty_unit_columns(store):
    out = cli("report", "launches", "--db", store, "--run", "hand").stdout
    header = next(line for line in out.splitlines() if line.startswith("run"))
    assert header.split()[:3] == ["run", "short_name", "kind"]
    out = cli("report", "launches", "--db", store, "--run", "hand", "--by", "step").stdout
    header = next(line for line in out.splitlines() if line.startswith("run"))
    assert header.split()[:3] == ["run", "step", "kernels"]


def test_a_run_without_launches_is_left_out_with_a_note(store):
    r = cli("report", "launches", "--db", store, "--run", "hand", "--run", "ascend", "--by", "run", "-f", "csv")
    assert [row["run"] for row in csv.DictReader(io.StringIO(r.stdout))] == ["hand"]
    assert "run 'ascend' left out: no host launch calls (its kernel_details.csv holds device rows only" in r.stderr


@pytest.mark.parametrize("args,message", [
    (["--run", "ascend"], "run 'ascend' has no host launch calls: its kernel_details.csv holds device rows only"),
    (["--run", "device"], "run 'device' has no host launch calls: the trace has no host events"),
    (["--run", "device", "--run", "ascend", "--by", "run"], "run 'device' has no host launch calls"),
    (["--run", "hand", "--by", "module"], "--by 'module': unknown"),
    (["--run", "gpu", "--by", "step"], "--by step: run 'gpu' has no steps"),
    (["--run", "gpu", "--by", "layer", "--anchor", "flash_fwd", "--pass", "mean"], "--pass mean"),
])
def test_errors_are_one_line_exit_2(store, args, message):
    assert_one_line_error(cli("report", "launches", "--db", store, *args, check=False), message)


def test_python_api(store):
    """A store path works too: opened read-only for the call. --by defaults to kernel, as on the command line."""
    steps = tracedb.report(store, "launches", run="hand", by="step").arrow()
    assert steps.column_names == UNIT_COLUMNS and steps.column("step").to_pylist() == [1, 2]
    assert [str(v) for v in steps.column("host_bound_idle_us").to_pylist()] == ["5.001", "1.000"]
    assert tracedb.report(store, "launches", run="hand").columns == KERNEL_COLUMNS
    with pytest.raises(tracedb.UsageError, match="by"):
        tracedb.report(store, "launches", run="hand", by="module")


def test_an_ascend_folders_launches_are_the_ops_its_flows_lead_from(tmp_path):
    """A torch_npu folder with trace_view.json beside kernel_details.csv (tests/advise_faults.py's Ascend form with
    its host side): each kernel's launch is the aclnn op whose async_npu flow ends at its task, so every kernel of
    the CSV is launched, each by the op named after it, 7 µs before it starts; the same folder without its
    trace_view.json has no launch."""
    import advise_faults
    advise_faults.write_ascend(tmp_path / "job", fault="clean", host=True)
    rank0 = tmp_path / "job" / "rank_0_ascend_pt"
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(rank0), "--db", db, "--name", "npu")
    kernels = [k for k in csv.DictReader(open(rank0 / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv",
                                              encoding="utf-8"))]
    rows = list(csv.DictReader(io.StringIO(cli("report", "launches", "--db", db, "--run", "npu", "--by", "run",
                                               "-f", "csv").stdout)))
    assert [(r["kernels"], r["launched"], r["launch_calls"]) for r in rows] == [(str(len(kernels)),) * 3]
    con = tracedb.connect(db, read_only=True)
    try:
        links = con.execute("SELECT k.name, l.api, l.via, k.start_ns - l.call_ns FROM kernels k "
                            "JOIN kernel_launches l USING (run_id, seq)").fetchall()
    finally:
        con.close()
    assert len(links) == len(kernels)
    for name, api, via, delay in links:
        assert via == "flow" and delay == 7_000
        assert api == ("aclnnhcom_allReduce" if name.startswith("hcom_") else f"aclnn{name}")
    (rank0 / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").unlink()
    cli("ingest", str(rank0), "--db", db, "--name", "bare")
    r = cli("report", "launches", "--db", db, "--run", "bare", check=False)
    assert_one_line_error(r, "run 'bare' has no host launch calls: its kernel_details.csv holds device rows only")
