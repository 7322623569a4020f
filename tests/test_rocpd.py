"""rocprofv3's rocpd SQLite database (`rocprofv3 --output-format rocpd`): the same runs as the JSON output of the
same capture (one per GPU that ran kernels, exact ns, names), in both layouts of schema version 3 (times in
the rows, or in rocpd_timestamp through tracks), with or without the unsuffixed views; HIP API and ROCTx
regions as host events; one-line refusals. The databases are built by tests/rocprof_synth.py from
rocprofiler-sdk's rocpd_tables.sql."""
import csv
import gzip
import json
import sqlite3

import pytest

import rocprof_synth as rs
import test_rocprof
import tracedb
from helpers import assert_one_line_error, cli, real_trace, slow_beyond, run_lines
from tracedb.ingest import formats, rocpd, sqlite_export


@pytest.mark.parametrize("timestamps,suffix", slow_beyond([("inline", rs.UUID), ("table", rs.UUID), ("inline", "")],
                                                         {0}))
def test_one_run_per_gpu_with_exact_ns(tmp_path, db_path, timestamps, suffix):
    cap = rs.capture(busy=(0, 3))
    p = rs.write_rocpd(tmp_path / "908_results.db", cap, timestamps=timestamps, suffix=suffix)
    r = cli("ingest", p, "--db", db_path, "--name", "R")
    assert run_lines(r.stdout) == ["ingested run 'R-gpu0'", "ingested run 'R-gpu3'"]
    want = rs.expected(cap)
    assert rs.per_run(db_path) == [(f"R-gpu{g}", g, rs.GPU_NAME, "rocpd", *want[g]) for g in (0, 3)]
    con = tracedb.connect(db_path, read_only=True)
    first = con.execute("SELECT kind, name, start_ns, dur_ns, device_id, correlation_id, grid, block, "
                        "shared_mem_bytes FROM kernels WHERE run_id = 1 ORDER BY start_ns LIMIT 2").fetchall()
    clock = con.execute("SELECT DISTINCT clock_domain, device_kind FROM runs").fetchall()
    con.close()
    assert first == [("memcpy", "MEMORY_COPY_HOST_TO_DEVICE", rs.T0 - 5000, 3766, 0, 99, None, None, None),
                     ("kernel", "attn_fwd(void*)", rs.T0, 1501, 0, 1, [4096, 2, 1], [256, 1, 1], 1024)]
    assert clock == [("monotonic", "gpu")]
    assert cli("ingest", p, "--db", db_path, "--name", "R").stdout.count("skipped run") == 2


def test_recognised_by_its_tables_with_or_without_the_guid_suffix(tmp_path):
    suffixed = rs.write_rocpd(tmp_path / "a.db", rs.capture())
    names = sqlite_export.tables(str(suffixed))
    # rocprofv3's unsuffixed names are views over the suffixed tables: only tables are read
    assert f"rocpd_kernel_dispatch{rs.UUID}" in names and "rocpd_kernel_dispatch" not in names
    assert rocpd.matches(names)
    assert not rocpd.matches({"rocpd_string", "rocpd_info_agent"})
    assert formats.identify(str(suffixed)) is rocpd.READER
    assert rocpd.devices(str(suffixed)) == [0, 1]


def test_suffixed_tables_without_views_are_read(tmp_path, db_path):
    cap = rs.capture()
    p = rs.write_rocpd(tmp_path / "x.sqlite", cap)
    lite = sqlite3.connect(p)
    for (view,) in lite.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
        lite.execute(f'DROP VIEW "{view}"')
    lite.commit()
    lite.close()
    cli("ingest", p, "--db", db_path)
    assert [(rk, c, s) for _, rk, _, _, c, s in rs.per_run(db_path)] == [(g, *v) for g, v in rs.expected(cap).items()]


def as_rocpd(folder, cap):
    return rs.write_rocpd(folder / "908_results.db", cap, timestamps="table")


def test_the_json_and_the_rocpd_of_one_capture_give_the_same_runs(tmp_path):
    doc = test_rocprof.document()
    (named_json, named_db), (runs_json, runs_db) = rs.json_and_other_agree(tmp_path, doc, as_rocpd)
    assert named_db == named_json and len(named_json) == 12   # 6 device rows by GPU, 3 HIP calls a run
    assert runs_db == runs_json == [(0, 13, 4 * 1501 + 4 * 2003 + 4 * 307 + 3766), (1, 2, 999 + 17)]


