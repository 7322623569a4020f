"""Bad input through the CLI: every failure is one `error:` line on stderr (naming the file and line for file
errors), exit 1 for bad input files and 2 for wrong calls, no traceback, and the store left as it was."""
import json
import os

import pytest

import tracedb
from helpers import cli, copy_store, real_trace, write_csv
from helpers import store_snapshot as snapshot

FULL = ["Step Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State", "Accelerator Core",
        "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Mix Block Dim", "HF32 Eligible",
        "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "Output Data Types", "Output Formats",
        "Context ID", "aicore_time(us)"]
T = 1764246877073569


def row(i, start=None):
    """Row i of a real-looking Level1 trace: a MatMulV3 every µs from T, 23 cells."""
    return ["2", "0", "4294967295", str(100 + i), "2", "aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3",
            "dynamic", "AI_CORE", f"{T + i}.640\t" if start is None else start, "1892.920", "0", "24", "0", "NO",
            '"""8192,2,640;8192,2,640"""', "DT_BF16;DT_BF16", "ND;ND", '"""8192,2"""', "DT_BF16", "ND", "N/A",
            "1883.842"]


def text(header, rows):
    return ",".join(header) + "\n" + "".join(",".join(r) + "\n" for r in rows)


@pytest.fixture(scope="module")
def good_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("good")
    path = str(folder / "store.duckdb")
    cli("ingest", write_csv(folder / "good.csv", FULL, [row(i) for i in range(3)]), "--db", path,
        "--name", "good", "--tag", "hw=910B")
    return path


@pytest.fixture
def db(good_store, tmp_path):
    """A store already holding one run, 'good', of 3 rows: this test's own copy of the module's store."""
    return copy_store(good_store, str(tmp_path / "store.duckdb"))


def one_error_line(p, code):
    """The single stderr line of a failed command, after checking the exit code and the absence of a traceback."""
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == code, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    assert p.stderr.endswith("\n")
    return lines[0]


def failed_ingest(db, path, code=1):
    before = snapshot(db)
    p = cli("ingest", path, "--db", db, check=False)
    line = one_error_line(p, code)
    assert p.stdout == ""
    assert snapshot(db) == before
    return line


# ---------------------------------------------------------------------------------------------- files
def test_empty_file(db, tmp_path):
    (tmp_path / "e.csv").write_bytes(b"")
    f = str(tmp_path / "e.csv")
    assert failed_ingest(db, f) == \
        f"error: {f}: empty file; expected a kernel_details.csv / op_summary CSV with a header line"


def test_bom_only_file(db, tmp_path):
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf")
    f = str(tmp_path / "bom.csv")
    assert failed_ingest(db, f).startswith(f"error: {f}: ")


def test_header_only(db, tmp_path):
    f = str(tmp_path / "h.csv")
    open(f, "w").write(",".join(FULL) + "\n")
    # the rows are checked after the run row is inserted: the rollback must remove it again
    assert failed_ingest(db, f) == f"error: {f}: header only, no kernel rows; expected at least one data line"


def test_wrong_columns(db, tmp_path):
    # op_statistic.csv-like: has Duration(us) but neither Name nor Start Time(us)
    f = str(tmp_path / "op_statistic.csv")
    open(f, "w").write("Device_id,OP Type,Core Type,Count,Duration(us)\n0,MatMulV3,AI_CORE,280,48000.78\n")
    assert failed_ingest(db, f) == (f"error: {f}: line 1: not an Ascend kernel_details/op_summary header: missing "
                                    "Name, Start Time(us) (found: Device_id, OP Type, Core Type, Count, Duration(us))")


def test_binary_file(db, tmp_path):
    f = tmp_path / "k.csv"
    f.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")     # first NUL at byte offset 8
    assert failed_ingest(db, str(f)) == f"error: {f}: byte offset 8: binary data; expected a CSV text file"


