"""Parquet datasets: `tracedb export parquet`, `tracedb ingest --to DIR`, and reports and `tracedb sql` over
`--db DIR/`. Another engine (pyarrow.dataset) reads the exported kernels per run as the store counts them;
every table and view of a dataset holds the store's rows with the store's types; a subset export holds
only its runs; a run is visible only once its ingest committed it; refusals are one line."""
import json
import os
import re

import pyarrow.dataset as pads
import pytest

import tiny_kineto
import tiny_trace
import tracedb
from helpers import assert_one_line_error, cli, real_trace, slow_beyond, store_of
from tracedb import sql
from tracedb.engine.store import dataset

REPORTS = [
    ["report", "layers", "--run", "tiny", "--profile", "qwen3-npu", "--layers", "2", "--pass", "all",
     "--format", "csv"],
    ["report", "modules", "--run", "gpu", "--by", "module", "--format", "csv"],
    ["report", "compare", "--run", "tiny", "--run", "tiny_x2", "--profile", "qwen3-npu", "--layers", "2",
     "--pass", "3", "--by", "kernel", "--format", "md"],
    ["runs", "--format", "csv"],
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("parquet")
    db = store_of(d, {"tiny": tiny_trace.write(d / "a.csv"), "gpu": tiny_kineto.write(d / "g.json"),
                      "tiny_x2": tiny_trace.write(d / "b.csv", dur_factor=2)})
    cli("runs", "tag", "--db", db, "tiny_x2", "hw=slow")
    return db


@pytest.fixture(scope="module")
def exported(store, tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("exported") / "ds")
    r = cli("export", "parquet", "--db", store, folder)
    assert "wrote 3 run(s)" in r.stderr and r.stdout == ""
    return folder


def kernels_by_another_engine(folder) -> dict[str, tuple[int, int]]:
    """Run name -> (kernels, sum of dur_ns), read with pyarrow.dataset from the dataset's kernels and runs tables."""
    t = pads.dataset(os.path.join(folder, "kernels"), format="parquet", partitioning="hive").to_table(
        columns=["run_id", "dur_ns"])
    g = t.group_by("run_id").aggregate([("dur_ns", "count"), ("dur_ns", "sum")])
    runs = pads.dataset(os.path.join(folder, "runs"), format="parquet", partitioning="hive").to_table(
        columns=["run_id", "name"])
    names = dict(zip(runs["run_id"].to_pylist(), runs["name"].to_pylist()))
    return {names[i]: (n, s) for i, n, s in zip(g["run_id"].to_pylist(), g["dur_ns_count"].to_pylist(),
                                                 g["dur_ns_sum"].to_pylist())}


def kernels_of_store(db) -> dict[str, tuple[int, int]]:
    con = tracedb.connect(db, read_only=True)
    try:
        return {r: (n, int(s)) for r, n, s in con.execute(
            "SELECT run, count(*), sum(dur_ns) FROM run_kernels GROUP BY run").fetchall()}
    finally:
        con.close()


def rows_of(con, name):
    return sorted(con.execute(f"SELECT * FROM {sql.ident(name)}").fetchall(), key=repr)


def test_another_engine_reads_the_kernels_of_each_run_as_the_store_counts_them(store, exported):
    got = kernels_by_another_engine(exported)
    assert got == kernels_of_store(store)
    assert set(got) == {"tiny", "gpu", "tiny_x2"} and all(n > 0 for n, _ in got.values())
    schema = pads.dataset(os.path.join(exported, "kernels"), format="parquet", partitioning="hive").schema
    assert str(schema.field("start_ns").type) == "int64" and str(schema.field("dur_ns").type) == "int64"


def test_the_manifest_names_runs_tables_views_and_schema_version(store, exported):
    with open(os.path.join(exported, dataset.MANIFEST), encoding="utf-8") as f:
        m = json.load(f)
    from tracedb.engine.store.schema import SCHEMA_VERSION
    assert m["format"] == "tracedb-dataset" and m["schema_version"] == SCHEMA_VERSION
    assert [(r["run_id"], r["name"]) for r in m["runs"]] == [(1, "tiny"), (2, "gpu"), (3, "tiny_x2")]
    assert m["runs"][2]["tags"] == {"hw": "slow"}
    assert m["tables"]["kernels_raw_ascend_csv"]["columns"]["start_ns"] == "BIGINT"
    assert m["tables"]["kernels_raw_full"]["partition_by"] == "run_id"
    assert m["tables"]["kernel_names"]["partition_by"] is None
    views = {v["name"]: v["sql"] for v in m["views"]}
    assert {"kernels", "run_kernels", "run_summary", "kernel_stats"} <= set(views)
    assert views["kernels"].startswith("CREATE VIEW kernels")
    for run in m["runs"]:      # every file a run names is there, in its partition folder
        for table in ("kernels_raw_full", "kernels_raw_ascend_csv"):
            assert run["files"][table] == f"{table}/run_id={run['run_id']}/data.parquet"
        assert all(os.path.isfile(os.path.join(exported, p)) for p in run["files"].values())


def test_every_table_and_view_holds_the_stores_rows_and_types(store, exported):
    s, d = tracedb.connect(store, read_only=True), tracedb.connect(exported + os.sep)
    try:
        names = [r[0] for r in s.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
                                         "AND table_catalog = current_database() ORDER BY 1").fetchall()]
        assert {"runs", "kernels_raw", "trace_events", "kernels", "host_events", "kernel_stats"} <= set(names)
        for n in names:
            described = [[r[:2] for r in c.execute(f"DESCRIBE {sql.ident(n)}").fetchall()] for c in (s, d)]
            assert described[0] == described[1], n        # names and types (a view has no NOT NULL)
            assert rows_of(s, n) == rows_of(d, n), n
        assert d.execute("SELECT count(*) FROM trace_events").fetchone()[0] > 0
    finally:
        s.close()
        d.close()


