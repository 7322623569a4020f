"""The store file: schema version, storage compatibility with DuckDB 1.5 clients, refusal of foreign or
future files, one writer at a time, where the store lives by default, and all-or-nothing ingests."""
import os
import shutil
import subprocess
import sys

import duckdb
import pytest

import tracedb
from helpers import cli, cli_subprocess, write_csv
from tracedb.errors import InputError, StoreError, UsageError
from tracedb.engine.store.connect import wait_seconds
from tracedb.engine.store.schema import SCHEMA_VERSION

HEADER = ["Task ID", "Stream ID", "Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)"]
T = 1764246877073569


def small_trace(path):
    """3 rows: a kernel and one hcom op logged twice (stream N/A + stream 3, same start and duration), so
    kernels_raw holds 3 rows and the kernels view 2."""
    rows = [["1", "2", "aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", f"{T}.640\t", "10.000"],
            ["N/A", "N/A", "hcom_allReduce__1_0_1", "hcom_allReduce_", "COMMUNICATION", f"{T + 20}.000\t", "3.000"],
            ["2", "3", "hcom_allReduce__1_0_1", "hcom_allReduce_", "COMMUNICATION", f"{T + 20}.000\t", "3.000"]]
    return write_csv(path, HEADER, rows)


def state(con):
    return (con.execute("SELECT * FROM runs ORDER BY run_id").fetchall(),
            con.execute("SELECT * FROM kernels_raw ORDER BY run_id, seq").fetchall())


def set_schema_version(path, value):
    raw = duckdb.connect(path)
    raw.execute("UPDATE tracedb_meta SET value = $v WHERE key = 'schema_version'", {"v": value})
    raw.close()


# ---------------------------------------------------------------------------------------------- schema
def test_new_store_schema_version(con):
    assert con.execute("SELECT key, value FROM tracedb_meta").fetchall() == [("schema_version", str(SCHEMA_VERSION))]
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
                                        "WHERE table_schema = 'main'").fetchall()}
    assert tables == {"tracedb_meta", "runs", "kernels_raw", "kernels_raw_full", "kernels_raw_ascend_csv", "kernels",
                      "kernel_metrics", "kernel_extras", "trace_events", "host_events", "tracks", "run_kernels",
                      "run_summary", "kernel_stats", "segmentations", "kernel_segments", "kernel_layers",
                      "kernel_names", "run_groups", "comm_ops", "comm_links", "comm_matrix", "step_times",
                      "kernel_texts", "kernel_work", "kernel_work_rows", "kernel_work_tuples", "kernel_launches"}


def test_storage_version_is_v1_5(con, db_path):
    tags = con.execute("SELECT tags FROM duckdb_databases() WHERE path = $p", {"p": db_path}).fetchone()
    assert tags is not None and tags[0]["storage_version"].startswith("v1.5.0")


def duckdb_cli():
    for exe in (os.path.join(os.path.dirname(sys.executable), "duckdb"), shutil.which("duckdb")):
        if exe and os.path.exists(exe):
            ver = subprocess.run([exe, "-version"], capture_output=True, text=True).stdout.strip()
            if ver.startswith("v1."):       # the PyPI duckdb-cli (1.5.x): the client the store must serve
                return exe, ver
    pytest.skip("no DuckDB 1.x CLI (PyPI duckdb-cli) installed")


def test_duckdb_15_cli_reads_the_store(tmp_path, db_path):
    import tiny_kineto
    exe, ver = duckdb_cli()
    con = tracedb.connect(db_path)
    tracedb.ingest_trace(con, small_trace(tmp_path / "k.csv"), name="t")
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "g.json"), name="g")
    want = [str(con.execute(f"select count(*) from {t} where run_id = 2").fetchone()[0])
            for t in ("kernels", "host_events")]
    con.close()
    p = subprocess.run([exe, "-readonly", "-csv", "-noheader", db_path, "-c",
                        "select count(*) from kernels where run_id = 1; select count(*) from kernels_raw; "
                        "select count(*) from kernels where run_id = 2; select count(*) from host_events"],
                       capture_output=True, text=True)
    assert p.returncode == 0, f"duckdb {ver}: {p.stderr}"
    # 3 raw rows, the hcom logged twice counted once; the JSON run's kernels and host events (trace_events)
    assert p.stdout.split() == ["2", "3"] + want and want == ["12", "22"]


