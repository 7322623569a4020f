"""rocprofv3 CSV (`rocprofv3 --kernel-trace --output-format csv`): the same runs as the JSON output of the same
capture (one per GPU that ran kernels, exact ns, names), in every column set and agent spelling rocprofv3
writes; memory copies, HIP calls and ROCTx ranges from the files beside the kernel trace; one-line refusals.
The files are built by tests/rocprof_synth.py from rocprofiler-sdk's CSV writer."""
import csv
import gzip
import json
import os
from pathlib import Path

import pytest

import rocprof_synth as rs
import test_rocprof
import tracedb
from helpers import assert_one_line_error, cli, real_trace, slow_beyond, run_lines


def test_one_run_per_gpu_with_exact_ns(tmp_path, db_path):
    cap = rs.capture()
    p = rs.write_csv(tmp_path / "out", cap)
    r = cli("ingest", p, "--db", db_path)
    assert run_lines(r.stdout) == ["ingested run '908_kernel_trace-gpu0'",
                                                                      "ingested run '908_kernel_trace-gpu1'"]
    want = rs.expected(cap)
    assert rs.per_run(db_path) == [(f"908_kernel_trace-gpu{g}", g, rs.GPU_NAME, "rocprof-csv", *want[g])
                                   for g in (0, 1)]
    con = tracedb.connect(db_path, read_only=True)
    first = con.execute("SELECT kind, name, start_ns, dur_ns, device_id, stream_id, correlation_id, grid, block, "
                        "shared_mem_bytes FROM kernels WHERE run_id = 1 ORDER BY start_ns LIMIT 2").fetchall()
    files = con.execute("SELECT source_files, clock_domain, device_kind FROM runs WHERE run_id = 1").fetchone()
    con.close()
    assert first == [("memcpy", "MEMORY_COPY_HOST_TO_DEVICE", rs.T0 - 5000, 3766, 0, None, 99, None, None, None),
                     ("kernel", "attn_fwd(void*)", rs.T0, 1501, 0, 1, 1, [4096, 2, 1], [256, 1, 1], 1024)]
    assert [f.rsplit("/", 1)[1] for f in files[0]] == ["908_kernel_trace.csv", "908_agent_info.csv",
                                                       "908_memory_copy_trace.csv", "908_hip_api_trace.csv",
                                                       "908_marker_api_trace.csv"]
    assert files[1:] == ("monotonic", "gpu")
    assert cli("ingest", p, "--db", db_path).stdout.count("skipped run") == 2


@pytest.mark.parametrize("version,agent_index,agent_info", slow_beyond([
    ("rocm6", "relative", True),              # bare node ids, Private/Group_Segment_Size
    ("rocm7", "absolute", True),
    ("rocm7", "type-relative", True),         # GPU N
    ("rocm7", "type-relative", False),        # GPU N needs no agent info
], {0, 2}))
def test_every_layout_gives_the_same_runs(tmp_path, db_path, version, agent_index, agent_info):
    cap = rs.capture(busy=(1, 5))
    p = rs.write_csv(tmp_path / "out", cap, version=version, agent_index=agent_index, agent_info=agent_info)
    cli("ingest", p, "--db", db_path, "--name", "R")
    want = rs.expected(cap)
    name = rs.GPU_NAME if agent_info else None
    assert rs.per_run(db_path) == [(f"R-gpu{g}", g, name, "rocprof-csv", *want[g]) for g in (1, 5)]


def test_without_agent_info_an_agent_keeps_its_number(tmp_path, db_path):
    """`Agent N` is a node id: without the agent info the GPU index is unknown, and N is kept."""
    cap = rs.capture(busy=(0, 1))
    p = rs.write_csv(tmp_path / "out", cap, agent_info=False)
    cli("ingest", p, "--db", db_path)
    want = rs.expected(cap)
    assert [(n, rk, c, s) for n, rk, _, _, c, s in rs.per_run(db_path)] == [
        ("908_kernel_trace-gpu2", 2, *want[0]), ("908_kernel_trace-gpu3", 3, *want[1])]


