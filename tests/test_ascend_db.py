"""Ascend's SQLite exports (torch_npu export_type=Db: ascend_pytorch_profiler_N.db; msprof: msprof_N.db):
one row per compute task (TASK joined with COMPUTE_TASK_INFO) and per COMMUNICATION_OP, as
kernel_details.csv holds them; exact ns; one-line refusals. The synthetic files are built here with the
tables and columns of the real exports of the test data (torch_npu's column order, and msprof's, which
differs and adds waitNs)."""
import csv
import io
import os
import sqlite3

import pytest

import tiny_kineto
import tiny_trace
import tracedb
from helpers import assert_one_line_error, cli, real_trace

T0 = 1_736_414_119_000_000_000          # absolute local-epoch ns, as both exports write them
INVALID = 4294967295                    # msprof's "invalid" model / context id

TORCH_NPU = {   # table -> columns, in the order torch_npu 2.x writes them (schema 1.0.0)
    "STRING_IDS": "id INTEGER PRIMARY KEY, value TEXT",
    "TASK": "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, "
            "globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER",
    "COMPUTE_TASK_INFO": "name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER, mixBlockDim INTEGER, "
                         "taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, "
                         "inputShapes INTEGER, outputFormats INTEGER, outputDataTypes INTEGER, outputShapes INTEGER, "
                         "attrInfo INTEGER",
    "COMMUNICATION_OP": "opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, groupName INTEGER, "
                        "opId INTEGER PRIMARY KEY, relay INTEGER, retry INTEGER, dataType INTEGER, algType INTEGER, "
                        "count NUMERIC, opType INTEGER",
    "COMMUNICATION_TASK_INFO": "name INTEGER, globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, "
                               "groupName INTEGER, notifyId INTEGER, rdmaType INTEGER, srcRank INTEGER, "
                               "dstRank INTEGER, transportType INTEGER, size INTEGER, dataType INTEGER, "
                               "linkType INTEGER, opId INTEGER",
    "STEP_TIME": "id INTEGER, startNs INTEGER, endNs INTEGER",
    "CANN_API": "startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER PRIMARY KEY, "
                "name INTEGER",
    "RANK_DEVICE_MAP": "rankId INTEGER, deviceId INTEGER",
    "NPU_INFO": "id INTEGER, name TEXT",
    # times as TEXT: torch_npu writes them so
    "PYTORCH_API": "startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER, "
                   "sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, "
                   "callchainId INTEGER, type INTEGER",
    "CONNECTION_IDS": "id INTEGER, connectionId INTEGER",
    "TASK_PMU_INFO": "globalTaskId INTEGER, name INTEGER, value NUMERIC",
    "ENUM_API_TYPE": "id INTEGER PRIMARY KEY, name TEXT",
}
PID, TID = 4242, 4243
GTID = (PID << 32) | TID           # globalTid: pid in the high 32 bits
MSPROF = {      # msprof's unified DB: TASK in another order (globalTaskId last but one), waitNs, no steps
    "STRING_IDS": TORCH_NPU["STRING_IDS"],
    "TASK": "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalPid INTEGER, "
            "taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER, "
            "globalTaskId INTEGER PRIMARY KEY, depth INTEGER",
    "COMPUTE_TASK_INFO": "name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER, mixBlockDim INTEGER, "
                         "taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, "
                         "inputShapes INTEGER, outputFormats INTEGER, outputDataTypes INTEGER, outputShapes INTEGER, "
                         "waitNs INTEGER",
    "COMMUNICATION_OP": "opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, groupName INTEGER, "
                        "opId INTEGER PRIMARY KEY, waitNs INTEGER, opConnectionId TEXT, opType INTEGER",
    "COMMUNICATION_TASK_INFO": TORCH_NPU["COMMUNICATION_TASK_INFO"],
    "NPU_INFO": "id INTEGER PRIMARY KEY, name TEXT",
    "CANN_API": TORCH_NPU["CANN_API"],
    "ENUM_API_TYPE": TORCH_NPU["ENUM_API_TYPE"],
}

# one layer: (name, op type, core type, duration ns); FlashAttentionScore anchors it
LAYER = [("aclnnFlashAttentionScore_FlashAttentionScore_FlashAttentionScore", "FlashAttentionScore", "MIX_AIC", 5_001),
         ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", 7_003),
         ("RmsNorm", "RmsNorm", "AI_VECTOR_CORE", 1_207)]


def pmu_of(dur):
    """The PMU metrics of a compute task of `dur` ns, as TASK_PMU_INFO holds them."""
    return {"aic_total_time": dur * 0.75, "aic_mac_ratio": 0.25, "aic_total_cycles": dur * 2}


