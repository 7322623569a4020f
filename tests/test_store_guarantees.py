"""What the store promises, tested with real processes: readers are served while an ingest parses; a
writer holds the lock only for its merge (a reader waits for it, a second writer gets one clear line);
a killed or interrupted ingest leaves the store as it was and its side store is cleaned up; a full
disk fails in one line with the store unchanged; a store on a read-only file system opens for reports.

An ingest is held at a chosen point by a small driver process that wraps one engine function so that
it waits for a file to appear: no sleeps decide what the test sees."""
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import tiny_kineto
from helpers import cli, cli_subprocess, tracedb_exe

DRIVER = textwrap.dedent("""
    import os, sys, time
    from tracedb.engine.loading import parsing, single
    from tracedb.engine.loading import staging
    db, path, name, where, ready, go = sys.argv[1:7]

    def held(fn):
        def wrapper(*a, **kw):
            out = fn(*a, **kw)
            open(ready, "w").close()
            while not os.path.exists(go):
                time.sleep(0.01)
            return out
        return wrapper

    if where == "staged":          # the trace is parsed into the side store; the store is not locked
        parsing._load_run = held(parsing._load_run)
    else:                          # inside the merge transaction: the store's write lock is held
        staging.merge = held(staging.merge)
    print(single.ingest_file(db, path, name=name).summary(), flush=True)
""")


def _state(db):
    """What a failed command must not change: the runs and the rows and time of each."""
    return cli("sql", "--db", db, "--format", "csv",
               "SELECT r.run_id, r.name, r.content_hash, count(k.seq) AS n, sum(k.dur_ns) AS dur "
               "FROM runs r LEFT JOIN kernels k USING (run_id) GROUP BY ALL ORDER BY r.run_id").stdout


def _side_files(folder):
    return sorted(f for f in os.listdir(folder) if ".ingest-" in f)


@pytest.fixture
def store(tmp_path):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", tiny_kineto.write(tmp_path / "first.json"), "--db", db, "--name", "first")
    return db


def _held_ingest(tmp_path, db, where, name="second", env=None, dur_factor=3):
    trace = tiny_kineto.write(tmp_path / f"{name}.json", dur_factor=dur_factor)
    ready, go = str(tmp_path / f"{name}.ready"), str(tmp_path / f"{name}.go")
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, db, str(trace), name, where, ready, go],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    deadline = time.monotonic() + 60
    while not os.path.exists(ready):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the ingest never reached the held point"
        time.sleep(0.01)
    return proc, go


def _release(proc, go):
    open(go, "w").close()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return out


def test_readers_are_served_while_an_ingest_parses(store, tmp_path):
    proc, go = _held_ingest(tmp_path, store, "staged")
    try:
        # three other processes read the store while the second run sits parsed in its side store
        assert "first" in cli_subprocess("runs", "--db", store).stdout
        assert cli_subprocess("report", "passes", "--db", store, "--run", "first", "--format", "csv").stdout
        assert cli_subprocess("sql", "--db", store, "SELECT count(*) FROM runs").stdout.split()[-1] == "1"
        assert _side_files(tmp_path)          # the parse went to the side store, beside the store
    finally:
        out = _release(proc, go)
    assert "ingested run 'second'" in out
    assert cli("sql", "--db", store, "--format", "csv", "SELECT name FROM runs ORDER BY run_id").stdout.split() \
        == ["name", "first", "second"]
    assert not _side_files(tmp_path)


