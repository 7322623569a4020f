"""Migrations change tables only and every view is sql/store/views.sql: a store migrated from each older
schema version ends with exactly a new store's tables, columns, constraints and views (in the same order);
a store at the current version is never rewritten on open; and what a migration moves keeps its rows."""
import hashlib
import re

import duckdb
import pytest

import tracedb
from helpers import cli
from tracedb import sql
from tracedb.engine.store.connect import open_store
from tracedb.engine.store.schema import SCHEMA_VERSION

# The views an older tracedb had created by each schema version (host_events was a table before v4): an old
# store holds its own definitions of them, which a migration replaces.
VIEWS_SINCE = {1: ("kernels", "kernel_metrics", "kernel_extras"), 3: ("run_kernels", "run_summary", "kernel_stats"),
               4: ("host_events",), 5: ("kernel_layers",)}
# The view definitions of SCHEMA_VERSION (views.sql without comments and spacing). A store at the current
# version keeps its views (it is never rewritten on open), so changing one needs a new version.
VIEWS_DIGEST = {8: "3a5994b33c8719745dbc231f3122b9396fc11d365d3e3fa0e7b866b5887a0153",
                9: "509102023fa36d4ec7f3b62341a91eadc86bf4365ec0e5cb4e2ff15d97a78183",
                10: "9c85c6791868c4350a7b39fd03fcef2c7235c0a3592b5284ab3061ecb4144088",
                11: "164731db0dedab4bf8a80ec1adb6661cec20c920661fcbdf9445192c57a5474d",
                12: "e4c406a08bf5aa5afc257befbfe4ad5f6674fb5ed31907b0e38a32902d672107",
                13: "4a722916476500ac5aa5ae68d6b790cdb0b637fce7a3c61e4c6653069761a6d9"}


def old_store(path, version):
    """A store at schema `version` as the migration files build it (schema.sql, then each migration up to
    it), with the views an older tracedb had made by then as stale definitions, and a run of two kernels."""
    con = duckdb.connect(path, config={"storage_compatibility_version": "v1.5.0"})
    sql.run(con, "macros")
    sql.run(con, "schema")
    for v in range(1, version):
        sql.run(con, f"migrate_{v}_to_{v + 1}")
    for since, names in VIEWS_SINCE.items():
        for name in names if since <= version else ():
            con.execute(f"CREATE VIEW {sql.ident(name)} AS SELECT 'v{version}' AS stale")
    con.execute("INSERT INTO tracedb_meta VALUES ('schema_version', $v)", {"v": str(version)})
    con.execute("INSERT INTO runs (run_id, name) VALUES (1, 'old')")
    # v10 renamed the table kernels_raw_full (kernels_raw became a view, made after the migrations)
    raw = "kernels_raw_full" if version >= 10 else "kernels_raw"
    con.execute(f"INSERT INTO {raw} (run_id, seq, start_ns, dur_ns, name) VALUES (1, 0, 1000, 7000, 'k'), "
                "(1, 1, 9000, 3000, 'aclnnMatmul_MatMulV3Common_MatMulV3')")
    if version >= 5:        # an ingest fills kernel_names from v5 on
        con.execute("INSERT INTO kernel_names VALUES ('k', 'k'), ('aclnnMatmul_MatMulV3Common_MatMulV3', 'MatMulV3')")
    return con


