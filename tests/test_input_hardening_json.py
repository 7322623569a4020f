"""The Chrome / Kineto JSON ingest keeps the promise on hostile input: exit 0, 1 or 2; on failure one
`error:` line naming the user's file (and the byte in it where that applies) and what was expected; no
traceback, no hang; the store unchanged; no part file left behind (docs/formats.md, "What JSON input is
refused").

Each group below fails without the mechanism it names (ingest/chrome_json): durations and timestamps
checked and read exactly; the array's end found by walking its last events; errors mapped from part files
to the user's bytes; a complete document followed by other data refused while a cut one is kept; the keys
around the events read with limits and checked; the work folder removed or swept; Ctrl-C ending as
`interrupted`; every odd shape either loaded sensibly or refused in one line."""
import dataclasses
import errno
import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time

import duckdb
import pytest

import tiny_kineto
import tiny_swimlane
from helpers import ROOT, cli, copy_store, slow_beyond, tracedb_exe
from tracedb.ingest import chrome_json
from tracedb.ingest.chrome_json import part_files

SPLIT_SMALL = dataclasses.replace(chrome_json.DEFAULT, part_min=0)
WORK = ".tracedb-json-"         # WORK: a JSON ingest's work folder beside the store
KERNEL_DUR_NS = 67_000          # tiny_kineto: 12 device activities, 67 µs in all
BASE = tiny_kineto.BASE_NS


# ------------------------------------------------------------------------------------------- helpers
def doc_with(change) -> dict:
    doc = tiny_kineto.document()
    change(doc)
    return doc


def first_kernel(doc) -> dict:
    return next(e for e in doc["traceEvents"] if e.get("cat") == "kernel")


def write(path, data, gz=False) -> str:
    raw = data if isinstance(data, bytes) else \
        (data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))).encode()
    path.write_bytes(gzip.compress(raw) if gz else raw)
    return str(path)


def runs(db) -> str:
    return cli("sql", "--db", db, "--format", "csv", "select run_id, name, content_hash from runs").stdout


@pytest.fixture(scope="module")
def ok_store(tmp_path_factory):
    """A store holding one good run, built once for the module; each test takes its own copy (`store`)."""
    folder = tmp_path_factory.mktemp("ok_store")
    db = str(folder / "store.duckdb")
    cli("ingest", tiny_kineto.write(folder / "ok.json"), "--db", db, "--name", "ok")
    return db, runs(db)


@pytest.fixture
def store(ok_store, tmp_path):
    """A store of the test's own holding one good run, and its runs rows (what a failed ingest must leave as
    they are)."""
    db, rows = ok_store
    return copy_store(db, str(tmp_path / "store.duckdb")), rows


def refused(store, path, *needles):
    """Ingest `path` into the store: exit 1, one line naming the file and each needle, store unchanged,
    no work folder left. Returns the line."""
    db, before = store
    p = cli("ingest", path, "--db", db, check=False)
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith(f"error: {path}: "), p.stderr
    assert "Traceback" not in p.stderr and "part" not in p.stderr.split(path, 1)[1].split(";")[0], p.stderr
    for needle in needles:
        assert needle in p.stderr, p.stderr
    assert runs(db) == before
    assert not [f for f in os.listdir(os.path.dirname(db)) if f.startswith(WORK)]
    return p.stderr


def loaded(tmp_path, path, sql="select count(*), sum(dur_ns) from kernels"):
    db = str(tmp_path / "loaded.duckdb")
    p = cli("ingest", path, "--db", db, "--name", "r")
    con = duckdb.connect(db, read_only=True)
    try:
        return p, con.execute(sql).fetchall()
    finally:
        con.close()


def offset_of(path, needle: bytes, before: bytes = b"") -> int:
    """Byte offset of `needle` in the file (of the '{' before it when `before` is b'{')."""
    data = open(path, "rb").read()
    at = data.index(needle)
    return data.rindex(before, 0, at) if before else at