def test_json_file(db, tmp_path):
    # JSON is read as a Chrome trace: one host-side event and nothing on a device is a CPU-only profile
    f = tmp_path / "trace_view.json"
    f.write_text(json.dumps([{"ph": "X", "name": "MatMulV3", "pid": 1, "tid": 2, "ts": "1.0", "dur": 1.0}]))
    assert failed_ingest(db, str(f)).startswith(f"error: {f}: no device activity (no kernel, gpu_memcpy or "
                                                "gpu_memset events, no threads named like cores): a CPU-only profile?")
    # the same host events cut off before the closing bracket: the device events are called cut off
    cut = tmp_path / "cut.json"
    events = [{"ph": "X", "name": f"aten::mm{i}", "pid": 1, "tid": 2, "ts": i, "dur": 1} for i in range(5)]
    cut.write_text(json.dumps({"traceEvents": events})[:-30])
    said = failed_ingest(db, str(cut))
    assert "the file is cut short" in said and "CPU-only" not in said, said
    g = tmp_path / "pretty.json"
    g.write_text(json.dumps([{"ph": "X"}], indent=1))
    assert failed_ingest(db, str(g)) == (f"error: {g}: byte 3: an event has ts null; expected a timestamp in µs, "
                                         "a number within ±4e15 (1 such complete event)")


def cut_ingest(db, path, rows):
    """`tracedb ingest path` of a file cut short at its end: its run's stdout line (after: exit 0, nothing on
    stderr, the run holding `rows` rows and marked truncated)."""
    p = cli("ingest", path, "--db", db, "--name", "cut")
    assert p.stderr == "" and p.stdout.startswith("ingested run 'cut'"), p.stdout + p.stderr
    con = tracedb.connect(db, read_only=True)
    try:
        assert con.execute("SELECT r.truncated, count(k.seq) FROM runs r JOIN kernels_raw k USING (run_id) "
                           "WHERE r.name = 'cut' GROUP BY 1").fetchall() == [(True, rows)]
    finally:
        con.close()
    return p.stdout.splitlines()[0]


def test_a_last_line_cut_short_loads_the_rows_before_it(db, tmp_path):
    last = ",".join(row(3))
    cut = last[:last.index("1892.920") + 4]      # ends in the Duration(us) cell: "...\t,1892"
    f = tmp_path / "k.csv"
    f.write_text(text(FULL, [row(i) for i in range(3)]) + cut)   # no final newline, as a killed writer leaves it
    # header line 1, rows on lines 2-4, the cut row on line 5 (11 of 23 cells): left out, as a cut Chrome
    # trace's last event is, and the run marked truncated
    assert cut_ingest(db, str(f), 3).endswith(
        f"; {f}: line 5 is cut short (crashed run?): the complete rows before it were kept")


def test_a_last_line_cut_inside_a_quoted_shape_loads_the_rows_before_it(db, tmp_path):
    last = ",".join(row(3))
    cut = last[:last.index('"""8192,2,640') + 8]             # ends inside the quoted Input Shapes: '"""8192,'
    f = tmp_path / "k.csv"
    f.write_text(text(FULL, [row(i) for i in range(3)]) + cut)
    assert cut_ingest(db, str(f), 3).endswith(f"; {f}: line 5 is cut short (crashed run?): the complete rows "
                                              "before it were kept")


def test_a_quote_open_at_the_end_of_the_last_column_is_a_cut(db, tmp_path):
    # every cell there, the last one a quoted shape cut short: pyarrow takes '"""8192,2' as a cell, the end of
    # the file says it is cut
    header = ["Name", "Start Time(us)", "Duration(us)", "Input Shapes"]
    rows = [["MatMulV3", f"{T + i}.000", "1.500", '"""8192,2"""'] for i in range(3)]
    f = tmp_path / "k.csv"
    f.write_text(text(header, rows[:2]) + ",".join(rows[2])[:-4])
    assert cut_ingest(db, str(f), 2).endswith(f"; {f}: line 4 is cut short (crashed run?): the complete rows "
                                              "before it were kept")