@pytest.mark.parametrize("args", slow_beyond(REPORTS, {0, 3}, one_arg=True), ids=lambda a: "-".join(a[:2]))
def test_reports_over_the_dataset_are_byte_identical(store, exported, args):
    a = cli(*args[:2], "--db", store, *args[2:]) if args[0] == "report" else cli(args[0], "--db", store, *args[1:])
    b = cli(*args[:2], "--db", exported + "/", *args[2:]) if args[0] == "report" else \
        cli(args[0], "--db", exported + "/", *args[1:])
    assert a.stdout == b.stdout and a.stdout.count("\n") > 2


def test_the_pyarrow_example_of_the_docs_runs(store, exported, tmp_path, monkeypatch, capsys):
    """docs/datasets.md's pyarrow block, run as written in a folder where runs-dataset is the export."""
    from helpers import ROOT
    with open(os.path.join(ROOT, "docs", "datasets.md"), encoding="utf-8") as f:
        block = re.findall(r"```python\n(.*?)```", f.read(), re.S)[0]
    assert "pyarrow.dataset" in block
    os.symlink(exported, tmp_path / "runs-dataset")
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/datasets.md", "exec"), {})
    want = "".join(f"{run} {n} {ns}\n" for run, (n, ns) in sorted(kernels_of_store(store).items()))
    assert capsys.readouterr().out == want


def test_sql_over_the_dataset_and_writes_refused(store, exported):
    q = "select run, sum(dur_ns) as ns, sum(dur_ns) * 0.001 as us from run_kernels group by run order by run"
    a, b = cli("sql", "--db", store, "--format", "csv", q), cli("sql", "--db", exported + "/", "--format", "csv", q)
    assert a.stdout == b.stdout and "tiny_x2" in b.stdout
    assert_one_line_error(cli("sql", "--write", "--db", exported + "/", "select 1", check=False), "read-only")
    assert_one_line_error(cli("sql", "--db", exported + "/", "create table x (a int)", check=False), "read-only")
    assert_one_line_error(cli("runs", "rm", "--db", exported + "/", "tiny", check=False), "read-only")
    assert_one_line_error(cli("segment", "--db", exported + "/", "--run", "tiny", check=False), "read-only")
    con = tracedb.connect(exported + "/")       # the Python API opens a dataset read-only
    try:
        assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 3
        r = tracedb.report(con, "layers", run="tiny", profile="qwen3-npu", layers=2, pass_="3")
        assert r.text("csv") == tracedb.report(store, "layers", run="tiny", profile="qwen3-npu", layers=2,
                                               pass_="3").text("csv")
    finally:
        con.close()