def with_parts(monkeypatch, n, config=SPLIT_SMALL):
    """Make every ingest cut the file into `n` parts with `config` (a tiny file into several parts); the
    safe retry reads one part, as it does."""
    real = chrome_json.load

    def load(con, run_id, path, parts=None, safe=False, **kw):
        return real(con, run_id, path, parts=1 if safe else n, safe=safe, config=config, **kw)
    monkeypatch.setattr(chrome_json, "load", load)


# ------------------------------------------------- 1. durations and timestamps: refused, or kept exactly
@pytest.mark.parametrize("dur, shown", slow_beyond([
    (-5, "dur -5"), (None, "dur null"), (True, "dur true"), (False, "dur false"), ("abc", 'dur "abc"'),
    (1e300, "dur 1e+300"), ("missing", "no dur"), ([3], "dur [3]")], range(0, 99, 2)))
def test_a_complete_event_whose_dur_is_not_a_duration_is_refused_naming_it(store, tmp_path, dur, shown):
    doc = tiny_kineto.document()
    k = first_kernel(doc)
    if dur == "missing":
        del k["dur"]
    else:
        k["dur"] = dur
    path = write(tmp_path / "dur.json", doc)
    at = offset_of(path, b'"name":"gemm_kernel"', b"{")
    refused(store, path, f"byte {at}: the event 'gemm_kernel' (ph 'X') has {shown}; expected a duration in µs")


def test_zero_and_numeric_text_durations_are_kept(tmp_path):
    # dur 0 is common in real traces (14,685 complete events of HTA's control.json.gz, Kineto's own clamp of
    # negative durations); "2.5" reads as the number it spells
    doc = tiny_kineto.document()
    k = first_kernel(doc)
    k["dur"] = 0
    next(e for e in doc["traceEvents"] if e.get("name") == "flash_fwd_kernel")["dur"] = "2.5"
    _, got = loaded(tmp_path, write(tmp_path / "z.json", doc))
    assert got == [(12, KERNEL_DUR_NS - 10_000 - 2_500)]


def test_negative_task_durations_of_a_swimlane_are_refused(store, tmp_path):
    ev = tiny_swimlane.events()
    next(e for e in ev if e.get("name") == "mm(r1t1)")["dur"] = -3
    path = write(tmp_path / "swimlane.json", {"traceEvents": ev})
    at = offset_of(path, b'"name":"mm(r1t1)"', b"{")
    refused(store, path, f"byte {at}: the event 'mm(r1t1)' (ph 'X') has dur -3")


@pytest.mark.parametrize("ts, shown", [(1e30, "ts 1e+30"), (None, "ts null"), ("abc", 'ts "abc"')])
def test_a_ts_that_cannot_be_a_time_is_refused_naming_the_event(store, tmp_path, ts, shown):
    doc = tiny_kineto.document()
    first_kernel(doc)["ts"] = ts
    path = write(tmp_path / "ts.json", doc)
    at = offset_of(path, b'"name":"gemm_kernel"', b"{")
    refused(store, path, f"byte {at}: the event 'gemm_kernel' (ph 'X') has {shown}; expected a timestamp in µs")


def _epoch_trace(tmp_path, fraction_at: int, n=3000) -> tuple[str, list[int]]:
    """A bare array of n kernels at integer epoch µs, except kernel `fraction_at`, whose ts has 3 decimals
    (1764246877073569.640 in text: a double holds ...569.75). Returns (path, exact start ns)."""
    t0 = 1764246877073569
    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": f"@{i}@", "dur": 1.5,
           "args": {"stream": 7}} for i in range(n)]
    text = json.dumps(ev)
    want = []
    for i in range(n):
        ts = f"{t0 + i}.640" if i == fraction_at else str(t0 + i)
        text = text.replace(f'"@{i}@"', ts, 1)
        want.append((t0 + i) * 1000 + (640 if i == fraction_at else 0))
    return write(tmp_path / "epoch.json", text), want


