"""`tracedb ingest DIR` where DIR holds several profiler outputs or trace files (one per rank): one run
per trace, each in its own transaction, names printed, progress on stderr."""
import json
import os
import pty
import subprocess

import pytest

import tiny_kineto
import tiny_trace
import tracedb
from helpers import cli, real_trace, run_lines, tracedb_exe, write_csv


def ascend_rank(root, folder, rank=None, dur_factor=1, bad_line=None):
    """A torch_npu output folder: ASCEND_PROFILER_OUTPUT/kernel_details.csv (the tiny trace, durations x
    dur_factor so ranks differ in content) and profiler_info_{rank}.json when the rank is given."""
    out = root / folder / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    rows = tiny_trace.rows(dur_factor)
    if bad_line:
        rows[bad_line - 2][9] = "12x.5"
    write_csv(out / "kernel_details.csv", tiny_trace.HEADER, rows)
    if rank is not None:
        (root / folder / f"profiler_info_{rank}.json").write_text(json.dumps({"rank_id": rank}))
    return root / folder


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_each_trace_of_a_folder_is_resolved_once(tmp_path, monkeypatch, jobs):
    """The plan resolves each rank folder (ingest/sources.resolve: its files, reader, rank) once; its size, job
    facts and ingest read what the plan found (with --jobs 2: in this process, which hands each worker the
    plan's source with the trace)."""
    from tracedb.ingest import sources
    for r in range(3):
        ascend_rank(tmp_path / "job", f"rank_{r}_ascend_pt", rank=r, dur_factor=1 + r)
    seen = []
    resolve = sources.resolve
    monkeypatch.setattr(sources, "resolve", lambda path, *a, **k: seen.append(os.path.basename(path)) or
                        resolve(path, *a, **k))
    cli("ingest", str(tmp_path / "job"), "--db", str(tmp_path / "s.duckdb"), "--jobs", jobs)
    assert sorted(seen) == [f"rank_{r}_ascend_pt" for r in range(3)]
    assert [r[0] for r in runs(str(tmp_path / "s.duckdb"))] == [f"job-rank{r}" for r in range(3)]


def runs(db):
    con = tracedb.connect(db, read_only=True)
    try:
        return con.execute("SELECT name, rank, tags FROM runs ORDER BY run_id").fetchall()
    finally:
        con.close()


def test_folder_of_ascend_ranks(tmp_path, db_path):
    prof = tmp_path / "prof"
    ascend_rank(prof, "node_1712_20250101_ascend_pt", rank=1, dur_factor=2)
    ascend_rank(prof, "node_1711_20250101_ascend_pt", rank=0)
    (prof / "logs").mkdir()
    (prof / "logs" / "config.json").write_text('{"model": "qwen3"}')              # JSON but no trace
    (prof / "logs" / "step_trace_time.csv").write_text("Step,Computing,Free\n1,2,3\n")   # CSV but no kernels
    p = cli("ingest", prof, "--db", db_path, "--tag", "hw=910B")
    assert run_lines(p.stdout) == ["ingested run 'prof-rank0'", "ingested run 'prof-rank1'"]
    assert p.stderr == ""        # not a terminal: no bar, the summary lines are the progress
    assert runs(db_path) == [("prof-rank0", 0, {"job": "prof", "hw": "910B"}),    # a folder of ranks is a job
                             ("prof-rank1", 1, {"job": "prof", "hw": "910B"})]


def test_trace_files_with_a_name_prefix(tmp_path, db_path):
    d = tmp_path / "kineto"
    d.mkdir()
    tiny_kineto.write(d / "rank0.trace.json.gz", gz=True)                       # rank from the file name
    tiny_kineto.write(d / "rank1.trace.json.gz", gz=True, compact=False)
    tiny_kineto.write(d / "worker7.1700000000.pt.trace.json", legacy=True)      # rank 3 from distributedInfo
    tiny_kineto.write(d / "events.json", form="array", string_pids=True)         # no rank anywhere: file stem
    (d / "profiler_info.json").write_text('{"rank_id": 0}')
    p = cli("ingest", d, "--db", db_path, "--name", "exp")
    assert run_lines(p.stdout) == [
        "ingested run 'exp-events'", "ingested run 'exp-rank0'", "ingested run 'exp-rank1'",
        "ingested run 'exp-rank3'"]
    assert [r[:2] for r in runs(db_path)] == [("exp-events", None), ("exp-rank0", 3), ("exp-rank1", 3),
                                              ("exp-rank3", 3)]   # the run's rank is the trace's own


def test_labels_two_traces_share_get_their_folders(tmp_path, db_path):
    d = tmp_path / "d"
    for sub, compact in (("h100", True), ("mi300", False)):
        (d / sub).mkdir(parents=True)
        tiny_kineto.write(d / sub / "trace.json", form="array", compact=compact)
    p = cli("ingest", d, "--db", db_path)
    assert [r[0] for r in runs(db_path)] == ["d-h100-trace", "d-mi300-trace"], p.stderr