def test_a_last_line_without_its_newline_is_a_whole_row(db, tmp_path):
    f = tmp_path / "k.csv"
    f.write_text(text(FULL, [row(i) for i in range(4)]).rstrip("\n"))
    p = cli("ingest", str(f), "--db", db, "--name", "whole")
    assert p.stdout.startswith("ingested run 'whole': 4 kernel rows") and "cut short" not in p.stdout, p.stdout
    con = tracedb.connect(db, read_only=True)
    assert con.execute("SELECT truncated FROM runs WHERE name = 'whole'").fetchall() == [(False,)]
    con.close()


@pytest.mark.parametrize("end", ["\n", ""])
def test_a_row_cut_short_in_the_middle_is_refused(db, tmp_path, end):
    # a cell too few on line 3 of 5: the columns after it are shifted, whatever the end of the file
    rows = [row(i) for i in range(4)]
    del rows[1][FULL.index("Wait Time(us)")]
    f = tmp_path / "k.csv"
    f.write_text(text(FULL, rows)[:-1] + end)
    assert failed_ingest(db, str(f)) == \
        f"error: {f}: line 3: expected 23 columns, found 22 (truncated or malformed row)"


def test_damage_in_the_middle_is_refused_also_when_the_end_is_cut(db, tmp_path):
    rows = [row(i) for i in range(4)]
    rows[1].append("7")                           # a cell too many on line 3
    last = ",".join(row(4))
    f = tmp_path / "k.csv"
    f.write_text(text(FULL, rows) + last[:60])
    assert failed_ingest(db, str(f)) == \
        f"error: {f}: line 3: expected 23 columns, found 24 (truncated or malformed row)"


def test_a_quote_left_open_before_the_last_line_is_refused(db, tmp_path):
    rows = [row(i) for i in range(4)]
    rows[1][FULL.index("Name")] = '"aclnnMatmul'       # opened on line 3, never closed
    last = ",".join(row(4))
    f = tmp_path / "k.csv"
    f.write_text(text(FULL, rows) + last[:60])
    assert failed_ingest(db, str(f)).startswith(f"error: {f}: line ")


def test_a_file_cut_before_its_first_row_is_refused(db, tmp_path):
    f = tmp_path / "k.csv"
    f.write_text(text(FULL, []) + ",".join(row(0))[:60])
    assert failed_ingest(db, str(f)) == (f"error: {f}: line 2: cut short (crashed run?) before any complete row; "
                                         "expected at least one complete data line")


def test_a_cut_past_several_blocks_keeps_every_row_once(db, tmp_path):
    # ~5 MB: the first 4 MiB block is stored before the parser meets the cut; the run is read again up to it
    rows = [row(i) for i in range(20_000)]
    f = tmp_path / "k.csv"
    f.write_text(text(FULL, rows) + ",".join(row(20_000))[:100])
    assert cut_ingest(db, str(f), 20_000).endswith(f"; {f}: line 20002 is cut short (crashed run?): the complete "
                                                   "rows before it were kept")
    con = tracedb.connect(db, read_only=True)
    assert con.execute("SELECT count(DISTINCT task_id), min(task_id), max(task_id) FROM kernels_raw k JOIN runs r "
                       "USING (run_id) WHERE r.name = 'cut'").fetchone() == (20_000, 100, 20_099)
    con.close()


def test_a_cut_at_the_end_of_the_last_slice_only(db, tmp_path):
    """A profiler folder's op_summary slices are one run in slice order: the last one may end cut short (the
    rows before the cut load, the run marked truncated); one cut before the next slice is a gap inside the
    run, refused at its line."""
    header = ["Op Name", "OP Type", "Task Type", "Task Start Time(us)", "Task Duration(us)"]
    folder = tmp_path / "msprof"
    out = folder / "PROF_1" / "mindstudio_profiler_output"
    out.mkdir(parents=True)
    r = lambda i: [f"op{i}", "Add", "AI_CORE", f"{T + i}.000", "1.500"]      # noqa: E731
    first, second = out / "op_summary_slice_0_1.csv", out / "op_summary_slice_1_1.csv"
    first.write_text(text(header, [r(0), r(1)]))
    second.write_text(text(header, [r(2), r(3)]) + "op4,Add,AI_")
    assert cut_ingest(db, str(folder), 4).endswith(f"; {second}: line 4 is cut short (crashed run?): the "
                                                     "complete rows before it were kept")
    first.write_text(text(header, [r(0), r(1)]) + "op1b,Add,AI_")
    assert failed_ingest(db, str(folder)) == \
        f"error: {first}: line 4: expected 5 columns, found 3 (truncated or malformed row)"