def test_export_of_a_subset_by_run_or_tag(store, tmp_path):
    cli("export", "parquet", "--db", store, "--run", "tiny*", tmp_path / "by_run")
    cli("export", "parquet", "--db", store, "--tag", "hw=slow", tmp_path / "by_tag")
    assert set(kernels_by_another_engine(tmp_path / "by_run")) == {"tiny", "tiny_x2"}
    assert kernels_by_another_engine(tmp_path / "by_tag") == {"tiny_x2": kernels_of_store(store)["tiny_x2"]}
    d = tracedb.connect(str(tmp_path / "by_tag") + "/")
    try:
        assert d.execute("SELECT run_id, name FROM runs").fetchall() == [(3, "tiny_x2")]
        assert d.execute("SELECT DISTINCT run_id FROM kernels").fetchall() == [(3,)]
    finally:
        d.close()
    assert_one_line_error(cli("export", "parquet", "--db", store, "--run", "nope", tmp_path / "none", check=False),
                          "unknown run 'nope'")
    assert not os.path.exists(tmp_path / "none")


def test_ingest_to_a_dataset_equals_the_store(store, tmp_path):
    d = tmp_path / "in"
    a, b = tiny_trace.write(tmp_path / "a.csv"), tiny_trace.write(tmp_path / "b.csv", dur_factor=2)
    g = tiny_kineto.write(tmp_path / "g.json")
    assert "ingested run 'tiny'" in cli("ingest", a, "--to", d, "--name", "tiny").stdout
    cli("ingest", g, "--to", d, "--name", "gpu")
    cli("ingest", b, "--to", d, "--name", "tiny_x2", "--tag", "hw=slow")
    assert "skipped" in cli("ingest", a, "--to", d, "--name", "again").stdout       # identical content
    assert kernels_by_another_engine(d) == kernels_of_store(store)
    for args in REPORTS[:3]:
        assert cli(*args[:2], "--db", store, *args[2:]).stdout == cli(*args[:2], "--db", f"{d}/", *args[2:]).stdout
    c = tiny_trace.write(tmp_path / "c.csv", dur_factor=3)
    assert_one_line_error(cli("ingest", c, "--to", d, "--name", "tiny", check=False),
                          "already exists with other content")
    assert "replaced run 'tiny'" in cli("ingest", c, "--to", d, "--name", "tiny", "--replace").stdout
    m = dataset.read_manifest(str(d))
    assert [(r["run_id"], r["name"]) for r in m["runs"]] == [(2, "gpu"), (3, "tiny_x2"), (4, "tiny")]
    assert not os.path.exists(d / "kernels_raw_ascend_csv" / "run_id=1"), "the replaced run's files are removed"
    assert not [n for n in os.listdir(d) if n.startswith(".tracedb-write") or ".ingest-" in n], "no staging left"
    assert_one_line_error(cli("ingest", a, "--to", d, "--db", tmp_path / "s.duckdb", check=False), "give one")


def test_files_no_manifest_names_are_never_read(store, exported, tmp_path):
    """An ingest killed after writing its partition but before its manifest commit leaves files that no
    reader sees: a reader takes the files the manifest names, not whatever the folders hold."""
    import shutil
    d = tmp_path / "copy"
    shutil.copytree(exported, d)
    for table in ("kernels_raw_ascend_csv", "runs", "kernels"):
        shutil.copytree(d / table / "run_id=1", d / table / "run_id=9")
    con = tracedb.connect(f"{d}/")
    try:
        assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 3
        assert con.execute("SELECT count(DISTINCT run_id) FROM kernels").fetchone()[0] == 3
        assert con.execute("SELECT count(*) FROM kernels_raw WHERE run_id = 9").fetchone()[0] == 0
    finally:
        con.close()