@pytest.mark.parametrize("fraction_at", [0, 2900])   # in the head sample, and far past it (a part's error)
def test_epoch_microseconds_with_decimals_are_exact_to_the_ns(tmp_path, fraction_at):
    path, want = _epoch_trace(tmp_path, fraction_at)
    _, got = loaded(tmp_path, path, "select start_ns from kernels order by seq")
    assert [g[0] for g in got] == want


def test_relative_microseconds_below_2_43_stay_on_the_fast_exact_path(tmp_path, monkeypatch):
    # ROCm traces write us.fff relative to baseTimeNanoseconds up to 6.5e12 µs: a double is exact to the ns
    # there, so no DECIMAL read (no retry) is needed
    doc = tiny_kineto.document()
    for e in doc["traceEvents"]:
        if "ts" in e:
            e["ts"] = round(6520618853487.683 + e["ts"], 3)
    reads = []
    real = chrome_json.loader.ts_read
    monkeypatch.setattr(chrome_json.loader, "ts_read", lambda *a, **k: reads.append(real(*a, **k)) or reads[-1])
    _, got = loaded(tmp_path, write(tmp_path / "rocm.json", doc), "select min(start_ns) from kernels")
    assert got == [(BASE + 6520618853487683 + 10_000,)] and reads == ["number"]


# ---------------------------------------------------- 2. the true end of the event array, whatever follows
@pytest.mark.parametrize("after", [
    {"blob": {"text": "x" * (5 << 20)}},                                        # 5 MB object
    {"INFO": [{"name": f"n{i}", "v": "y" * 20} for i in range(5000)]},          # 200 KB list of objects
    {"more": [{"ph": "X", "name": "fake", "cat": "kernel", "ts": 1, "dur": 1}] * 3000},   # event-like objects
], ids=["5MB-object", "200KB-array", "event-like-array"])
@pytest.mark.parametrize("gz", [False, True])
def test_metadata_after_the_events_of_any_size_or_shape(tmp_path, after, gz, monkeypatch):
    with_parts(monkeypatch, 4)
    doc = {**tiny_kineto.document(), **after}
    p, got = loaded(tmp_path, write(tmp_path / ("m.json.gz" if gz else "m.json"), doc, gz=gz),
                    "select count(*), sum(dur_ns), any_value(r.rank), bool_or(r.truncated) from kernels "
                    "join runs r using (run_id)")
    assert got == [(12, KERNEL_DUR_NS, 3, False)]
    assert "cut short" not in p.stdout


def test_metadata_keys_after_the_events_are_read(tmp_path):
    doc = tiny_kineto.document()
    base = doc.pop("baseTimeNanoseconds")
    doc.update(INFO=[[1, 2]] * 30000, baseTimeNanoseconds=base)     # newer Kineto: the time base last
    _, got = loaded(tmp_path, write(tmp_path / "late.json", doc), "select min(start_ns), max(r.time_base_ns) "
                    "from kernels join runs r using (run_id)")
    assert got == [(BASE + 10_000, BASE)]


