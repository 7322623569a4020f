"""Inputs that meet Python's or DuckDB's own limits, whose messages name nothing (RecursionError, `Exceeds the
limit (4300 digits)`, an INT64 or INT128 overflow, a TransactionException, Dask's TypeError): each gives one
`error:` line naming the file, store, folder or option and what was expected, or, where the input is usable, is
read within bounds (a folder 1,000 levels deep, one absurd shape among good ones, a FIFO among traces)."""
import copy
import errno
import json
import os
import sqlite3
import stat
import subprocess
import sys

import pytest

import nsys_synth
import test_rocprof
import tiny_kineto
import tiny_trace
import tracedb
from fuzz_corpus import OPSUM_HEADER
from helpers import cli, tracedb_exe, write_csv
from test_work_formulas import BF, _kineto


def refused(r, code: int, *names) -> str:
    """The call failed with exit `code` and exactly one `error:` line on stderr naming each of `names`; no
    traceback and no internal error anywhere."""
    out = r.stdout + r.stderr
    assert "Traceback" not in out and "internal error" not in out, out[-2000:]
    assert r.returncode == code, r.stderr[-2000:]
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr[-2000:]
    for n in names:
        assert str(n) in lines[0], (n, lines[0][:2000])
    return lines[0]


def query(db, q):
    con = tracedb.connect(str(db), read_only=True)
    try:
        return con.execute(q).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """The tiny Ascend trace as run 'tiny'."""
    d = tmp_path_factory.mktemp("errors")
    db = str(d / "s.duckdb")
    cli("ingest", tiny_trace.write(d / "kernel_details.csv"), "--db", db, "--name", "tiny")
    return db


NESTED = "[" * 100_000 + "]" * 100_000       # past any recursion limit of Python's parsers
DIGITS = "9" * 5000                           # past int()'s 4,300 digits


# ------------------------------------------------------------------------------------- 1. nesting, 2. digits
def test_a_folder_1000_levels_deep_is_searched(tmp_path, db_path):
    d = tmp_path / "deep"
    levels = [str(d)]
    for _ in range(1000):        # os.makedirs, and pytest's removal of tmp_path, recurse once per level
        levels.append(os.path.join(levels[-1], "a"))
    try:
        for p in levels:
            os.mkdir(p)
        tiny_kineto.write(os.path.join(levels[-1], "t.json"))
        r = cli("ingest", d, "--db", db_path, check=False)
        assert r.returncode == 0 and r.stderr == "", r.stderr[-2000:]
        assert query(db_path, "SELECT name, kernel_count FROM runs") == [("deep-rank3", 12)]
    finally:
        if os.path.exists(os.path.join(levels[-1], "t.json")):
            os.unlink(os.path.join(levels[-1], "t.json"))
        for p in reversed(levels):
            if os.path.isdir(p):
                os.rmdir(p)


def _dataset(store, tmp_path, change) -> str:
    folder = tmp_path / "ds"
    cli("export", "parquet", "--db", store, folder)
    path = folder / "tracedb-dataset.json"
    path.write_text(change(path.read_text()))
    return str(folder)


def test_a_dataset_manifest_nested_deeply_is_refused_naming_it(store, tmp_path):
    folder = _dataset(store, tmp_path, lambda text: text.rstrip()[:-1] + ', "x": ' + NESTED + "}")
    line = refused(cli("runs", "--db", folder + "/", check=False), 1, os.path.join(folder, "tracedb-dataset.json"))
    assert "nested too deeply to read" in line and "expected the manifest of a tracedb dataset" in line


def test_a_dataset_manifest_with_a_number_of_5000_digits_is_refused_naming_it(store, tmp_path):
    folder = _dataset(store, tmp_path, lambda text: text.replace('"next_run_id": 2', '"next_run_id": ' + DIGITS))
    line = refused(cli("runs", "--db", folder + "/", check=False), 1, "tracedb-dataset.json")
    assert "a number of more than 4300 digits" in line


def test_a_dataset_run_id_past_an_integer_is_refused(store, tmp_path):
    folder = _dataset(store, tmp_path, lambda text: text.replace('"next_run_id": 2', '"next_run_id": ' + "9" * 30))
    line = refused(cli("runs", "--db", folder + "/", check=False), 1, "tracedb-dataset.json")
    assert "next_run_id is 999999999999999999999999999999; expected an integer from 1 to 2147483647" in line


