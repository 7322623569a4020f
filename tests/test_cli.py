"""The `tracedb` commands end to end, as a user types them (run in-process by helpers.cli; the installed
console script itself is tested in test_console_script.py)."""
import csv
import io
import json
import os
import re

import pytest

import tiny_trace
from helpers import ROOT, cli, write_csv
from tracedb.engine.store.schema import SCHEMA_VERSION


@pytest.fixture
def tiny_db(tmp_path):
    db = str(tmp_path / "runs.duckdb")
    cli("ingest", tiny_trace.write(tmp_path / "kernel_details.csv"), "--db", db, "--name", "tiny", "--tag", "hw=910B")
    return db


def test_version_and_help():
    assert re.fullmatch(r"tracedb \d+\.\d+\.\d+\n", cli("--version").stdout)
    out = cli("--help").stdout
    for cmd in ("ingest", "report", "sql", "check", "runs", "profiles", "demo", "migrate"):
        assert cmd in out


def test_every_command_is_documented_in_the_readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    commands = ["ingest", "check", "report passes", "report layers", "report kernels", "report timeline",
                "report modules", "report cores", "report compare", "sql", "runs", "runs rm", "runs rename", "runs tag",
                "profiles list", "profiles show", "demo", "migrate"]
    missing = [c for c in commands if f"tracedb {c}" not in readme]
    assert not missing, f"README lacks a CLI reference entry for: {missing}"