def as_csv(folder, cap):
    return rs.write_csv(folder / "csv", cap)


def test_the_json_and_the_csv_of_one_capture_give_the_same_runs(tmp_path):
    doc = test_rocprof.document()
    (named_json, named_csv), (runs_json, runs_csv) = rs.json_and_other_agree(tmp_path, doc, as_csv)
    assert named_csv == named_json and len(named_json) == 12   # 6 device rows by GPU, 3 HIP calls a run
    assert runs_csv == runs_json == [(0, 13, 4 * 1501 + 4 * 2003 + 4 * 307 + 3766), (1, 2, 999 + 17)]


@pytest.mark.real_data
@pytest.mark.slow
def test_the_real_capture_written_as_csv_gives_the_json_runs(tmp_path):
    path = real_trace("amd-tracelens", "rocprofv3", "908_results.json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    (named_json, named_csv), (runs_json, runs_csv) = rs.json_and_other_agree(tmp_path, doc, as_csv)
    assert runs_csv == runs_json and sum(c for _, c, _ in runs_json) == 43_915
    assert named_csv == named_json


def test_memory_copies_hip_calls_and_roctx_ranges(tmp_path, db_path):
    p = rs.write_csv(tmp_path / "out", rs.capture())
    cli("ingest", p, "--db", db_path)
    con = tracedb.connect(db_path, read_only=True)
    host = con.execute("SELECT cat, name, pid, tid, dur_ns, correlation_id FROM host_events WHERE run_id = 1 "
                       "ORDER BY seq").fetchall()
    con.close()
    assert host == [("cuda_runtime", "hipLaunchKernel", "908", "909", 1200, n) for n in (1, 2, 3)] + [
        ("user_annotation", "layer0", "908", "909", 2829, 201), ("user_annotation", "layer1", "908", "909", 1215, 202),
        ("user_annotation", "checkpoint", "908", "909", 0, 203)]
    modules = cli("report", "modules", "--db", db_path, "--run", "908_kernel_trace-gpu0", "--format", "csv").stdout
    rows = list(csv.DictReader(modules.splitlines()))
    by_module = {(r["module"], r["kernel"]): r["count"] for r in rows}
    assert by_module[("layer0", "attn_fwd(void*)")] == "1"
    assert by_module[("layer0", "Cijk_Ailk_Bljk_BBS_BH_MT64x32x256")] == "1"
    assert by_module[("layer1", "void at::native::vectorized_elementwise_kernel<4, float>(int, float*)")] == "1"


def test_python_api_loads_every_gpu_into_one_run(tmp_path, con):
    cap = rs.capture()
    tracedb.ingest_trace(con, str(rs.write_csv(tmp_path / "out", cap)), name="all")
    got = con.execute("SELECT device_id, count(*), sum(dur_ns)::BIGINT FROM kernels GROUP BY 1 ORDER BY 1").fetchall()
    assert got == [(g, *v) for g, v in rs.expected(cap).items()]
    assert con.execute("SELECT rank, format, clock_domain FROM runs").fetchall() == [(None, "rocprof-csv", "monotonic")]


def test_a_folder_with_a_csv_capture(tmp_path, db_path):
    d = tmp_path / "node"
    rs.write_csv(d / "a", rs.capture(busy=(0,)))
    rs.write_csv(d / "b", rs.capture(busy=(2, 3), pid=909))
    r = cli("ingest", d, "--db", db_path)
    assert run_lines(r.stdout) == [
        "ingested run 'node-908_kernel_trace'", "ingested run 'node-909_kernel_trace-gpu2'",
        "ingested run 'node-909_kernel_trace-gpu3'"]


def edit(path, line, column, value):
    rows = list(csv.reader(open(path, newline="")))
    rows[line - 1][rows[0].index(column)] = value
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


@pytest.mark.parametrize("change,message", slow_beyond([
    (lambda p: edit(p, 3, "Start_Timestamp", "soon"), "908_kernel_trace.csv: line 3: Start_Timestamp is 'soon'; "
                                                      "expected integer timestamps in ns"),
    (lambda p: edit(p, 4, "End_Timestamp", str(rs.T0)), "908_kernel_trace.csv: line 4: ends before it starts"),
    (lambda p: edit(p, 2, "Agent_Id", "Agent 0"), "line 2: Agent_Id 'Agent 0' is no GPU agent"),
    (lambda p: edit(p, 2, "Agent_Id", "gpu-zero"), "line 2: Agent_Id is 'gpu-zero'; expected an agent as rocprofv3"),
    (lambda p: edit(p, 5, "Kernel_Name", ""), "line 5: Kernel_Name is empty"),
    (lambda p: p.write_text(p.read_text().splitlines()[0] + "\n"), "header only, no kernel dispatch"),
    (lambda p: p.write_text(p.read_text().replace('"Start_Timestamp"', '"Begin"', 1)),
     "908_kernel_trace.csv: line 1: no column Start_Timestamp; expected rocprofv3's kernel_trace.csv header"),
    (lambda p: p.write_text(p.read_text() + '"KERNEL_DISPATCH","Agent 2",1\n'),
     "908_kernel_trace.csv: line 8: expected 22 columns, found 3 (truncated or malformed row)"),
    (lambda p: edit(p.parent / "908_hip_api_trace.csv", 2, "End_Timestamp", "1"),
     "908_hip_api_trace.csv: line 2: ends before it starts"),
], range(0, 99, 2)))
def test_refusals_are_one_line(tmp_path, db_path, change, message):
    p = Path(rs.write_csv(tmp_path / "out", rs.capture(busy=(0,))))
    change(p)
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, message, code=1)
    assert not os.path.exists(db_path) or rs.per_run(db_path) == []