@pytest.mark.parametrize("content, says", [
    ("anchor = " + NESTED[:3000] + NESTED[-3000:] + "\n", "nested too deeply to read"),
    ("layers = " + DIGITS + "\n", "a number of more than 4300 digits"),
    (b"anchor = '\xff'\n", "byte offset 10: not UTF-8 text"),
])
def test_a_profile_toml_past_the_readers_limits_is_refused_naming_it(store, tmp_path, content, says):
    prof = tmp_path / "p.toml"
    prof.write_bytes(content if isinstance(content, bytes) else content.encode())
    for args in (["report", "layers", "--db", store, "--run", "tiny", "--profile", prof],
                 ["segment", "--db", store, "--run", "tiny", "--profile", prof],
                 ["profiles", "show", prof]):
        line = refused(cli(*args, check=False), 2, str(prof), says)
        assert "model profile TOML" in line


@pytest.mark.parametrize("content, says", [
    ('{"num_hidden_layers": 2, "x": ' + NESTED + "}", "nested too deeply to read"),
    ('{"num_hidden_layers": ' + DIGITS + "}", "a number of more than 4300 digits"),
])
def test_a_model_config_json_past_the_readers_limits_is_refused_naming_it(store, tmp_path, content, says):
    config = tmp_path / "config.json"
    config.write_text(content)
    line = refused(cli("report", "layers", "--db", store, "--run", "tiny", "--config", config, check=False), 2,
                   f"--config {str(config)!r}", says)
    assert "use sys.set_int_max_str_digits" not in line


# ------------------------------------------------------------------------------------- 3. absurd shapes
def test_one_absurd_shape_leaves_that_kernels_work_unknown(tmp_path, db_path):
    big = 2**62
    trace = _kineto(tmp_path / "t.json", [
        ("aten::mm", 0, 40, [[big, big], [big, big]], [BF, BF], None, [("gemm_absurd", 10)]),
        ("aten::add", 50, 40, [[big, big, big], [big, big, big]], [BF, BF], None, [("add_absurd", 10)]),
        ("aten::mm", 100, 40, [[64, 64], [64, 128]], [BF, BF], None, [("gemm_ok", 10)]),
    ])
    r = cli("ingest", trace, "--db", db_path, check=False)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    got = query(db_path, "SELECT k.name, w.flops, w.bytes FROM kernels k LEFT JOIN kernel_work w USING (run_id, seq) "
                         "ORDER BY k.start_ns")
    # 2 * 64 * 128 * 64 FLOPs; bytes (64*64 + 64*128 + 64*128) * 2 for bf16
    assert got == [("gemm_absurd", None, None), ("add_absurd", None, None), ("gemm_ok", 1_048_576, 40_960)]


def test_one_absurd_ascend_shape_leaves_that_kernels_work_unknown(tmp_path, db_path):
    rows = tiny_trace.rows()
    big = "999999999999999999"          # 18 digits, the most a shape cell's dimension may have
    rows[2][15] = f'"{big},{big};{big},{big}"'          # pass 0's qkv MatMulV3
    r = cli("ingest", write_csv(tmp_path / "kernel_details.csv", tiny_trace.HEADER, rows), "--db", db_path,
            check=False)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    got = query(db_path, "SELECT k.seq, w.flops FROM kernels k LEFT JOIN kernel_work w USING (run_id, seq) "
                         "WHERE k.op_type = 'MatMulV3' ORDER BY k.seq LIMIT 3")
    # the tiny trace's MatMulV3 shapes 16x4096 by 4096x4096: 2 * 16 * 4096 * 4096
    assert [f for _, f in got] == [None, 536_870_912, 536_870_912]