def catalog(con) -> dict:
    """Tables, columns, constraints and views of the store's own schema, as DuckDB's catalog has them."""
    own = "schema_name = 'main' AND database_name = current_database()"

    def q(text):
        return con.execute(text).fetchall()

    return {"tables": q(f"SELECT table_name FROM duckdb_tables() WHERE {own} ORDER BY 1"),
            "columns": q("SELECT table_name, column_index, column_name, data_type, is_nullable, column_default "
                         f"FROM duckdb_columns() WHERE {own} ORDER BY 1, 2"),
            "constraints": q("SELECT table_name, constraint_type, constraint_text FROM duckdb_constraints() "
                             f"WHERE {own} ORDER BY ALL"),
            "indexes": q(f"SELECT table_name, index_name, sql FROM duckdb_indexes() WHERE {own} ORDER BY ALL"),
            "views": q(f"SELECT view_name, sql FROM duckdb_views() WHERE {own} AND NOT internal AND NOT temporary "
                       "ORDER BY view_oid")}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A new store's catalog, read from the file (reopened: DuckDB numbers the views of a file it loads in
    the order the file stores them)."""
    path = str(tmp_path_factory.mktemp("fresh") / "new.duckdb")
    tracedb.connect(path).close()
    con = tracedb.connect(path, read_only=True)
    yield catalog(con)
    con.close()


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_a_migrated_store_has_a_new_stores_tables_columns_and_views(tmp_path, fresh, version):
    path = str(tmp_path / f"v{version}.duckdb")
    old_store(path, version).close()
    open_store(path, migrate=True).close()
    con = tracedb.connect(path, read_only=True)
    try:
        got = catalog(con)
        for part in fresh:
            assert got[part] == fresh[part], f"{part} of a store migrated from v{version} differ from a new store's"
        assert len(got["views"]) == 11 and not any("stale" in s for _, s in got["views"])
        # the views read the migrated rows (v5 filled kernel_names for the names already there)
        assert con.execute("SELECT name, short_name, count, sum_us FROM kernel_stats ORDER BY name").fetchall() == [
            ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", 1, 3), ("k", "k", 1, 7)]
        assert con.execute("SELECT run, kernels, device_us FROM run_summary").fetchall() == [("old", 2, 10)]
    finally:
        con.close()


def test_a_current_store_keeps_its_views_on_open(db_path):
    """Opening a store at the current version (read-only or not) writes nothing: a view changed in the
    file stays as it is."""
    tracedb.connect(db_path).close()
    raw = duckdb.connect(db_path)
    raw.execute("CREATE OR REPLACE VIEW run_summary AS SELECT 'mine' AS note")
    raw.close()
    for read_only in (False, True):
        con = tracedb.connect(db_path, read_only=read_only)
        assert con.execute("SELECT * FROM run_summary").fetchall() == [("mine",)]
        con.close()


def views_code() -> str:
    """views.sql's statements without comments, blanks collapsed."""
    code = [" ".join(line for line in s.splitlines() if not line.lstrip().startswith("--"))
            for s in sql.file_statements("views")]
    return "\n".join(re.sub(r"\s+", " ", s).strip() for s in code)


def test_a_changed_view_comes_with_a_new_schema_version():
    digest = hashlib.sha256(views_code().encode()).hexdigest()
    assert VIEWS_DIGEST.get(SCHEMA_VERSION) == digest, (
        f"sql/store/views.sql changed at schema v{SCHEMA_VERSION}: stores already at v{SCHEMA_VERSION} keep their "
        f"views, so add migrate_{SCHEMA_VERSION}_to_{SCHEMA_VERSION + 1}.sql (even with no statement), bump "
        f"SCHEMA_VERSION and set VIEWS_DIGEST[{SCHEMA_VERSION + 1}] = {digest!r} in tests/test_store_migrations.py")


def test_migration_6_to_7_keeps_every_rows_texts(db_path):
    """v7 stores each run's distinct tuple of text columns once (kernel_texts); the kernels view and
    kernel_extras show every row's texts as v6 had them in kernels_raw."""
    con = old_store(db_path, 6)
    con.execute("DELETE FROM kernels_raw")
    con.execute("UPDATE runs SET extra_columns = ['HF32 Eligible', 'Note']")
    con.execute("INSERT INTO runs (run_id, name, extra_columns) VALUES (2, 'b', [])")
    rows = [(1, 0, "dynamic", '"1,4096"', "DT_BF16", "NO\x1fx"), (1, 1, "dynamic", '"1,4096"', "DT_BF16", "NO\x1fx"),
            (1, 2, "static", '"8,2"', None, "YES\x1f"), (1, 3, None, None, None, None),
            (1, 4, "dynamic", '"1,4096"', "DT_BF16", "NO\x1fx"), (2, 0, "dynamic", '"1,4096"', "DT_BF16", None)]
    for run, seq, state, shapes, dtypes, extra in rows:
        con.execute("INSERT INTO kernels_raw (run_id, seq, start_ns, dur_ns, name, op_state, input_shapes, "
                    "input_dtypes, extra_text) VALUES ($r, $s, $s * 10, 5, 'k', $st, $sh, $dt, $x)",
                    {"r": run, "s": seq, "st": state, "sh": shapes, "dt": dtypes, "x": extra})
    # v6's kernels: every column of kernels_raw but dup, metrics and extra_text, in the order v7 keeps
    kernels_v6 = con.execute("SELECT * EXCLUDE (dup, metrics, extra_text) FROM kernels_raw "
                             "ORDER BY run_id, seq").fetchall()
    con.close()
    cli("migrate", "--db", db_path)
    con = tracedb.connect(db_path, read_only=True)
    try:
        assert con.execute("SELECT * FROM kernels ORDER BY run_id, seq").fetchall() == kernels_v6
        assert len(kernels_v6) == len(rows)
        # one row per kernel and extra column of run 1 (run 2 has none); an empty or missing value is NULL

        def both(seq, hf32, note):
            return [(1, seq, "HF32 Eligible", hf32), (1, seq, "Note", note)]

        assert con.execute("SELECT * FROM kernel_extras ORDER BY ALL").fetchall() == sorted(
            both(0, "NO", "x") + both(1, "NO", "x") + both(2, "YES", None) + both(3, None, None) + both(4, "NO", "x"),
            key=lambda r: (r[0], r[1], r[2]))
        # one row per run and distinct tuple, numbered by first row; the all-NULL row has none
        assert con.execute("SELECT run_id, text_id, op_state, extra_text FROM kernel_texts ORDER BY 1, 2").fetchall() \
            == [(1, 0, "dynamic", "NO\x1fx"), (1, 1, "static", "YES\x1f"), (2, 0, "dynamic", None)]
        assert con.execute("SELECT seq, text_id FROM kernels_raw WHERE run_id = 1 ORDER BY seq").fetchall() == [
            (0, 0), (1, 0), (2, 1), (3, None), (4, 0)]
        assert "op_state" not in {r[0] for r in con.execute("DESCRIBE kernels_raw").fetchall()}
    finally:
        con.close()


