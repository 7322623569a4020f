"""A folder of traces ingested by several worker processes at once (`tracedb ingest DIR --jobs N`): the same
runs, names, ids and rows as one after another; a failing trace leaves the others in; identical content
is skipped; an interrupt stops the workers and leaves no side store; readers are served meanwhile.

Workers are held at a chosen point by a `sitecustomize` module put on PYTHONPATH for the command's
process tree (the workers are separate processes, so a patch made in the command's process would not
reach them): after a trace named like $HOLD_NAMES is parsed and finished in its side store, its worker writes
`ready-<name>` and waits for the file `go`; with $HOLD_MERGE, the command's process does the same inside
the transaction of its first merge (`ready-merge`); $TRACES_PER_BATCH caps the traces of a batch (a held
trace holds no other). No sleeps decide what the tests see."""
import json
import os
import signal
import subprocess
import textwrap
import time

import pytest

import tiny_kineto
from helpers import cli, cli_subprocess, tracedb_exe, run_lines

HOLD = textwrap.dedent("""
    import os, re, time
    if os.environ.get("TRACES_PER_BATCH"):    # the command's batches hold at most this many traces
        from tracedb.engine.loading import batches
        batches.BATCH_TRACES = int(os.environ["TRACES_PER_BATCH"])
    if os.environ.get("HOLD_NAMES"):
        from tracedb.engine.loading import parsing
        _real = parsing.finish_loaded

        def _held(con, loaded):
            out = _real(con, loaded)
            for item in loaded:
                if not re.search(os.environ["HOLD_NAMES"], item.job.name):
                    continue
                folder = os.environ["HOLD_DIR"]
                ready = os.path.join(folder, "ready-" + item.job.name)
                with open(ready + ".part", "w") as f:      # renamed once written: never read half-written
                    f.write(str(os.getpid()))
                os.replace(ready + ".part", ready)
                while not os.path.exists(os.path.join(folder, "go")):
                    time.sleep(0.01)
            return out

        parsing.finish_loaded = _held
    if os.environ.get("NEVER_PARSE"):         # a trace named like this must be skipped before parsing
        from tracedb.engine.loading import parsing
        _read = parsing._read_rows

        def _refused(con, job, options, run_id):
            if re.search(os.environ["NEVER_PARSE"], job.name):
                raise AssertionError(job.name + " was parsed")
            return _read(con, job, options, run_id)

        parsing._read_rows = _refused
        _together = parsing.read_together

        def _refused_together(con, batch):     # a batch's traces read by one statement
            for job, _ in batch:
                if re.search(os.environ["NEVER_PARSE"], job.name):
                    raise AssertionError(job.name + " was parsed")
            return _together(con, batch)

        parsing.read_together = _refused_together
    if os.environ.get("HOLD_MERGE"):          # the command's own process, inside a merge's transaction
        from tracedb.engine.loading import staging
        _merge = staging.merge

        def _held_merge(con, run_id):
            _merge(con, run_id)
            open(os.path.join(os.environ["HOLD_DIR"], "ready-merge"), "w").close()
            while not os.path.exists(os.path.join(os.environ["HOLD_DIR"], "go")):
                time.sleep(0.01)

        staging.merge = _held_merge
""")

STATE = ("SELECT r.run_id, r.name, r.content_hash, r.tags, count(k.seq) AS n, sum(k.dur_ns) AS dur "
         "FROM runs r LEFT JOIN kernels k USING (run_id) GROUP BY ALL ORDER BY r.run_id")


def _state(db):
    return cli("sql", "--db", db, "--format", "csv", STATE).stdout


def _side_files(folder):
    return sorted(f for f in os.listdir(folder) if ".ingest-" in f)