# ------------------------------------------------------------------------------------- 4. nsys times
@pytest.mark.parametrize("start, end", [((1 << 63) - 10, (1 << 63) - 1), (-(1 << 63) + 5, 100)])
def test_an_nsys_kernel_time_past_the_bound_is_refused_naming_the_table(tmp_path, db_path, start, end):
    x = nsys_synth.Export()
    c = x.api(1000, 1001, 7, 1, "cudaLaunchKernel_v7000")
    x.kernel(2000, 3000, "k0", pid=7, corr=c)
    x.kernel(start, end, "k", pid=7)
    p = x.write(tmp_path / "t.sqlite")
    refused(cli("ingest", p, "--db", db_path, check=False), 1, p,
            f"CUPTI_ACTIVITY_KIND_KERNEL: a row with start {start} and end {end}; expected integer ns, start <= end, "
            "each from -1e18 to 5e18")
    assert not os.path.exists(db_path)


def test_an_nvtx_range_past_the_bound_is_refused(tmp_path, db_path):
    x = nsys_synth.build(devices=(0,))
    x.push(-(1 << 63), 5, 100, 1, "forever")
    p = x.write(tmp_path / "t.sqlite")
    refused(cli("ingest", p, "--db", db_path, check=False), 1, p,
            f"NVTX_EVENTS: a row with start {-(1 << 63)} and end 5; expected integer ns, each from -1e18 to 5e18")


# ------------------------------------------------------------------------------------- 5. a 50 MB cell
@pytest.mark.parametrize("layout", ["op_summary", "kernel_details"])
def test_a_50_mb_csv_cell_is_refused_naming_the_line_and_the_limit(tmp_path, db_path, layout):
    rows = [[r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15], r[16],
             r[17], r[18], r[19], r[20], r[21], r[22], "123"] for r in tiny_trace.rows()] \
        if layout == "op_summary" else tiny_trace.rows()
    rows[3][4 if layout == "op_summary" else 5] = "x" * 50_000_000
    header = OPSUM_HEADER if layout == "op_summary" else tiny_trace.HEADER
    p = write_csv(tmp_path / ("op_summary_0_1.csv" if layout == "op_summary" else "kernel_details.csv"), header, rows)
    line = refused(cli("ingest", p, "--db", db_path, check=False), 1, p, "line 5: longer than 4 MiB")
    assert line.endswith("expected CSV lines of at most 4 MiB (a real kernel_details.csv line is about 1 KB)")


# ------------------------------------------------------------------------------------- 6. tracedb check
CHECK = """[[check]]
name = {name}
report = "passes"
args = ["--db", "{db}", "--run", "tiny"]
golden = "golden.csv"
{extra}
"""


def _check(tmp_path, store, name='"tiny passes"', extra=""):
    cfg = tmp_path / "check.toml"
    cfg.write_text(CHECK.format(name=name, db=store, extra=extra))
    return cfg


@pytest.mark.parametrize("extra, says", [
    ('keys = ["run", "pas"]', "[[check]] #1: keys: no column 'pas' in the passes report; its columns: run, pass,"),
    ("rel_tol = " + "9" * 400, "[[check]] #1: rel_tol is 9999999999999999999999999999999999999999… (400 "
                               "characters); expected a finite number of 0 or more"),
    ("rel_tol = " + DIGITS, "a number of more than 4300 digits; expected a TOML file of [[check]] tables"),
    ("keys = " + NESTED[:3000] + NESTED[-3000:], "nested too deeply to read"),
])
def test_a_check_config_mistake_is_one_line_naming_the_config(store, tmp_path, extra, says):
    cfg = _check(tmp_path, store, extra=extra)
    for update in ([], ["--update"]):
        refused(cli("check", "--config", cfg, *update, check=False), 2, str(cfg), says)


def test_a_golden_with_a_cell_past_the_csv_modules_limit_is_compared(store, tmp_path):
    cfg = _check(tmp_path, store)
    cli("check", "--config", cfg, "--update")
    golden = tmp_path / "golden.csv"
    lines = golden.read_text().splitlines(True)
    head = lines[1].split(",")
    head[-1] = "x" * 200_000 + "\n"      # the note column of pass 0: past the csv module's 128 KiB
    golden.write_text(lines[0] + ",".join(head) + "".join(lines[2:]))
    r = cli("check", "--config", cfg, check=False)
    assert r.returncode == 1 and r.stderr == "" and "Traceback" not in r.stdout
    out = r.stdout.splitlines()
    assert out[0].startswith("FAIL  tiny passes (")
    assert out[1].startswith("      run tiny, pass 0, phase forward, note: 'xxxx")
    assert out[1].endswith("'… (200,000 characters) -> 'cold-start'")
    assert len(out[1]) < 600