def test_duckdb_15_cli_reads_the_cross_run_views(tmp_path, db_path):
    """The v3 views are plain SQL (no tracedb macro, no UDF): the stock DuckDB 1.5 CLI queries them."""
    exe, ver = duckdb_cli()
    con = tracedb.connect(db_path)
    tracedb.ingest_trace(con, small_trace(tmp_path / "k.csv"), name="t", tags={"hw": "910B"})
    con.close()
    p = subprocess.run([exe, "-readonly", "-csv", "-noheader", db_path, "-c",
                        "select run, kernels, device_us, span_us from run_summary; "
                        "select name, count, sum_us, avg_us from kernel_stats where tags['hw'] = '910B' order by name; "
                        "select count(*), min(run) from run_kernels where tags['hw'] = '910B'"],
                       capture_output=True, text=True)
    assert p.returncode == 0, f"duckdb {ver}: {p.stderr}"
    # a 10 µs MatMul at T.640 and a 3 µs allReduce at T+20: 13 µs of device time over 22.36 µs
    assert p.stdout.split() == ["t,2,13.000,22.360",
                                "aclnnMatmul_MatMulV3Common_MatMulV3,1,10.000,10.000",
                                "hcom_allReduce__1_0_1,1,3.000,3.000",
                                "2,t"]


def test_an_ingest_leaves_its_rows_in_the_file_and_the_vacuum_setting_as_it_was(tmp_path, db_path):
    """ingest checkpoints with DuckDB's vacuum off (it merged each batch's partly filled row groups at
    close, for no gain in reading) and gives an API user's own setting back."""
    con = tracedb.connect(db_path)
    con.execute("SET max_vacuum_tasks = 7")
    tracedb.ingest_trace(con, small_trace(tmp_path / "k.csv"), name="k")
    assert con.execute("SELECT current_setting('max_vacuum_tasks')").fetchone() == (7,)
    wal = db_path + ".wal"
    assert not os.path.exists(wal) or os.path.getsize(wal) == 0   # checkpointed: nothing left to replay
    con.close()


def test_newer_schema_is_refused(tmp_path, db_path):
    tracedb.connect(db_path).close()
    set_schema_version(db_path, "999")
    for ro in (False, True):
        with pytest.raises(StoreError, match="newer") as e:
            tracedb.connect(db_path, read_only=ro)
        assert "999" in str(e.value) and db_path in str(e.value)
    p = cli("runs", "--db", db_path, check=False)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and p.stderr.startswith("error: ") and "newer" in p.stderr


def test_older_schema_is_refused(db_path):
    tracedb.connect(db_path).close()
    set_schema_version(db_path, "0")
    with pytest.raises(StoreError) as e:
        tracedb.connect(db_path)
    assert "re-ingest" in str(e.value) or "migrate" in str(e.value)
    # refusing did not touch the file
    raw = duckdb.connect(db_path, read_only=True)
    assert raw.execute("SELECT value FROM tracedb_meta").fetchall() == [("0",)]
    raw.close()


def test_foreign_duckdb_file_is_refused(db_path):
    raw = duckdb.connect(db_path)
    raw.execute("CREATE TABLE sales (id INTEGER)")
    raw.close()
    for ro in (False, True):
        with pytest.raises(StoreError, match="not a tracedb store"):
            tracedb.connect(db_path, read_only=ro)
    raw = duckdb.connect(db_path, read_only=True)
    assert [r[0] for r in raw.execute("SHOW TABLES").fetchall()] == ["sales"]   # nothing was added
    raw.close()


def test_not_a_duckdb_file(tmp_path):
    path = tmp_path / "x.duckdb"
    path.write_text("Name,Start Time(us),Duration(us)\n")
    with pytest.raises(StoreError) as e:
        tracedb.connect(str(path))
    assert str(path) in str(e.value)


def test_read_only_missing_path_is_usage_error(tmp_path):
    path = str(tmp_path / "nope.duckdb")
    with pytest.raises(UsageError):
        tracedb.connect(path, read_only=True)
    assert not os.path.exists(path)
    p = cli("runs", "--db", path, check=False)
    assert (p.returncode, p.stderr.count("\n"), p.stderr.startswith(f"error: {path}")) == (2, 1, True)


# ---------------------------------------------------------------------------------------------- one writer
HOLDER = "import sys, tracedb\ncon = tracedb.connect(sys.argv[1])\nprint('ready', flush=True)\nsys.stdin.read()\n"