class Capture:
    """A synthetic capture: compute tasks, runtime tasks, collectives; `expected` holds the rows
    kernel_details.csv would have, in start order: (start, dur, name, op type, core, device, stream, step)."""

    def __init__(self, devices=(0,), steps=True):
        self.strings, self.tasks, self.compute, self.comm, self.comm_tasks = {}, [], [], [], []
        self.expected, self.steps, self.devices, self.launches = [], [], devices, []
        self.fwk, self.links = [(str(T0), str(T0 + 10**9), GTID, None, self.sid("nn.Module: Model_0"), 50003)], []
        self.gid, self.pmu = 0, []
        t = T0 + 1_000_000
        self.task(0, t, 999, "trans_TransData_0", "TransData", "AI_VECTOR_CORE", step=None)   # before every step
        t += 2_000_000
        for step in (7, 8) if steps else (None, None):
            start = t
            for dev in devices:
                u = t + dev * 3_001      # devices a few µs apart (ingest_finish takes two collectives of one
                                         # run with the same start µs and op type for one logged twice)
                for layer in range(2):
                    for name, op, core, dur in LAYER:
                        self.task(dev, u, dur, name, op, core, step)
                        last = u
                        u += dur + 311
                    self.runtime(dev, u, "EVENT_RECORD")
                    u += 97
                    if layer == 0:
                        self.collective(dev, u, 40_009, step)
                        u += 40_009 + 500
            t = u + 3_000_000
            if step is not None:
                # the host range (ProfilerStep#N) runs ahead of the device: it ends before the last
                # kernel starts, which still belongs to the step (its launch lies in the host range)
                self.steps.append((step, start - 300_000, last - 1))

    def sid(self, text):
        return self.strings.setdefault(text, len(self.strings) + 1)

    def task(self, dev, start, dur, name, op, core, step):
        self.gid += 1
        # TASK row in torch_npu's order: startNs, endNs, deviceId, connectionId, globalTaskId, globalPid,
        # taskType, contextId, streamId, taskId, modelId
        self.tasks.append((start, start + dur, dev, self.gid, self.gid, 4242, self.sid("KERNEL_AICORE"),
                           7 if core.startswith("MIX") else INVALID, 2, 11000 + self.gid, INVALID))
        self.compute.append((self.sid(name), self.gid, 24, 48 if core.startswith("MIX") else 0, self.sid(core),
                             self.sid(op), self.sid("ND"), self.sid("DT_BF16"), self.sid('"1,4096"'), self.sid("ND"),
                             self.sid("DT_BF16"), self.sid('"1,4096"'), self.sid("N/A")))
        self.expected.append((start, dur, name, op, core, dev, 2, step))
        # PMU metrics as torch_npu writes them: times in ns (floats), cycles as integers, ratios
        for metric, value in pmu_of(dur).items():
            self.pmu.append((self.gid, self.sid(metric), value))
        # its launch (aclnn node) on the host, 200 µs ahead, and the framework op that asked for it
        self.launches.append((start - 200_000, start - 199_000, 10000, GTID, self.gid, self.sid("launch")))
        self.fwk.append((str(start - 250_000), str(start - 240_000), GTID, 100_000 + self.gid, self.sid(op), 50001))
        self.links.append((100_000 + self.gid, self.gid))

    def runtime(self, dev, start, kind):
        self.gid += 1
        self.tasks.append((start, start + 50, dev, self.gid, self.gid, 4242, self.sid(kind), INVALID, 2,
                           11000 + self.gid, INVALID))

    def collective(self, dev, start, dur, step):
        op_id = len(self.comm) + 1
        name = f"hcom_allReduce__865_{op_id - 1}_1"
        self.comm.append((self.sid(name), start, start + dur, 900_000 + op_id, self.sid("group"), op_id, 0, 0,
                          self.sid("fp16"), self.sid("MESH-RING"), 4096, self.sid("hcom_allReduce_")))
        self.fwk.append((str(start - 90_000), str(start - 80_000), GTID, 800_000 + op_id, self.sid("HcclAllreduce"),
                         50001))
        self.links.append((800_000 + op_id, 900_000 + op_id))
        for k, kind in enumerate(("Notify Wait", "SDMA")):   # the collective's own tasks: no kernel_details rows
            self.gid += 1
            self.tasks.append((start + k * 10, start + k * 10 + 5, dev, self.gid, self.gid, 4242, self.sid(kind),
                               INVALID, 9, 20000 + self.gid, INVALID))
            self.comm_tasks.append((self.sid(kind), self.gid, self.sid(kind), 0, self.sid("group"), 1, 0, 0, 1, 0,
                                    64, 0, 0, op_id))
        # on the stream of its own tasks (9), as its trace_view.json task would be
        self.expected.append((start, dur, name, "hcom_allReduce_", "HCCL", dev, 9, step))

    def write(self, path, layout="torch_npu", skip=(), drop_columns=None):
        """The capture as a SQLite file of `layout`; tables in `skip` left out; drop_columns (table, column)."""
        schema = TORCH_NPU if layout == "torch_npu" else MSPROF
        os.makedirs(os.path.dirname(path), exist_ok=True)
        con = sqlite3.connect(path)
        rows = self.rows(layout)
        for table, cols in schema.items():
            if table in skip:
                continue
            if drop_columns and drop_columns[0] == table:
                cols = ", ".join(c for c in cols.split(", ") if not c.startswith(drop_columns[1] + " "))
            con.execute(f"CREATE TABLE {table} ({cols})")
            names = [c.split()[0] for c in cols.split(", ")]
            for r in rows.get(table, []):
                r = {k: v for k, v in r.items() if k in names}
                marks = ", ".join("?" * len(r))
                con.execute(f"INSERT INTO {table} ({', '.join(r)}) VALUES ({marks})", list(r.values()))
        con.commit()
        con.close()
        return str(path)

    def rows(self, layout):
        task_cols = ["startNs", "endNs", "deviceId", "connectionId", "globalTaskId", "globalPid", "taskType",
                     "contextId", "streamId", "taskId", "modelId"]
        cti_cols = ["name", "globalTaskId", "blockDim", "mixBlockDim", "taskType", "opType", "inputFormats",
                    "inputDataTypes", "inputShapes", "outputFormats", "outputDataTypes", "outputShapes", "attrInfo"]
        op_cols = ["opName", "startNs", "endNs", "connectionId", "groupName", "opId", "relay", "retry", "dataType",
                   "algType", "count", "opType"]
        ct_cols = ["name", "globalTaskId", "taskType", "planeId", "groupName", "notifyId", "rdmaType", "srcRank",
                   "dstRank", "transportType", "size", "dataType", "linkType", "opId"]
        out = {"STRING_IDS": [{"id": i, "value": v} for v, i in self.strings.items()],
               "TASK": [dict(zip(task_cols, r)) for r in self.tasks],
               "COMPUTE_TASK_INFO": [dict(zip(cti_cols, r)) for r in self.compute],
               "COMMUNICATION_OP": [dict(zip(op_cols, r)) for r in self.comm],
               "COMMUNICATION_TASK_INFO": [dict(zip(ct_cols, r)) for r in self.comm_tasks],
               "STEP_TIME": [{"id": i, "startNs": s, "endNs": e} for i, s, e in self.steps],
               "CANN_API": [dict(zip(["startNs", "endNs", "type", "globalTid", "connectionId", "name"], r))
                            for r in self.launches],
               "RANK_DEVICE_MAP": [{"rankId": 5 + d, "deviceId": d} for d in self.devices],
               "NPU_INFO": [{"id": d, "name": "Ascend910B"} for d in range(8)],
               "PYTORCH_API": [dict(zip(["startNs", "endNs", "globalTid", "connectionId", "name", "type"], r))
                               for r in self.fwk],
               "CONNECTION_IDS": [{"id": i, "connectionId": c} for i, c in self.links],
               "TASK_PMU_INFO": [dict(zip(["globalTaskId", "name", "value"], r)) for r in self.pmu],
               "ENUM_API_TYPE": [{"id": 5000, "name": "runtime"}, {"id": 10000, "name": "node"},
                                 {"id": 20000, "name": "acl"}]}
        if layout == "msprof":
            for r in out["COMPUTE_TASK_INFO"]:
                r["waitNs"] = 1000 + r["globalTaskId"]
            for r in out["COMMUNICATION_OP"]:
                r["waitNs"] = 77
        return out


