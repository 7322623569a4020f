"""A store someone else made runs none of its own SQL in tracedb, and `tracedb sql` without --write writes no
file by any statement form.

A DuckDB file can hold SQL: views (a base table tracedb reads replaced by one that reads other files, or never
ends), macros (DuckDB finds a store's macro `upper` before its own function), triggers (DuckDB 2.0: SQL run on
a write) and column expressions. Every open of a store checks its catalog first and refuses such a store in
one line naming the object (engine/store/catalog.py); a confined session (a report, `tracedb sql`) reads
tracedb's own views, never the store's, and reaches no other file (engine/store/sandbox.py)."""
import os
import shutil
import subprocess
import tempfile

import duckdb
import pytest

import tiny_trace
from helpers import ROOT, assert_one_line_error, cli, copy_store, tracedb_exe
from tracedb import sql
from tracedb.engine.rendering import render
from tracedb.engine.reports import registry
from tracedb.engine.store import catalog, connect, schema
from tracedb.engine.store.connect import open_store
from tracedb.engine.store.schema import SCHEMA_VERSION

SECRET = "SECRET-7f3a-not-for-reports"
REFUSED = "refused (a store's own SQL is never run)"


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """A store of the tiny trace (60 counted kernels, 314.9 µs: tests/test_cli.py), built once."""
    d = tmp_path_factory.mktemp("clean")
    db = str(d / "clean.duckdb")
    cli("ingest", tiny_trace.write(d / "kernel_details.csv"), "--db", db, "--name", "tiny")
    return db


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text(SECRET + "\n")
    return str(path)


def hostile(clean, tmp_path, *statements, name="hostile.duckdb") -> str:
    """A copy of the clean store changed by `statements`, as plain DuckDB (what anyone sharing a store can run)."""
    db = copy_store(clean, str(tmp_path / name))
    con = duckdb.connect(db)
    for s in statements:
        con.execute(s)
    con.close()
    return db


# ------------------------------------------------------------------------------------------------ the check
def test_the_tables_digest_is_a_new_stores(tmp_path):
    """TABLES_DIGEST (the fast path of every open's check) is the digest of a new store's tables, and the
    tables the slow path builds in memory are a new store's."""
    db = str(tmp_path / "new.duckdb")
    open_store(db).close()
    con = duckdb.connect(db, read_only=True)
    try:
        cat = catalog._catalog(con)
    finally:
        con.close()
    assert catalog._tables_digest(cat) == catalog.TABLES_DIGEST, (
        "the store's tables changed: set TABLES_DIGEST in engine/store/catalog.py to "
        f"{catalog._tables_digest(cat)!r}")
    assert schema._expected_tables(SCHEMA_VERSION) == cat.tables
    assert set(cat.tables) == {"tracedb_meta", *catalog.CORE_TABLES}
    assert cat.tables["tracedb_meta"] == ("key VARCHAR", "value VARCHAR")