# --------------------------------------------------------- 3. errors name the user's file and its byte
def test_malformed_json_in_a_later_part_names_the_users_byte(store, tmp_path, monkeypatch):
    with_parts(monkeypatch, 4)
    text = json.dumps(tiny_kineto.document(), separators=(",", ":"))
    cut = text.index('"name":"aten::mm"', len(text) * 2 // 3)
    text = text[:cut] + '"name":"aten::mm" "oops"' + text[cut + len('"name":"aten::mm"'):]
    path = write(tmp_path / "bad.json", text)
    at = cut + len('"name":"aten::mm" ')      # the second string, where ',' was expected
    line = refused(store, path, f"byte {at}: malformed JSON")
    assert ".tracedb-json" not in line and "/part" not in line


@pytest.mark.parametrize("gz", [False, True])
def test_a_value_that_is_not_an_event_names_its_byte(store, tmp_path, monkeypatch, gz):
    with_parts(monkeypatch, 4)
    text = json.dumps(tiny_kineto.document(), separators=(",", ":"))
    at = text.index('{"ph":"X","cat":"cpu_op"', len(text) // 2)
    text = text[:at] + "7," + text[at:]
    path = write(tmp_path / ("n.json.gz" if gz else "n.json"), text, gz=gz)
    note = " of the inflated JSON" if gz else ""
    refused(store, path, f"byte {at}{note}: a value of the event array is 7; expected an event object")


@pytest.mark.parametrize("change, needle", [
    (lambda k: k.update(args=[1, 2]), "has args [1, 2]; expected an object"),
    (lambda k: k.update(ph=None) or k.pop("ph"), None),   # not an error: an event without phase is not kept
])
def test_wrong_types_inside_an_event(store, tmp_path, change, needle):
    doc = tiny_kineto.document()
    change(first_kernel(doc))
    path = write(tmp_path / "t.json", doc)
    if needle is None:
        _, got = loaded(tmp_path, path)
        assert got == [(11, KERNEL_DUR_NS - 10_000)]
        return
    at = offset_of(path, b'"name":"gemm_kernel"', b"{")
    refused(store, path, f"byte {at}: the event 'gemm_kernel'", needle)


def test_a_repeated_key_in_an_event_names_it(store, tmp_path):
    text = json.dumps(tiny_kineto.document(), separators=(",", ":"))
    at = text.index('{"ph":"X","cat":"kernel"')
    text = text[:at] + '{"ph":"X","cat":"cpu_op",' + text[at + len('{"ph":"X",'):]
    path = write(tmp_path / "dup.json", text)
    refused(store, path, f"byte {at}: the event 'gemm_kernel' (ph 'X') has the key 'cat' twice")


def test_invalid_utf8_names_its_byte(store, tmp_path):
    raw = json.dumps(tiny_kineto.document(), separators=(",", ":")).encode()
    at = raw.index(b"aten::mm") + 2
    path = write(tmp_path / "u.json", raw[:at] + b"\xff" + raw[at + 1:])
    refused(store, path, f"byte {at}: invalid UTF-8")


def test_a_nan_literal_is_refused_naming_the_event_in_a_file_named_with_braces(store, tmp_path):
    # not standard JSON, but both readers take NaN: the dur check refuses it; the path's braces reach the
    # message as they are
    text = json.dumps(tiny_kineto.document(), separators=(",", ":"))
    at = text.index('{"ph":"X","cat":"kernel"')
    text = text.replace('"dur":10,', '"dur":NaN,', 1)
    path = write(tmp_path / "we{0}ird.json", text)
    refused(store, path, f"byte {at}: the event 'gemm_kernel' (ph 'X') has dur NaN; expected a duration")


# ------------------------------------------- 4. a complete document followed by data vs a cut document
@pytest.mark.parametrize("form", ["object", "array"])
@pytest.mark.parametrize("tail", slow_beyond([b"garbage", b'{"traceEvents": []}', b"\n]"], {0}))
def test_data_after_a_complete_document_is_refused_at_its_byte(store, tmp_path, form, tail):
    text = tiny_kineto.write(tmp_path / "whole.json", form=form)
    raw = open(text, "rb").read()
    path = write(tmp_path / "two.json", raw + b"\n" + tail)
    at = len(raw) + 1 + len(tail) - len(tail.lstrip())
    refused(store, path, f"byte {at}: data after the end of the JSON document")


def test_a_cut_document_keeps_its_complete_events_and_is_marked_truncated(tmp_path):
    p, got = loaded(tmp_path, tiny_kineto.write(tmp_path / "cut.json", truncate_at=0.7),
                    "select count(*) > 0, bool_and(r.truncated) from kernels join runs r using (run_id)")
    assert got == [(True, True)] and "cut short" in p.stdout


@pytest.mark.parametrize("cut_in", ["keys after the events", "closing brace"])
def test_a_document_cut_after_its_events_keeps_them_all(tmp_path, cut_in):
    text = json.dumps(tiny_kineto.document(), separators=(",", ":"))
    text = text[:text.rindex('"tiny.pt')] if cut_in == "keys after the events" else text[:-1]
    p, got = loaded(tmp_path, write(tmp_path / "cut.json", text),
                    "select count(*), sum(dur_ns), bool_and(r.truncated) from kernels join runs r using (run_id)")
    assert got == [(12, KERNEL_DUR_NS, True)]


def test_zero_bytes_after_a_complete_document_are_the_end_of_the_file(tmp_path):
    # a file system's zero-filled tail after a crash: not data
    raw = open(tiny_kineto.write(tmp_path / "z.json", form="array"), "rb").read()
    _, got = loaded(tmp_path, write(tmp_path / "nul.json", raw + b"\0" * 5000),
                    "select count(*), bool_or(r.truncated) from kernels join runs r using (run_id)")
    assert got == [(12, False)]


# ----------------------------------------- 5. the keys around the events: depth, size, type and range
@pytest.mark.parametrize("where", ["before", "after"])
def test_deeply_nested_metadata_is_refused_naming_the_key(store, tmp_path, where):
    doc = tiny_kineto.document()
    text = json.dumps(doc)
    deep = '"deep": ' + "[" * 100_000 + "]" * 100_000
    text = "{" + deep + ", " + text[1:] if where == "before" else text[:-1] + ", " + deep + "}"
    path = write(tmp_path / "deep.json", text)
    refused(store, path, f"byte {text.index('[[[')}: 'deep': nested deeper than 64 levels")


@pytest.mark.parametrize("key, value, shown", slow_beyond([
    ("rank", 1e20, "distributedInfo.rank is 1e+20"), ("rank", 99999999999999999999, "distributedInfo.rank is 9999"),
    ("rank", -1, "distributedInfo.rank is -1"), ("rank", "3", "distributedInfo.rank is '3'"),
    ("rank", True, "distributedInfo.rank is True"), ("rank", 8, "distributedInfo.rank is 8; expected a rank below"),
    ("world_size", 2 ** 40, "distributedInfo.world_size is 1099511627776"),
    ("world_size", 0, "distributedInfo.world_size is 0"),
], range(0, 99, 2)))
def test_rank_and_world_size_are_checked(store, tmp_path, key, value, shown):
    doc = doc_with(lambda d: d["distributedInfo"].update({key: value}))
    refused(store, write(tmp_path / "rank.json", doc), shown)


@pytest.mark.parametrize("value", [10 ** 30, -5, "17", 1.5e18])
def test_the_time_base_is_checked(store, tmp_path, value):
    doc = doc_with(lambda d: d.update(baseTimeNanoseconds=value))
    refused(store, write(tmp_path / "base.json", doc), "baseTimeNanoseconds is", "expected an integer from 0 to")


def test_other_metadata_of_any_type_is_skipped(tmp_path):
    doc = doc_with(lambda d: d.update(traceName=[{"x": None}], displayTimeUnit=5, INFO="x" * 100_000))
    _, got = loaded(tmp_path, write(tmp_path / "meta.json", doc))
    assert got == [(12, KERNEL_DUR_NS)]


def test_a_repeated_top_level_key_is_refused(store, tmp_path):
    text = json.dumps(tiny_kineto.document())
    path = write(tmp_path / "twice.json", text[:-1] + ', "traceEvents": []}')
    refused(store, path, "the top-level key 'traceEvents' appears twice")


# ----------------------------------------------------- 6. the work folder: beside the store, never left
def test_parts_are_written_beside_the_store_not_in_tmpdir(tmp_path, monkeypatch):
    with_parts(monkeypatch, 4)
    seen = []
    real = part_files.write_part
    monkeypatch.setattr(chrome_json.loader, "write_part", lambda layout, rng, out, config:
                        seen.append(os.path.dirname(os.path.dirname(out))) or real(layout, rng, out, config))
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    db = tmp_path / "store" / "s.duckdb"
    db.parent.mkdir()
    cli("ingest", tiny_kineto.write(tmp_path / "a.json"), "--db", db, env={**os.environ, "TMPDIR": str(tmpdir)})
    assert seen and set(seen) == {str(db.parent)}
    assert os.listdir(tmpdir) == [] and sorted(os.listdir(db.parent)) == ["s.duckdb"]


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_killed_ingests_work_folder_is_swept_by_the_next_one(tmp_path):
    db = tmp_path / "s.duckdb"
    stale = tmp_path / f"{WORK}{_dead_pid()}-0badc0de"
    stale.mkdir()
    (stale / "part0.json").write_bytes(b"[" + b" " * 100_000 + b"]")
    alive = tmp_path / f"{WORK}{os.getppid()}-0badc0de"   # a live process's: kept
    alive.mkdir()
    cli("ingest", tiny_kineto.write(tmp_path / "a.json"), "--db", db)
    assert not stale.exists() and alive.exists()


def test_a_full_disk_while_writing_parts_is_one_line_naming_the_folder(store, tmp_path, monkeypatch):
    with_parts(monkeypatch, 4)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(part_files, "_copy_range", full)
    db, before = store
    p = cli("ingest", tiny_kineto.write(tmp_path / "b.json", string_pids=True), "--db", db, check=False)
    assert p.returncode == 1 and p.stderr.count("\n") == 1
    assert p.stderr.startswith(f"error: {tmp_path}: cannot write the JSON ingest's temporary files: No space left")
    assert runs(db) == before and not [f for f in os.listdir(tmp_path) if f.startswith(WORK)]


@pytest.mark.parametrize("raise_in", ["main thread", "insert"])
def test_ctrl_c_during_the_parts_is_interrupted_and_leaves_nothing(store, tmp_path, monkeypatch, raise_in):
    """Ctrl-C while the main thread writes part 3 (KeyboardInterrupt), or while a cursor inserts part 2
    (DuckDB's InterruptException on that thread): `interrupted`, exit 130, never an error about the trace."""
    with_parts(monkeypatch, 6)
    if raise_in == "insert":
        from tracedb import sql
        real = sql.run

        def run(cur, name, params=None, **k):
            if name == "ingest_chrome_part" and params["base_seq"] >> 32 == 2:
                raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")
            return real(cur, name, params, **k)
        monkeypatch.setattr(sql, "run", run)
    else:
        real_write = part_files.write_part

        def write_part(layout, rng, out, config):
            if out.endswith("part3.json"):
                raise KeyboardInterrupt()
            return real_write(layout, rng, out, config)
        monkeypatch.setattr(chrome_json.loader, "write_part", write_part)
    db, before = store
    p = cli("ingest", tiny_kineto.write(tmp_path / "b.json", string_pids=True), "--db", db, check=False)
    assert (p.returncode, p.stderr) == (130, "error: interrupted\n")
    assert runs(db) == before and not [f for f in os.listdir(tmp_path) if f.startswith(WORK)]


def test_ctrl_c_is_not_lost_to_a_part_failing_beside_it(store, tmp_path, monkeypatch):
    """Ctrl-C while a part in flight fails (its error would ask for the safe retry): the ingest ends as
    `interrupted` and does not go on with a retry."""
    with_parts(monkeypatch, 6)
    from tracedb import sql
    real, real_write = sql.run, part_files.write_part

    def run(cur, name, params=None, **k):
        if name == "ingest_chrome_part" and params["base_seq"] >> 32 == 1:
            time.sleep(0.3)           # still running when Ctrl-C arrives
            raise duckdb.InvalidInputException("Malformed JSON in file \"x\", at byte 1 in record/value 2: oops")
        return real(cur, name, params, **k)

    def write_part(layout, rng, out, config):
        if out.endswith("part3.json"):
            raise KeyboardInterrupt()
        return real_write(layout, rng, out, config)
    monkeypatch.setattr(sql, "run", run)
    monkeypatch.setattr(chrome_json.loader, "write_part", write_part)
    db, before = store
    p = cli("ingest", tiny_kineto.write(tmp_path / "b.json", string_pids=True), "--db", db, check=False)
    assert (p.returncode, p.stderr) == (130, "error: interrupted\n")
    assert runs(db) == before


def test_ctrl_c_while_a_part_is_handed_to_the_pool_waits_for_that_insert(store, tmp_path, monkeypatch):
    """Ctrl-C can land inside the pool's submit, after the pool took the part but before the pool tracks
    its thread (seen under load: 1 of ~30 real SIGINTs): that insert, even one whose query starts after
    the first interrupts, must be interrupted and waited for, else the store connection is closed while a
    cursor of it is busy (DuckDB: ResourceInUseException, exit 1, instead of `interrupted`)."""
    with_parts(monkeypatch, 6)
    from tracedb import sql
    from tracedb.ingest.chrome_json import inserters
    real_run, real_submit = sql.run, inserters.Inserters.submit

    def run(cur, name, params=None, **k):
        if name == "ingest_chrome_part" and params["base_seq"] >> 32 == 1:
            time.sleep(0.2)     # its query starts only after the first interrupts were sent
            cur.execute("SELECT count(*) FROM range(3000000000)").fetchall()   # busy in DuckDB for seconds
        return real_run(cur, name, params, **k)

    def submit(self, size, i, *args):
        if i == 1:   # as when Ctrl-C cuts the pool's thread start short: a worker nobody joins or tracks
            def orphan():
                try:
                    self._run(size, i, *args)
                except Exception:   # its insert is interrupted: that is the point
                    pass
            threading.Thread(target=orphan, daemon=True).start()
            raise KeyboardInterrupt()
        return real_submit(self, size, i, *args)
    monkeypatch.setattr(sql, "run", run)
    monkeypatch.setattr(inserters.Inserters, "submit", submit)
    db, before = store
    t0 = time.monotonic()
    p = cli("ingest", tiny_kineto.write(tmp_path / "b.json", string_pids=True), "--db", db, check=False)
    assert (p.returncode, p.stderr) == (130, "error: interrupted\n")
    assert time.monotonic() - t0 < 2 and runs(db) == before      # interrupted, not waited out


@pytest.fixture(scope="module")
def big_trace(tmp_path_factory):
    """A 40 MB Kineto trace (bench/gen_kineto_trace.py): an ingest of ~1 s, several parts."""
    path = tmp_path_factory.mktemp("big") / "k40.json"
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_kineto_trace.py"), str(path), "--mb", "40",
                    "--compact"], check=True, capture_output=True)
    return str(path)


