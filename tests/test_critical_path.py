"""`tracedb report critical-path`: the path tracedb reads back from a trace equals the path the schedule
simulator knows (tests/schedule_sim.py), segment by segment, over the whole trace and per step; the
segments tile the window; `--by` sums to the window's wall time."""
import csv
import io
from decimal import Decimal

import pytest

import schedule_sim as sim
import tracedb
from helpers import assert_one_line_error, cli

SEEDS = range(6)


def rows(con, **opts):
    text = tracedb.report(con, "critical-path", **opts).text("csv")
    return list(csv.DictReader(io.StringIO(text)))


def ns(us: str) -> int:
    return int(Decimal(us) * 1000)


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """One store per seed, each with the simulated schedule as run 'sim'."""
    with sim.stores(tmp_path_factory, SEEDS) as out:
        yield out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("step", [None, 1, 2, 3])
def test_path_is_the_simulators(stores, seed, step):
    con, sch = stores[seed]
    got = [(ns(r["start_us"]), ns(r["end_us"]), r["category"]) for r in rows(con, step=step)]
    want = sim.true_path(sch, step)
    # adjacent segments of one category are one stretch either way (the simulator splits host gaps by op)
    assert sim.merge(got) == sim.merge(want)
    assert len(got) > 20


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_an_annotations_instance_is_a_window(stores, seed):
    """--annotation NAME --instance N: the N-th host annotation of that name (here an op, aten::op) from its
    start to the end of the device work launched inside it, as the simulator's path over that span; and
    ProfilerStep#2 named so gives --step 2's rows."""
    con, sch = stores[seed]
    ops = sorted(sch.ops)
    for k in (0, 7, len(ops) - 1):
        got = [(ns(r["start_us"]), ns(r["end_us"]), r["category"]) for r in rows(con, annotation="aten::op",
                                                                                instance=k)]
        assert sim.merge(got) == sim.merge(sim.true_path(sch, span=ops[k][:2]))
        start, end, _ = sim.window(sch, span=ops[k][:2])
        assert sum(ns(r["dur_us"]) for r in rows(con, annotation="aten::op", instance=k, by="category")) == end - start
    drop_step = [{k: v for k, v in r.items() if k != "step"} for r in rows(con, step=2)]
    assert [{k: v for k, v in r.items() if k != "step"} for r in rows(con, annotation="ProfilerStep#2")] == drop_step
    what_if = tracedb.report(con, "what-if", annotation="ProfilerStep#2", kernel=["kernel_1.*=50"]).text("csv")
    assert what_if.splitlines()[1:] == [line.replace(",2,kernel", ",,kernel") for line in tracedb.report(
        con, "what-if", step=2, kernel=["kernel_1.*=50"]).text("csv").splitlines()[1:]]


def test_an_instance_below_0_is_refused_from_python_too(stores):
    con, _ = stores[0]
    with pytest.raises(tracedb.UsageError, match="--instance -1: out of range; expected an integer from 0 to"):
        tracedb.report(con, "critical-path", annotation="aten::op", instance=-1)


@pytest.mark.parametrize("args, message", [
    (["--instance", "2"], "--instance: give --annotation NAME too"),
    (["--annotation", "aten::op", "--step", "2"], "--annotation and --step: give one window"),
    (["--annotation", "aten::nothing"], "run 'sim': no annotation 'aten::nothing'"),
    (["--annotation", "ProfilerStep#2", "--instance", "1"], "no annotation 'ProfilerStep#2' (instance 1)"),
    (["--annotation", "aten::op", "--instance", "-1"], "--instance"),
])
def test_annotation_windows_refused(tmp_path, args, message):
    sim.write(tmp_path / "sim.json", sim.simulate(3))
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(tmp_path / "sim.json"), "--db", db, "--name", "sim")
    assert_one_line_error(cli("report", "critical-path", "--db", db, *args, check=False), message)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_segments_tile_the_window(stores, seed):
    con, sch = stores[seed]
    for step in (None, 2):
        got = rows(con, step=step)
        start, end, _ = sim.window(sch, step)
        assert ns(got[0]["start_us"]) == 0 and ns(got[-1]["end_us"]) == end - start
        for a, b in zip(got, got[1:]):
            assert a["end_us"] == b["start_us"]
        assert [int(r["seq"]) for r in got] == list(range(len(got)))
        assert all(ns(r["dur_us"]) > 0 for r in got)