def _traces(folder, factors):
    """One tiny Kineto trace per factor, rank i in a.json, b.json, ... (run `p-rank<i>` of folder prefix
    p); device durations times the factor: a content of its own."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for i, k in enumerate(factors):
        doc = tiny_kineto.document(dur_factor=k)
        doc["distributedInfo"]["rank"] = i
        paths.append(os.path.join(folder, f"{chr(ord('a') + i)}.json"))
        with open(paths[-1], "w") as f:
            json.dump(doc, f)
    return paths


def _no_device_activity(path):
    """A Chrome trace with only host events: refused with one line ("no device activity")."""
    with open(path, "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, '
                '"ts": 10, "dur": 5}]}')
    return str(path)


def _runs_lines(out):
    """The per-run lines without their timings: `ingested run 'p-a': 10 kernel rows (...)`."""
    return [line.split(", 0.0 MB")[0].split(" MB in ")[0] for line in out.splitlines() if not line.startswith("  ")]


def test_two_workers_give_the_runs_names_and_rows_of_one(tmp_path):
    folder = tmp_path / "traces"
    _traces(folder, [1, 2, 3, 4, 5])
    one, two = str(tmp_path / "one.duckdb"), str(tmp_path / "two.duckdb")
    r1 = cli("ingest", folder, "--db", one, "--name", "p", "--tag", "hw=h100", "--jobs", "1")
    r2 = cli("ingest", folder, "--db", two, "--name", "p", "--tag", "hw=h100", "--jobs", "2")
    assert _state(one) == _state(two)
    assert _state(two).count("\n") == 6            # header and five runs
    assert _runs_lines(r1.stdout) == _runs_lines(r2.stdout)   # the same lines, in plan order
    assert [line.split("'")[1] for line in run_lines(r2.stdout)] == [f"p-rank{i}" for i in range(5)]
    assert not _side_files(tmp_path)


@pytest.mark.slow
def test_into_a_dataset_two_workers_give_the_runs_of_one_and_a_failing_trace_is_told(tmp_path):
    """`--to DIR --jobs 2`: the traces converted by two workers, committed together; the dataset's runs
    and rows are those of one after another, and a trace that fails is told in one line as there."""
    folder = tmp_path / "traces"
    _traces(folder, [1, 2, 3, 4])
    bad = _no_device_activity(folder / "b2.json")
    outs = {}
    for jobs in ("1", "2"):
        outs[jobs] = cli("ingest", folder, "--to", str(tmp_path / f"ds{jobs}"), "--name", "p", "--tag", "hw=h100",
                         "--jobs", jobs, check=False)
    assert (outs["1"].returncode, outs["1"].stderr) == (outs["2"].returncode, outs["2"].stderr) == (
        1, f"error: {bad}: {outs['1'].stderr.split(': ', 2)[2]}")
    assert _runs_lines(outs["1"].stdout) == _runs_lines(outs["2"].stdout)
    query = ("SELECT r.run_id, r.name, r.tags, r.content_hash, count(*), sum(k.dur_ns) FROM runs r "
             "JOIN kernels k USING (run_id) GROUP BY ALL ORDER BY 1")
    got = {j: cli("sql", "--db", str(tmp_path / f"ds{j}") + "/", "--format", "csv", query).stdout for j in ("1", "2")}
    assert got["1"] == got["2"] and got["2"].count("\n") == 5         # header and four runs
    assert not [n for n in os.listdir(tmp_path / "ds2") if n.startswith(".tracedb-job-")]


@pytest.mark.slow
def test_into_an_existing_store_and_more_workers_than_traces(tmp_path):
    first = tiny_kineto.write(tmp_path / "first.json", dur_factor=9)
    folder = tmp_path / "traces"
    _traces(folder, [1, 2, 3])
    one, many = str(tmp_path / "one.duckdb"), str(tmp_path / "many.duckdb")
    for db, jobs in ((one, "1"), (many, "8")):
        cli("ingest", first, "--db", db, "--name", "first")
        cli("ingest", folder, "--db", db, "--jobs", jobs)
    assert _state(one) == _state(many)
    assert "traces-rank2" in _state(many) and not _side_files(tmp_path)


def test_relative_paths_are_the_command_folder_s(tmp_path):
    _traces(tmp_path / "traces", [1, 2])
    cli("ingest", "traces", "--db", "s.duckdb", "--name", "p", "--jobs", "2", cwd=tmp_path)
    sources = cli("sql", "--db", str(tmp_path / "s.duckdb"), "--format", "csv",
                  "SELECT source_path FROM runs ORDER BY run_id").stdout.split()
    assert sources == ["source_path", os.path.join("traces", "a.json"), os.path.join("traces", "b.json")]
    assert not _side_files(tmp_path)


def test_a_failing_trace_leaves_the_others_in_with_one_line(tmp_path):
    folder = tmp_path / "traces"
    _traces(folder, [1, 2, 3])
    bad = _no_device_activity(folder / "b2.json")       # planned between b and c
    db = str(tmp_path / "s.duckdb")
    r = cli("ingest", folder, "--db", db, "--name", "p", "--jobs", "2", check=False)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and bad in lines[0] and "no device activity" in lines[0]
    assert "Traceback" not in r.stderr
    names = cli("sql", "--db", db, "--format", "csv", "SELECT name FROM runs ORDER BY run_id").stdout.split()
    assert names == ["name", "p-rank0", "p-rank1", "p-rank2"]
    assert not _side_files(tmp_path)
    serial = cli("ingest", folder, "--db", str(tmp_path / "t.duckdb"), "--name", "p", "--jobs", "1", check=False)
    assert (serial.returncode, serial.stderr) == (r.returncode, r.stderr)


def test_two_failing_traces_are_told_with_the_count(tmp_path):
    folder = tmp_path / "traces"
    _traces(folder, [1])
    _no_device_activity(folder / "x.json")
    _no_device_activity(folder / "y.json")
    r = cli("ingest", folder, "--db", str(tmp_path / "s.duckdb"), "--jobs", "3", check=False)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert len(lines) == 3 and all(line.startswith("error: ") for line in lines)
    assert lines[-1].startswith("error: 2 of 3 traces failed")


def test_identical_content_is_skipped(tmp_path):
    folder = tmp_path / "traces"
    a, _ = _traces(folder, [1, 2])
    with open(a, "rb") as src, open(folder / "c.json", "wb") as dst:   # c is a copy of a (rank 0 too)
        dst.write(src.read())
    db = str(tmp_path / "s.duckdb")
    r = cli("ingest", folder, "--db", db, "--name", "p", "--jobs", "3")
    out = [line for line in r.stdout.splitlines() if not line.startswith("  ")]
    assert out[0].startswith("ingested run 'p-rank0-1'") and out[1].startswith("ingested run 'p-rank1'")
    assert out[2] == ("skipped run 'p-rank0-2': identical content is already run 'p-rank0-1' (use --replace "
                      "to ingest again)")
    size, before = os.path.getsize(db), _state(db)
    again = cli("ingest", folder, "--db", db, "--name", "p", "--jobs", "3")   # everything is in: all skipped
    assert run_lines(again.stdout) == \
        ["skipped run 'p-rank0-1'", "skipped run 'p-rank1'", "skipped run 'p-rank0-2'"]
    assert _state(db) == before and os.path.getsize(db) == size and not _side_files(tmp_path)


def test_a_name_taken_by_other_content_is_refused_as_one_after_another_does(tmp_path):
    folder = tmp_path / "traces"
    _traces(folder, [1, 2])
    other = tiny_kineto.write(tmp_path / "other.json", dur_factor=7)
    got = {}
    for jobs in ("1", "2"):
        db = str(tmp_path / f"s{jobs}.duckdb")
        cli("ingest", other, "--db", db, "--name", "p-rank1")
        r = cli("ingest", folder, "--db", db, "--name", "p", "--jobs", jobs, check=False)
        got[jobs] = (r.returncode, r.stderr, _runs_lines(r.stdout), _state(db))
    assert got["1"] == got["2"]
    code, err, _, state = got["2"]
    assert code == 2 and "run 'p-rank1' already exists with other content" in err and err.count("\n") == 1
    assert ",p-rank0," in state and not _side_files(tmp_path)


def test_batches_of_several_traces_give_the_runs_of_one_after_another(tmp_path, monkeypatch):
    """Workers parse batches of several traces into one side store each (parallel.batches_of); a failing
    trace inside a batch leaves its batch-mates in, a copy of a batch-mate is skipped, a name that other
    content holds is refused: all as one after another does, in the same lines."""
    from tracedb.engine.loading import parallel
    folder = tmp_path / "traces"
    paths = _traces(folder, [1, 2, 3, 4, 5, 6, 7])
    _no_device_activity(folder / "b2.json")            # planned between b and c, inside a batch
    with open(paths[0], "rb") as src, open(folder / "h.json", "wb") as dst:   # a copy of a (rank 0 too)
        dst.write(src.read())
    planned = sorted(os.listdir(folder))
    assert len(planned) == 9
    # 9 equal traces on 2 workers: a batch each, of about equal bytes
    assert parallel.batches_of([type("P", (), {"bytes": 1})()] * 9, 2) == [[0, 1, 2, 3, 4], [5, 6, 7, 8]]
    other = tiny_kineto.write(tmp_path / "other.json", dur_factor=11)
    got = {}
    for jobs in ("1", "2"):
        db = str(tmp_path / f"s{jobs}.duckdb")
        cli("ingest", other, "--db", db, "--name", "p-rank4")     # rank 4's name, other content
        r = cli("ingest", folder, "--db", db, "--name", "p", "--jobs", jobs, check=False)
        got[jobs] = (r.returncode, r.stderr, _runs_lines(r.stdout), _state(db))
    assert got["1"] == got["2"]
    code, err, lines, state = got["2"]
    errors = err.splitlines()
    assert code == 1 and len(errors) == 3 and "b2.json" in errors[0] and "no device activity" in errors[0]
    assert "run 'p-rank4' already exists with other content" in errors[1] and errors[2].startswith("error: 2 of 9")
    assert lines[-1].startswith("skipped run 'p-rank0-2': identical content is already run 'p-rank0-1'")
    names = cli("sql", "--db", str(tmp_path / "s2.duckdb"), "--format", "csv",
                "SELECT name FROM runs ORDER BY run_id").stdout.split()[1:]
    assert names == ["p-rank4", "p-rank0-1", "p-rank1", "p-rank2", "p-rank3", "p-rank5", "p-rank6"]
    assert not _side_files(tmp_path)


def test_a_copy_of_a_batch_mate_is_skipped_before_parsing(tmp_path, monkeypatch):
    """In one worker's batch, a trace whose earlier batch-mate has its content is not parsed: it is skipped,
    naming that batch-mate; the others are staged as runs 1, 2, ... of the batch's one side store."""
    from tracedb.engine.loading import parsing, worker
    from tracedb.engine.loading import staging
    a, b = _traces(tmp_path / "traces", [1, 2])
    copy = tmp_path / "traces" / "a2.json"
    copy.write_bytes(open(a, "rb").read())
    parsed, alone, together = [], parsing.read_into, parsing.read_together
    monkeypatch.setattr(parsing, "read_into",
                        lambda con, job, run_id: parsed.append(job.name) or alone(con, job, run_id))
    monkeypatch.setattr(parsing, "read_together",     # the batch's traces read by one statement
                        lambda con, jobs: parsed.extend(job.name for job, _ in jobs) or together(con, jobs))
    items = [(a, "x", {}, None), (str(copy), "y", {}, 0), (b, "z", {}, None)]
    batch = worker._parse_batch(str(tmp_path / "s.duckdb"), items, 1, [])
    try:
        assert list(dict.fromkeys(parsed)) == ["x", "z"]
        assert [e.staged_id for e in batch.entries if isinstance(e, worker._Parsed)] == [1, 2]
        skipped = batch.entries[1]
        assert (skipped.status, skipped.name, skipped.same_as) == ("skipped", "y", "x")
    finally:
        staging.remove(batch.side)
    assert not _side_files(tmp_path)