def _start_ingest(big_trace, tmp_path):
    """A `tracedb ingest` process, returned once its work folder exists (parts are being written)."""
    p = subprocess.Popen([tracedb_exe(), "ingest", big_trace, "--db", str(tmp_path / "s.duckdb")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and p.poll() is None:
        if any(f.startswith(WORK) for f in os.listdir(tmp_path)):
            return p
        time.sleep(0.005)
    p.kill()
    pytest.skip("the ingest ended before its work folder was seen")


def test_sigint_during_a_json_ingest_ends_as_interrupted(big_trace, tmp_path):
    p = _start_ingest(big_trace, tmp_path)
    time.sleep(0.05)
    if p.poll() is not None:
        pytest.skip("the ingest ended before the signal")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert (p.returncode, err) == (130, "error: interrupted\n"), err
    assert os.listdir(tmp_path) == []     # no store, no side store, no work folder


def test_sigkill_leaves_a_work_folder_that_the_next_ingest_removes(big_trace, tmp_path):
    p = _start_ingest(big_trace, tmp_path)
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=60)
    assert [f for f in os.listdir(tmp_path) if f.startswith(WORK)]
    cli("ingest", tiny_kineto.write(tmp_path.parent / "small.json"), "--db", tmp_path / "s.duckdb")
    assert sorted(os.listdir(tmp_path)) == ["s.duckdb"]


# ------------------------------------------------------------- 8. odd shapes: loaded sensibly, or one line
@pytest.mark.parametrize("content, needle", slow_beyond([
    (b"", None), (b"  \n\t ", None), (b'"a string"', None), (b"42", None),
    (b"{}", 'no "traceEvents" array'),
    (b"[]", "the trace holds no complete events"),
    (b'{"traceEvents": []}', "the trace holds no complete events"),
    (b'{"traceEvents": {}}', 'byte 16: "traceEvents" holds an object; expected an array of events'),
    (b'{"traceEvents": "x"}', '"traceEvents" holds a string'),
    (b'{"traceEvents": [1, 2]}', "byte 17: a value of the event array is 1; expected an event object"),
    (b'{"a": 1,, "traceEvents": []}', "byte 8: ',' where a key was expected"),
    (b'{"a\\qb": 1, "traceEvents": []}', "byte 1: a key that is not a JSON string"),
    (b'{"a\xffb": 1, "traceEvents": []}', "byte 1: a key that is not a JSON string (invalid UTF-8"),
    (b'[{"ph": "X", "cat": "kernel", "na', "the event array is cut before its first complete event"),
], range(0, 99, 2)))
def test_odd_shapes_give_one_line(store, tmp_path, content, needle):
    path = write(tmp_path / "odd.json", content)
    refused(store, path, *([needle] if needle else []))


def test_odd_but_readable_events_load(tmp_path):
    doc = tiny_kineto.document()
    k = first_kernel(doc)
    k["name"] = None                         # no name: an unnamed kernel
    doc["traceEvents"][5]["pid"] = {"a": 1}    # pid of any JSON type: kept as its text
    doc["traceEvents"].append({"ph": 5, "name": "odd phase"})   # a phase tracedb does not keep
    _, got = loaded(tmp_path, write(tmp_path / "odd.json", doc), "select count(*), count(name) from kernels")
    assert got == [(12, 11)]


def test_a_10_mb_name_loads(tmp_path):
    doc = tiny_kineto.document()
    first_kernel(doc)["name"] = "k" * (10 << 20)
    _, got = loaded(tmp_path, write(tmp_path / "long.json", doc), "select max(length(name)) from kernels")
    assert got == [(10 << 20,)]


def test_an_event_nested_deeper_than_pythons_parser_goes_loads(tmp_path):
    # DuckDB's reader takes any depth; the end of the array is found past it without Python's parser
    doc = tiny_kineto.document()
    text = json.dumps(doc)
    at = text.rindex('"args": {') + len('"args": {')
    text = text[:at] + '"deep": ' + "[" * 100_000 + "]" * 100_000 + ", " + text[at:]
    _, got = loaded(tmp_path, write(tmp_path / "deep.json", text))
    assert got == [(12, KERNEL_DUR_NS)]


@pytest.mark.parametrize("text", ["42", '"a string"', "null", "true"])
def test_json_text_that_is_no_object_or_array_is_named_as_such(tmp_path, text):
    f = tmp_path / "x.json"
    f.write_text(text)
    r = cli("ingest", str(f), "--db", str(tmp_path / "s.duckdb"), check=False)
    assert r.returncode == 1 and r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"error: {f}: starts with ") and "not a JSON object or array" in r.stderr
    assert not (tmp_path / "s.duckdb").exists()