@pytest.mark.parametrize("by", ["category", "kernel", "layer", "stage", "module", "step"])
def test_by_sums_to_the_window(stores, by):
    con, sch = stores[1]
    start, end, _ = sim.window(sch, 2)
    got = rows(con, step=2, by=by)
    assert sum(ns(r["dur_us"]) for r in got) == end - start
    assert abs(sum(Decimal(r["pct"]) for r in got) - 100) < Decimal("0.1")
    if by == "category":
        want = {}
        for s, e, c in sim.true_path(sch, 2):
            want[c] = want.get(c, 0) + e - s
        assert {r["key"]: ns(r["dur_us"]) for r in got} == want
    if by == "module":   # every launch is made inside an op (aten::op); a sync launches nothing
        assert {r["key"] for r in got} - {"aten::op"} <= {"(" + c + ")" for c in sim.GAP.values()} | {"(host_op)"}
        assert "aten::op" in {r["key"] for r in got}


def test_the_path_names_its_kernels_and_calls(stores):
    con, sch = stores[0]
    got = rows(con)
    kernels = {n.name for n in sch.nodes if n.side == "device"}
    for r in got:
        if r["segment"] == "kernel":
            assert r["category"] == "device_compute" and r["kernel"] in kernels and r["lane"].startswith("device:0:")
        if r["segment"] in ("launch", "sync"):
            assert r["api"] in ("cudaLaunchKernel", "cudaDeviceSynchronize", "cudaEventSynchronize")
            assert r["lane"] == "host:1:1"
    assert {r["category"] for r in got} >= {"device_compute", "host_op", "launch_latency", "sync_wait"}


def test_the_schedules_bind_by_every_edge():
    """The seeds' true paths go through each kind of binding: stream, launch, a cross-stream event wait, the
    host thread and a sync, so the equality above holds for each."""
    edges = set()
    for seed in SEEDS:
        sch = sim.simulate(seed)
        for step in (None, 1, 2, 3):
            edges |= sim.path_edges(sch, step)
    assert edges >= {"stream", "launch", "event", "thread", "sync"}


def test_a_shorter_kernel_on_the_path_shortens_the_window_and_one_off_it_does_not(stores):
    """What the path claims, checked by replaying the schedule: 2 µs off a kernel on the path cuts the
    window by 2 µs (unless another chain was within 2 µs of binding), 2 µs off a kernel with room to spare
    changes nothing."""
    con, sch = stores[2]
    got = rows(con)
    on_path = {r["kernel"] for r in got if r["segment"] == "kernel"}
    index = {n.name: int(n.name.split("_")[1]) for n in sch.nodes if n.side == "device"}
    base = sim.window(sch)[1] - sim.window(sch)[0]
    cut = {}
    for name in sorted(index, key=index.get):
        k = next(n for n in sch.nodes if n.name == name)
        if k.end - k.start <= 2_000:
            continue
        again = sim.simulate(2, shrink={index[name]: 2_000})
        w = sim.window(again)
        cut[name] = base - (w[1] - w[0])
    on = [cut[n] for n in on_path if n in cut]
    off = [cut[n] for n in cut if n not in on_path]
    assert on and off
    assert sum(1 for c in on if c == 2_000) >= 0.9 * len(on)
    assert all(c <= 2_000 for c in on)
    assert sum(1 for c in off if c == 0) >= 0.9 * len(off)


def test_cli_csv_columns_and_a_missing_step(tmp_path):
    sch = sim.simulate(3)
    sim.write(tmp_path / "sim.json", sch)
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(tmp_path / "sim.json"), "--db", db, "--name", "sim")
    out = cli("report", "critical-path", "--db", db, "--format", "csv").stdout
    header = next(csv.reader(io.StringIO(out)))
    assert header[:7] == ["run", "rank", "step", "seq", "start_us", "end_us", "dur_us"]
    assert {"segment", "category", "kernel", "layer"} <= set(header)
    assert_one_line_error(cli("report", "critical-path", "--db", db, "--step", "9", check=False),
                          "run 'sim': no step 9")


def _as_kineto_and_true(tmp_path, sch, form, file):
    """The schedule as a Kineto trace and in `form` (written to `file`): the same rows from both, the whole
    trace and step 2, and the simulator's path."""
    sim.write(tmp_path / "k.json", sch)
    sim.write(tmp_path / file, sch, form=form)
    con = tracedb.connect(str(tmp_path / "s.duckdb"))
    try:
        for name, path in (("gpu", "k.json"), ("other", file)):
            tracedb.ingest_trace(con, str(tmp_path / path), name=name)
        for step in (None, 2):
            got = {r: [(x["start_us"], x["end_us"], x["category"], x["kernel"]) for x in rows(con, run=r, step=step)]
                   for r in ("gpu", "other")}
            assert got["other"] == got["gpu"]
            assert sim.merge([(ns(s), ns(e), c) for s, e, c, _ in got["other"]]) == sim.merge(sim.true_path(sch, step))
    finally:
        con.close()


