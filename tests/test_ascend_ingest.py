"""Ascend kernel_details.csv / msprof op_summary ingest: header variants (docs/formats.md), profiler folders
(§1.1, §1.7), duplicates, file order and the content hash. Every CSV is written inline; every expected number
is derived in a comment from the cells written."""
import json
import os
import shutil

import pytest

import tracedb
from helpers import cli, write_csv
from tracedb.errors import UsageError

# The real torch_npu 2.7 header (Level1/2, PMU columns cut to the first one).
FULL = ["Step Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State", "Accelerator Core",
        "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Mix Block Dim", "HF32 Eligible",
        "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "Output Data Types", "Output Formats",
        "Context ID", "aicore_time(us)"]
T = 1764246877073569          # an absolute epoch µs, 16 digits, as Ascend writes it
SHAPE = '"""8192,2,640;8192,2,640"""'   # msprof's own quotes, CSV-quoted: the cell is "8192,2,640;8192,2,640"


def cells(header, **kw):
    """One row for `header`: defaults of a MatMulV3 row, overridden by kw (keys: header text with spaces,
    brackets and case flattened, e.g. start_time_us, block_dim)."""
    d = {"step_id": "2", "device_id": "0", "model_id": "4294967295", "task_id": "100", "stream_id": "2",
         "name": "aclnnMatmul_MatMulV3Common_MatMulV3", "type": "MatMulV3", "op_state": "dynamic",
         "accelerator_core": "AI_CORE", "start_time_us": f"{T}.640\t", "duration_us": "1892.920",
         "wait_time_us": "0.500", "block_dim": "24", "mix_block_dim": "0", "hf32_eligible": "NO",
         "input_shapes": SHAPE, "input_data_types": "DT_BF16;DT_BF16", "input_formats": "ND;ND",
         "output_shapes": '"""8192,2"""', "output_data_types": "DT_BF16", "output_formats": "ND",
         "context_id": "N/A", "aicore_time_us": "1883.842"}
    d.update(kw)
    return [d.get(key(h), "0") for h in header]


def key(h):
    k = h.lower().replace("(us)", "_us").replace("op name", "name").replace("op type", "type")
    k = k.replace("task start time", "start time").replace("task duration", "duration")
    k = k.replace("task wait time", "wait time").replace("task type", "accelerator_core")
    k = k.replace("block num", "block dim")
    return "".join(c if c.isalnum() else "_" for c in k).strip("_").replace("__", "_")


def q(con, sql, **p):
    return con.execute(sql, p).fetchall()


def raw(con, cols, run="t"):
    """kernels_raw rows of the run with their texts (kernel_texts) beside them."""
    return q(con, f"SELECT {cols} FROM kernels_raw LEFT JOIN kernel_texts USING (run_id, text_id) "
                  "WHERE run_id = (SELECT run_id FROM runs WHERE name = $n) ORDER BY seq", n=run)


def store_state(con):
    return (q(con, "SELECT * FROM runs ORDER BY run_id"), q(con, "SELECT * FROM kernels_raw ORDER BY run_id, seq"))