@pytest.mark.subprocess
def test_a_reader_waits_for_the_merge_and_a_second_writer_gets_one_clear_line(store, tmp_path):
    proc, go = _held_ingest(tmp_path, store, "merge")
    try:
        impatient = cli_subprocess("ingest", tiny_kineto.write(tmp_path / "third.json", dur_factor=4), "--db", store,
                                   "--name", "third", check=False, env={**os.environ, "TRACEDB_WAIT": "0.2"})
        assert impatient.returncode == 1
        assert impatient.stderr.count("\n") == 1 and impatient.stderr.startswith("error: ")
        assert "in use by another process" in impatient.stderr and "TRACEDB_WAIT" in impatient.stderr
        reader = subprocess.Popen([tracedb_exe(), "sql", "--db", store, "--format", "csv",
                                   "SELECT name FROM runs ORDER BY run_id"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env={**os.environ, "TRACEDB_WAIT": "60"})
    finally:
        _release(proc, go)
    out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    assert out.split() == ["name", "first", "second"]      # it waited for the merge, then saw it whole


@pytest.mark.subprocess
def test_two_ingests_parse_at_once_and_both_land(store, tmp_path):
    a, go_a = _held_ingest(tmp_path, store, "staged", name="a")
    b, go_b = _held_ingest(tmp_path, store, "staged", name="b", dur_factor=7)     # both parsed, side by side
    assert len([f for f in _side_files(tmp_path) if not f.endswith((".wal", ".tmp"))]) == 2
    _release(a, go_a)
    _release(b, go_b)
    names = cli("sql", "--db", store, "--format", "csv", "SELECT name FROM runs ORDER BY run_id").stdout.split()
    assert names == ["name", "first", "a", "b"]


@pytest.mark.subprocess
def test_a_killed_ingest_leaves_the_store_as_it_was_and_the_next_one_cleans_up(store, tmp_path):
    before, size = _state(store), os.path.getsize(store)
    proc, _ = _held_ingest(tmp_path, store, "staged")
    proc.kill()
    proc.communicate()
    assert _side_files(tmp_path), "the killed process's side store should still be there"
    assert _state(store) == before and os.path.getsize(store) == size
    cli("ingest", tiny_kineto.write(tmp_path / "later.json", dur_factor=5), "--db", store, "--name", "later")
    assert not _side_files(tmp_path)


@pytest.mark.subprocess
def test_a_killed_merge_leaves_the_store_as_it_was(store, tmp_path):
    before = _state(store)
    proc, _ = _held_ingest(tmp_path, store, "merge")
    proc.kill()
    proc.communicate()
    assert _state(store) == before      # the open transaction died with the process


def test_ctrl_c_exits_130_in_one_line_and_removes_the_side_store(store, tmp_path):
    before = _state(store)
    proc, go = _held_ingest(tmp_path, store, "staged")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert _state(store) == before
    assert not _side_files(tmp_path)
    # the command itself: a held ingest cannot be reached through the console script, so the CLI's
    # mapping is checked with the interrupt raised where the parse runs
    trace = tiny_kineto.write(tmp_path / "int.json", dur_factor=6)
    code = textwrap.dedent("""
        import sys
        from tracedb.engine.loading import parsing
        def interrupted(*a, **kw):
            raise KeyboardInterrupt
        parsing._load_run = interrupted
        from tracedb.cli.app import main
        sys.argv = ["tracedb", "ingest", sys.argv[1], "--db", sys.argv[2]]
        main()
    """)
    p = subprocess.run([sys.executable, "-c", code, str(trace), store], capture_output=True, text=True)
    assert p.returncode == 130 and p.stderr == "error: interrupted\n", p.stderr
    assert _state(store) == before and not _side_files(tmp_path)


@pytest.mark.parametrize("traces, stop", [(1, "python"), (1, "duckdb"), (3, "python")])
def test_a_stop_after_a_commit_still_prints_the_runs_that_landed(store, tmp_path, monkeypatch, traces, stop):
    """Ctrl-C (or SIGTERM) between a run's commit and its line (here: in the checkpoint after the merge, as
    Python's KeyboardInterrupt or as DuckDB's cut-short query): the run is in the store, so the command prints
    its line before the one error line and exits 130. With three traces (two workers, a batch each), the runs
    of the batch merged stay, each said once."""
    from tracedb.cli.common import QUERY_INTERRUPTED
    from tracedb.engine.loading import staging, store_writes
    real, merged = store_writes.checkpoint_appended, []

    def stopped(con):       # the store's checkpoint, after a merge; a side store's goes on
        if staging.store_path_of(con) != os.path.realpath(store):
            return real(con)
        merged.append(1)
        raise KeyboardInterrupt if stop == "python" else RuntimeError(QUERY_INTERRUPTED)
    monkeypatch.setattr(store_writes, "checkpoint_appended", stopped)
    folder = tmp_path / "job"
    folder.mkdir()
    for i in range(traces):
        tiny_kineto.write(folder / f"rank{i}.json", dur_factor=3 + i)
    target = str(folder / "rank0.json") if traces == 1 else str(folder)
    r = cli("ingest", target, "--db", store, "--name", "late", "--jobs", "2", check=False)
    assert r.returncode == 130 and r.stderr == "error: interrupted\n", r.stderr
    runs = cli("sql", "--db", store, "--format", "csv", "SELECT name FROM runs WHERE name <> 'first' ORDER BY 1")
    landed = runs.stdout.split()[1:]
    assert merged and len(landed) == (1 if traces == 1 else 2)     # the first batch: ranks 0 and 1
    said = [ln.split("'")[1] for ln in r.stdout.splitlines() if ln.startswith("ingested run")]
    assert said == landed, r.stdout
    assert not _side_files(tmp_path)


@pytest.mark.parametrize("where", ["publish", "commit"])
def test_a_stop_within_the_commit_still_prints_the_run_it_landed(tmp_path, monkeypatch, where):
    """Ctrl-C while the commit itself runs: a first ingest's side store linked into place, or a merge's
    COMMIT that DuckDB completes before Python raises the KeyboardInterrupt. Nothing entered the run in the
    command's ledger, so the command asks the store, and prints the run's line before its error line."""
    from tracedb.engine.loading import landing, staging
    store = str(tmp_path / "s.duckdb")
    if where == "commit":
        cli("ingest", tiny_kineto.write(tmp_path / "first.json"), "--db", store, "--name", "first")
        real = landing.committing

        @contextlib.contextmanager
        def stopped(path, results):
            with real(path, results):
                yield lambda: None
                raise KeyboardInterrupt      # after the block: COMMIT done
        monkeypatch.setattr(landing, "committing", stopped)
    else:
        real_publish = staging.publish

        def stopped(side, path):
            real_publish(side, path)
            raise KeyboardInterrupt
        monkeypatch.setattr(staging, "publish", stopped)
    r = cli("ingest", tiny_kineto.write(tmp_path / "late.json", dur_factor=3), "--db", store, "--name", "late",
            check=False)
    assert r.returncode == 130 and r.stderr == "error: interrupted\n", r.stderr
    runs = cli("sql", "--db", store, "--format", "csv", "SELECT name FROM runs WHERE name = 'late'")
    assert runs.stdout.split()[1:] == ["late"]
    assert [ln.split("'")[1] for ln in r.stdout.splitlines() if ln.startswith("ingested run")] == ["late"], r.stdout


def test_a_failed_first_ingest_creates_no_store_file(tmp_path):
    db = tmp_path / "new.duckdb"
    cut = tmp_path / "cut.csv"
    cut.write_text("Name,Type,Start Time(us),Duration(us)\nA,MatMul,1000.0,")
    r = cli("ingest", str(cut), "--db", str(db), check=False)
    assert r.returncode == 1 and r.stderr.startswith("error: ")
    assert not db.exists() and not _side_files(tmp_path)


def test_a_merge_that_fails_to_write_leaves_the_store_unchanged(store, tmp_path, monkeypatch):
    """A write error inside the merge transaction (what a full disk gives): rolled back, one line."""
    import duckdb
    from tracedb.engine.loading import staging
    real = staging.merge

    def fails_half_way(con, run_id):
        real(con, run_id)
        raise duckdb.IOException('IO Error: Could not write file "s.duckdb": No space left on device')

    monkeypatch.setattr(staging, "merge", fails_half_way)
    before, size = _state(store), os.path.getsize(store)
    r = cli("ingest", tiny_kineto.write(tmp_path / "x.json", dur_factor=3), "--db", store, "--name", "x", check=False)
    assert r.returncode == 1 and r.stderr.count("\n") == 1
    assert "No space left on device" in r.stderr and "the store is unchanged" in r.stderr
    monkeypatch.undo()
    assert _state(store) == before and os.path.getsize(store) == size and not _side_files(tmp_path)


def test_a_merge_that_cannot_fit_is_refused_before_it_starts(store, tmp_path, monkeypatch):
    import shutil
    from collections import namedtuple
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10 << 20, 9 << 20, 1 << 20))
    before = _state(store)
    r = cli("ingest", tiny_kineto.write(tmp_path / "x.json", dur_factor=3), "--db", store, "--name", "x", check=False)
    monkeypatch.undo()
    assert r.returncode == 1 and "MB free" in r.stderr and "the store is unchanged" in r.stderr
    assert _state(store) == before and not _side_files(tmp_path)