def cut_capture(tmp_path, file="908_kernel_trace.csv", busy=(0,), keep=-12):
    """A capture whose `file` ends cut short inside its last row, without a line end (`keep`: the characters
    of that row left, counted as a slice end): (the kernel trace, the cut file, the cut line, the capture)."""
    cap = rs.capture(busy=busy)
    p = Path(rs.write_csv(tmp_path / "out", cap))
    f = p.parent / file
    lines = f.read_text().splitlines(keepends=True)
    f.write_text("".join(lines[:-1]) + lines[-1][:keep])
    return p, f, len(lines), cap


def truncated_runs(db_path):
    con = tracedb.connect(db_path, read_only=True)
    try:
        return con.execute("SELECT r.name, r.truncated, count(*) FILTER (WHERE k.kind = 'kernel') FROM runs r "
                           "JOIN kernels_raw k USING (run_id) GROUP BY 1, 2 ORDER BY 1").fetchall()
    finally:
        con.close()


def test_a_kernel_trace_cut_short_loads_its_complete_rows(tmp_path, db_path):
    p, f, line, cap = cut_capture(tmp_path)
    r = cli("ingest", p, "--db", db_path)
    assert r.stderr == ""
    assert run_lines(r.stdout) == ["ingested run '908_kernel_trace'"]
    assert r.stdout.splitlines()[0].endswith(f"; {f}: line {line} is cut short (crashed run?): the complete rows "
                                             "before it were kept")
    assert truncated_runs(db_path) == [("908_kernel_trace", True, len(cap["dispatches"]) - 1)]


def test_a_cut_inside_a_quoted_kernel_name(tmp_path, db_path):
    p, f, line, cap = cut_capture(tmp_path, keep=44)      # '"KERNEL_DISPATCH","Agent 2",1,0,908,6,3,"voi'
    assert f.read_text().endswith(',"voi')
    r = cli("ingest", p, "--db", db_path)
    assert f"{f}: line {line} is cut short" in r.stdout
    assert truncated_runs(db_path) == [("908_kernel_trace", True, len(cap["dispatches"]) - 1)]


def test_every_gpu_run_of_a_cut_capture_is_marked(tmp_path, db_path):
    p, f, line, cap = cut_capture(tmp_path, busy=(0, 1))
    r = cli("ingest", p, "--db", db_path)
    assert r.stdout.count(f"{f}: line {line} is cut short") == 2
    assert [t for _, t, _ in truncated_runs(db_path)] == [True, True]