# ---------------------------------------------------------------------------------------------- columns
def test_full_header_every_canonical_column(con, tmp_path):
    rows = [cells(FULL),
            # quoted start with the TAB inside the quotes; N/A ids; a real Model ID; UINT32_MAX Context ID
            cells(FULL, start_time_us=f'"{T + 2000}.912\t"', task_id="N/A", stream_id="N/A", block_dim="N/A",
                  mix_block_dim="N/A", model_id="7", context_id="4294967295", step_id="N/A")]
    res = tracedb.ingest_trace(con, write_csv(tmp_path / "k.csv", FULL, rows), name="t")
    assert (res.status, res.rows, res.duplicates) == ("ingested", 2, 0)
    cols = ("seq, start_ns, dur_ns, wait_ns, name, op_type, kind, core_type, device_id, stream_id, task_id, step_id, "
            "model_id, context_id, block_dim, mix_block_dim, op_state, input_shapes, input_dtypes, input_formats, "
            "output_shapes, output_dtypes, output_formats, metrics, extra_text, dup")
    mm = "aclnnMatmul_MatMulV3Common_MatMulV3"
    assert raw(con, cols) == [
        # start T.640 µs -> T*1000 + 640 ns; 1892.920 µs -> 1892920 ns; wait 0.5 µs -> 500 ns;
        # Model ID 4294967295 and Context ID N/A -> NULL; shapes keep msprof's own quotes
        (0, T * 1000 + 640, 1892920, 500, mm, "MatMulV3", "kernel", "AI_CORE", 0, 2, 100, 2, None, None, 24, 0,
         "dynamic", '"8192,2,640;8192,2,640"', "DT_BF16;DT_BF16", "ND;ND", '"8192,2"', "DT_BF16", "ND",
         [1883.842], "NO", None),    # aicore_time(us) is a number: a metric; HF32 Eligible YES/NO: text
        # (T + 2000).912 µs -> (T + 2000)*1000 + 912 ns; every N/A integer -> NULL; Model ID 7 kept
        (1, (T + 2000) * 1000 + 912, 1892920, 500, mm, "MatMulV3", "kernel", "AI_CORE", 0, None, None, None, 7,
         None, None, None, "dynamic", '"8192,2,640;8192,2,640"', "DT_BF16;DT_BF16", "ND;ND", '"8192,2"',
         "DT_BF16", "ND", [1883.842], "NO", None)]
    # runs: 2 rows, none duplicate; first start T.640; last end (T+2000).912 + 1892.920 = (T+3893).832 µs
    assert q(con, "SELECT format, kernel_rows, kernel_count, first_start_ns, last_end_ns, device_id, "
                  "metric_columns, extra_columns FROM runs") == [
        ("ascend-kernel-details", 2, 2, T * 1000 + 640, (T + 3893) * 1000 + 832, 0, ["aicore_time(us)"],
         ["HF32 Eligible"])]


def test_level0_column_set(con, tmp_path):
    header = ["Device_id", "Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)", "Wait Time(us)",
              "Block Dim"]
    rows = [cells(header), cells(header, accelerator_core="N/A", name="hcom_allReduce__1_0_1",
                                 type="hcom_allReduce_", start_time_us=f"{T + 5}.000\t", block_dim="0")]
    tracedb.ingest_trace(con, write_csv(tmp_path / "l0.csv", header, rows), name="t")
    assert raw(con, "name, op_type, core_type, kind, device_id, block_dim, wait_ns, step_id, task_id, stream_id, "
                    "model_id, mix_block_dim, op_state, input_shapes, extra_text") == [
        # cells() defaults: Device_id 0, Block Dim 24, Wait Time 0.500 µs = 500 ns; columns absent -> NULL
        ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", "kernel", 0, 24, 500,
         None, None, None, None, None, None, None, None),      # no extra columns: extra_text NULL
        # Accelerator Core N/A at Level0: the hcom_ name alone makes it a communication row
        ("hcom_allReduce__1_0_1", "hcom_allReduce_", None, "comm", 0, 0, 500,
         None, None, None, None, None, None, None, None)]
    assert q(con, "SELECT extra_columns FROM runs") == [([],)]
    assert q(con, "SELECT count(*) FROM kernel_extras") == [(0,)]


def test_level2_pmu_columns_are_metrics_in_order(con, tmp_path):
    pmu = ["aicore_time(us)", "aic_total_cycles", "aic_mac_time(us)", "aic_mac_ratio", "aiv_time(us)",
           "aiv_vec_ratio", "cube_utilization(%)"]
    header = FULL[:-1] + pmu
    row = cells(header)[:-len(pmu)] + ["405.1", "729180", "300.5", "0.742", "0", "N/A", "79.295"]
    tracedb.ingest_trace(con, write_csv(tmp_path / "l2.csv", header, [row]), name="t")
    # numbers (and N/A) in every sampled row: metrics, DOUBLE; HF32 Eligible (NO) stays text
    assert q(con, "SELECT metric_columns, extra_columns FROM runs") == [(pmu, ["HF32 Eligible"])]
    values = [405.1, 729180.0, 300.5, 0.742, 0.0, None, 79.295]   # N/A -> NULL
    assert raw(con, "metrics, extra_text") == [(values, "NO")]
    assert sorted(q(con, "SELECT seq, metric, value FROM kernel_metrics"), key=str) == \
        sorted([(0, c, v) for c, v in zip(pmu, values)], key=str)
    assert q(con, "SELECT seq, column_name, value FROM kernel_extras") == [(0, "HF32 Eligible", "NO")]


