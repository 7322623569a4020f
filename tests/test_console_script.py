"""The installed `tracedb` console script as its own process: the entry point, exit codes and stderr as a
shell sees them, and a reader that stops early. Everything else about the commands is tested in-process
(helpers.cli); the round trip below also checks that both ways give the same output."""
import csv
import io
import re
import subprocess

import tiny_trace
from helpers import cli, cli_subprocess, tracedb_exe


def one_error_line(p, code):
    assert p.returncode == code, p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    return lines[0]


def test_version():
    p = cli_subprocess("--version")
    assert p.returncode == 0 and re.fullmatch(r"tracedb \d+\.\d+\.\d+\n", p.stdout)


def test_ingest_then_report_round_trip(tmp_path):
    db = str(tmp_path / "runs.duckdb")
    p = cli_subprocess("ingest", tiny_trace.write(tmp_path / "kernel_details.csv"), "--db", db, "--name", "tiny")
    assert p.stdout.startswith("ingested run 'tiny': 68 kernel rows") and p.stderr == ""
    report = ["report", "layers", "--db", db, "--run", "tiny", "--profile", "qwen3-npu", "--layers", "2",
              "--pass", "3", "--format", "csv"]
    p = cli_subprocess(*report)
    # pass 3 of tests/tiny_trace.py, full window: the prologue, the two layers and the epilogue (test_cli.py
    # derives them)
    assert [(r["pass"], r["layer"], r["kernels"], r["sum_us"]) for r in csv.DictReader(io.StringIO(p.stdout))] == [
        ("3", "prologue", "3", "16.000"), ("3", "0", "6", "27.000"), ("3", "1", "4", "15.000"),
        ("3", "epilogue", "2", "9.000")]
    inproc = cli(*report)
    assert (inproc.returncode, inproc.stdout, inproc.stderr) == (p.returncode, p.stdout, p.stderr)


def test_a_bad_input_file_exits_1_with_one_error_line(tmp_path):
    missing = tmp_path / "missing.csv"
    p = cli_subprocess("ingest", missing, "--db", tmp_path / "s.duckdb", check=False)
    assert one_error_line(p, 1) == f"error: {missing}: no such file or folder"


def test_a_wrong_call_exits_2_with_one_error_line(tmp_path):
    db = str(tmp_path / "s.duckdb")
    cli_subprocess("ingest", tiny_trace.write(tmp_path / "k.csv"), "--db", db, "--name", "tiny")
    p = cli_subprocess("report", "layers", "--db", db, "--run", "nope", check=False)
    assert one_error_line(p, 2) == "error: unknown run 'nope'; runs in the store: tiny"


def test_a_reader_that_stops_early_ends_the_output_quietly(tmp_path):
    """`tracedb sql ... | head -1`: the output is cut when the reader goes, exit 0 and nothing on stderr."""
    db = str(tmp_path / "s.duckdb")
    cli("ingest", tiny_trace.write(tmp_path / "k.csv"), "--db", db, "--name", "tiny")
    # ~0.6 MB of CSV, far more than a pipe buffers: the writer is still writing when the reader closes
    proc = subprocess.Popen([tracedb_exe(), "sql", "--db", db, "--format", "csv",
                             "select range as n from range(100000)"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "n\n"
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert (proc.wait(), stderr) == (0, "")