def test_identical_content_is_skipped_before_parsing_and_the_store_does_not_grow(store, tmp_path, monkeypatch):
    from tracedb.engine.loading import parsing
    size = os.path.getsize(store)

    def never(*a, **kw):
        raise AssertionError("identical content was parsed")

    monkeypatch.setattr(parsing, "_stage", never)
    r = cli("ingest", str(tmp_path / "first.json"), "--db", store, "--name", "again")
    assert "skipped" in r.stdout and "'first'" in r.stdout
    assert os.path.getsize(store) == size and not _side_files(tmp_path)


def _big_trace(path, n):
    """A valid Kineto trace of `n` kernels (one stream), ~130 bytes each."""
    events = [{"ph": "X", "cat": "kernel", "name": f"k{i % 7}", "pid": 0, "tid": 7, "ts": 1000 + 3 * i, "dur": 2,
               "args": {"device": 0, "stream": 7}} for i in range(n)]
    path.write_text(json.dumps({"traceEvents": events}))
    return str(path)


def _mount_tmpfs(path, size="24m"):
    os.makedirs(path, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if p.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root): " + p.stderr.decode().strip())


@pytest.mark.slow
def test_a_full_disk_fails_in_one_line_and_leaves_the_store_as_it_was(tmp_path):
    mnt = tmp_path / "small"
    _mount_tmpfs(mnt, "6m")
    try:
        db = str(mnt / "s.duckdb")
        cli("ingest", tiny_kineto.write(tmp_path / "first.json"), "--db", db, "--name", "first")
        before, size = _state(db), os.path.getsize(db)
        big = _big_trace(tmp_path / "big.json", 200_000)   # 26 MB of events: cannot fit
        r = cli_subprocess("ingest", big, "--db", db, "--name", "big", check=False)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and r.stderr.startswith("error: "), r.stderr
        assert "Traceback" not in r.stderr
        assert _state(db) == before and os.path.getsize(db) == size and not _side_files(mnt)
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_a_store_on_a_read_only_file_system_opens_for_reports(tmp_path):
    mnt = tmp_path / "ro"
    _mount_tmpfs(mnt)
    try:
        db = str(mnt / "s.duckdb")
        cli("ingest", tiny_kineto.write(tmp_path / "first.json"), "--db", db, "--name", "first")
        if subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True).returncode != 0:
            pytest.skip("cannot remount read-only here")
        assert "first" in cli_subprocess("runs", "--db", db).stdout
        assert cli_subprocess("report", "kernels", "--db", db, "--run", "first", "--format", "json").stdout
        r = cli_subprocess("ingest", tiny_kineto.write(tmp_path / "x.json", dur_factor=3), "--db", db, check=False)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def _big_csv(path, rows):
    gen = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "gen_kernel_details.py")
    subprocess.run([sys.executable, gen, str(path), "--rows", str(rows), "--no-pmu"], check=True, capture_output=True)
    return str(path)