def test_second_writer_gets_one_line_error(tmp_path, db_path):
    trace = small_trace(tmp_path / "k.csv")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, db_path], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready", holder.stderr.read()
        # two processes: the holder's lock is a file lock, which another connection of this process would
        # not meet (DuckDB shares one database instance per file within a process)
        # the refused ingest waits TRACEDB_WAIT for the lock (60 s by default: test_default_wait_is_60_s)
        env = {**os.environ, "TRACEDB_WAIT": "0.5"}
        p = cli_subprocess("ingest", trace, "--db", db_path, check=False, env=env)   # the holder sleeps on stdin
    finally:
        holder.stdin.close()              # releases the holder: it returns from read() and exits
        holder.wait()
    assert p.returncode != 0
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {db_path}: ")
    assert "in use" in lines[0] or "lock" in lines[0].lower()
    assert "stayed so for 0.5 s" in lines[0]
    assert p.stdout == ""
    # the store is free again and was not written by the refused ingest
    con = tracedb.connect(db_path)
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    con.close()


def test_default_wait_is_60_s(monkeypatch):
    monkeypatch.delenv("TRACEDB_WAIT", raising=False)
    assert wait_seconds() == 60
    monkeypatch.setenv("TRACEDB_WAIT", "0.5")
    assert wait_seconds() == 0.5


# ---------------------------------------------------------------------------------------------- location
def env_without_db(**extra):
    env = {k: v for k, v in os.environ.items() if k != "TRACEDB_DB"}
    env.update(extra)
    return env


def test_tracedb_db_env_is_honoured(tmp_path):
    trace = small_trace(tmp_path / "k.csv")
    store = tmp_path / "env.duckdb"
    env = env_without_db(TRACEDB_DB=str(store))
    cli("ingest", trace, "--name", "from-env", env=env, cwd=tmp_path)
    assert store.exists() and not (tmp_path / "tracedb.duckdb").exists()
    out = cli("runs", "--format", "csv", env=env, cwd=tmp_path).stdout.splitlines()
    assert len(out) == 2 and out[1].startswith("from-env,") and ",ascend-kernel-details," in out[1]
    # --db wins over $TRACEDB_DB
    other = tmp_path / "other.duckdb"
    cli("ingest", trace, "--db", other, "--name", "explicit", env=env, cwd=tmp_path)
    con = tracedb.connect(str(other), read_only=True)
    assert con.execute("SELECT name FROM runs").fetchall() == [("explicit",)]
    con.close()


def test_default_store_in_cwd(tmp_path):
    trace = small_trace(tmp_path / "k.csv")
    work = tmp_path / "work"
    work.mkdir()
    cli("ingest", trace, "--name", "dflt", env=env_without_db(), cwd=work)
    assert os.listdir(work) == ["tracedb.duckdb"]
    con = tracedb.connect(str(work / "tracedb.duckdb"), read_only=True)
    assert con.execute("SELECT name, kernel_rows, kernel_count FROM runs").fetchall() == [("dflt", 3, 2)]
    con.close()
    assert cli("sql", "select count(*) as n from kernels", "--format", "csv", env=env_without_db(),
               cwd=work).stdout.splitlines() == ["n", "2"]


# ---------------------------------------------------------------------------------------------- atomicity
def hundred_lines(path, bad_line=None, bad_value="12x.5"):
    """Header + 99 rows = 100 lines; row i (0-based) is on line i + 2."""
    rows = [["N/A", "2", f"k{i}", "Add", "AI_VECTOR_CORE", f"{T + i}.000\t", "1.000"] for i in range(99)]
    if bad_line:
        rows[bad_line - 2][5] = bad_value
    return write_csv(path, HEADER, rows)


def test_failed_ingest_leaves_store_unchanged(con, tmp_path):
    tracedb.ingest_trace(con, small_trace(tmp_path / "good.csv"), name="good", tags={"a": "1"})
    before = state(con)
    bad = hundred_lines(tmp_path / "bad.csv", bad_line=50)
    with pytest.raises(InputError) as e:
        tracedb.ingest_trace(con, bad, name="bad")
    assert str(e.value) == f"{bad}: line 50: column 'Start Time(us)' is '12x.5'; expected a number of microseconds"
    assert state(con) == before
    # the connection is still usable, and the next run is numbered as if nothing happened: run 2 after 'good',
    # 99 rows with seq 0..98
    res = tracedb.ingest_trace(con, hundred_lines(tmp_path / "ok.csv"), name="ok")
    assert (res.run_id, res.rows) == (2, 99)
    assert con.execute("SELECT min(seq), max(seq) FROM kernels_raw WHERE run_id = 2").fetchone() == (0, 98)