@pytest.mark.parametrize("value, shown", [("12x.5", "'12x.5'"), ("", "''"), ("\t", "'\\t'")])
def test_bad_start_time_at_line_n(db, tmp_path, value, shown):
    rows = [row(i) for i in range(20)]
    rows[11] = row(11, start=value)              # row index 11 is on line 13 (line 1 is the header)
    f = write_csv(tmp_path / "k.csv", FULL, rows)
    assert failed_ingest(db, f) == (f"error: {f}: line 13: column 'Start Time(us)' is {shown}; "
                                    "expected a number of microseconds")


def test_na_start_time_at_line_n(db, tmp_path):
    rows = [row(i) for i in range(20)]
    rows[5] = row(5, start="N/A")                # line 7
    f = write_csv(tmp_path / "k.csv", FULL, rows)
    assert failed_ingest(db, f) == \
        f"error: {f}: line 7: column 'Start Time(us)' is 'N/A'; expected a number of microseconds"


def test_bad_integer_column(db, tmp_path):
    rows = [row(i) for i in range(5)]
    rows[2][3] = "12a"                           # Task ID of row 2, line 4
    f = write_csv(tmp_path / "k.csv", FULL, rows)
    assert failed_ingest(db, f) == f"error: {f}: line 4: column 'Task ID' is '12a'; expected an integer"


def test_path_does_not_exist(db, tmp_path):
    f = str(tmp_path / "nope" / "kernel_details.csv")
    assert failed_ingest(db, f) == f"error: {f}: no such file or folder"


def test_folder_without_traces(db, tmp_path):
    d = tmp_path / "x_ascend_pt"
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    (d / "ASCEND_PROFILER_OUTPUT" / "op_statistic.csv").write_text("Device_id,OP Type\n0,Add\n")
    line = failed_ingest(db, str(d))
    assert line.startswith(f"error: {d}: no kernel_details.csv or trace_view.json under ASCEND_PROFILER_OUTPUT/ "
                           "and no op_summary")