def test_a_file_beside_the_kernel_trace_cut_short(tmp_path, db_path):
    p, f, line, cap = cut_capture(tmp_path, file="908_hip_api_trace.csv", keep=-30)   # inside Start_Timestamp
    r = cli("ingest", p, "--db", db_path)
    assert f"; {f}: line {line} is cut short (crashed run?)" in r.stdout
    assert truncated_runs(db_path) == [("908_kernel_trace", True, len(cap["dispatches"]))]


def test_the_agent_info_cut_short_is_refused(tmp_path, db_path):
    p, f, line, _ = cut_capture(tmp_path, file="908_agent_info.csv")
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, f"{f}: line {line}: cut short (crashed run? a partial copy?); expected the whole "
                             "agent_info.csv", code=1)


def test_a_cut_inside_the_last_cell_leaves_a_whole_row_whose_value_is_checked(tmp_path, db_path):
    """A cut that leaves every cell (inside the last one) cannot be told from a whole row: it is read as one,
    and its End_Timestamp, now a few digits, ends before the call starts."""
    p, f, line, _ = cut_capture(tmp_path, file="908_hip_api_trace.csv", keep=-11)
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, f"{f}: line {line}: ends before it starts", code=1)


def test_a_last_line_without_its_newline_is_a_whole_row(tmp_path, db_path):
    cap = rs.capture(busy=(0,))
    p = Path(rs.write_csv(tmp_path / "out", cap))
    p.write_text(p.read_text().rstrip("\n"))
    r = cli("ingest", p, "--db", db_path)
    assert "cut short" not in r.stdout
    assert truncated_runs(db_path) == [("908_kernel_trace", False, len(cap["dispatches"]))]


@pytest.mark.parametrize("end", ["cut", "whole"])
def test_a_row_damaged_in_the_middle_is_refused(tmp_path, db_path, end):
    """A cell too few on line 4, whether or not the file also ends cut short: the rows after it may be
    shifted too, and loading the rest would change the sums."""
    p, f, line, _ = cut_capture(tmp_path) if end == "cut" else (Path(rs.write_csv(tmp_path / "out", rs.capture(
        busy=(0,)))), None, None, None)
    lines = p.read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace(",1024,0,8,", ",1024,0,", 1)
    p.write_text("".join(lines))
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, f"{p}: line 4: expected 22 columns, found 21 (truncated or malformed row)", code=1)


def test_a_quote_left_open_in_the_middle_is_refused(tmp_path, db_path):
    p, _, _, _ = cut_capture(tmp_path)
    lines = p.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"Agent 2"', '"Agent 2', 1)
    p.write_text("".join(lines))
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, f"{p}: line 3: a quoted cell is not closed", code=1)


def test_a_kernel_trace_cut_before_its_first_row_is_refused(tmp_path, db_path):
    p = Path(rs.write_csv(tmp_path / "out", rs.capture(busy=(0,))))
    lines = p.read_text().splitlines(keepends=True)
    p.write_text(lines[0] + lines[1][:45])
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, f"{p}: line 2: cut short (crashed run?) before any complete kernel dispatch", code=1)


def test_a_missing_column_of_a_file_beside_it_is_named(tmp_path, db_path):
    p = Path(rs.write_csv(tmp_path / "out", rs.capture(busy=(0,))))
    copies = p.parent / "908_memory_copy_trace.csv"
    copies.write_text(copies.read_text().replace('"Destination_Agent_Id"', '"To"', 1))
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, "908_memory_copy_trace.csv: line 1: no column Destination_Agent_Id", code=1)


def test_a_file_read_with_the_kernel_trace_names_the_trace(tmp_path, db_path):
    p = Path(rs.write_csv(tmp_path / "out", rs.capture(busy=(0,))))
    r = cli("ingest", p.parent / "908_memory_copy_trace.csv", "--db", db_path, check=False)
    assert_one_line_error(r, "908_memory_copy_trace.csv: rocprofv3's memory_copy_trace.csv, which is read with the "
                             f"kernel trace of its capture; expected the kernel trace: tracedb ingest {p}", code=1)