def test_failed_second_slice_leaves_store_unchanged(con, tmp_path):
    tracedb.ingest_trace(con, small_trace(tmp_path / "good.csv"), name="good")
    before = state(con)
    out = tmp_path / "pt" / "PROF_1_2_abc" / "mindstudio_profiler_output"
    out.mkdir(parents=True)
    hundred_lines(out / "op_summary_slice_0_1.csv")
    bad = hundred_lines(out / "op_summary_slice_1_1.csv", bad_line=77, bad_value="N/A")
    with pytest.raises(InputError) as e:
        tracedb.ingest_trace(con, str(tmp_path / "pt"))
    # N/A start: the message points at the second slice, line 77, although slice 0 was fine
    assert str(e.value).startswith(f"{bad}: line 77: column 'Start Time(us)' is 'N/A'")
    assert state(con) == before


def test_failed_cli_ingest_leaves_store_unchanged(tmp_path, db_path):
    cli("ingest", small_trace(tmp_path / "good.csv"), "--db", db_path, "--name", "good")
    con = tracedb.connect(db_path, read_only=True)
    before = state(con)
    con.close()
    bad = hundred_lines(tmp_path / "bad.csv", bad_line=50)
    p = cli("ingest", bad, "--db", db_path, check=False)
    assert (p.returncode, p.stderr) == (1, f"error: {bad}: line 50: column 'Start Time(us)' is '12x.5'; "
                                           "expected a number of microseconds\n")
    con = tracedb.connect(db_path, read_only=True)
    assert state(con) == before
    con.close()


# ---------------------------------------------------------------------------------------------- schema v3
def v2_store(path):
    """A store as tracedb wrote it at schema v2: one run with host events, plus host events and a track
    left behind by a run that v2's --replace deleted (run_id 9)."""
    from tracedb import sql
    con = duckdb.connect(path, config={"storage_compatibility_version": "v1.5.0"})
    sql.run(con, "schema")
    sql.run(con, "migrate_1_to_2")
    con.execute("INSERT INTO tracedb_meta VALUES ('schema_version', '2')")
    con.execute("INSERT INTO runs (run_id, name, tags, kernel_rows, kernel_count) VALUES "
                "(1, 'old', MAP {'hw': 'h100'}, 2, 2)")
    con.execute("INSERT INTO kernels_raw (run_id, seq, start_ns, dur_ns, name) VALUES (1, 0, 1000, 7000, 'k'), "
                "(1, 1, 9000, 3000, 'k')")
    con.execute("INSERT INTO host_events (run_id, seq, start_ns, dur_ns, name) VALUES (1, 0, 0, 1, 'h'), "
                "(9, 0, 0, 1, 'x')")
    con.execute("INSERT INTO tracks (run_id, pid, tid) VALUES (9, '1', '2')")
    con.close()


def test_migration_2_to_4(db_path):
    v2_store(db_path)
    with pytest.raises(StoreError, match=f"schema v2 is older than v{SCHEMA_VERSION}"):
        tracedb.connect(db_path)
    assert cli("migrate", "--db", db_path).stdout.strip() == f"store is at schema v{SCHEMA_VERSION}"
    con = tracedb.connect(db_path, read_only=True)
    assert con.execute("SELECT name, source_bytes FROM runs").fetchall() == [("old", None)]
    # v3 dropped the orphans, v4 moved the host events into trace_events (host_events is a view of it)
    assert con.execute("SELECT run_id, seq, name, ph, kind FROM trace_events").fetchall() == [(1, 0, "h", "X", None)]
    assert con.execute("SELECT run_id, count(*) FROM host_events GROUP BY 1").fetchall() == [(1, 1)]
    assert con.execute("SELECT count(*) FROM tracks").fetchone() == (0,)
    # the views work on the migrated store: 2 kernels, 10 µs of device time over [1, 12] µs
    assert con.execute("SELECT run, kernels, device_us, span_us FROM run_summary").fetchall() == [("old", 2, 10, 11)]
    assert con.execute("SELECT run, name, count, sum_us, avg_us, min_us, max_us FROM kernel_stats").fetchall() == [
        ("old", "k", 2, 10, 5, 3, 7)]
    # v5: the names already there got their short names
    assert con.execute("SELECT name, short_name FROM kernel_names").fetchall() == [("k", "k")]
    assert con.execute("SELECT run, tags['hw'], dur_ns FROM run_kernels ORDER BY seq").fetchall() == [
        ("old", "h100", 7000), ("old", "h100", 3000)]
    con.close()