def test_ingest_prints_summary_and_skips_identical_content(tiny_db, tmp_path):
    again = cli("ingest", tiny_trace.write(tmp_path / "copy.csv"), "--db", tiny_db, "--name", "other")
    assert again.stdout.strip() == ("skipped: identical content is already run 'tiny' "
                                    "(use --replace to ingest again)")
    runs = cli("runs", "--db", tiny_db, "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(runs)))
    # 68 rows: 4 passes x (15 kernels + 2 hcom logged twice); 8 comm duplicates
    assert [(r["run"], r["kernels"], r["duplicates"], r["tags"]) for r in rows] == [("tiny", "60", "8", "hw=910B")]


def test_report_layers_csv_and_output_file(tiny_db, tmp_path):
    out = tmp_path / "layers.csv"
    p = cli("report", "layers", "--db", tiny_db, "--run", "tiny", "--profile", "qwen3-npu", "--layers", "2",
            "--pass", "steady", "--format", "csv", "-o", out)
    assert p.stdout == "" and p.stderr.splitlines() == [
        "note: window: full (every kernel of a pass is in its prologue or a layer); passes split at anchor gaps >= 2x "
        "every gap inside a pass, then cut into 2 anchors each",
        "note: run 'tiny': 3 pass breaks at step boundaries (Step Id, ProfilerStep#N or serving step annotations); "
        "no other anchor gap stands out as a pass break (the largest inside is 45.0 us); device time by what started "
        "its passes: step marks 3 passes (0.214 ms), the run's start 1 pass (0.101 ms)",
        "note: steady pass: tiny -> pass 3", f"wrote {out}"]
    rows = list(csv.DictReader(open(out)))
    # the default full window of pass 3 (tests/tiny_trace.py): prologue = GatherV2 4 + RmsNorm 2 + MatMul 10;
    # layer 0 = 6 kernels, 27 us over 33 us; layer 1 = FIA 5, MatMul 6, hcom 3, SwiGlu 1 = 15 us over 55 -> 73 us;
    # the epilogue = lm_head 8, ArgMax 1 = 9 us over 75 -> 86 us
    assert [(r["pass"], r["layer"], r["kernels"], r["sum_us"], r["wall_us"]) for r in rows] == [
        ("3", "prologue", "3", "16.000", "18.000"), ("3", "0", "6", "27.000", "33.000"),
        ("3", "1", "4", "15.000", "18.000"), ("3", "epilogue", "2", "9.000", "11.000")]
    p = cli("report", "layers", "--db", tiny_db, "--run", "tiny", "--profile", "qwen3-npu", "--layers", "2",
            "--pass", "3", "--window", "strict", "--format", "csv")
    # strict: no prologue, and layer 1 is the anchor alone (5 us), which a note flags
    assert [line.split(",")[1:4] for line in p.stdout.splitlines()[1:]] == [["3", "0", "6"], ["3", "1", "1"]]
    assert "note: strict window: the last layer of a pass ends at its anchor" in p.stderr


def test_report_kernels_takes_the_steady_pass_else_the_last_full_one(tiny_db, tmp_path):
    """`report kernels` defaults to --pass auto: the steady pass when the run has one (tiny: pass 3), else
    its last full pass, as in a profile of one or two passes; a note says which."""
    seg = ["report", "kernels", "--profile", "qwen3-npu", "--layers", "2", "--format", "csv"]
    auto = cli(*seg, "--db", tiny_db, "--run", "tiny")
    steady = cli(*seg, "--db", tiny_db, "--run", "tiny", "--pass", "steady")
    assert auto.stdout == steady.stdout
    assert {r["pass"] for r in csv.DictReader(io.StringIO(auto.stdout))} == {"3"}
    assert "note: pass: tiny -> pass 3 (steady)" in auto.stderr.splitlines()
    # passes 0 and 1 of the same trace (the cold start: none steady), and pass 2 cut before its second
    # anchor (partial): the last full pass is 1
    rows = tiny_trace.rows(scales=tiny_trace.SCALES[:3])
    last_anchor = max(i for i, r in enumerate(rows) if r[6] == "FusedInferAttentionScore")
    two = str(tmp_path / "two.duckdb")
    cli("ingest", write_csv(tmp_path / "two.csv", tiny_trace.HEADER, rows[:last_anchor]), "--db", two, "--name", "two")
    passes = cli("report", "passes", "--db", two, "--run", "two", "--profile", "qwen3-npu", "--layers", "2",
                 "--format", "csv").stdout
    assert [(r["pass"], r["note"]) for r in csv.DictReader(io.StringIO(passes))][-1] == ("2", "partial")
    got = cli(*seg, "--db", two, "--run", "two")
    assert {r["pass"] for r in csv.DictReader(io.StringIO(got.stdout))} == {"1"}
    assert "note: pass: two -> pass 1 (no steady pass: the last full one)" in got.stderr.splitlines()
    assert cli(*seg, "--db", two, "--run", "two", "--pass", "steady", check=False).returncode == 2


def test_report_kernels_compute_flow_format(tiny_db):
    out = cli("report", "kernels", "--db", tiny_db, "--run", "tiny", "--profile", "qwen3-npu", "--layers", "2",
              "--pass", "3", "--layer", "0", "--format", "compute-flow").stdout
    assert "compute flow of layer 0" in out
    first = [line for line in out.splitlines() if line.startswith("tiny")][0].split()
    # hottest first: the qkv MatMul of the next layer's pre-attention, 10 us of 27 us = 37.04 %
    assert first[6:9] == ["MatMulV3", "10.000", "37.04"]


def test_sql_is_read_only_unless_write(tiny_db):
    got = cli("sql", "--db", tiny_db, "--format", "json", "select count(*) as n, sum(dur_ns) as ns from kernels")
    doc = json.loads(got.stdout)
    # per pass at scale 1: 15 kernels, 67 us (hcom counted once); scales 1.5 + 1.2 + 1 + 1 = 4.7 -> 314.9 us
    assert doc["rows"] == [{"n": 60, "ns": 314_900}]
    p = cli("sql", "--db", tiny_db, "delete from runs", check=False)
    assert p.returncode == 2 and "read-only" in p.stderr and "--write" in p.stderr
    assert cli("sql", "--db", tiny_db, "--write", "update runs set name = 'renamed'").returncode == 0
    assert "renamed" in cli("runs", "--db", tiny_db).stdout


def test_store_env_var_and_default(tmp_path):
    env = {**os.environ, "TRACEDB_DB": str(tmp_path / "env.duckdb")}
    cli("ingest", tiny_trace.write(tmp_path / "k.csv"), "--name", "e", env=env)
    assert os.path.exists(tmp_path / "env.duckdb")
    cli("ingest", tiny_trace.write(tmp_path / "k.csv"), "--name", "d", cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "TRACEDB_DB"})
    assert os.path.exists(tmp_path / "tracedb.duckdb")


def test_profiles_list_and_show():
    listing = cli("profiles", "list").stdout
    assert re.search(r"^qwen3-npu\s+anchor=FusedInferAttentionScore", listing, re.M)
    shown = json.loads(cli("profiles", "show", "dsv4-gpu").stdout)
    assert (shown["anchor"], shown["blocks_per_layer"], shown["categories"][0]["name"]) == (
        "mhc_post_tilelang", 2, "mhc")