@pytest.mark.parametrize("seed", SEEDS)
def test_ascend_event_tasks_give_the_waits_path(tmp_path, seed):
    """Cross-stream waits and event syncs in Ascend's form: EVENT_RECORD / EVENT_WAIT tasks that name no event
    (the record is told by time and by launch order) and AscendCL@aclrtSynchronizeEvent. The path equals the
    Kineto trace's (whose cuda_sync events name the event) and the simulator's."""
    sch = sim.simulate(seed)
    assert any(w[2] is not None for w in sch.waits) and sch.event_syncs
    _as_kineto_and_true(tmp_path, sch, "ascend", "trace_view.json")


@pytest.mark.parametrize("seed", SEEDS)
def test_nsys_stream_waits_give_the_waits_path(tmp_path, seed):
    """Cross-stream waits in an Nsight Systems export: CUPTI's synchronization rows name the waiting stream and an
    event id, never the record, so the event's work is the last activity launched on another stream before the
    cudaStreamWaitEvent call. The path equals the Kineto trace's (whose cuda_sync events name the record) and
    the simulator's. (Event syncs: none here; without CUPTI's event records an export names no event's work.)"""
    sch = sim.simulate(seed, event_p=0)
    assert any(n.edge == "event" for n in sch.nodes)
    _as_kineto_and_true(tmp_path, sch, "nsys", "s.sqlite")


@pytest.mark.parametrize("seed", SEEDS)
def test_nsys_event_records_give_the_waits_path(tmp_path, seed):
    """An Nsight Systems export with CUPTI's event records (CUPTI_ACTIVITY_KIND_CUDA_EVENT): each wait's and
    each event sync's record is the last of its event id before the synchronising call (three events, reused
    in turn; odd seeds: paired by CUPTI's eventSyncId alone, the event ids misleading), so event syncs are
    kept and every wait names its record. The path equals the Kineto trace's and the simulator's."""
    sch = sim.simulate(seed)
    assert any(n.edge == "event" for n in sch.nodes) and sch.event_syncs
    _as_kineto_and_true(tmp_path, sch, "nsys-sync-ids" if seed % 2 else "nsys-records", "s.sqlite")
    con = tracedb.connect(str(tmp_path / "s.duckdb"))
    try:
        kept = con.execute("SELECT name, count(*), count(json_extract(extra_args, '$.record_corr')) FROM trace_events "
                           "WHERE cat = 'cuda_sync' AND run_id = (SELECT run_id FROM runs WHERE name = 'other') "
                           "GROUP BY name ORDER BY name").fetchall()
    finally:
        con.close()
    assert kept == [("Event Sync", len(sch.event_syncs), len(sch.event_syncs)),
                    ("Stream Wait Event", len(sch.waits) - len(sch.event_syncs),
                     len(sch.waits) - len(sch.event_syncs))]


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_three_formats_give_the_same_path(tmp_path, seed):
    """The same schedule written as a Kineto trace, as Ascend's trace_view.json (tasks on Ascend Hardware, each
    launched by an op an async_npu flow leads from, syncs as AscendCL@aclrtSynchronizeDevice) and as an nsys
    export (CUPTI kernels and runtime calls, NVTX ranges for the ops and steps): the same rows, segment for
    segment, and the simulator's path. (No cross-stream waits: the other two forms have none here.)"""
    sch = sim.simulate(seed, wait_p=0, event_p=0)
    sim.write(tmp_path / "k.json", sch)
    sim.write(tmp_path / "trace_view.json", sch, form="ascend")
    sim.write(tmp_path / "s.sqlite", sch, form="nsys")
    con = tracedb.connect(str(tmp_path / "s.duckdb"))
    try:
        for name, file in (("gpu", "k.json"), ("npu", "trace_view.json"), ("nsys", "s.sqlite")):
            tracedb.ingest_trace(con, str(tmp_path / file), name=name)
        for step in (None, 2):
            got = {r: [(x["start_us"], x["end_us"], x["category"], x["segment"], x["kernel"])
                       for x in rows(con, run=r, step=step)] for r in ("gpu", "npu", "nsys")}
            assert got["npu"] == got["gpu"] and got["nsys"] == got["gpu"]
            path = [(ns(s), ns(e), c) for s, e, c, _, _ in got["gpu"]]
            assert sim.merge(path) == sim.merge(sim.true_path(sch, step))
        assert {x["api"] for x in rows(con, run="npu") if x["segment"] == "sync"} <= {"AscendCL@aclrtSynchronizeDevice"}
    finally:
        con.close()