def test_jobs_out_of_range_is_a_wrong_call(tmp_path):
    _traces(tmp_path / "traces", [1, 2])
    r = cli("ingest", tmp_path / "traces", "--db", str(tmp_path / "s.duckdb"), "--jobs", "0", check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--jobs" in r.stderr
    assert not os.path.exists(tmp_path / "s.duckdb")


def test_workers_are_capped_by_memory(monkeypatch):
    from tracedb.engine.loading import worker_pool as par
    monkeypatch.setattr(par, "cores", lambda: 16)
    monkeypatch.setattr(par, "available_memory", lambda: 3 * par.WORKER_BYTES + 5)
    assert par.workers_for(8, None) == (3, None)           # the default: lowered silently
    n, note = par.workers_for(8, 6)
    assert n == 3 and "6 parallel ingests lowered to 3" in note
    assert par.workers_for(2, None) == (2, None)            # never more than the traces
    monkeypatch.setattr(par, "available_memory", lambda: None)
    assert par.workers_for(40, None) == (16, None)


def test_a_small_folder_goes_in_one_process_unless_jobs_says(tmp_path, monkeypatch):
    """Below SMALL_FOLDER_BYTES of JSON (a gzip file counted at GZIP_FACTOR times its size) the default is one
    process: starting workers costs more than they save there; --jobs still decides when given."""
    from tracedb.engine.loading import forkserver
    from tracedb.engine.loading import worker_pool as par
    monkeypatch.setattr(par, "cores", lambda: 16)
    monkeypatch.setattr(par, "available_memory", lambda: None)
    small = forkserver.SMALL_FOLDER_BYTES
    assert par.workers_for(8, None, [("a.json", small // 2), ("b.json", small // 2 - 1)]) == (1, None)
    assert par.workers_for(8, None, [("a.json", small // 2), ("b.json", small // 2)]) == (8, None)
    assert par.workers_for(8, None, [("a.json.gz", small // forkserver.GZIP_FACTOR + 1)]) == (8, None)
    assert par.workers_for(8, 2, [("a.json", 10)]) == (2, None)
    assert par.workers_for(8, None) == (8, None)         # sizes unknown: the cores
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "a.json").write_bytes(b"x" * 1000)
    assert forkserver.small_folders([str(folder)])
    monkeypatch.setattr(forkserver, "SMALL_FOLDER_BYTES", 1000)
    assert not forkserver.small_folders([str(folder)]) and not forkserver.small_folders([str(folder / "a.json")])
    # a link named on the command line is its folder; a link inside a folder is not followed
    os.symlink(folder, tmp_path / "named")
    assert not forkserver.small_folders([str(tmp_path / "named")])
    inner = tmp_path / "inner"
    inner.mkdir()
    os.symlink(folder, inner / "link")
    assert forkserver.small_folders([str(inner)])


# --- real processes: interrupts and readers ---

@pytest.fixture
def held(tmp_path):
    """(environment that holds the traces named like `names` once parsed, a wait for them, the go file)."""
    hold_dir = tmp_path / "hold"
    hold_dir.mkdir()
    (hold_dir / "sitecustomize.py").write_text(HOLD)

    def env(names):
        path = os.pathsep.join([str(hold_dir)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        return {**os.environ, "PYTHONPATH": path, "HOLD_NAMES": names, "HOLD_DIR": str(hold_dir),
                "TRACES_PER_BATCH": "1"}     # a trace held in a worker holds no other

    def wait_ready(proc, names):
        deadline = time.monotonic() + 120
        while not all((hold_dir / f"ready-{n}").exists() for n in names):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the workers never reached the held point"
            time.sleep(0.01)

    return env, wait_ready, hold_dir / "go"


@pytest.fixture
def store(tmp_path):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", tiny_kineto.write(tmp_path / "first.json", dur_factor=9), "--db", db, "--name", "first")
    return db


@pytest.fixture
def start():
    """Starts `tracedb ingest FOLDER --jobs 2` in a process group of its own; a group left running by a
    failed test is killed (held workers would otherwise wait for ever)."""
    groups = []

    def run(db, folder, env):
        proc = subprocess.Popen([tracedb_exe(), "ingest", str(folder), "--db", db, "--name", "p", "--jobs", "2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
        groups.append(proc.pid)
        return proc

    yield run
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.subprocess
def test_sigterm_stops_the_workers_and_leaves_no_side_store(tmp_path, store, held, start):
    env, wait_ready, _ = held
    _traces(tmp_path / "traces", [1, 2, 3])
    before = _state(store)
    proc = start(store, tmp_path / "traces", env("rank[12]"))   # rank 0 is merged; 1 and 2 sit parsed
    wait_ready(proc, ["p-rank1", "p-rank2"])
    deadline = time.monotonic() + 60     # rank 0's merge may still be removing its side store (a busy machine)
    while len([f for f in _side_files(tmp_path) if not f.endswith((".wal", ".tmp"))]) != 2:
        assert time.monotonic() < deadline, _side_files(tmp_path)
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err == "error: terminated (SIGTERM)\n", err
    assert run_lines(out) == ["ingested run 'p-rank0'"]
    after = _state(store)
    assert after.startswith(before) and after.count("\n") == before.count("\n") + 1 and ",p-rank0," in after
    assert not _side_files(tmp_path)
    assert cli("report", "passes", "--db", store, "--run", "p-rank0", "--format", "csv").stdout   # the store reads


@pytest.mark.subprocess
def test_sigterm_during_a_merge_rolls_it_back_and_removes_every_side_store(tmp_path, store, held, start):
    env, wait_ready, _ = held
    _traces(tmp_path / "traces", [1, 2, 3])
    before = _state(store)
    proc = start(store, tmp_path / "traces", {**env("^$"), "HOLD_MERGE": "1"})   # no worker held
    wait_ready(proc, ["merge"])               # rank 0 inside its merge; ranks 1 and 2 parse meanwhile
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err == "error: terminated (SIGTERM)\n", err
    assert out == "" and _state(store) == before and not _side_files(tmp_path)


@pytest.mark.subprocess
def test_a_copy_of_an_earlier_trace_is_skipped_before_parsing(tmp_path, held, start):
    env, _, _ = held
    folder = tmp_path / "traces"
    a, _, _ = _traces(folder, [1, 2, 3])
    with open(a, "rb") as src, open(folder / "d.json", "wb") as dst:   # d is a copy of a, planned last
        dst.write(src.read())
    db = str(tmp_path / "s.duckdb")
    proc = start(db, folder, {**env("^$"), "NEVER_PARSE": "-2$"})
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert [ln for ln in out.splitlines() if not ln.startswith("  ")][-1] == (
        "skipped run 'p-rank0-2': identical content is already run 'p-rank0-1' (use --replace to ingest again)")
    assert not _side_files(tmp_path)


@pytest.mark.subprocess
def test_ctrl_c_to_the_process_group_exits_130_and_leaves_the_store_as_it_was(tmp_path, store, held, start):
    env, wait_ready, _ = held
    _traces(tmp_path / "traces", [1, 2])
    before = _state(store)
    proc = start(store, tmp_path / "traces", env("rank[01]"))
    wait_ready(proc, ["p-rank0", "p-rank1"])
    os.killpg(proc.pid, signal.SIGINT)       # what a terminal's Ctrl-C does: every process of the group
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == "error: interrupted\n", err
    assert out == "" and _state(store) == before and not _side_files(tmp_path)


@pytest.mark.subprocess
def test_a_killed_worker_ends_the_ingest_in_one_line(tmp_path, store, held, start):
    env, wait_ready, hold_dir = held
    hold_dir = hold_dir.parent
    _traces(tmp_path / "traces", [1, 2, 3])
    before = _state(store)
    proc = start(store, tmp_path / "traces", env("rank[01]"))
    wait_ready(proc, ["p-rank0", "p-rank1"])
    os.kill(int((hold_dir / "ready-p-rank0").read_text()), signal.SIGKILL)     # as the out-of-memory killer does
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and err.count("\n") == 1, err
    assert err.startswith("error: ") and "ended abruptly" in err and "a.json" in err
    assert out == "" and _state(store) == before and not _side_files(tmp_path)


@pytest.mark.subprocess
def test_readers_are_served_while_workers_parse(tmp_path, store, held, start):
    env, wait_ready, go = held
    _traces(tmp_path / "traces", [1, 2, 3])
    proc = start(store, tmp_path / "traces", env("rank[12]"))
    try:
        wait_ready(proc, ["p-rank1", "p-rank2"])
        assert "first" in cli_subprocess("runs", "--db", store).stdout
        assert cli_subprocess("report", "passes", "--db", store, "--run", "first", "--format", "csv").stdout
        count = cli_subprocess("sql", "--db", store, "SELECT count(*) FROM runs WHERE name LIKE 'p-%'").stdout
        assert count.split()[-1] in ("0", "1")        # rank 0 merged or about to be; 1 and 2 not yet
    finally:
        go.touch()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert [line.split("'")[1] for line in run_lines(out)] == ["p-rank0", "p-rank1", "p-rank2"]
    names = cli("sql", "--db", store, "--format", "csv", "SELECT name FROM runs ORDER BY run_id").stdout.split()
    assert names == ["name", "first", "p-rank0", "p-rank1", "p-rank2"] and not _side_files(tmp_path)


def test_a_killed_jobs_staging_folder_is_removed_by_the_next_job(tmp_path):
    """A job's staging folder inside DIR is named for its client process (pid and host, as side stores are):
    one whose client is gone is removed by the next `--to DIR --jobs N` from this machine; a live one stays."""
    from tracedb.engine.loading import staged
    from tracedb.ingest import leftovers
    folder = tmp_path / "traces"
    _traces(folder, [1, 2])
    ds = tmp_path / "ds"
    cli("ingest", folder, "--to", str(ds), "--name", "p", "--jobs", "2")
    dead = ds / f"{staged.JOB_PREFIX}999999999.{leftovers.HOST}-0000abcd"
    live = ds / f"{staged.JOB_PREFIX}{os.getpid()}.{leftovers.HOST}-0000abcd"
    for d in (dead, live):
        (d / "0").mkdir(parents=True)
    cli("ingest", folder, "--to", str(ds), "--name", "q", "--jobs", "2")
    assert not dead.exists() and live.exists()
    assert not [e for e in os.listdir(ds) if e.startswith(staged.JOB_PREFIX) and e != live.name]


ALL_ROWS = ["SELECT r.name, e.* EXCLUDE (run_id) FROM trace_events e JOIN runs r USING (run_id) ORDER BY r.name, e.seq",
            "SELECT r.name, t.* EXCLUDE (run_id) FROM tracks t JOIN runs r USING (run_id) ORDER BY ALL",
            "SELECT r.name, k.* EXCLUDE (run_id) FROM kernels k JOIN runs r USING (run_id) ORDER BY r.name, k.seq",
            "SELECT r.name, w.* EXCLUDE (run_id) FROM kernel_work w JOIN runs r USING (run_id) ORDER BY ALL",
            "SELECT name, format, device_kind, device_name, rank, world_size, clock_domain, time_base_ns, truncated, "
            "content_hash, source_bytes FROM runs ORDER BY name"]


def _varied_traces(folder):
    """Traces of one folder that a batch reads by one statement, and some it leaves to one by one: object
    and bare-array form, indented, with c10d collective args and recorded shapes (of an op that launched
    nothing: pruned); a .gz; one whose event has a dur that is not a number (refused, naming the byte).
    Returns the refused one's path."""
    import tiny_job
    os.makedirs(folder, exist_ok=True)
    tiny_job.write(folder)
    tiny_kineto.write(folder / "arr.json", form="array", dur_factor=2)     # DuckDB reads these files themselves
    tiny_kineto.write(folder / "arr2.json", form="array", dur_factor=7)
    tiny_kineto.write(folder / "wide.json", compact=False, dur_factor=3)
    tiny_kineto.write(folder / "gz.json.gz", gz=True, dur_factor=4)
    doc = tiny_kineto.document(dur_factor=5)
    doc["traceEvents"] += [
        {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "pid": 0, "tid": 13,
         "ts": 1500.5, "dur": 7.25, "args": {"correlation": 77, "device": 0, "stream": 13, "Collective name":
         "allreduce", "In msg nelems": 4096, "Out msg nelems": 4096, "Group size": 8, "dtype": "BFloat16",
         "Process Group Name": "0", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]", "Seq": 12}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 100, "tid": 100, "ts": 1400, "dur": 3,
         "args": {"External id": 4242, "Input Dims": [[16, 64], [64, 64]], "Input type": ["float", "float"]}}]
    with open(folder / "c10d.json", "w") as f:
        json.dump(doc, f)
    bad = tiny_kineto.document(dur_factor=6)
    bad["traceEvents"][7]["dur"] = "soon"
    with open(folder / "bad.json", "w") as f:
        json.dump(bad, f)
    return str(folder / "bad.json")


def test_traces_read_together_give_every_row_of_one_by_one(tmp_path, monkeypatch):
    """A batch's small plain traces are read by one statement (ingest/chrome_json/together.py): every row of
    every table, seq included, and every line and error are those of the traces read one by one; the trace
    with a bad dur is refused naming its byte either way, its batch-mates kept. Read together by two
    workers, and in this process (`--jobs 1`); one by one in this process with that statement turned off."""
    from tracedb.engine.loading import parsing
    bad = _varied_traces(tmp_path / "traces")
    got = {}
    for way, jobs in (("alone", "1"), ("here", "1"), ("workers", "2")):
        db = str(tmp_path / f"{way}.duckdb")
        with monkeypatch.context() as m:
            if way == "alone":
                m.setattr(parsing, "read_together", lambda con, batch: {})
            r = cli("ingest", tmp_path / "traces", "--db", db, "--name", "p", "--jobs", jobs, check=False)
        rows = [cli("sql", "--db", db, "--format", "csv", q).stdout for q in ALL_ROWS]
        got[way] = (r.returncode, r.stderr, _runs_lines(r.stdout), rows)
    assert got["alone"] == got["here"] == got["workers"]
    code, err, lines, rows = got["workers"]
    assert code == 1 and err.count("\n") == 1 and err.startswith(f"error: {bad}: byte ") and "soon" in err
    assert len(lines) == 9 - 1 and rows[-1].count("\n") == 1 + 8
    collective = cli("sql", "--db", str(tmp_path / "workers.duckdb"), "--format", "csv", "SELECT count(*) FROM "
                     "trace_events WHERE json_extract_string(extra_args, '$.collective') = 'allreduce'").stdout
    assert collective.split() == ["count_star()", "1"]
    assert not _side_files(tmp_path)


def test_a_batch_reads_its_plain_small_traces_by_one_statement(tmp_path, monkeypatch):
    """Which traces of a batch go in together: the plain ones of one part; a .gz, and a trace that one
    statement cannot take (its bad dur), are read one by one, the latter refused; the others land."""
    from tracedb.engine.loading import parsing, worker
    from tracedb.engine.loading import staging
    bad = _varied_traces(tmp_path / "traces")
    paths = sorted(str(p) for p in (tmp_path / "traces").iterdir())
    together, alone = [], []
    real_together, real_alone = parsing.read_together, parsing.read_into

    def spy_together(con, jobs):
        out = real_together(con, jobs)
        together.extend(sorted(os.path.basename(out[k].job.src.files[0]) for k in out))
        return out

    monkeypatch.setattr(parsing, "read_together", spy_together)
    monkeypatch.setattr(parsing, "read_into", lambda con, job, run_id:
                        alone.append(os.path.basename(job.src.files[0])) or real_alone(con, job, run_id))
    items = [(p, os.path.basename(p), {}, None) for p in paths]
    batch = worker._parse_batch(str(tmp_path / "s.duckdb"), items, 1, [])
    try:
        assert together == ["arr.json", "arr2.json",        # two statements: a bare array's args keys are all
                            "c10d.json", "job_rank0.json", "job_rank1.json", "job_rank2.json", "wide.json"]
        assert sorted(alone) == ["bad.json", "gz.json.gz"]
        refused = [e for e in batch.entries if not isinstance(e, worker._Parsed)]
        assert len(refused) == 1 and str(refused[0]).startswith(f"{bad}: byte ")
        assert [e.staged_id for e in batch.entries if isinstance(e, worker._Parsed)] == [1, 2, 4, 5, 6, 7, 8, 9]
    finally:
        staging.remove(batch.side)


def test_a_trace_the_statement_cannot_take_is_read_alone_and_its_batch_mates_land(tmp_path, monkeypatch):
    """An event the JSON reader refuses fails the batch's one statement: no row of it stays, every trace is
    read alone, the broken one is refused naming its byte, the others land with the rows they have alone."""
    from tracedb.engine.loading import parsing
    folder = tmp_path / "traces"
    _traces(folder, [1, 2, 3])
    text = (folder / "b.json").read_text()
    cut = text.index('"ph": "X"')
    (folder / "b.json").write_text(text[:cut] + '"ph": "X", "ts": 12.5.5, ' + text[cut + len('"ph": "X", '):])
    got = {}
    for way in ("alone", "together"):
        db = str(tmp_path / f"{way}.duckdb")
        with monkeypatch.context() as m:
            if way == "alone":
                m.setattr(parsing, "read_together", lambda con, batch: {})
            r = cli("ingest", folder, "--db", db, "--name", "p", "--jobs", "1", check=False)
        rows = [cli("sql", "--db", db, "--format", "csv", q).stdout for q in ALL_ROWS]
        got[way] = (r.returncode, r.stderr, _runs_lines(r.stdout), rows)
    assert got["alone"] == got["together"]
    code, err, lines, rows = got["together"]
    assert code == 1 and err.startswith(f"error: {folder / 'b.json'}: byte ") and err.count("\n") == 1, err
    assert [ln.split("'")[1] for ln in lines] == ["p-rank0", "p-rank2"] and rows[-1].count("\n") == 3