def test_a_failing_trace_leaves_the_others_in(tmp_path, db_path):
    prof = tmp_path / "prof"
    ascend_rank(prof, "a_ascend_pt", rank=0)
    bad = ascend_rank(prof, "b_ascend_pt", rank=1, dur_factor=2, bad_line=30)
    p = cli("ingest", prof, "--db", db_path, check=False)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stdout.splitlines()[0].startswith("ingested run 'prof-rank0': 68 kernel rows")
    errors = [line for line in p.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {bad}/ASCEND_PROFILER_OUTPUT/kernel_details.csv: line 30: column 'Start Time(us)' "
                      "is '12x.5'; expected a number of microseconds"]      # one failure: no count line
    assert [r[0] for r in runs(db_path)] == ["prof-rank0"]
    # again: rank 0 is known content (skipped, named), rank 1 still fails
    p = cli("ingest", prof, "--db", db_path, check=False)
    assert p.returncode == 1 and p.stdout.splitlines()[0] == ("skipped run 'prof-rank0': identical content is "
                                                              "already run 'prof-rank0' (use --replace to ingest "
                                                              "again)")
    assert p.stdout.splitlines()[1:] == ["  in all: 0 runs ingested (1 skipped, 1 failed), 0.0 MB in "
                                         + p.stdout.split(" MB in ")[1].split("\n")[0]]


def test_one_profiler_output_stays_one_run(tmp_path, db_path):
    pt = ascend_rank(tmp_path, "rank_0_ascend_pt", rank=0)
    p = cli("ingest", pt, "--db", db_path)
    assert p.stdout.startswith("ingested run 'rank_0_ascend_pt': 68 kernel rows") and p.stderr == ""
    p = cli("ingest", pt / "ASCEND_PROFILER_OUTPUT", "--db", db_path, "--name", "exact", "--replace")
    assert p.stdout.startswith("replaced run 'exact'")
    assert [r[0] for r in runs(db_path)] == ["exact"]


def test_folder_without_traces_and_name_with_several_paths(tmp_path, db_path):
    (tmp_path / "empty").mkdir()
    p = cli("ingest", tmp_path / "empty", "--db", db_path, check=False)
    assert p.returncode == 1 and p.stderr.startswith(f"error: {tmp_path / 'empty'}: no kernel_details.csv")
    assert p.stderr.count("\n") == 1
    p = cli("ingest", tmp_path / "a", tmp_path / "b", "--name", "x", "--db", db_path, check=False)
    assert p.returncode == 2 and "--name names one run" in p.stderr


def test_progress_bar_when_stderr_is_a_terminal(tmp_path, db_path):
    prof = tmp_path / "prof"
    ascend_rank(prof, "a_ascend_pt", rank=0)
    ascend_rank(prof, "b_ascend_pt", rank=1, dur_factor=2)
    master, slave = pty.openpty()
    p = subprocess.run([tracedb_exe(), "ingest", str(prof), "--db", db_path], stdout=subprocess.PIPE,
                       stderr=slave, text=True)
    os.close(slave)
    seen = b""
    while True:
        try:
            block = os.read(master, 1 << 16)
        except OSError:       # Linux: EIO once the writer side is closed and drained
            break
        if not block:
            break
        seen += block
    os.close(master)
    assert p.returncode == 0
    bar = seen.decode()
    assert "[1/2] prof-rank0" in bar and "[2/2] prof-rank1" in bar and "100%" in bar
    assert run_lines(p.stdout) == ["ingested run 'prof-rank0'", "ingested run 'prof-rank1'"]


# ---------------------------------------------------------------------------------------------- real layouts
@pytest.mark.real_data
@pytest.mark.slow
def test_real_folder_of_kineto_traces(tmp_path, db_path):
    d = real_trace("hta-tests-data")
    p = cli("ingest", d, "--db", db_path, "--tag", "src=hta")
    # control.json.gz names rank 3 in its distributedInfo; the ROCm trace names none: its file stem
    assert [r[:2] for r in runs(db_path)] == [("hta-tests-data-mi250_minitoy_train_ROCm6_2_kineto", None),
                                              ("hta-tests-data-rank3", 3)]
    assert p.stdout.count("ingested run") == 2


@pytest.mark.real_data
@pytest.mark.slow
def test_real_folder_with_broken_outputs(tmp_path, db_path):
    d = real_trace("ascend-msinsight")
    p = cli("ingest", d, "--db", db_path, "--name", "msi", check=False)
    # five traces: a malformed op_summary fails; the other four load, the two SQLite exports among them
    assert p.returncode == 1
    assert [r[:2] for r in runs(db_path)] == [("msi-alexnet_level2_db-rank0", 0), ("msi-alexnet_level2_text-rank0", 0),
                                              ("msi-msprof_0", None), ("msi-st_level2_qwen3_megatron-rank0", 0)]
    assert p.stderr.splitlines()[-1].endswith("op_summary_1.csv: line 17: expected 32 columns, found 31 (truncated "
                                              "or malformed row)")