def test_folder_whose_only_timeline_is_empty(db, tmp_path):
    """With no kernel list but trace_view.json, the folder is read from that file, and its error names it."""
    d = tmp_path / "x_ascend_pt"
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    (d / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").write_text("[]")
    line = failed_ingest(db, str(d))
    assert line == (f"error: {d / 'ASCEND_PROFILER_OUTPUT' / 'trace_view.json'}: the trace holds no complete events; "
                    "expected a non-empty traceEvents array")


def test_folder_with_only_the_sqlite_export(db, tmp_path):
    # export_type=Db alone: the folder's ascend_pytorch_profiler_0.db is read (tests/test_ascend_db.py); one
    # that has the SQLite header and nothing else is no database
    d = tmp_path / "y_ascend_pt"
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    f = d / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"
    f.write_bytes(b"SQLite format 3\x00")
    line = failed_ingest(db, str(d))
    assert line.startswith(f"error: {f}: cannot read the SQLite database")


def test_a_failed_first_ingest_creates_no_store(tmp_path):
    store = tmp_path / "new.duckdb"
    p = cli("ingest", str(tmp_path / "missing.csv"), "--db", str(store), check=False)
    assert one_error_line(p, 1).endswith("missing.csv: no such file or folder")
    assert not store.exists()


def test_second_path_fails_first_stays(db, tmp_path):
    # one run per path, each in its own transaction: the good one lands, the bad one does not
    good = write_csv(tmp_path / "new.csv", FULL, [row(i) for i in range(10, 12)])
    bad = str(tmp_path / "missing.csv")
    p = cli("ingest", good, bad, "--db", db, check=False)
    assert one_error_line(p, 1) == f"error: {bad}: no such file or folder"
    assert p.stdout.startswith("ingested run 'new': 2 kernel rows")
    assert [r[1] for r in snapshot(db)[0]] == ["good", "new"]


@pytest.mark.real_data
def test_real_malformed_op_summary(db):
    # a real msprof parser fixture: its line 17 lacks the Task Start Time cell (31 of 32 columns)
    f = real_trace("ascend-msinsight", "test_kernel_parse", "op_summary_1.csv")
    assert failed_ingest(db, f) == f"error: {f}: line 17: expected 32 columns, found 31 (truncated or malformed row)"


# ---------------------------------------------------------------------------------------------- reports
@pytest.fixture(scope="module")
def r_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("r")
    header = ["Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)"]
    fia, mm = ("aclnnFIA_FusedInferAttentionScore", "FusedInferAttentionScore"), ("aclnnMatmul_MatMulV3", "MatMulV3")
    rows = [[n, t, "AI_CORE", f"{T + 1000 * p + s}.000\t", f"{d}.000"]
            for p in range(2) for s, d, (n, t) in [(20, 5, fia), (26, 6, mm), (55, 5, fia), (61, 6, mm)]]
    path = str(folder / "r.duckdb")
    cli("ingest", write_csv(folder / "r.csv", header, rows), "--db", path, "--name", "r")
    return path


@pytest.fixture
def rdb(r_store, tmp_path):
    """Run 'r': 2 passes, 1000 µs apart, each FIA@20 MatMul@26 FIA@55 MatMul@61 (µs from the pass start).
    Anchor gaps 35, 965, 35 µs: the 965 gap exceeds 10 x the median (35), so 2 passes. This test's own copy
    of the module's store."""
    return copy_store(r_store, str(tmp_path / "r.duckdb"))


def failed_report(rdb, *args):
    before, mtime = snapshot(rdb), os.stat(rdb).st_mtime_ns
    p = cli("report", "layers", "--db", rdb, *args, check=False)
    line = one_error_line(p, 2)
    assert p.stdout == ""
    assert snapshot(rdb) == before and os.stat(rdb).st_mtime_ns == mtime
    return line


def test_unknown_run(rdb):
    assert failed_report(rdb, "--run", "nope", "--anchor", "FusedInfer") == \
        "error: unknown run 'nope'; runs in the store: r"


def test_unknown_profile(rdb):
    assert failed_report(rdb, "--run", "r", "--profile", "nope").startswith(
        "error: unknown profile 'nope'; built-in profiles: ")


def test_anchor_matches_nothing(rdb):
    # 2 passes x 2 of each kernel: 4 FIA and 4 MatMul, tied counts ordered by name
    assert failed_report(rdb, "--run", "r", "--anchor", "NoSuchKernel") == (
        "error: run 'r': no kernel name or op type matches anchor 'NoSuchKernel'; most frequent: "
        "aclnnFIA_FusedInferAttentionScore (4), aclnnMatmul_MatMulV3 (4)")


def test_invalid_anchor_regex(rdb):
    assert failed_report(rdb, "--run", "r", "--anchor", "Fused(").startswith(
        "error: --anchor 'Fused(': not a valid RE2 pattern (")


def test_pass_beyond_last(rdb):
    assert failed_report(rdb, "--run", "r", "--anchor", "FusedInfer", "--pass", "99") == \
        "error: run 'r' has 2 passes (0..1); --pass 99 does not exist"


def test_pass_steady_without_steady_pass(rdb):
    # a steady pass is a pass >= 2: with passes 0 and 1 only there is none. Layer 0 (strict window) runs
    # from the first FIA at 20 µs to the next anchor: FIA 20-25 and MatMul 26-32, wall 12 µs in both passes
    line = failed_report(rdb, "--run", "r", "--anchor", "FusedInfer", "--pass", "steady")
    assert line.startswith("error: run 'r': no steady pass (")
    assert "layer-0 wall us by pass: 0: 12.000, 1: 12.000. Pick one with --pass N" in line