def pt_folder(tmp_path, capture=None, rank=None, **kw):
    """A torch_npu export_type=Db output folder: ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db alone."""
    d = tmp_path / "x_ascend_pt"
    (capture or Capture()).write(str(d / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"), **kw)
    if rank is not None:
        (d / f"profiler_info_{rank}.json").write_text('{"rank_id": %d, "config": {}}' % rank)
    return str(d)


def kernels(db, run="R"):
    con = tracedb.connect(db)
    try:
        return con.execute(
            "SELECT start_ns, dur_ns, name, op_type, core_type, device_id, stream_id, step_id, kind, wait_ns, task_id, "
            "model_id, context_id, block_dim, mix_block_dim, input_shapes, op_state FROM kernels "
            "WHERE run_id = (SELECT run_id FROM runs WHERE name = $r) ORDER BY seq", {"r": run}).fetchall()
    finally:
        con.close()


def run_row(db, run="R"):
    con = tracedb.connect(db)
    try:
        return con.execute("SELECT format, rank, device_kind, device_name, clock_domain, device_id FROM runs "
                           "WHERE name = $r", {"r": run}).fetchone()
    finally:
        con.close()


# ------------------------------------------------------------------------------------------ the rows
def test_folder_of_the_db_alone_gives_kernel_details_rows(tmp_path):
    cap = Capture()
    db = str(tmp_path / "s.duckdb")
    r = cli("ingest", pt_folder(tmp_path, cap, rank=3), "--db", db, "--name", "R")
    assert r.stdout.startswith(f"ingested run 'R': {len(cap.expected)} kernel rows (0 duplicates")
    got = kernels(db)
    # compute tasks and collectives only: EVENT_RECORD and the collectives' Notify / SDMA tasks are no rows
    assert len(cap.tasks) > len(got) == len(cap.compute) + len(cap.comm) == 15
    assert [g[:8] for g in got] == sorted(cap.expected, key=lambda e: e[0])
    assert sum(g[1] for g in got) == sum(e[1] for e in cap.expected)      # exact integer ns
    # a kernel that starts after its step's host range ended still has the step (torch_npu's device range)
    assert [g[2] for g in got if g[7] == 7 and g[0] > cap.steps[0][2]] == ["RmsNorm"]
    assert {g[4]: g[8] for g in got} == {"AI_VECTOR_CORE": "kernel", "AI_CORE": "kernel", "MIX_AIC": "kernel",
                                         "HCCL": "comm"}
    # the profiler_info rank wins over RANK_DEVICE_MAP (5) and the folder name
    assert run_row(db) == ("ascend-db", 3, "npu", "Ascend910B", "unix-epoch-local", 0)


def test_columns_follow_kernel_details(tmp_path):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", pt_folder(tmp_path), "--db", db, "--name", "R")
    got = kernels(db)
    first, fa, comm = got[0], got[1], next(g for g in got if g[8] == "comm")
    assert first[7] is None and fa[7] == 7                 # before every STEP_TIME range: no Step Id
    # task id from TASK; model id 4294967295 (invalid) is NULL, a real context id kept; N/A text is NULL
    assert fa[10:] == (11002, None, 7, 24, 48, '"1,4096"', None)
    assert first[12] is None and first[14] == 0
    # a collective: the stream of its tasks, no task id, Block Dim 0 as kernel_details writes it
    assert comm[6] == 9 and comm[10] is None and comm[13] == 0 and comm[3] == "hcom_allReduce_"
    # Wait Time (torch_npu's file has no waitNs): the gap since the previous row ended, 0 for the first
    # and never below 0
    waits = [g[9] for g in got]
    ends = [g[0] + g[1] for g in got]
    assert waits == [0] + [max(0, got[i][0] - ends[i - 1]) for i in range(1, len(got))]
    assert waits[2] == 311


def metrics_of(db, run="R"):
    con = tracedb.connect(db)
    try:
        columns = con.execute("SELECT metric_columns FROM runs WHERE name = $r", {"r": run}).fetchone()[0]
        rows = con.execute("SELECT k.kind, k.dur_ns, k.metrics FROM kernels_raw k JOIN runs r USING (run_id) "
                           "WHERE r.name = $r ORDER BY k.seq", {"r": run}).fetchall()
        view = con.execute("SELECT metric, count(value), sum(value) FROM kernel_metrics JOIN runs r USING (run_id) "
                           "WHERE r.name = $r GROUP BY 1 ORDER BY 1", {"r": run}).fetchall()
    finally:
        con.close()
    return columns, rows, view


def test_pmu_metrics_of_compute_tasks_are_kept_by_name(tmp_path):
    cap = Capture()
    db = str(tmp_path / "s.duckdb")
    cli("ingest", pt_folder(tmp_path, cap), "--db", db, "--name", "R")
    columns, rows, view = metrics_of(db)
    assert columns == ["aic_mac_ratio", "aic_total_cycles", "aic_total_time"]          # by name
    # each compute task its own values (times in ns as written, cycles exact); collectives none
    assert [(k, m) for k, d, m in rows if k == "comm"] == [("comm", None)] * 2
    assert [m for k, d, m in rows if k == "kernel"] == [[0.25, d * 2, d * 0.75] for k, d, m in rows if k == "kernel"]
    n = len(cap.compute)
    durs = sum(d for k, d, _ in rows if k == "kernel")
    assert view == [("aic_mac_ratio", n, 0.25 * n), ("aic_total_cycles", n, 2.0 * durs),
                    ("aic_total_time", n, 0.75 * durs)]


def test_a_pmu_metric_missing_or_given_twice_is_null_for_that_task(tmp_path):
    cap = Capture()
    first, second = cap.compute[0][1], cap.compute[1][1]        # globalTaskId of the first two compute tasks
    ratio = cap.sid("aic_mac_ratio")
    cap.pmu = [p for p in cap.pmu if not (p[0] == first and p[1] == ratio)]    # the first lacks the ratio
    cap.pmu.append((second, ratio, 0.5))                         # the second has two ratios: none is picked
    db = str(tmp_path / "s.duckdb")
    cli("ingest", pt_folder(tmp_path, cap), "--db", db, "--name", "R")
    _, rows, _ = metrics_of(db)
    kernels_ = [(d, m) for k, d, m in rows if k == "kernel"]
    assert kernels_[0][1] == [None, kernels_[0][0] * 2, kernels_[0][0] * 0.75]
    assert kernels_[1][1] == [None, kernels_[1][0] * 2, kernels_[1][0] * 0.75]
    assert kernels_[2][1][0] == 0.25


def test_text_in_the_pmu_value_column(tmp_path):
    cap = Capture()
    cap.pmu[4] = cap.pmu[4][:2] + ("fast",)
    refused(tmp_path, pt_folder(tmp_path, cap),
            "table TASK_PMU_INFO, row 5: column value holds 'fast' (str); expected a number")


def test_framework_ops_are_host_events_linked_to_their_kernels(tmp_path):
    cap = Capture()
    db = str(tmp_path / "s.duckdb")
    cli("ingest", pt_folder(tmp_path, cap), "--db", db, "--name", "R")
    con = tracedb.connect(db)
    try:
        cats = con.execute("SELECT cat, count(*), min(pid), min(tid) FROM host_events GROUP BY 1 ORDER BY 1").fetchall()
        linked = con.execute(
            "SELECT k.name, h.name, h.start_ns, k.start_ns FROM kernels k JOIN host_events h "
            "ON h.run_id = k.run_id AND h.external_id = k.external_id AND h.cat = 'cpu_op' ORDER BY k.seq").fetchall()
        launches = con.execute("SELECT via, api, count(*) FROM kernel_launches GROUP BY ALL ORDER BY ALL").fetchall()
        cann = con.execute("SELECT name, correlation_id FROM host_events WHERE cat IS NULL ORDER BY seq").fetchall()
        events = con.execute("SELECT name, stream_id, correlation_id FROM trace_events WHERE kind = 'npu_task' "
                             "ORDER BY seq").fetchall()
    finally:
        con.close()
    ops = len(cap.compute) + len(cap.comm)
    # CANN's calls as trace_view.json names them (no category), with their connectionId
    assert cats == [("cpu_op", ops, str(PID), str(TID)), ("python_function", 1, str(PID), str(TID)),
                    (None, len(cap.launches), str(PID), str(TID))]
    assert cann == [("Node@launch", c) for _, _, _, _, c, _ in cap.launches]
    # each device row's launch is the framework op (the flow trace_view.json draws from it)
    assert launches == [("flow", "FlashAttentionScore", 4), ("flow", "HcclAllreduce", 2), ("flow", "MatMulV3", 4),
                        ("flow", "RmsNorm", 4), ("flow", "TransData", 1)]
    # the runtime tasks a stream waits by: kind npu_task, on their stream, with their connectionId
    assert len(events) == 4 and {e[:2] for e in events} == {("EVENT_RECORD", 2)}
    # every compute task and collective reaches the op that launched it (CONNECTION_IDS), times exact from text
    assert len(linked) == ops
    assert {k_start - h_start for k, _, h_start, k_start in linked if not k.startswith("hcom")} == {250_000}
    assert {h for k, h, _, _ in linked if k.startswith("hcom")} == {"HcclAllreduce"}
    assert linked[1][:2] == ("aclnnFlashAttentionScore_FlashAttentionScore_FlashAttentionScore", "FlashAttentionScore")


@pytest.mark.parametrize("text", ["soon", "99999999999999999999", "1.5"])
def test_framework_times_that_are_no_integer(tmp_path, text):
    cap = Capture()
    cap.fwk[0] = (text,) + cap.fwk[0][1:]
    refused(tmp_path, pt_folder(tmp_path, cap), f"table PYTORCH_API, row 1: column startNs holds '{text}' (str)")


def test_msprof_layout_reads_columns_by_name_and_its_wait_times(tmp_path):
    cap = Capture(steps=False)
    path = cap.write(str(tmp_path / "m" / "msprof_0.db"), layout="msprof")
    db = str(tmp_path / "s.duckdb")
    cli("ingest", path, "--db", db, "--name", "R")
    got = kernels(db)
    assert [g[:8] for g in got] == sorted(cap.expected, key=lambda e: e[0])
    assert {g[7] for g in got} == {None}                                  # no STEP_TIME: no steps
    assert [g[9] for g in got if g[8] == "comm"] == [77, 77]            # waitNs as written
    assert got[0][9] == 1001
    # the file alone: no profiler_info, no rank in the path; RANK_DEVICE_MAP is torch_npu's
    assert run_row(db) == ("ascend-db", None, "npu", "Ascend910B", "unix-epoch-local", 0)
    # no framework side: a compute task's launch is its CANN call (Node@launch, 200 µs ahead), a collective
    # none (no call carries its connectionId)
    con = tracedb.connect(db)
    try:
        launched = con.execute("SELECT k.kind, l.api, k.start_ns - l.call_ns FROM kernels k "
                               "LEFT JOIN kernel_launches l USING (run_id, seq) GROUP BY ALL ORDER BY ALL").fetchall()
    finally:
        con.close()
    assert launched == [("comm", None, None), ("kernel", "Node@launch", 200_000)]


def test_a_file_of_several_devices_gives_one_run_per_device(tmp_path):
    cap = Capture(devices=(0, 1), steps=False)
    path = cap.write(str(tmp_path / "msprof_1.db"), layout="msprof")
    db = str(tmp_path / "s.duckdb")
    cli("ingest", path, "--db", db, "--name", "R")
    for dev in (0, 1):
        got = kernels(db, f"R-npu{dev}")
        assert [g[:8] for g in got] == sorted((e for e in cap.expected if e[5] == dev), key=lambda e: e[0])
        assert {g[5] for g in got} == {dev}
    # the Python API on the file: every device in one run, told apart by device_id
    con = tracedb.connect(str(tmp_path / "api.duckdb"))
    tracedb.ingest_trace(con, path, name="all")
    assert con.execute("SELECT device_id, count(*) FROM kernels GROUP BY 1 ORDER BY 1").fetchall() == [(0, 15), (1, 14)]
    con.close()


def test_reports_run_on_the_db_run(tmp_path):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", pt_folder(tmp_path), "--db", db, "--name", "R")
    r = cli("report", "layers", "--db", db, "--run", "R", "--anchor", "FlashAttentionScore", "--layers", "2",
            "--pass", "all", "--format", "csv")
    layers = [ln.split(",") for ln in r.stdout.strip().splitlines()[1:]]
    assert [(row[1], row[2]) for row in layers if row[2] in ("0", "1")] == [("0", "0"), ("0", "1"), ("1", "0"),
                                                                             ("1", "1")]
    r = cli("report", "kernels", "--db", db, "--run", "R", "--anchor", "FlashAttentionScore", "--layers", "2",
            "--format", "csv")
    assert "FlashAttentionScore" in r.stdout and "RmsNorm" in r.stdout
    r = cli("report", "breakdown", "--db", db, "--run", "R", "--format", "csv")
    assert r.stdout.splitlines()[1].startswith("R,")


def test_a_folder_of_mixed_traces_gives_one_run_each(tmp_path):
    d = tmp_path / "mixed"
    d.mkdir()
    tiny_trace.write(d / "npu.csv")
    tiny_kineto.write(d / "gpu.json")
    Capture().write(str(d / "capture" / "ascend_pytorch_profiler_0.db"))
    other = sqlite3.connect(str(d / "notes.db"))        # some other database: passed over
    other.execute("CREATE TABLE notes (t TEXT)")
    other.commit()
    other.close()
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(d), "--db", db, "--name", "mx")
    con = tracedb.connect(db)
    try:
        got = con.execute("SELECT format, kernel_count FROM runs ORDER BY format").fetchall()
    finally:
        con.close()
    assert [g[0] for g in got] == ["ascend-db", "ascend-kernel-details", "chrome-trace"]
    assert got[0][1] == 15


def test_a_folder_with_the_csv_and_the_db_reads_the_csv(tmp_path):
    d = tmp_path / "both_ascend_pt"
    Capture().write(str(d / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"))
    tiny_trace.write(d / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(d), "--db", db, "--name", "R")
    assert run_row(db)[0] == "ascend-kernel-details"


# ------------------------------------------------------------------------------------------ refusals
def refused(tmp_path, path, message):
    r = cli("ingest", path, "--db", str(tmp_path / "s.duckdb"), check=False)
    assert_one_line_error(r, message, code=1)
    return r.stderr.strip()


def test_a_header_that_is_no_database_is_one_line(tmp_path):
    d = tmp_path / "y_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    d.mkdir(parents=True)
    (d / "ascend_pytorch_profiler_0.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 84 + b"garbage" * 100)
    refused(tmp_path, str(d.parent), "ascend_pytorch_profiler_0.db: cannot read the SQLite database")


def test_a_corrupt_page_is_one_line(tmp_path):
    path = Capture().write(str(tmp_path / "c" / "msprof_0.db"), layout="msprof")
    data = bytearray(open(path, "rb").read())
    page = int.from_bytes(data[16:18], "big")
    for i in range(page * 2, len(data)):          # every page past the schema's: tables' rows unreadable
        data[i] = 0xA5
    open(path, "wb").write(bytes(data))
    line = refused(tmp_path, path, "msprof_0.db: ")
    assert "SQLite database" in line


@pytest.mark.parametrize("skip,message", [
    (("TASK",), "no table TASK; expected torch_npu's ascend_pytorch_profiler_N.db or msprof's msprof_N.db"),
    (("STRING_IDS", "COMPUTE_TASK_INFO"), "no table STRING_IDS, COMPUTE_TASK_INFO"),
])
def test_a_missing_table_is_named(tmp_path, skip, message):
    refused(tmp_path, pt_folder(tmp_path, skip=skip), message)


def test_a_missing_column_is_named(tmp_path):
    refused(tmp_path, pt_folder(tmp_path, drop_columns=("TASK", "endNs")),
            "table TASK has no column endNs; expected torch_npu's")


def test_a_db_without_tasks(tmp_path):
    cap = Capture()
    cap.tasks, cap.compute, cap.comm, cap.comm_tasks = [], [], [], []
    refused(tmp_path, pt_folder(tmp_path, cap), "no compute tasks (TASK joined with COMPUTE_TASK_INFO")


def test_a_task_ending_before_it_starts(tmp_path):
    cap = Capture()
    t = list(cap.tasks[3])
    t[1] = t[0] - 1
    cap.tasks[3] = tuple(t)
    refused(tmp_path, pt_folder(tmp_path, cap), f"TASK globalTaskId 4 ends before it starts (startNs {t[0]}, endNs")


@pytest.mark.parametrize("table", ["PYTORCH_API", "CANN_API"])
def test_a_host_call_ending_before_it_starts(tmp_path, table):
    cap = Capture()
    rows = cap.fwk if table == "PYTORCH_API" else cap.launches
    r = list(rows[2])
    r[1] = (int(r[0]) - 1) if table == "CANN_API" else str(int(r[0]) - 1)
    rows[2] = tuple(r)
    refused(tmp_path, pt_folder(tmp_path, cap), f"{table}: the row at startNs {int(r[0])} ends before it starts")


def test_a_name_missing_from_string_ids(tmp_path):
    cap = Capture()
    c = list(cap.compute[0])
    c[0] = 9999
    cap.compute[0] = tuple(c)
    refused(tmp_path, pt_folder(tmp_path, cap), "COMPUTE_TASK_INFO.name 9999 is not an id of STRING_IDS")


def test_text_in_an_integer_column(tmp_path):
    cap = Capture()
    t = list(cap.tasks[2])
    t[0] = "soon"
    cap.tasks[2] = tuple(t)
    refused(tmp_path, pt_folder(tmp_path, cap),
            "table TASK, row 3: column startNs holds 'soon' (str); expected an integer")


def test_a_text_that_is_no_utf8_or_holds_a_nul(tmp_path):
    bad = pt_folder(tmp_path)
    path = os.path.join(bad, "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_0.db")
    con = sqlite3.connect(path)
    con.execute("UPDATE STRING_IDS SET value = CAST(X'41e90a42' AS TEXT) WHERE id = 1")   # Latin-1 é, a newline
    con.commit()
    con.close()
    refused(tmp_path, bad, "ascend_pytorch_profiler_0.db: a text of column value is not valid UTF-8")
    con = sqlite3.connect(path)
    con.execute("UPDATE STRING_IDS SET value = ? WHERE id = 1", ("A\x00B",))
    con.commit()
    con.close()
    refused(tmp_path, bad, "STRING_IDS id 1 holds a NUL character")


def test_two_exports_of_one_kind_in_a_folder(tmp_path):
    d = tmp_path / "z_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    for n in (0, 1):
        Capture().write(str(d / f"ascend_pytorch_profiler_{n}.db"))
    refused(tmp_path, str(d.parent), "holds 2 SQLite exports")


# ------------------------------------------------------------------------------------------ real exports
def reference(path):
    """Count and ns per name of what kernel_details.csv would hold, straight from the file with sqlite3."""
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    names = dict(con.execute("SELECT id, value FROM STRING_IDS"))
    per = {}
    rows = con.execute("SELECT c.name, t.startNs, t.endNs FROM TASK t JOIN COMPUTE_TASK_INFO c "
                       "ON c.globalTaskId = t.globalTaskId").fetchall()
    rows += con.execute("SELECT opName, startNs, endNs FROM COMMUNICATION_OP").fetchall()
    for n, s, e in rows:
        k = per.setdefault(names[n], [0, 0])
        k[0] += 1
        k[1] += e - s
    con.close()
    return {k: tuple(v) for k, v in per.items()}


@pytest.mark.real_data
def test_real_torch_npu_export_against_its_tables_and_the_text_export(tmp_path):
    folder = real_trace("ascend-msinsight", "alexnet_level2_db", "rank0_ascend_pt")
    text = real_trace("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt")
    db = str(tmp_path / "s.duckdb")
    cli("ingest", folder, "--db", db, "--name", "R")
    cli("ingest", text, "--db", db, "--name", "T")
    con = tracedb.connect(db)
    got = dict(((n, (c, s)) for n, c, s in con.execute(
        "SELECT k.name, count(*), sum(dur_ns)::BIGINT FROM kernels k JOIN runs r USING (run_id) WHERE r.name = 'R' "
        "GROUP BY 1").fetchall()))
    assert got == reference(os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_0.db"))
    cores = con.execute("SELECT runs.name, core_type, count(*) FROM kernels JOIN runs USING (run_id) "
                        "GROUP BY ALL ORDER BY ALL").fetchall()
    # another capture of the same AlexNet step: the same core types with the same counts
    assert [c[1:] for c in cores if c[0] == "R"] == [c[1:] for c in cores if c[0] == "T"] == [
        ("AI_CORE", 23), ("AI_VECTOR_CORE", 149), ("DSA_SQE", 2), ("HCCL", 4), ("MIX_AIV", 13)]
    names = {r: {n for (n,) in con.execute("SELECT k.name FROM kernels k JOIN runs r USING (run_id) WHERE r.name = $r "
                                           "AND kind = 'kernel'", {"r": r}).fetchall()} for r in "RT"}
    assert names["R"] == names["T"] and len(names["R"]) == 78
    steps = con.execute("SELECT runs.name, step_id, count(*) FROM kernels JOIN runs USING (run_id) GROUP BY ALL "
                        "ORDER BY ALL").fetchall()
    assert steps == [("R", 50, 191), ("T", 50, 191)]
    assert con.execute("SELECT format, rank, device_name, clock_domain FROM runs WHERE name = 'R'").fetchone() == (
        "ascend-db", 0, "Ascend910B", "unix-epoch-local")
    # each of the 191 rows reaches the framework op that launched it (HcclAllreduce for the collectives)
    ops = con.execute("SELECT h.name, count(*) FROM kernels k JOIN runs r USING (run_id) JOIN host_events h "
                      "ON h.run_id = k.run_id AND h.external_id = k.external_id AND h.cat = 'cpu_op' "
                      "WHERE r.name = 'R' GROUP BY 1 ORDER BY 2 DESC, 1").fetchall()
    assert sum(n for _, n in ops) == 191 and ops[:2] == [("Conv2DBackpropFilter", 25), ("Conv2D", 20)]
    assert ("HcclAllreduce", 4) in ops
    con.close()
    # the launches flow from those ops as trace_view.json's flows do: report launches counts the same launched
    # rows, launch calls and gaps in both captures
    launches = list(csv.DictReader(io.StringIO(cli("report", "launches", "--db", db, "--by", "run", "--run", "R",
                                                   "--run", "T", "--format", "csv").stdout)))
    assert [(x["kernels"], x["launched"], x["launch_calls"], x["gaps"]) for x in launches] == [
        ("191", "191", "115", "90")] * 2
    # the 28 PMU metrics of the PipeUtilization set, per metric the same count and sum as TASK_PMU_INFO
    lite = sqlite3.connect(f"file:{os.path.join(folder, 'ASCEND_PROFILER_OUTPUT', 'ascend_pytorch_profiler_0.db')}"
                           "?mode=ro&immutable=1", uri=True)
    want = lite.execute("SELECT s.value, count(*), sum(p.value) FROM TASK_PMU_INFO p JOIN STRING_IDS s "
                        "ON s.id = p.name GROUP BY 1 ORDER BY 1").fetchall()
    lite.close()
    columns, _, view = metrics_of(db)
    assert len(columns) == len(want) == 28 and columns == [w[0] for w in want]
    # a ratio has one name in both exports: the matmul's average aic_mac_ratio in each capture (schema.md)
    con = tracedb.connect(db)
    ratio = con.execute(
        "SELECT r.name, count(*), round(avg(m.value), 3) FROM kernel_metrics m JOIN kernels k USING (run_id, seq) "
        "JOIN runs r USING (run_id) WHERE m.metric = 'aic_mac_ratio' AND k.name = 'aclnnAddmm_MatMulCommon_MatMulV2' "
        "GROUP BY 1 ORDER BY 1").fetchall()
    con.close()
    assert ratio == [("R", 3, 0.175), ("T", 3, 0.182)]
    assert [(m, n, round(v, 6)) for m, n, v in view if m in columns] == [(m, n, round(v, 6)) for m, n, v in want]


@pytest.mark.real_data
def test_real_msprof_export(tmp_path):
    path = real_trace("ascend-msinsight", "full_db", "msprof_0.db")
    db = str(tmp_path / "s.duckdb")
    r = cli("ingest", path, "--db", db, "--name", "R")
    assert "11 kernel rows" in r.stdout
    con = tracedb.connect(db)
    got = dict(((n, (c, s)) for n, c, s in con.execute(
        "SELECT name, count(*), sum(dur_ns)::BIGINT FROM kernels GROUP BY 1").fetchall()))
    assert got == reference(path)
    # the one device that ran tasks (NPU_INFO lists eight); waitNs as written
    assert con.execute("SELECT DISTINCT device_id FROM kernels").fetchall() == [(2,)]
    assert con.execute("SELECT wait_ns FROM kernels ORDER BY seq LIMIT 2").fetchall() == [(0,), (132797234,)]
    con.close()
