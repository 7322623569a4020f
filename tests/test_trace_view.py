"""Ascend trace_view.json: operators are kernels, runtime tasks are not, collectives are communication, and
host-to-device flows give every kernel its launching op; the same capture's kernel_details.csv agrees."""
import json

import pytest

import tracedb
from tracedb.engine.reports.registry import render_report
from helpers import real_trace

T = 1736412474721000          # an absolute epoch µs, as trace_view.json writes it (a string with 3 decimals)
HW, HCCL, PY = 9001, 9002, 77


def ts(us):
    return f"{T + us:.3f}"


def trace_view():
    """Ascend Hardware: 2 operators (AI_CORE 10 us, MIX_AIV 5 us) and 4 runtime tasks; HCCL: a collective
    (hcom_allReduce, 20 us) on its Communication thread and a notify wait on a plane; Python: the op that
    launched the first operator, with its async_npu flow, inside an nn.Module frame."""
    meta = [{"ph": "M", "name": "process_name", "pid": p, "tid": 0, "args": {"name": n}}
            for p, n in ((HW, "Ascend Hardware"), (HCCL, "HCCL"), (PY, "Python"))]
    meta += [{"ph": "M", "name": "thread_name", "pid": HCCL, "tid": t, "args": {"name": n}}
             for t, n in ((0, "Group 0 Communication"), (1, "Plane 0"))]
    task = lambda name, at, dur, tt: {"ph": "X", "pid": HW, "tid": 2, "name": name, "ts": ts(at), "dur": dur,  # noqa: E731
                                      "args": {"Task Type": tt, "Task Id": at, "connection_id": 100 + at}}
    ev = [task("aclnnAdd_AddAiCore_Add", 100, 10, "AI_CORE"), task("aclnnMul_MulAiCore_Mul", 120, 5, "MIX_AIV"),
          task("Notify Wait", 130, 50, "Notify Wait"), task("EVENT_RECORD", 190, 1, "EVENT_RECORD_SQE"),
          task("MEMCPY_ASYNC", 200, 8, "PCIE_DMA_SQE"), task("SDMA", 210, 3, "SDMA"),
          {"ph": "X", "pid": HCCL, "tid": 0, "name": "hcom_allReduce__271_0_1", "ts": ts(140), "dur": 20, "args": {}},
          {"ph": "X", "pid": HCCL, "tid": 1, "name": "Notify_Wait", "ts": ts(140), "dur": 19, "args": {}},
          {"ph": "X", "pid": PY, "tid": 1, "cat": "python_function", "name": "nn.Module: Linear_0", "ts": ts(0),
           "dur": 90},
          {"ph": "X", "pid": PY, "tid": 1, "cat": "cpu_op", "name": "aten::add", "ts": ts(10), "dur": 30},
          {"ph": "s", "pid": PY, "tid": 1, "cat": "async_npu", "name": "torch_to_npu", "id": 5, "ts": ts(10)},
          {"ph": "f", "pid": HW, "tid": 2, "cat": "async_npu", "name": "torch_to_npu", "id": 5, "ts": ts(100),
           "bp": "e"}]
    return meta + ev


@pytest.fixture
def tv(con, tmp_path):
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(trace_view()))
    tracedb.ingest_trace(con, str(path), name="tv")
    return con


def test_runtime_tasks_are_not_kernels_and_collectives_are_communication(tv):
    got = tv.execute("SELECT name, kind, dur_ns FROM kernels ORDER BY start_ns").fetchall()
    assert got == [("aclnnAdd_AddAiCore_Add", "kernel", 10_000), ("aclnnMul_MulAiCore_Mul", "kernel", 5_000),
                   ("hcom_allReduce__271_0_1", "comm", 20_000)]
    # 35 us of device time, not the 35 + 50 + 1 + 8 + 3 + 19 us every task would add up to
    assert tv.execute("SELECT kernels, device_us FROM run_summary").fetchone() == (3, 35)
    # the runtime tasks stay in trace_events, neither kernels nor host events
    assert tv.execute("SELECT count(*) FROM trace_events WHERE kind = 'npu_task'").fetchone() == (5,)
    assert tv.execute("SELECT count(*) FROM host_events WHERE name IN ('Notify Wait', 'Notify_Wait', 'SDMA')"
                      ).fetchone() == (0,)


def test_a_flow_gives_the_kernel_its_launching_op_and_module(tv):
    out = render_report(tv, "modules", runs=["tv"], fmt="csv")
    rows = {tuple(line.split(",")[3:5]) for line in out.splitlines()[1:]}
    assert ("Linear", "aclnnAdd_AddAiCore_Add") in rows
    assert ("(no host launch)", "aclnnMul_MulAiCore_Mul") in rows


@pytest.mark.real_data
@pytest.mark.slow
def test_alexnet_trace_view_equals_its_kernel_details():
    folder = real_trace("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    con = tracedb.connect(":memory:")
    tracedb.ingest_trace(con, f"{folder}/trace_view.json", name="tv")
    tracedb.ingest_trace(con, f"{folder}/kernel_details.csv", name="kd")
    # kernel_details.csv: 191 kernels, 108,841.491 us; trace_view.json has sub-ns durations (55.1610625 us)
    # where the CSV has 3 decimals: within 1 ns a kernel
    (n_tv, us_tv), (n_kd, us_kd) = con.execute("SELECT kernels, device_us FROM run_summary "
                                               "ORDER BY run").fetchall()[::-1]
    assert n_tv == n_kd == 191 and abs(us_tv - us_kd) <= 0.191 and str(us_kd) == "108841.491"
    # every kernel pairs with one of the CSV by name and start (within 1 ns), its duration within 1 ns
    paired = con.execute(
        "SELECT count(*), max(abs(a.dur_ns - b.dur_ns)) FROM run_kernels a JOIN run_kernels b "
        "ON a.name = b.name AND abs(a.start_ns - b.start_ns) <= 1 WHERE a.run = 'tv' AND b.run = 'kd'").fetchone()
    assert paired == (191, 1)
    # and every one has its launching op
    out = render_report(con, "modules", runs=["tv"], by="module", fmt="csv")
    assert "(no host launch)" not in out and "AlexNet/Sequential/Conv2d#0" in out