def test_a_golden_that_is_not_utf8_is_refused_naming_it(store, tmp_path):
    cfg = _check(tmp_path, store)
    (tmp_path / "golden.csv").write_bytes(b"\xff\xfe,pass\n")
    refused(cli("check", "--config", cfg, check=False), 1, str(tmp_path / "golden.csv"), "byte offset 0: not UTF-8")


def test_a_check_name_with_an_escape_is_shown_escaped(store, tmp_path):
    cfg = _check(tmp_path, store, name='"red\\u001b[31m check"')
    r = cli("check", "--config", cfg, "--update")
    assert "\x1b" not in r.stdout and r.stdout.startswith("updated  red\\x1b[31m check (")
    r = cli("check", "--config", cfg)
    assert r.stdout.startswith("PASS  red\\x1b[31m check (") and "\x1b" not in r.stdout + r.stderr


# ------------------------------------------------------------------------------------- 7. Dask transports
@pytest.mark.parametrize("address, says", [
    ("tls://host:1", "tls:// needs Dask's TLS settings, and none are set"),
    ("ucx://host:1", "Dask here cannot connect over ucx://"),
])
def test_a_scheduler_transport_dask_cannot_use_is_refused_before_any_work(tmp_path, address, says):
    pytest.importorskip("distributed")
    if address.startswith("ucx"):
        from distributed.comm import registry
        try:
            registry.get_backend("ucx").get_connector()
            pytest.skip("UCX is installed here")
        except Exception:
            pass
    out = tmp_path / "out"
    trace = tiny_kineto.write(tmp_path / "t.json")
    p = subprocess.run([tracedb_exe(), "ingest", trace, "--to", out, "--scheduler", address], capture_output=True,
                       text=True, timeout=120)
    refused(p, 2, f"--scheduler {address}", says)
    assert not out.exists()


# ------------------------------------------------------------------------------------- 8. disk full
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("command", [["report", "passes"], ["export", "perfetto"]])
def test_a_full_disk_names_the_output(store, command):
    refused(cli(*command, "--db", store, "--run", "tiny", "-o", "/dev/full", check=False), 1,
            "/dev/full: No space left on device")


@pytest.mark.parametrize("command", [["report", "passes"], ["export", "perfetto"]])
def test_a_full_disk_names_the_output_file(store, tmp_path, monkeypatch, command):
    from tracedb import atomic

    real = atomic.replaced

    class Full:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.f, name)

    def replaced(path, binary=False, fsync=False):
        import contextlib

        @contextlib.contextmanager
        def full():
            with real(path, binary=binary, fsync=fsync) as f:
                yield Full(f)
        return full()
    monkeypatch.setattr(atomic, "replaced", replaced)
    out = tmp_path / "out.json"
    refused(cli(*command, "--db", store, "--run", "tiny", "-o", out, check=False), 1,
            f"{out}: No space left on device")
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------------------------- 9. segment
def test_segment_into_a_store_whose_folder_is_read_only_names_the_store(store, tmp_path, monkeypatch):
    from tracedb import atomic
    db = tmp_path / "s.duckdb"
    db.write_bytes(open(store, "rb").read())

    def read_only(path):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
    monkeypatch.setattr(atomic, "probe", read_only)
    line = refused(cli("segment", "--db", db, "--run", "tiny", check=False), 1,
                   f"{db}: cannot write the store: its folder {tmp_path} is not writable (Read-only file system)")
    assert "s.duckdb.wal" in line
    refused(cli("runs", "tag", "tiny", "x=1", "--db", db, check=False), 1, f"{db}: cannot write the store")