@pytest.mark.parametrize("kind, sig", [("csv", signal.SIGINT), ("json", signal.SIGINT), ("json", signal.SIGTERM)])
@pytest.mark.subprocess
def test_a_real_signal_during_the_parse_exits_in_one_line(store, tmp_path, kind, sig):
    """The console script itself, sent SIGINT while DuckDB parses (DuckDB turns the signal into an
    interrupted query): exit 130, `error: interrupted`; SIGTERM: exit 143 once the running query returns.
    Either way the store is unchanged and no side store is left."""
    trace = (_big_csv(tmp_path / "big.csv", 300_000) if kind == "csv"
             else _big_trace(tmp_path / "big.json", 600_000))
    before = _state(store)
    p = subprocess.Popen([tracedb_exe(), "ingest", trace, "--db", store, "--name", "big"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not [f for f in _side_files(tmp_path) if not f.endswith((".wal", ".tmp"))]:
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "the ingest never started its side store"
        time.sleep(0.01)
    time.sleep(0.3)          # well inside the parse: it takes seconds for these sizes
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    want = (130, "error: interrupted\n") if sig == signal.SIGINT else (143, "error: terminated (SIGTERM)\n")
    assert (p.returncode, err) == want, err
    assert _state(store) == before and not _side_files(tmp_path)


def test_an_empty_file_or_an_empty_duckdb_file_becomes_a_store(tmp_path):
    import duckdb
    touched = tmp_path / "touched.duckdb"
    touched.touch()
    blank = str(tmp_path / "blank.duckdb")
    duckdb.connect(blank).close()
    for db in (str(touched), blank):
        r = cli("runs", "--db", db, check=False)
        assert r.returncode == 1 and "ingest a trace into it first" in r.stderr
        cli("ingest", tiny_kineto.write(tmp_path / "t.json"), "--db", db, "--name", "t")
        assert "t" in cli("sql", "--db", db, "--format", "csv", "SELECT name FROM runs").stdout.split()