HOSTILE = [
    # a base table replaced by a view that reads another file into the run names
    ("runs-reads-a-file", ["ALTER TABLE runs RENAME TO runs_kept",
                           "CREATE VIEW runs AS SELECT r.* REPLACE (r.name || (SELECT content FROM read_text("
                           "'{secret}')) AS name) FROM runs_kept r"],
     "main.runs is a VIEW where tracedb keeps a table"),
    # a base table replaced by a view that never ends: every report would hang on it
    ("endless-kernels-raw", ["ALTER TABLE kernels_raw_ascend_csv RENAME TO k_kept",
                             "CREATE VIEW kernels_raw_ascend_csv AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                             "SELECT n + 1 FROM r) SELECT k.* FROM k_kept k, r"],
     "main.kernels_raw_ascend_csv is a VIEW where tracedb keeps a table"),
    ("meta-as-view", ["ALTER TABLE tracedb_meta RENAME TO m_kept",
                      "CREATE VIEW tracedb_meta AS SELECT * FROM m_kept"], "main.tracedb_meta is a VIEW"),
    # DuckDB finds a store's macro before its own function of that name, in every query
    ("macro-upper", ["CREATE MACRO upper(s) AS (SELECT content FROM read_text('{secret}'))"],
     "main.upper is a MACRO"),
    # ... and before its catalog functions, which the check itself reads (named with their schema)
    ("macro-duckdb-tables", ["CREATE MACRO duckdb_tables() AS TABLE SELECT 'runs' AS table_name"],
     "main.duckdb_tables is a TABLE MACRO"),
    # a column computed by an expression, evaluated on every read of the table
    ("computed-column", ["ALTER TABLE kernel_names RENAME TO kn_kept",
                         "CREATE TABLE kernel_names (name VARCHAR, short_name VARCHAR AS (upper(name)))",
                         "INSERT INTO kernel_names (name) SELECT name FROM kn_kept"],
     "main.kernel_names column 2 is `short_name VARCHAR = CAST(upper(\"name\") AS VARCHAR)` where tracedb keeps "
     "`short_name VARCHAR`"),
    ("changed-type", ["ALTER TABLE kernel_names ALTER COLUMN short_name TYPE BLOB"],
     "main.kernel_names column 2 is `short_name BLOB` where tracedb keeps `short_name VARCHAR`"),
    ("extra-column", ["ALTER TABLE step_times ADD COLUMN note VARCHAR"],
     "main.step_times has a column `note VARCHAR` tracedb does not keep"),
]