def test_migrate_on_current_store(tiny_db):
    assert cli("migrate", "--db", tiny_db).stdout.strip() == f"store is at schema v{SCHEMA_VERSION}"


def test_v1_store_is_refused_until_migrated(tmp_path):
    """A store as tracedb 0.1 wrote it (schema.sql alone, v1) keeps its runs through `tracedb migrate`."""
    import duckdb
    from tracedb import sql
    db = str(tmp_path / "v1.duckdb")
    con = duckdb.connect(db, config={"storage_compatibility_version": "v1.5.0"})
    sql.run(con, "schema")
    con.execute("INSERT INTO tracedb_meta VALUES ('schema_version', '1')")
    con.execute("INSERT INTO runs (run_id, name) VALUES (1, 'old')")
    con.execute("INSERT INTO kernels_raw (run_id, seq, start_ns, dur_ns, name) VALUES (1, 0, 5, 7, 'k')")
    con.close()
    p = cli("runs", "--db", db, check=False)
    assert p.returncode == 1 and p.stderr.strip() == (f"error: {db}: schema v1 is older than v{SCHEMA_VERSION}; "
                                                      f"run `tracedb migrate --db {db}`")
    assert cli("migrate", "--db", db).stdout.strip() == f"store is at schema v{SCHEMA_VERSION}"
    got = cli("sql", "--db", db, "--format", "csv", "select name, dur_ns, grid from kernels").stdout
    assert got == "name,dur_ns,grid\nk,7,\n"


def test_demo_runs_the_main_job(tmp_path):
    out = cli("demo", "--db", str(tmp_path / "demo.duckdb")).stdout
    assert out.count("ingested run") == 2
    assert "forward passes" in out and "steady pass: qwen3-decode-b16 -> pass 3" in out
    assert "steady-state" in out and "prologue" in out


@pytest.mark.parametrize("args, message", [
    (["kernels", "--pass", "3", "--layer", "99"],
     "error: --layer 99: run 'tiny' has layers 0..1 in the selected passes"),
    (["kernels", "--pass", "3", "--layer", "0", "--compare-layer", "7"],
     "error: --layer 7: run 'tiny' has layers 0..1"),
    (["timeline", "--layer", "5"], "error: --layer 5: run 'tiny' has layers 0..1"),
])
def test_a_layer_that_does_not_exist_is_an_error_not_an_empty_table(tiny_db, args, message):
    p = cli("report", args[0], "--db", tiny_db, "--run", "tiny", "--profile", "qwen3-npu", "--layers", "2", *args[1:],
            check=False)
    assert p.returncode == 2 and p.stderr.startswith(message) and len(p.stderr.splitlines()) == 1


@pytest.mark.parametrize("args", [["report", "layers", "--help"], ["runs", "rm", "--help"],
                                  ["export", "parquet", "--help"], ["report", "--help"], ["report", "nosuch"],
                                  ["sql", "--help"], ["--help"],
                                  ["report", "layers", "--pass", "x", "--db", "nowhere.duckdb"]])
def test_the_command_narrowed_to_the_one_called_answers_as_the_whole_app(args):
    """`tracedb X Y` builds only the command it calls: its help, listings and errors are the whole app's."""
    from typer.testing import CliRunner
    from tracedb.cli import app as cli_app
    runner = CliRunner()
    whole, narrowed = runner.invoke(cli_app.app, args), runner.invoke(cli_app._only(cli_app.app, args), args)
    assert (narrowed.exit_code, narrowed.output) == (whole.exit_code, whole.output)
    assert whole.output.strip()


def test_only_the_called_command_is_built():
    from tracedb.cli import app as cli_app
    one = cli_app._only(cli_app.app, ["report", "layers", "--db", "x"])
    assert [c.name for c in one.registered_commands] == []
    assert [g.name for g in one.registered_groups] == ["report"]
    assert [c.name for c in one.registered_groups[0].typer_instance.registered_commands] == ["layers"]
    # the whole app itself is left as it was
    assert len(cli_app.app.registered_groups[0].typer_instance.registered_commands) > 10
    assert [cli_app._command_name(c) for c in cli_app._only(cli_app.app, ["sql"]).registered_commands] == ["sql"]