def test_migration_9_to_10_keeps_the_rows_and_later_ascend_csv_runs_go_to_their_own_tables(tmp_path):
    """v10 keeps kernels_raw's rows in two tables (the Ascend CSV reader's without the GPU launch columns)
    under the view kernels_raw, and kernel_work's in two (per kernel, per tuple of shapes) under the view
    kernel_work: a v9 store's rows stay whole in kernels_raw_full and kernel_work_rows, an Ascend CSV
    ingested after the migration lands in kernels_raw_ascend_csv and kernel_work_tuples, and both read,
    count and delete as one."""
    db = str(tmp_path / "v9.duckdb")
    con = old_store(db, 9)
    con.execute("UPDATE kernels_raw SET grid = [4, 1, 1], correlation_id = 7 WHERE seq = 0")
    con.execute("INSERT INTO kernel_work VALUES (1, 1, 1000, 64, 'gemm 2MNK', 'bf16')")
    before = con.execute("SELECT * FROM kernels_raw ORDER BY seq").fetchall()
    con.close()
    cli("migrate", "--db", db)
    csv = tmp_path / "kernel_details.csv"
    csv.write_text("Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes,Input Data Types,"
                   "Output Shapes,Output Data Types\n"
                   'MatMul_1,MatMul,AI_CORE,100.000,2.500,"8,16;16,4",DT_BF16;DT_BF16,"8,4",DT_BF16\n'
                   'Add_1,Add,AI_VECTOR_CORE,103.250,0.750,"8,4;8,4",DT_BF16;DT_BF16,"8,4",DT_BF16\n'
                   'MatMul_2,MatMul,AI_CORE,104.000,2.000,"8,16;16,4",DT_BF16;DT_BF16,"8,4",DT_BF16\n')
    cli("ingest", str(csv), "--db", db, "--name", "new")
    con = tracedb.connect(db, read_only=True)
    try:
        assert con.execute("SELECT * FROM kernels_raw_full ORDER BY seq").fetchall() == before
        assert con.execute("SELECT * FROM kernels_raw WHERE run_id = 1 ORDER BY seq").fetchall() == before
        assert con.execute("SELECT run_id, seq, start_ns, dur_ns, name, grid FROM kernels_raw WHERE run_id = 2 "
                           "ORDER BY seq").fetchall() == [(2, 0, 100_000, 2_500, "MatMul_1", None),
                                                          (2, 1, 103_250, 750, "Add_1", None),
                                                          (2, 2, 104_000, 2_000, "MatMul_2", None)]
        assert con.execute("SELECT count(*) FROM kernels_raw_ascend_csv WHERE run_id = 2").fetchone() == (3,)
        assert con.execute("SELECT run, kernels, device_us FROM run_summary ORDER BY run").fetchall() == [
            ("new", 3, 5.25), ("old", 2, 10)]
        # the work: the v9 row as it was; the new run's from its two tuples, given to each of its kernels
        assert con.execute("SELECT * FROM kernel_work ORDER BY run_id, seq").fetchall() == [
            (1, 1, 1000, 64, "gemm 2MNK", "bf16"),
            (2, 0, 2 * 8 * 16 * 4, (8 * 16 + 16 * 4 + 8 * 4) * 2, "gemm 2MNK", "bf16"),
            (2, 1, None, 8 * 4 * 2 * 3, "memory r+w", "bf16"),
            (2, 2, 2 * 8 * 16 * 4, (8 * 16 + 16 * 4 + 8 * 4) * 2, "gemm 2MNK", "bf16")]
        assert con.execute("SELECT count(*) FROM kernel_work_tuples").fetchone() == (2,)
    finally:
        con.close()
    cli("runs", "rm", "new", "--db", db)
    cli("runs", "rm", "old", "--db", db)
    con = tracedb.connect(db, read_only=True)
    try:
        counts = [con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in (
            "kernels_raw_full", "kernels_raw_ascend_csv", "kernel_work_rows", "kernel_work_tuples")]
        assert counts == [0, 0, 0, 0]
    finally:
        con.close()