@pytest.mark.parametrize("case, statements, message", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_a_store_holding_its_own_sql_is_refused_by_every_command(clean, tmp_path, secret, case, statements,
                                                                 message):
    db = hostile(clean, tmp_path, *(s.format(secret=secret) for s in statements))
    calls = [["report", "kernels", "--run", "tiny"], ["runs"], ["sql", "SELECT name FROM runs"],
             ["sql", "--write", "SELECT name FROM runs"], ["export", "perfetto", "--run", "tiny"],
             ["runs", "tag", "tiny", "k=v"]]
    for argv in calls:
        r = cli(*argv, "--db", db, check=False)
        assert_one_line_error(r, f"store {db}: {message}", code=1)
        assert REFUSED in r.stderr and SECRET not in r.stderr


def test_an_endless_view_refuses_the_store_at_once_in_a_process(clean, tmp_path):
    """The console script itself on a store whose table kernels_raw_full is an endless view: refused before
    any query reads it (before the check, every report ran until killed). The timeout only guards the test
    against a hang."""
    db = hostile(clean, tmp_path, "ALTER TABLE kernels_raw_full RENAME TO k_kept",
                 "CREATE VIEW kernels_raw_full AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                 "SELECT k.* FROM k_kept k, r")
    p = subprocess.run([tracedb_exe(), "report", "kernels", "--db", db, "--run", "tiny"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == (f"error: store {db}: main.kernels_raw_full is a VIEW where tracedb keeps a table; "
                        f"{REFUSED}\n")


def test_a_store_of_older_schema_with_a_view_for_a_table_is_refused_by_migrate(tmp_path):
    """A v6 store (schema.sql and the migrations to v6) whose kernels_raw, a table until v10, is a view: the
    migration would read it; migrate refuses it and leaves the store at v6."""
    db = str(tmp_path / "v6.duckdb")
    con = duckdb.connect(db, config={"storage_compatibility_version": connect.STORAGE_VERSION})
    sql.run(con, "macros")
    sql.run(con, "schema")
    for v in range(1, 6):
        sql.run(con, f"migrate_{v}_to_{v + 1}")
    con.execute("INSERT INTO tracedb_meta VALUES ('schema_version', '6')")
    con.execute("ALTER TABLE kernels_raw RENAME TO k_kept")
    con.execute("CREATE VIEW kernels_raw AS SELECT * FROM k_kept")
    con.close()
    r = cli("migrate", "--db", db, check=False)
    assert_one_line_error(r, f"store {db}: main.kernels_raw is a VIEW where tracedb keeps a table; {REFUSED}", 1)
    con = duckdb.connect(db, read_only=True)
    assert con.execute("SELECT value FROM tracedb_meta WHERE key = 'schema_version'").fetchone() == ("6",)
    con.close()


def test_a_trigger_refuses_writes_and_fires_on_no_read(clean, tmp_path):
    """DuckDB 2.0 keeps triggers in stores of storage v2.0.0: SQL run when a table is written. A writable open
    refuses such a store; a read fires none, so reports read it."""
    if not catalog._has_triggers():
        pytest.skip(f"DuckDB {duckdb.__version__} has no triggers")
    db = str(tmp_path / "v2.duckdb")
    con = duckdb.connect()
    con.execute("ATTACH $p AS old (READ_ONLY)", {"p": clean})
    con.execute("ATTACH $p AS new (STORAGE_VERSION 'v2.0.0')", {"p": db})
    con.execute("COPY FROM DATABASE old TO new")
    con.execute("USE new")
    con.execute("CREATE TABLE writes (n INTEGER)")
    con.execute("CREATE TRIGGER on_runs AFTER INSERT ON runs FOR EACH STATEMENT INSERT INTO writes VALUES (1)")
    con.close()
    r = cli("runs", "tag", "tiny", "k=v", "--db", db, check=False)
    assert_one_line_error(r, f"store {db}: main.runs has a TRIGGER (on_runs), which tracedb never makes and which "
                             f"DuckDB would run on a write; {REFUSED}", code=1)
    assert cli("sql", "--db", db, "--format", "csv", "SELECT count(*) AS n FROM kernels").stdout == "n\n60\n"


def test_a_check_constraint_refuses_writes_and_is_no_matter_to_reads(clean, tmp_path):
    """A CHECK constraint is an expression DuckDB evaluates on every row written (one as costly as the store's
    author likes): a writable open refuses it; reads never evaluate it."""
    db = hostile(clean, tmp_path, "ALTER TABLE kernel_names RENAME TO kn_kept",
                 "CREATE TABLE kernel_names (name VARCHAR, short_name VARCHAR CHECK (length(repeat(name, 1000)) > 0))",
                 "INSERT INTO kernel_names SELECT * FROM kn_kept", "DROP TABLE kn_kept")
    r = cli("runs", "tag", "tiny", "k=v", "--db", db, check=False)
    assert_one_line_error(r, f"store {db}: main.kernel_names has a constraint CHECK((length(repeat(\"name\", 1000)) "
                             f"> 0)), which tracedb never makes and which DuckDB would run on a write; {REFUSED}",
                          code=1)
    assert cli("sql", "--db", db, "--format", "csv", "SELECT count(*) AS n FROM kernel_names").stdout == "n\n8\n"


# ------------------------------------------------------------------------------------ confined sessions
def views_hostile(clean, tmp_path, secret):
    """The clean store whose views kernels and kernel_stats are replaced: one reads another file into the
    kernel names, one never ends. Views are not checked at open (a store keeps its own views on open, as
    tests/test_store_migrations.py requires); a confined session never runs them."""
    return hostile(clean, tmp_path,
                   "CREATE OR REPLACE VIEW kernels AS SELECT k.* REPLACE ((SELECT content FROM read_text("
                   f"'{secret}')) AS name) FROM kernels_raw k",
                   "CREATE OR REPLACE VIEW kernel_stats AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                   "SELECT n + 1 FROM r) SELECT * FROM r")


def test_a_report_session_runs_tracedbs_views_not_the_stores(clean, tmp_path, secret):
    db = views_hostile(clean, tmp_path, secret)
    outputs = {}
    for store in (clean, db):
        con = open_store(store, read_only=True, confined=True)
        try:
            res = registry.build_report(con, "kernels", fmt="csv", runs=["tiny"])
            outputs[store] = render.render(res, "csv")
            # 8 kernel names, 60 counted kernels
            assert con.execute("SELECT count(*), sum(count) FROM kernel_stats").fetchone() == (8, 60)
        finally:
            con.close()
    assert SECRET not in outputs[db]
    assert outputs[db] == outputs[clean]
    # the hottest kernel first, as in the clean store: the qkv MatMulV3 (tests/test_cli.py's compute flow)
    assert "MatMulV3" in outputs[db].splitlines()[1]


def test_tracedb_sql_reads_tracedbs_views_and_write_keeps_the_stores(clean, tmp_path, secret):
    db = views_hostile(clean, tmp_path, secret)
    q = "SELECT count(*) AS n, sum(dur_ns) AS ns, count(DISTINCT name) AS names FROM kernels"
    out = cli("sql", "--db", db, "--format", "csv", q).stdout
    assert out == cli("sql", "--db", clean, "--format", "csv", q).stdout == "n,ns,names\n60,314900,8\n"
    assert cli("sql", "--db", db, "--format", "csv", "SELECT sum(count) AS n FROM kernel_stats").stdout == "n\n60\n"
    # --write opens the store as it is, so that its views can be changed or dropped: still confined
    r = cli("sql", "--db", db, "--write", "SELECT name FROM kernels LIMIT 1", check=False)
    assert_one_line_error(r, "Permission Error", code=2)
    cli("sql", "--db", db, "--write", "DROP VIEW kernel_stats")


def test_a_confined_session_reaches_no_other_file_and_changes_no_setting(clean):
    """Beyond the store, a report's session reaches this process's scratch folder only (the CSV rendering's COPY
    writes its file there): a file of the repository, and another file of the temporary folder, are out of reach,
    and no setting changes."""
    other = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)   # beside the scratch folder, not in it
    other.write("someone else's file")
    other.close()
    con = open_store(clean, read_only=True, confined=True)
    try:
        for path in (os.path.join(ROOT, "README.md"), other.name):
            with pytest.raises(duckdb.PermissionException):
                con.execute("SELECT content FROM read_text($p)", {"p": path})
        from tracedb import atomic
        scratch = os.path.join(atomic.scratch_dir(), "x.csv")
        con.execute("COPY (SELECT 1 AS x) TO $p (FORMAT csv)", {"p": scratch})
        assert open(scratch).read() == "x\n1\n"
        with pytest.raises(duckdb.InvalidInputException, match="configuration has been locked"):
            con.execute("SET enable_external_access = true")
        assert con.execute("SELECT current_setting('lock_configuration')").fetchone() == (True,)
    finally:
        con.close()
        os.unlink(other.name)


def test_an_open_without_confinement_keeps_the_stores_views(clean, tmp_path, secret):
    """The Python API's connection (and tracedb's other read-only opens) read the store as it is: its own
    views run there, confined to nothing; only confined sessions replace them."""
    db = views_hostile(clean, tmp_path, secret)
    con = open_store(db, read_only=True)
    try:
        assert con.execute("SELECT DISTINCT name FROM kernels").fetchall() == [(SECRET + "\n",)]
    finally:
        con.close()


# ----------------------------------------------------------------------------------- tracedb sql: no file
@pytest.fixture
def folder(tmp_path):
    """A folder the SQL may read (--allow-read): a CSV and a DuckDB file in it."""
    d = tmp_path / "allowed"
    d.mkdir()
    (d / "mine.csv").write_text("a,b\n1,2\n")
    c = duckdb.connect(str(d / "other.duckdb"))
    c.execute("CREATE TABLE t AS SELECT 1 AS a")
    c.close()
    return d


def files_of(folder):
    out = {}
    for root, _, names in os.walk(folder):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, folder)] = f.read()
    return out


WRITERS = [
    ("prepare-execute-copy", "PREPARE p AS COPY (SELECT 1 AS x) TO '{d}/f.csv'; EXECUTE p", "PREPARE"),
    ("prepare-overwrites-allowed-csv", "PREPARE p AS COPY (SELECT 42 AS x) TO '{d}/mine.csv' (USE_TMP_FILE false); "
                                       "EXECUTE p", "PREPARE"),
    ("copy-over-allowed-csv", "COPY (SELECT 42 AS x) TO '{d}/mine.csv' (USE_TMP_FILE false)", "COPY writes files"),
    ("copy-in-cte", "WITH c AS (COPY (SELECT 1 AS x) TO '{d}/f.csv') SELECT 1", "COPY_TO_FILE"),
    ("copy-in-materialized-cte", "WITH c AS MATERIALIZED (COPY (SELECT 1 AS x) TO '{d}/f.csv') SELECT 1",
     "COPY_TO_FILE"),
    ("create-table-as-cte-copy", "CREATE TEMP TABLE t AS WITH c AS (COPY (SELECT 1 AS x) TO '{d}/f.csv') SELECT 1",
     "COPY_TO_FILE"),
    ("explain-analyze-copy", "EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{d}/f.csv'", "COPY writes files"),
    ("explain-analyze-cte-copy", "EXPLAIN ANALYZE WITH c AS (COPY (SELECT 1 AS x) TO '{d}/f.csv') SELECT 1",
     "COPY_TO_FILE"),
    ("explain-options-analyze", "EXPLAIN (ANALYZE, FORMAT json) WITH c AS (COPY (SELECT 1 AS x) TO '{d}/f.csv') "
                                "SELECT 1", "COPY_TO_FILE"),
    ("copy-after-a-select", "SELECT 1; COPY runs TO '{d}/f.csv'", "COPY writes files"),
    ("copy-in-a-transaction", "BEGIN; WITH c AS (COPY (SELECT 1 AS x) TO '{d}/f.csv') SELECT 1; COMMIT",
     "COPY_TO_FILE"),
    ("plan-given-as-text", "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('WITH c AS (COPY (SELECT 1) "
                           "TO ''{d}/f.csv'') SELECT 1'))", "JSON_EXECUTE_SERIALIZED_SQL"),
    ("plan-given-as-text-in-query", "SELECT * FROM query('SELECT * FROM json_execute_serialized_sql(json_serialize_sql("
                                    "''WITH c AS (COPY (SELECT 1) TO ''''{d}/f.csv'''') SELECT 1''))')",
     "JSON_EXECUTE_SERIALIZED_SQL"),
    ("view-over-plan-text", "CREATE TEMP VIEW v AS SELECT * FROM json_execute_serialized_sql(json_serialize_sql("
                            "'WITH c AS (COPY (SELECT 1) TO ''{d}/f.csv'') SELECT 1')); SELECT * FROM v",
     "JSON_EXECUTE_SERIALIZED_SQL"),
    ("export-database", "EXPORT DATABASE '{d}/dump'", "EXPORT DATABASE writes files"),
    ("copy-from-database", "ATTACH '{d}/other.duckdb' AS o; COPY FROM DATABASE s TO o", "COPY FROM DATABASE"),
    ("attach-new-file", "ATTACH '{d}/new.duckdb' AS n (READ_WRITE); CREATE TABLE n.t AS SELECT 1", "ATTACH"),
    ("attach-read-write", "ATTACH '{d}/other.duckdb' AS o (READ_ONLY false); INSERT INTO o.t VALUES (2)", "ATTACH"),
    ("import-database", "IMPORT DATABASE '{d}'", "IMPORT DATABASE"),
    ("update-extensions", "UPDATE EXTENSIONS", "cannot check"),
    ("insert-into-store", "INSERT INTO runs (run_id, name) VALUES (99, 'x')", "read-only"),
    ("update-store", "UPDATE runs SET name = 'x'", "read-only"),
    ("create-table-as-in-store", "CREATE TABLE main.x AS SELECT 1 AS a", "read-only"),
    ("create-table-as-in-attached", "ATTACH '{d}/other.duckdb' AS o; CREATE TABLE o.x AS SELECT 1 AS a",
     "read-only"),
]


@pytest.mark.parametrize("case, query, message", WRITERS, ids=[c[0] for c in WRITERS])
def test_sql_without_write_writes_no_file(clean, tmp_path, folder, case, query, message):
    db = copy_store(clean, str(tmp_path / "s.duckdb"))
    before, store = files_of(folder), files_of(tmp_path / "s.duckdb")
    r = cli("sql", "--db", db, "--allow-read", str(folder), query.format(d=folder), check=False)
    assert_one_line_error(r, message, code=2)
    assert files_of(folder) == before
    assert sorted(os.listdir(tmp_path)) == ["allowed", "s.duckdb"]
    assert files_of(tmp_path / "s.duckdb") == store


READS = [
    ("select", "SELECT count(*) AS n FROM kernels", "n\n60\n"),
    ("temp-table", "CREATE TEMP TABLE t AS SELECT 2 AS a; INSERT INTO t VALUES (3); SELECT sum(a) AS s FROM t",
     "s\n5\n"),
    ("explain-analyze-select", "EXPLAIN ANALYZE SELECT 1", None),
    ("variable", "SET VARIABLE x = (SELECT count(*) FROM runs); SELECT getvariable('x') AS x", "x\n1\n"),
    ("allowed-csv", "SELECT sum(b) AS b FROM read_csv('{d}/mine.csv')", "b\n2\n"),
    ("attach-read-only", "ATTACH '{d}/other.duckdb' AS o (READ_ONLY); SELECT a FROM o.t", "a\n1\n"),
    ("attach-plain", "ATTACH '{d}/other.duckdb' AS o; SELECT a FROM o.t", "a\n1\n"),
    ("pivot", "PIVOT (SELECT kind FROM kernels) ON kind USING count(*)", "comm,kernel\n8,52\n"),
    ("query-table", "SELECT count(*) AS n FROM query_table('runs')", "n\n1\n"),
    ("pragma", "PRAGMA table_info('tracedb_meta')", None),
    ("comment-on", "CREATE TEMP TABLE t (a INTEGER); COMMENT ON TABLE t IS 'mine'; "
                   "SELECT comment FROM duckdb_tables() WHERE table_name = 't'", "comment\nmine\n"),
]


@pytest.mark.parametrize("case, query, expected", READS, ids=[c[0] for c in READS])
def test_sql_without_write_reads(clean, folder, case, query, expected):
    out = cli("sql", "--db", clean, "--allow-read", str(folder), "--format", "csv", query.format(d=folder)).stdout
    if expected is not None:
        assert out == expected
    else:
        assert out.count("\n") >= 2


def test_sql_write_does_what_it_is_asked(clean, tmp_path, folder):
    """--write: a valid write exits 0 and is done, COPY and EXPORT among them into an allowed folder."""
    db = copy_store(clean, str(tmp_path / "w.duckdb"))
    for q in ("CREATE TABLE notes AS SELECT 1 AS a", "UPDATE runs SET name = 'renamed'",
              "INSERT INTO notes VALUES (2) RETURNING a", "CREATE VIEW mine AS SELECT a FROM notes",
              f"COPY (SELECT a FROM mine ORDER BY a) TO '{folder}/out.csv'"):
        assert cli("sql", "--db", db, "--write", "--allow-read", str(folder), q).returncode == 0
    assert (folder / "out.csv").read_text() == "a\n1\n2\n"
    assert cli("sql", "--db", db, "--format", "csv", "SELECT name FROM runs").stdout == "name\nrenamed\n"


def test_sql_on_a_dataset_writes_none_of_its_files(clean, tmp_path):
    """A dataset's own Parquet files are the paths its connection may read: overwriting one is refused."""
    ds = tmp_path / "ds"
    cli("export", "parquet", "--db", clean, str(ds))
    before = files_of(ds)
    target = next(os.path.join(ds, p) for p in sorted(before) if p.endswith(".parquet"))
    r = cli("sql", "--db", f"{ds}/", f"COPY (SELECT 1 AS x) TO '{target}' (FORMAT parquet, USE_TMP_FILE false)",
            check=False)
    assert_one_line_error(r, "COPY writes files", code=2)
    assert files_of(ds) == before
    assert cli("sql", "--db", f"{ds}/", "--format", "csv", "SELECT count(*) AS n FROM kernels").stdout == "n\n60\n"
    # a report's confined session over the dataset reads its files, and no other
    con = open_store(f"{ds}/", read_only=True, confined=True)
    try:
        assert con.execute("SELECT count(*) FROM kernels").fetchone() == (60,)
        with pytest.raises(duckdb.PermissionException):
            con.execute("SELECT content FROM read_text($p)", {"p": os.path.join(ROOT, "README.md")})
    finally:
        con.close()
    shutil.rmtree(ds)