def test_metric_with_text_past_the_sample_is_kept_as_text(con, tmp_path):
    # 2,001 rows: aicore_time(us) is numeric in the 2,000 sampled rows and 'n/a?' in the last one, so the
    # first typed load fails on it and the ingest retries with that column as text (nothing is lost)
    header = FULL
    rows = [cells(FULL, start_time_us=f"{T + i}.000\t") for i in range(2000)]
    rows.append(cells(FULL, start_time_us=f"{T + 2000}.000\t", aicore_time_us="n/a?"))
    res = tracedb.ingest_trace(con, write_csv(tmp_path / "m.csv", header, rows), name="t")
    assert res.rows == 2001
    assert q(con, "SELECT metric_columns, extra_columns FROM runs") == [([], ["HF32 Eligible", "aicore_time(us)"])]
    # two text extras joined by chr(31); the view splits them again
    assert raw(con, "extra_text")[-1] == ("NO\x1fn/a?",)
    assert q(con, "SELECT column_name, value FROM kernel_extras WHERE seq = 2000") == [
        ("HF32 Eligible", "NO"), ("aicore_time(us)", "n/a?")]


@pytest.mark.parametrize("block, mix", [("Block Dim", "Mix Block Dim"), ("Block Num", "Mix Block Num")])
@pytest.mark.parametrize("step", ["Step Id", "Step ID"])
def test_block_and_step_spellings(con, tmp_path, block, mix, step):
    header = [step if h == "Step Id" else block if h == "Block Dim" else mix if h == "Mix Block Dim" else h
              for h in FULL]
    rows = [cells(FULL, step_id="13", block_dim="40", mix_block_dim="20")]   # same cells, any header spelling
    tracedb.ingest_trace(con, write_csv(tmp_path / "b.csv", header, rows), name="t")
    assert raw(con, "step_id, block_dim, mix_block_dim") == [(13, 40, 20)]
    assert q(con, "SELECT metric_columns, extra_columns FROM runs") == [(["aicore_time(us)"], ["HF32 Eligible"])]


def test_without_device_id(con, tmp_path):
    header = [h for h in FULL if h != "Device_id"]
    tracedb.ingest_trace(con, write_csv(tmp_path / "old.csv", header, [cells(header)]), name="t")
    # no Device_id column -> NULL; cells() defaults: Step Id 2, Task ID 100
    assert raw(con, "device_id, step_id, task_id, name") == [(None, 2, 100, "aclnnMatmul_MatMulV3Common_MatMulV3")]
    assert q(con, "SELECT device_id FROM runs") == [(None,)]


def test_utf8_bom(con, tmp_path):
    path = write_csv(tmp_path / "bom.csv", FULL, [cells(FULL, step_id="5")], bom=True)
    assert open(path, "rb").read(3) == b"\xef\xbb\xbf"
    tracedb.ingest_trace(con, path, name="t")
    # "\ufeffStep Id" is still the step column (5), not an extra one; start T.640 -> T*1000 + 640 ns
    assert raw(con, "step_id, start_ns") == [(5, T * 1000 + 640)]
    assert q(con, "SELECT metric_columns, extra_columns FROM runs") == [(["aicore_time(us)"], ["HF32 Eligible"])]


def test_empty_step_id_is_null(con, tmp_path):
    rows = [cells(FULL), cells(FULL, step_id="", start_time_us=f"{T + 9}.000\t")]
    tracedb.ingest_trace(con, write_csv(tmp_path / "nostep.csv", FULL, rows), name="t")
    assert raw(con, "step_id") == [(2,), (None,)]


