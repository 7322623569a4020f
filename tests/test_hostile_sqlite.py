"""A foreign SQLite database is read within bounds (ingest/sqlite_file.py): views and triggers are never read
through, so a view that never finishes cannot hang an ingest; a WAL beside the file is refused instead of
silently skipped; a query runs within a time budget and stops on a signal."""
import os
import sqlite3
import subprocess

import pytest

import nsys_synth
import rocprof_synth
from fuzz_promise import CASE_TIMEOUT_S, subprocess_env, tracedb_exe
from tracedb.errors import InputError
from tracedb.ingest import sqlite_file

ENDLESS = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS {cols} FROM r"


def _ingest(tmp_path, target):
    try:
        return subprocess.run([tracedb_exe(), "ingest", str(target), "--db", str(tmp_path / "s.duckdb")],
                              capture_output=True, text=True, env=subprocess_env(str(tmp_path)),
                              timeout=CASE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the ingest of {target} ran past {CASE_TIMEOUT_S} s")


def _as_endless_view(path, table):
    """`table` replaced by a view of the same columns over a recursive query that never ends."""
    lite = sqlite3.connect(path)
    cols = [r[1] for r in lite.execute(f'PRAGMA table_info("{table}")')]
    lite.execute(f'DROP TABLE "{table}"')
    select = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT " + \
        ", ".join(f'x AS "{c}"' for c in cols) + " FROM r"
    lite.execute(f'CREATE VIEW "{table}" AS {select}')
    lite.commit()
    lite.close()
    return path


@pytest.mark.parametrize("table", ["CUPTI_ACTIVITY_KIND_KERNEL", "StringIds"])
def test_an_endless_view_in_place_of_an_nsys_table_is_refused_at_once(tmp_path, table):
    path = _as_endless_view(nsys_synth.profile(str(tmp_path / "x.sqlite"), devices=(0,)), table)
    out = _ingest(tmp_path, path)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and str(path) in out.stderr, out.stderr


def test_an_endless_view_in_place_of_a_rocpd_table_is_refused_at_once(tmp_path):
    path = rocprof_synth.write_rocpd(str(tmp_path / "r.db"), rocprof_synth.capture())
    table = f"rocpd_kernel_dispatch{rocprof_synth.UUID}"
    out = _ingest(tmp_path, _as_endless_view(path, table))
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and str(path) in out.stderr, out.stderr


def test_a_wal_beside_an_export_is_refused_with_its_name(tmp_path):
    path = nsys_synth.profile(str(tmp_path / "w.sqlite"), devices=(0,))
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid % 2 = 0")
    writer.commit()
    assert os.path.getsize(path + "-wal") > 0
    out = _ingest(tmp_path, path)
    writer.close()
    assert out.returncode == 1 and "w.sqlite-wal" in out.stderr and out.stderr.count("\n") == 1, out.stderr


def test_a_query_past_its_budget_is_stopped_and_named(tmp_path, monkeypatch):
    path = nsys_synth.profile(str(tmp_path / "b.sqlite"), devices=(0,))
    monkeypatch.setattr(sqlite_file, "budget_seconds", lambda p: -1.0)
    con = sqlite_file.open_ro(path)
    try:
        with pytest.raises(sqlite3.OperationalError):
            con.execute("SELECT count(*) FROM StringIds a, StringIds b, StringIds c, StringIds d").fetchall()
        with pytest.raises(InputError, match="took over"):
            sqlite_file.raise_if_stopped()
    finally:
        con.close()
    sqlite_file.raise_if_stopped()   # consumed: nothing left to raise


def test_reads_through_views_are_denied(tmp_path):
    path = tmp_path / "v.sqlite"
    lite = sqlite3.connect(path)
    lite.execute("CREATE TABLE t(a)")
    lite.execute("INSERT INTO t VALUES (1)")
    lite.execute("CREATE VIEW v AS SELECT a FROM t")
    lite.commit()
    lite.close()
    assert sqlite_file.tables(str(path)) == {"t"}
    con = sqlite_file.open_ro(str(path))
    try:
        assert con.execute("SELECT a FROM t").fetchall() == [(1,)]
        with pytest.raises(sqlite3.DatabaseError, match="prohibited"):
            con.execute("SELECT a FROM v").fetchall()
    finally:
        con.close()