def test_source_bytes_and_views_across_runs(con, tmp_path):
    import tiny_trace
    for name, factor, hw in (("a", 1, "910B"), ("b", 3, "910B"), ("c", 2, "910C")):
        tracedb.ingest_trace(con, tiny_trace.write(tmp_path / f"{name}.csv", dur_factor=factor), name=name,
                             tags={"hw": hw})
    assert con.execute("SELECT source_bytes FROM runs WHERE name = 'a'").fetchone() == (
        os.path.getsize(tmp_path / "a.csv"),)
    # runs a (durations x1) and b (x3) are tagged hw=910B: each of the trace's 8 kernel names has a mean
    # 3x larger in b
    got = con.execute("""
        SELECT count(*), min(max_avg / min_avg), max(max_avg / min_avg) FROM (
            SELECT name, count(*) AS n, max(avg_us) AS max_avg, min(avg_us) AS min_avg FROM kernel_stats
            WHERE tags['hw'] = '910B' GROUP BY name) WHERE n = 2""").fetchall()
    assert got == [(8, 3, 3)]
    # 314.9 µs of device time at durations x1 (test_cli), x3 and x2 for the others
    assert con.execute("SELECT run, kernels, device_us::VARCHAR FROM run_summary ORDER BY run_id").fetchall() == [
        ("a", 60, "314.900"), ("b", 60, "944.700"), ("c", 60, "629.800")]
    assert con.execute("SELECT count(*) FROM run_kernels WHERE tags['hw'] = '910C'").fetchone() == (60,)


def test_replace_removes_the_old_runs_host_events_and_tracks(con, tmp_path):
    import tiny_kineto
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "a.json"), name="gpu")
    first = con.execute("SELECT count(*) FROM host_events").fetchone()[0]
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "b.json", compact=False), name="gpu", replace=True)
    # v2 left the first run's host events and tracks behind (a later run could reuse its id)
    assert con.execute("SELECT DISTINCT run_id FROM host_events UNION SELECT DISTINCT run_id FROM tracks").fetchall() \
        == [(2,)]
    assert con.execute("SELECT count(*) FROM host_events").fetchone()[0] == first


def test_a_hash_started_early_is_taken_over_only_for_the_same_file(tmp_path):
    """`tracedb ingest FILE` starts hashing before DuckDB is imported; the ingest takes that thread over
    when the file is unchanged, and hashes again when it changed in between."""
    import hashlib
    import os
    from tracedb.engine.loading import hashing
    path = tmp_path / "t.json"
    path.write_bytes(b"[1]")
    early = hashing.start_early(str(path))
    assert hashing.hasher_for([str(path)]) is early
    assert hashing.hasher_for([str(path)]) is not early          # taken once
    again = hashing.start_early(str(path))
    assert again is not early
    # both threads read the file in the background: let them finish before it changes (without the joins
    # the first could read the new bytes, a race that failed this test once in a full run)
    early.join()
    again.join()
    path.write_bytes(b"[1, 2]")
    os.utime(path, ns=(1, 1))                                     # same second, other mtime and size
    late = hashing.hasher_for([str(path)])
    late.join()
    early.join()
    assert early.digest == hashlib.sha256(b"[1]").hexdigest()
    assert late.digest == hashlib.sha256(b"[1, 2]").hexdigest()


def test_an_in_memory_store_writes_no_file(tmp_path, monkeypatch):
    """`:memory:` is DuckDB's in-memory database: a new store there gets its schema in place, and no file of
    that name appears in the working folder (new stores on disk are written from a per-process copy)."""
    import tracedb
    monkeypatch.chdir(tmp_path)
    con = tracedb.connect(":memory:")
    try:
        assert con.execute("SELECT value FROM tracedb_meta WHERE key = 'schema_version'").fetchone()[0]
    finally:
        con.close()
    assert os.listdir(tmp_path) == []


def test_a_new_store_is_linked_into_place_whole_and_never_over_another(tmp_path):
    """A new store is written beside its path and hard-linked there: a file made meanwhile by another process
    is kept as it is, and no temporary file stays behind."""
    from tracedb.engine.store import connect
    other = tmp_path / "s.duckdb"
    other.write_bytes(b"another process's store")
    assert connect._create(str(other)) == (True, False)      # a file is there; this call did not make it
    assert other.read_bytes() == b"another process's store"
    fresh = tmp_path / "t.duckdb"
    assert connect._create(str(fresh)) == (True, True) and fresh.read_bytes() == connect._new_store_bytes()
    assert sorted(os.listdir(tmp_path)) == ["s.duckdb", "t.duckdb"]