def test_msprof_op_summary_columns(con, tmp_path):
    header = ["Device_id", "Model ID", "Task ID", "Stream ID", "Op Name", "OP Type", "OP State", "Task Type",
              "Task Start Time(us)", "Task Duration(us)", "Task Wait Time(us)", "Block Num", "Mix Block Num",
              "HF32 Eligible", "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes",
              "Output Data Types", "Output Formats", "Context ID", "aicore_time(us)"]
    row = cells(header, name="MatMulV3", accelerator_core="AI_CORE", start_time_us=f"{T}.001\t",
                duration_us="4.800", wait_time_us="857.200000", block_dim="8")
    tracedb.ingest_trace(con, write_csv(tmp_path / "op_summary_20240101.csv", header, [row]), name="t")
    # 4.800 µs -> 4800 ns, 857.2 µs -> 857200 ns
    assert raw(con, "name, op_type, core_type, start_ns, dur_ns, wait_ns, block_dim") == \
        [("MatMulV3", "MatMulV3", "AI_CORE", T * 1000 + 1, 4800, 857200, 8)]
    assert q(con, "SELECT format FROM runs") == [("ascend-op-summary",)]


# ---------------------------------------------------------------------------------------------- folders
def profiler_folder(tmp_path, rows=None):
    pt = tmp_path / "x_ascend_pt"
    (pt / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    write_csv(pt / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv", FULL, rows or [cells(FULL)])
    info = {"config": {"common_config": {"activities": ["ProfilerActivity.NPU"]},
                       "experimental_config": {"_profiler_level": "Level1"}},
            "rank_id": 3, "torch_npu_version": "2.7.1", "cann_version": "8.3.RC1"}
    (pt / "profiler_info_3.json").write_text(json.dumps(info))
    return pt


@pytest.mark.parametrize("sub", ["", "ASCEND_PROFILER_OUTPUT", "ASCEND_PROFILER_OUTPUT/"])
def test_profiler_folder(con, tmp_path, sub):
    pt = profiler_folder(tmp_path)
    res = tracedb.ingest_trace(con, str(pt / sub) if sub else str(pt))
    # profiler_folder() writes 1 row; the run is named after the folder, never ASCEND_PROFILER_OUTPUT
    assert (res.name, res.rows) == ("x_ascend_pt", 1)
    (name, rank, files, meta), = q(con, "SELECT name, rank, source_files, metadata FROM runs")
    assert (name, rank) == ("x_ascend_pt", 3)                # rank_id 3 of profiler_info_3.json
    assert [os.path.realpath(f) for f in files] == \
        [os.path.realpath(pt / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")]
    assert json.loads(meta) == {"profiler_info": {"rank_id": 3, "torch_npu_version": "2.7.1",
                                                  "cann_version": "8.3.RC1", "profiler_level": "Level1"}}


def test_rank_from_the_profiler_folder_not_an_ancestor(con, tmp_path):
    pt = tmp_path / "exp_rank_1" / "rank_0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    pt.mkdir(parents=True)
    write_csv(pt / "kernel_details.csv", FULL, [cells(FULL)])
    tracedb.ingest_trace(con, str(pt.parent))
    assert q(con, "SELECT name, rank FROM runs") == [("rank_0_ascend_pt", 0)]


OPS = ["Device_id", "Op Name", "OP Type", "Task Type", "Task Start Time(us)", "Task Duration(us)"]


def op_rows(names, t0):
    return [["0", n, "Add", "AI_VECTOR_CORE", f"{t0 + i}.000\t", "1.000"] for i, n in enumerate(names)]


@pytest.mark.parametrize("slices", [[0, 1], [0, 2, 10]])   # 10 after 2: numeric slice order, not text order
def test_op_summary_slices_in_slice_order(con, tmp_path, slices):
    out = tmp_path / "y_pt" / "PROF_1_2_abc" / "mindstudio_profiler_output"
    out.mkdir(parents=True)
    for i in reversed(slices):
        write_csv(out / f"op_summary_slice_{i}_20240101.csv", OPS, op_rows([f"s{i}a", f"s{i}b"], T + 100 * i))
    res = tracedb.ingest_trace(con, str(tmp_path / "y_pt"), name="t")
    assert res.rows == 2 * len(slices)                       # 2 rows per slice
    assert [os.path.basename(f) for f in q(con, "SELECT source_files FROM runs")[0][0]] == \
        [f"op_summary_slice_{i}_20240101.csv" for i in slices]
    want = [(n, f"s{i}{ab}") for n, (i, ab) in enumerate((i, ab) for i in slices for ab in "ab")]
    assert raw(con, "seq, name") == want                     # seq 0.. in file order across slices
    assert q(con, "SELECT format FROM runs") == [("ascend-op-summary",)]


def test_same_slice_twice_is_exact_duplicate(con, tmp_path):
    out = tmp_path / "z_pt" / "PROF_1_2_abc" / "mindstudio_profiler_output"
    out.mkdir(parents=True)
    rows = op_rows(["k0", "k1"], T) + [["0", "hcom_allReduce__1_0_1", "hcom_allReduce_", "COMMUNICATION",
                                        f"{T + 7}.000\t", "3.000"]]
    write_csv(out / "op_summary_slice_0_20240101.csv", OPS, rows)
    shutil.copy(out / "op_summary_slice_0_20240101.csv", out / "op_summary_slice_1_20240101.csv")
    res = tracedb.ingest_trace(con, str(tmp_path / "z_pt"), name="t")
    # 3 rows per slice, 6 read; the 3 of the second slice are identical to the first's: exact duplicates,
    # the hcom one included (exact wins over comm)
    assert (res.rows, res.duplicates) == (6, 3)
    assert raw(con, "seq, name, dup") == [(0, "k0", None), (1, "k1", None), (2, "hcom_allReduce__1_0_1", None),
                                          (3, "k0", "exact"), (4, "k1", "exact"),
                                          (5, "hcom_allReduce__1_0_1", "exact")]
    assert q(con, "SELECT seq FROM kernels ORDER BY seq") == [(0,), (1,), (2,)]
    assert q(con, "SELECT kernel_rows, kernel_count FROM runs") == [(6, 3)]


def test_copies_in_a_file_whose_starts_never_go_back_are_found_among_equal_starts(con, tmp_path):
    """A file in start order: only rows whose start equals the previous row's can be copies, and the final
    transaction looks at those alone. A copy right after its original, one two rows later among equal
    starts, and a row of the same start on another device (not a copy) are each told as a full search does."""
    path = tmp_path / "kernel_details.csv"
    row = ["0", "k0", "Add", "AI_VECTOR_CORE", f"{T}.000\t", "1.000"]
    rows = [row, list(row),                                          # a copy right after its original
            ["1", "k0", "Add", "AI_VECTOR_CORE", f"{T}.000\t", "1.000"],   # same start, another device: kept
            ["0", "k1", "Mul", "AI_VECTOR_CORE", f"{T + 5}.000\t", "2.000"],
            ["0", "k2", "Mul", "AI_VECTOR_CORE", f"{T + 5}.000\t", "2.000"],   # another name: kept
            ["0", "k1", "Mul", "AI_VECTOR_CORE", f"{T + 5}.000\t", "2.000"],   # a copy of seq 3
            ["0", "k3", "Add", "AI_VECTOR_CORE", f"{T + 9}.000\t", "1.000"]]
    write_csv(path, OPS, rows)
    res = tracedb.ingest_trace(con, str(path), name="t")
    assert (res.rows, res.duplicates) == (7, 2)
    assert raw(con, "seq, name, dup") == [(0, "k0", None), (1, "k0", "exact"), (2, "k0", None), (3, "k1", None),
                                          (4, "k2", None), (5, "k1", "exact"), (6, "k3", None)]


def test_copy_candidates_follow_equal_starts_across_blocks_and_give_up_when_a_start_goes_back_or_abound():
    import pyarrow as pa
    from tracedb.ingest.ascend_csv_arrow import CopyCandidates
    c = CopyCandidates()
    for first, starts in ((0, [1, 2, 2]), (3, [2, 3]), (5, [5]), (6, [])):
        c.add(pa.array(starts, pa.int64()), first)
    assert sorted(c.seq()) == [1, 2, 3]        # 2 == 2 inside the first block, and across its end
    c.add(pa.array([6, 4], pa.int64()), 6)
    assert c.seq() is None                      # starts went back: any row may be a copy
    c = CopyCandidates()
    c.add(pa.array([7], pa.int64()), 0)
    c.add(pa.array([6], pa.int64()), 1)         # back across a block's end
    assert c.seq() is None
    assert CopyCandidates().seq() == []
    c = CopyCandidates()
    c.add(pa.array([3] * 10_000, pa.int64()), 0)   # every row a candidate: the full search costs less
    assert c.seq() is None


# ---------------------------------------------------------------------------------------------- dedup, order
COMM = ["Task ID", "Stream ID", "Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)"]


def comm_row(start, stream="N/A", op="hcom_allReduce_", name="hcom_allReduce__1_0_1", dur="3.000"):
    return ["N/A" if stream == "N/A" else "9", stream, name, op, "COMMUNICATION", start, dur]


@pytest.mark.parametrize("first", ["N/A", "3"])
def test_comm_logged_twice_keeps_first_in_file_order(con, tmp_path, first):
    second = "3" if first == "N/A" else "N/A"
    rows = [comm_row(f"{T}.250\t", first), comm_row(f"{T}.250\t", second)]   # same start and duration
    res = tracedb.ingest_trace(con, write_csv(tmp_path / "c.csv", COMM, rows), name="t")
    assert (res.rows, res.duplicates) == (2, 1)        # 2 rows read, the second one a 'comm' duplicate
    stream = None if first == "N/A" else 3
    other = 3 if first == "N/A" else None
    assert q(con, "SELECT seq, stream_id FROM kernels") == [(0, stream)]
    assert raw(con, "seq, stream_id, kind, dup") == [(0, stream, "comm", None), (1, other, "comm", "comm")]


def test_comm_dedup_needs_same_op_type(con, tmp_path):
    rows = [comm_row(f"{T}.250\t"), comm_row(f"{T}.600\t", op="hcom_allGather_", name="hcom_allGather__2_0_1")]
    tracedb.ingest_trace(con, write_csv(tmp_path / "c.csv", COMM, rows), name="t")
    # same floor(start µs) = T, different op types: both counted
    assert raw(con, "seq, dup") == [(0, None), (1, None)]


def test_comm_dedup_key_is_floor_us_and_op_type_only(con, tmp_path):
    # The dedup key is (run, floor(start µs), op type): two collectives of one type starting in the same µs
    # count once even with different names. On one device a second collective cannot start within the
    # same µs as the first (they serialise on the comm stream), so this is the accepted limit of the rule;
    # a (Device_id, Name, core, floor µs) key would not reproduce per-pass extractions made with the
    # (floor(start), kernel_type) rule.
    rows = [comm_row(f"{T}.100\t", dur="50.000"),
            comm_row(f"{T}.300\t", name="hcom_allReduce__2_0_1", dur="80.000")]
    tracedb.ingest_trace(con, write_csv(tmp_path / "c.csv", COMM, rows), name="t")
    assert raw(con, "seq, dur_ns, dup") == [(0, 50000, None), (1, 80000, "comm")]


def test_comm_dedup_floor_is_over_absolute_us(con, tmp_path):
    rows = [["1", "2", "k", "MatMulV3", "AI_CORE", f"{T}.800\t", "1.000"],   # the run's first start: T.800
            comm_row(f"{T + 5}.100\t"),   # floor T+5 (relative to the run: 4.300 -> 4)
            comm_row(f"{T + 5}.900\t"),   # floor T+5: collides with the previous (relative 5.100 -> 5: would not)
            comm_row(f"{T + 6}.100\t")]   # floor T+6: kept (relative 5.300 -> 5: would collide with .900)
    tracedb.ingest_trace(con, write_csv(tmp_path / "c.csv", COMM, rows), name="t")
    assert raw(con, "seq, kind, dup") == [(0, "kernel", None), (1, "comm", None), (2, "comm", "comm"),
                                          (3, "comm", None)]
    assert q(con, "SELECT kernel_rows, kernel_count FROM runs") == [(4, 3)]


def test_seq_is_file_order(con, tmp_path):
    header = ["Name", "Start Time(us)", "Duration(us)"]
    starts = [30, 10, 20, 10, 5]                    # not time-sorted; 10 twice with different names
    rows = [[f"k{i}", f"{T + s}.000\t", "1"] for i, s in enumerate(starts)]
    tracedb.ingest_trace(con, write_csv(tmp_path / "o.csv", header, rows), name="t")
    assert raw(con, "seq, name, start_ns") == [(i, f"k{i}", (T + s) * 1000) for i, s in enumerate(starts)]


# ---------------------------------------------------------------------------------------------- content hash
def two_files(tmp_path):
    a = write_csv(tmp_path / "a.csv", FULL, [cells(FULL), cells(FULL, start_time_us=f"{T + 3}.000\t")])
    b = tmp_path / "b.csv"
    shutil.copy(a, b)
    return a, str(b)


def test_same_content_under_another_name_is_skipped(con, tmp_path):
    a, b = two_files(tmp_path)
    assert tracedb.ingest_trace(con, a, name="first").status == "ingested"
    before = store_state(con)
    res = tracedb.ingest_trace(con, b, name="second", tags={"x": "1"})
    assert (res.status, res.same_as, res.run_id, res.rows) == ("skipped", "first", None, 0)
    assert store_state(con) == before


def test_replace_identical_content(con, tmp_path):
    a, b = two_files(tmp_path)
    tracedb.ingest_trace(con, a, name="first")
    res = tracedb.ingest_trace(con, b, name="second", replace=True)
    assert (res.status, res.rows) == ("replaced", 2)   # two_files() writes 2 rows
    # the run with identical content is replaced: one run left, under the new name, with its 2 rows
    assert q(con, "SELECT name, kernel_rows, source_path FROM runs") == [("second", 2, b)]
    assert q(con, "SELECT count(*) FROM kernels_raw") == [(2,)]


def test_same_name_other_content(con, tmp_path):
    a, _ = two_files(tmp_path)
    c = write_csv(tmp_path / "c.csv", FULL, [cells(FULL, start_time_us=f"{T + 50}.000\t")])
    tracedb.ingest_trace(con, a, name="r")
    before = store_state(con)
    with pytest.raises(UsageError, match="run 'r' already exists with other content"):
        tracedb.ingest_trace(con, c, name="r")
    assert store_state(con) == before
    res = tracedb.ingest_trace(con, c, name="r", replace=True)
    assert (res.status, res.rows) == ("replaced", 1)   # c.csv has 1 row
    # one run 'r' holding c's single row, starting at (T + 50) µs
    assert q(con, "SELECT name, kernel_rows, first_start_ns FROM runs") == [("r", 1, (T + 50) * 1000)]
    assert raw(con, "seq, start_ns", run="r") == [(0, (T + 50) * 1000)]


def test_tags_are_a_map(con, tmp_path):
    a, _ = two_files(tmp_path)
    tracedb.ingest_trace(con, a, name="t", tags=["hw=910B", "expr=a=b"])
    assert q(con, "SELECT typeof(tags), tags['hw'], tags['expr'], cardinality(tags) FROM runs") == \
        [("MAP(VARCHAR, VARCHAR)", "910B", "a=b", 2)]      # split on the first '=' only
    with pytest.raises(UsageError, match="expected KEY=VALUE"):
        tracedb.ingest_trace(con, a, name="t2", tags=["novalue"])


def test_cli_ingest_name_tag_replace(tmp_path):
    a, _ = two_files(tmp_path)
    db = tmp_path / "s.duckdb"
    out = cli("ingest", a, "--db", db, "--name", "n1", "--tag", "hw=910B", "--tag", "mode=decode").stdout
    assert out.startswith("ingested run 'n1': 2 kernel rows (0 duplicates not counted)")
    p = cli("ingest", a, "--db", db, "--name", "n2")
    assert p.stdout.strip() == "skipped: identical content is already run 'n1' (use --replace to ingest again)"
    assert cli("ingest", a, "--db", db, "--name", "n2", "--replace").stdout.startswith("replaced run 'n2': 2")
    got = cli("sql", "--db", db, "--format", "csv",
              "select name, tags['hw'] as hw, kernel_count from runs order by run_id").stdout
    assert got.splitlines() == ["name,hw,kernel_count", "n2,,2"]      # the replacing run has no tags


def test_an_address_space_limit_does_not_hang_the_csv_reader(tmp_path):
    """Under `ulimit -v 2G` pyarrow's default allocator once left the CSV reader waiting forever (every
    thread in a futex wait); ingest/arrow_pool.py switches to the system allocator where a limit is set."""
    import resource
    import subprocess

    import tiny_trace
    from helpers import tracedb_exe

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    trace = tiny_trace.write(str(tmp_path / "kernel_details.csv"))
    try:
        out = subprocess.run([tracedb_exe(), "ingest", trace, "--db", str(tmp_path / "s.duckdb")], capture_output=True,
                             text=True, preexec_fn=limit, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the ingest under a 2 GiB address-space limit ran past 60 s")
    assert out.returncode == 0, out.stderr