@pytest.mark.real_data
@pytest.mark.slow
def test_the_real_capture_written_as_rocpd_gives_the_json_runs(tmp_path):
    path = real_trace("amd-tracelens", "rocprofv3", "908_results.json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    (named_json, named_db), (runs_json, runs_db) = rs.json_and_other_agree(tmp_path, doc, as_rocpd)
    assert runs_db == runs_json and sum(c for _, c, _ in runs_json) == 43_915
    assert named_db == named_json


def test_hip_calls_and_roctx_regions_are_host_events(tmp_path, db_path):
    cli("ingest", rs.write_rocpd(tmp_path / "908_results.db", rs.capture(), timestamps="table"), "--db", db_path,
        "--name", "R")
    con = tracedb.connect(db_path, read_only=True)
    host = con.execute("SELECT cat, name, pid, tid, dur_ns, correlation_id FROM host_events WHERE run_id = 1 "
                       "ORDER BY seq").fetchall()
    con.close()
    assert host == [("cuda_runtime", "hipLaunchKernel", "908", "909", 1200, n) for n in (1, 2, 3)] + [
        ("user_annotation", "layer0", "908", "909", 2829, 201), ("user_annotation", "layer1", "908", "909", 1215, 202)]
    rows = list(csv.DictReader(cli("report", "modules", "--db", db_path, "--run", "R-gpu0", "--format",
                                   "csv").stdout.splitlines()))
    by_module = {(r["module"], r["kernel"]): r["count"] for r in rows}
    assert by_module[("layer0", "attn_fwd(void*)")] == "1"
    assert by_module[("layer1", "void at::native::vectorized_elementwise_kernel<4, float>(int, float*)")] == "1"


def test_python_api_loads_every_gpu_into_one_run(tmp_path, con):
    cap = rs.capture()
    tracedb.ingest_trace(con, str(rs.write_rocpd(tmp_path / "r.db", cap)), name="all")
    got = con.execute("SELECT device_id, count(*), sum(dur_ns)::BIGINT FROM kernels GROUP BY 1 ORDER BY 1").fetchall()
    assert got == [(g, *v) for g, v in rs.expected(cap).items()]
    assert con.execute("SELECT rank, format, clock_domain FROM runs").fetchall() == [(None, "rocpd", "monotonic")]


def test_a_folder_with_a_rocpd_database(tmp_path, db_path):
    d = tmp_path / "node"
    d.mkdir()
    rs.write_rocpd(d / "908_results.db", rs.capture(busy=(2,)))
    (d / "other.db").write_bytes(b"")
    r = cli("ingest", d, "--db", db_path)
    assert run_lines(r.stdout) == ["ingested run 'node-908_results'"]
    assert rs.per_run(db_path)[0][1:4] == (2, rs.GPU_NAME, "rocpd")


def sql_on(path, statement):
    lite = sqlite3.connect(path)
    lite.execute(statement)
    lite.commit()
    lite.close()


T = rs.UUID


@pytest.mark.parametrize("statement,message", slow_beyond([
    (f'UPDATE "rocpd_kernel_dispatch{T}" SET "end" = "start" - 1 WHERE id = 4',
     "rocpd_kernel_dispatch id 4 ends before it starts"),
    (f'UPDATE "rocpd_kernel_dispatch{T}" SET kernel_id = 77 WHERE id = 2',
     "rocpd_kernel_dispatch id 2 has kernel_id 77, which rocpd_info_kernel_symbol does not list"),
    (f'UPDATE "rocpd_kernel_dispatch{T}" SET agent_id = 1 WHERE id = 3',
     "rocpd_kernel_dispatch id 3 has agent 1, which rocpd_info_agent does not list as a GPU"),
    (f'UPDATE "rocpd_region{T}" SET "end" = 5 WHERE id = 2', "rocpd_region id 2 ends before it starts"),
    (f'DELETE FROM "rocpd_kernel_dispatch{T}"', "no kernel dispatch (rocpd_kernel_dispatch is empty)"),
    (f'UPDATE "rocpd_kernel_dispatch{T}" SET "start" = \'soon\' WHERE id = 5',
     f"table rocpd_kernel_dispatch{T}, row 5: column start holds 'soon' (str); expected an integer"),
    ('DROP VIEW "rocpd_string"', None),
], range(0, 99, 2)))
def test_refusals_are_one_line(tmp_path, db_path, statement, message):
    p = rs.write_rocpd(tmp_path / "bad.db", rs.capture(busy=(0,)))
    sql_on(p, statement)
    r = cli("ingest", p, "--db", db_path, check=False)
    if message is None:      # the suffixed table is read instead of the dropped view
        assert r.returncode == 0 and rs.per_run(db_path)[0][4:] == rs.expected(rs.capture(busy=(0,)))[0]
        return
    assert_one_line_error(r, message, code=1)
    assert "bad.db" in r.stderr


def test_a_missing_column_and_two_captures_without_views_are_named(tmp_path, db_path):
    p = rs.write_rocpd(tmp_path / "a.db", rs.capture(busy=(0,)), suffix="")
    sql_on(p, 'ALTER TABLE "rocpd_kernel_dispatch" RENAME COLUMN kernel_id TO kid')
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, "a.db: table rocpd_kernel_dispatch has no column kernel_id", code=1)
    two = rs.write_rocpd(tmp_path / "two.db", rs.capture(busy=(0,)))
    lite = sqlite3.connect(two)
    for (view,) in lite.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
        lite.execute(f'DROP VIEW "{view}"')
    lite.execute(f'CREATE TABLE "rocpd_kernel_dispatch_ffffffff_0000" AS SELECT * FROM "rocpd_kernel_dispatch{T}"')
    lite.commit()
    lite.close()
    r = cli("ingest", two, "--db", db_path, check=False)
    assert_one_line_error(r, "2 tables rocpd_kernel_dispatch_", code=1)