def test_a_failed_export_leaves_the_folder_as_it_was(store, tmp_path, monkeypatch):
    from tracedb.engine.store import parquet as parquet_export

    def broken(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(parquet_export, "write_whole", broken)
    assert "No space left" in one_line(cli("export", "parquet", "--db", store, tmp_path / "new", check=False), code=1)
    assert not os.path.exists(tmp_path / "new")
    (tmp_path / "empty").mkdir()
    assert "No space left" in one_line(cli("export", "parquet", "--db", store, tmp_path / "empty", check=False), code=1)
    assert os.listdir(tmp_path / "empty") == []


def test_refusals_are_one_line(store, exported, tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine\n")
    r = cli("export", "parquet", "--db", store, foreign, check=False)
    assert_one_line_error(r, "not empty and not a tracedb dataset")
    assert os.listdir(foreign) == ["notes.txt"]
    assert_one_line_error(cli("export", "parquet", "--db", store, exported, check=False), "already a tracedb dataset")
    assert_one_line_error(cli("ingest", tiny_trace.write(tmp_path / "a.csv"), "--to", foreign, check=False),
                          "not empty and not a tracedb dataset")
    assert_one_line_error(cli("export", "parquet", "--db", store, tmp_path / "no" / "ds", check=False),
                          "does not exist")
    if os.path.isdir("/sys/kernel"):
        r = cli("export", "parquet", "--db", store, "/sys/tracedb-dataset", check=False)   # even root cannot create it
        assert_one_line_error(r, "/sys/tracedb-dataset: cannot create", code=1)
    # --db naming a folder that is not a dataset, a missing one, a broken manifest
    assert "a folder but not a tracedb dataset" in \
        one_line(cli("report", "passes", "--db", f"{foreign}/", "--run", "tiny", check=False))
    assert "no dataset here" in one_line(cli("runs", "--db", f"{tmp_path}/missing/", check=False))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / dataset.MANIFEST).write_text("{not json")
    assert "not JSON" in one_line(cli("runs", "--db", f"{broken}/", check=False), code=1)


def one_line(r, code=2):
    assert r.returncode == code, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.stderr, r.stderr
    return lines[0]


@pytest.mark.real_data
@pytest.mark.slow
def test_real_traces_through_a_dataset(tmp_path):
    """An Ascend kernel_details.csv and an H100 Kineto trace: reports over the exported dataset are the
    store's, byte for byte, and pyarrow reads each run's kernels as the store counts them."""
    npu = real_trace("ascend-msinsight", "st_level2_qwen3_megatron", "rank_0_ascend_pt", "ASCEND_PROFILER_OUTPUT",
                     "kernel_details.csv")
    gpu = real_trace("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")
    db = store_of(tmp_path, {"npu": npu, "h100": gpu})
    cli("export", "parquet", "--db", db, tmp_path / "ds")
    assert kernels_by_another_engine(tmp_path / "ds") == kernels_of_store(db)
    for args in (["report", "layers", "--run", "npu", "--anchor", "^FlashAttentionScore$", "--layers", "14",
                  "--format", "csv"],
                 ["report", "modules", "--run", "h100", "--by", "module", "--format", "csv"],
                 ["report", "kernels", "--run", "h100", "--anchor", "flash_fwd_kernel", "--layers", "24", "--pass", "1",
                  "--format", "csv"]):
        a = cli(*args[:2], "--db", db, *args[2:]).stdout
        assert a.count("\n") > 5 and a == cli(*args[:2], "--db", f"{tmp_path}/ds/", *args[2:]).stdout


def test_an_export_killed_midway_leaves_a_folder_the_next_export_takes(store, tmp_path):
    """A killed export leaves only its staging folder (named for its pid and host) in the target: the next
    export removes it and writes the dataset, where it would otherwise refuse a folder that is not empty."""
    from tracedb.engine.store import parquet
    from tracedb.ingest import leftovers
    out = tmp_path / "ds"
    (out / f"{parquet.STAGE_PREFIX}999999999.{leftovers.HOST}-0000abcd" / "runs").mkdir(parents=True)
    cli("export", "parquet", "--db", store, str(out), "--run", "tiny")
    assert dataset.has_manifest(str(out))
    assert not [e for e in os.listdir(out) if e.startswith(parquet.STAGE_PREFIX)]