def test_segment_on_a_read_only_mount_names_the_store(store, tmp_path):
    """The real case: a store file that can be written in a folder that cannot (DuckDB's log goes beside it)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    db = mnt / "s.duckdb"
    try:
        db.write_bytes(open(store, "rb").read())
        for args in (["mount", "--bind", db, db], ["mount", "-o", "remount,ro,bind", mnt]):
            if subprocess.run(args, capture_output=True).returncode:
                pytest.skip("cannot remount read-only here")
        r = cli("segment", "--db", db, "--run", "tiny", check=False)
        refused(r, 1, f"{db}: cannot write the store: its folder {mnt} is not writable (Read-only file system)")
        assert cli("report", "passes", "--db", db, "--run", "tiny").stdout
    finally:
        subprocess.run(["umount", db], capture_output=True)
        subprocess.run(["umount", mnt], capture_output=True)


def test_a_failed_commit_of_segment_names_the_store(store, tmp_path, monkeypatch):
    import duckdb

    from tracedb.engine.segmentation import persist
    db = tmp_path / "s.duckdb"
    db.write_bytes(open(store, "rb").read())

    def failing(con, options):
        raise duckdb.TransactionException("TransactionContext Error: cannot rollback - no transaction is active")
    monkeypatch.setattr(persist, "segment_runs", failing)
    refused(cli("segment", "--db", db, "--run", "tiny", check=False), 1,
            f"{db}: cannot write the store (TransactionContext Error: cannot rollback")


def test_segment_while_another_process_writes_names_the_store_and_the_process(store, tmp_path):
    db = tmp_path / "s.duckdb"
    db.write_bytes(open(store, "rb").read())
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); sys.stdin.read()", str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        r = cli("segment", "--db", db, "--run", "tiny", check=False, env={**os.environ, "TRACEDB_WAIT": "0"})
        refused(r, 1, f"{db}: the store is in use by another process (PID {holder.pid})")
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


# ------------------------------------------------------------------------------------- 10. --to NEWDIR
def test_a_failed_first_ingest_into_a_new_dataset_leaves_no_folder(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [')
    new = tmp_path / "new"
    refused(cli("ingest", bad, "--to", new, check=False), 1, bad)
    assert not new.exists()
    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "a.json").write_text('{"traceEvents": [')
    (folder / "b.json").write_text('{"traceEvents": [')
    r = cli("ingest", folder, "--to", new, "--jobs", "1", check=False)
    assert r.returncode == 1 and r.stderr.splitlines()[-1] == "error: 2 of 2 traces failed (above); no run was ingested"
    assert not new.exists()


# ------------------------------------------------------------------------------------- 11. long values
def test_a_1_mb_anchor_is_cut_in_the_error_line(store):
    line = refused(cli("report", "layers", "--db", store, "--run", "tiny", "--anchor", "(" + "a" * 1_000_000,
                       check=False), 2, "--anchor '(aaaa", "(1,000,001 characters): not a valid RE2 pattern")
    assert len(line) < 700


def test_any_error_line_past_2000_characters_is_cut_in_its_middle(store):
    line = refused(cli("report", "passes", "--db", store, "--run", "r" * 1_000_000, check=False), 2, "run 'rrrr")
    assert "characters cut) …" in line and len(line) < 2100


# ------------------------------------------------------------------------------------- 12. rocprofv3 times
@pytest.mark.parametrize("value, shown", [
    (1.5, "start_timestamp 1.5 (a fraction or exponent)"),
    ("1", 'start_timestamp "1" (a string)'),
    (True, "start_timestamp true (a boolean)"),
    (int(DIGITS[:40]), "start_timestamp " + DIGITS[:40] + " (an integer past 64 bits)"),
])
def test_a_rocprof_time_that_is_no_integer_ns_is_refused_naming_the_field(tmp_path, db_path, value, shown):
    doc = copy.deepcopy(test_rocprof.document(gpus=1))
    doc["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][2]["start_timestamp"] = value
    p = test_rocprof.write(tmp_path / "r.json", doc)
    line = refused(cli("ingest", p, "--db", db_path, check=False), 1, p,
                   f"buffer_records.kernel_dispatch[2] has {shown}")
    assert line.endswith("expected integer ns from 0 to 5e18, start_timestamp <= end_timestamp")


def test_a_rocprof_time_past_the_bound_is_refused(tmp_path, db_path):
    doc = copy.deepcopy(test_rocprof.document(gpus=1))
    doc["rocprofiler-sdk-tool"][0]["buffer_records"]["memory_copy"][0]["end_timestamp"] = (1 << 63) - 1
    p = test_rocprof.write(tmp_path / "r.json", doc)
    refused(cli("ingest", p, "--db", db_path, check=False), 1, p,
            f"buffer_records.memory_copy[0] has start_timestamp {test_rocprof.T0 - 5000} and end_timestamp "
            f"{(1 << 63) - 1}: out of range")


# ------------------------------------------------------------------------------------- 13. folders
def test_a_fifo_a_device_and_a_dangling_link_in_a_folder_are_skipped_the_traces_kept(tmp_path, db_path):
    d = tmp_path / "job"
    d.mkdir()
    tiny_kineto.write(d / "rank0.json")
    tiny_kineto.write(d / "rank1.json", dur_factor=2)
    os.mkfifo(d / "fifo.json")
    os.symlink("/dev/null", d / "dev.json")
    os.symlink(tmp_path / "nowhere.json", d / "gone.json")
    # its own process, with a deadline: a FIFO opened for reading would block it for good
    p = subprocess.run([tracedb_exe(), "ingest", d, "--db", db_path], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert "  not loaded: fifo.json — not a regular file (a named pipe), never opened" in p.stdout.splitlines()
    assert "  not loaded: dev.json — not a regular file (a character device), never opened" in p.stdout.splitlines()
    assert "  not loaded: gone.json — a symbolic link to a missing file" in p.stdout.splitlines()
    assert query(db_path, "SELECT name FROM runs ORDER BY 1") == [("job-rank0",), ("job-rank1",)]
    assert stat.S_ISFIFO(os.stat(d / "fifo.json").st_mode)


def test_a_folder_of_only_a_fifo_is_refused_naming_it(tmp_path, db_path):
    d = tmp_path / "job"
    d.mkdir()
    os.mkfifo(d / "rank0.json")
    p = subprocess.run([tracedb_exe(), "ingest", d, "--db", db_path], capture_output=True, text=True, timeout=120)
    refused(p, 1, f"{d}: no trace to read in this folder; left out: rank0.json (not a regular file (a named pipe)")


def test_ten_thousand_files_not_loaded_are_summed_up_in_one_short_line(tmp_path, db_path):
    d = tmp_path / "job"
    d.mkdir()
    tiny_kineto.write(d / "rank0.json")
    for i in range(10_000):
        (d / f"note{i:05d}.txt").write_text("x")
    r = cli("ingest", d, "--db", db_path)
    line = next(x for x in r.stdout.splitlines() if "not loaded" in x)
    assert line == ("  not loaded: " + ", ".join(f"note{i:05d}.txt" for i in range(10))
                    + " and 9,990 more — not a trace (no reader claims it)")


def test_an_nsys_export_is_still_refused_when_it_is_cut(tmp_path, db_path):
    """A regular file named like a trace that its reader refuses stays a failed trace of the folder, named."""
    d = tmp_path / "job"
    d.mkdir()
    tiny_kineto.write(d / "rank0.json")
    p = nsys_synth.profile(d / "prof.sqlite", devices=(0,))
    con = sqlite3.connect(p)
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -(1 << 62)")
    con.commit()
    con.close()
    r = cli("ingest", d, "--db", db_path, check=False)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert [x for x in r.stderr.splitlines()] == [
        f"error: {p}: CUPTI_ACTIVITY_KIND_KERNEL: a row with start {-(1 << 62)} and end 30000; expected integer ns, "
        "start <= end, each from -1e18 to 5e18"]
    assert query(db_path, "SELECT name FROM runs") == [("job-rank0",)]


def test_a_kineto_number_of_5000_digits_in_an_event_tracedb_walks_is_named_by_its_byte(tmp_path, db_path):
    # the last events of the array are walked by Python's parser, whose int() stops at 4,300 digits
    doc = json.dumps(json.load(open(tiny_kineto.write(str(tmp_path / "t.json")))))
    at = doc.rindex('"dur"')
    path = tmp_path / "big.json"
    path.write_text(doc[:at] + '"big": ' + DIGITS + ", " + doc[at:])
    line = refused(cli("ingest", str(path), "--db", db_path, check=False), 1, path, "a number of more than 4300 digits")
    assert line.startswith(f"error: {path}: byte ")
