"""Small hostile inputs cost a bounded time and memory: each is refused in one line naming the file, the place
and the limit (ingest/capped_read.py), or loaded, and a refused one leaves no run. Each input here is built at
a scale that shows the mechanism, for shapes that cost minutes or gigabytes without these limits: a gzip
stream of blanks (2 MB that would inflate to 2 GiB), a sparse file (7 KB of trace in 20 GB), runs of blanks
(64 MiB of them, which must be named as blanks), a value of hundreds of MB, candidates for the walk's origin
by the million, a host trace beside kernel_details.csv nested 200,000 deep (read again at most once), and a
trace swapped while it is ingested (its run must never keep the old file's hash)."""
import gzip
import hashlib
import json
import os
import zlib

import duckdb
import pytest

import tiny_kineto
from helpers import cli
from tracedb.ingest import ascend_host, capped_read, chrome_json, sniff
from tracedb.ingest.chrome_json import jsonscan

KERNELS = 12                     # tiny_kineto: 12 device activities
FULL = ["Step Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State", "Accelerator Core",
        "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Mix Block Dim", "HF32 Eligible",
        "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "Output Data Types", "Output Formats",
        "Context ID", "aicore_time(us)"]
T = 1764246877073569             # the kernels' first start, µs since the epoch


def refused(tmp_path, path, *needles) -> str:
    """Ingest `path` into a new store: exit 1, one `error:` line naming the file and each needle, no store
    and no side store written. Returns the line."""
    db = tmp_path / "s.duckdb"
    r = cli("ingest", str(path), "--db", str(db), check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"error: {path}: "), r.stderr
    assert "Traceback" not in r.stderr
    for needle in needles:
        assert needle in r.stderr, r.stderr
    assert not db.exists() and not [f for f in os.listdir(tmp_path) if f.startswith((".s.duckdb", ".tracedb"))]
    return r.stderr


def runs(db) -> list:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT name, content_hash, source_bytes FROM runs ORDER BY run_id").fetchall()
    finally:
        con.close()


def trace_bytes(**kw) -> bytes:
    return json.dumps(tiny_kineto.document(**kw)).encode()


def gz_of_blanks(path, head: bytes, blanks: int, tail: bytes) -> int:
    """A gzip stream of `head`, `blanks` spaces and `tail` at `path`; returns its size on disk."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as f:
        f.write(c.compress(head))
        for k in range(0, blanks, 1 << 20):
            f.write(c.compress(b" " * min(1 << 20, blanks - k)))
        f.write(c.compress(tail) + c.flush())
    return os.path.getsize(path)


# ---------------------------------------------------------------------------------------------------- gzip
def test_the_gzip_caps_are_a_ratio_beyond_a_floor_and_a_hard_cap():
    assert capped_read.gzip_cap(2_088_221) == 256 << 20          # 2 MB of blanks: 256 MiB, not 2 GiB
    assert capped_read.gzip_cap(10_000_000) == 1_000_000_000     # 100 times a 10 MB .gz
    assert capped_read.gzip_cap(1 << 30) == 64 << 30             # never more than 64 GiB


def test_a_gzip_stream_of_blanks_is_refused_at_its_ratio(tmp_path, monkeypatch):
    # the floor lowered to 64 KiB so that a few MB inflated show the ratio: 4 MiB of blanks in ~5 KB is ~800x
    monkeypatch.setattr(capped_read, "GZIP_FLOOR", 64 << 10)
    events = trace_bytes()
    head = events[:events.index(b'"traceEvents": [') + 16]
    path = tmp_path / "bomb.json.gz"
    size = gz_of_blanks(path, head, 4 << 20, events[len(head):])
    refused(tmp_path, path, f"inflates to more than {100 * size:,} bytes, 100 times its {size:,} bytes; expected a "
            "gzip-compressed trace that inflates at most 100 times its size (or to 64 KiB, 64 GiB at most)")


def test_a_gzip_trace_under_the_cap_loads(tmp_path):
    path = tmp_path / "ok.json.gz"
    path.write_bytes(gzip.compress(trace_bytes()))
    cli("ingest", str(path), "--db", str(tmp_path / "s.duckdb"))
    assert runs(tmp_path / "s.duckdb")[0][0] == "ok"


# ---------------------------------------------------------------------------------------------- sparse files
def _sparse(path, data: bytes, size: int):
    with open(path, "wb") as f:
        f.write(data)
        f.truncate(size)
    st = os.stat(path)
    if st.st_size - st.st_blocks * 512 <= capped_read.SPARSE_HOLES_MAX:
        pytest.skip(f"the file system of {path} stores the holes of a truncated file")


def test_a_sparse_trace_is_refused_before_its_zeros_are_read(tmp_path):
    path = tmp_path / "sparse.json"
    data = trace_bytes()
    _sparse(path, data, 200 << 20)
    refused(tmp_path, path, f"a sparse file: {200 << 20:,} bytes long, ", "of them holes no block stores; expected "
            "a file written out in full (at most 64 MiB of holes)")


def test_a_sparse_file_is_refused_by_the_hasher_too(tmp_path):
    from tracedb.engine.loading import hashing
    path = tmp_path / "sparse.json"
    _sparse(path, trace_bytes(), 200 << 20)
    h = hashing.Hasher([str(path)])
    h.run()
    assert h.digest is None and h.size == 0 and "a sparse file" in h.error.message


def test_zero_bytes_within_the_holes_limit_are_the_end_of_the_file(tmp_path):
    # a crashed writer's tail of zero bytes, 1 MiB of it in a hole: loaded as before
    path = tmp_path / "tail.json"
    data = trace_bytes()
    with open(path, "wb") as f:
        f.write(data)
        f.truncate(len(data) + (1 << 20))
    cli("ingest", str(path), "--db", str(tmp_path / "s.duckdb"))
    assert runs(tmp_path / "s.duckdb")[0][0] == "tail"


# -------------------------------------------------------------------------------------------- runs of blanks
@pytest.mark.parametrize("where, at", [("before the document", 0), ("before the first key", 1),
                                       ("between two events", None), ("after the document", None)])
def test_more_than_1_mib_of_blanks_in_a_row_is_refused_naming_its_byte(tmp_path, where, at):
    data, blanks = trace_bytes(), b" " * ((1 << 20) + 1)
    cut = {"before the document": 0, "before the first key": 1, "after the document": len(data),
           "between two events": data.rindex(b"}, {") + 2}[where]
    path = tmp_path / "blanks.json"
    path.write_bytes(data[:cut] + blanks + data[cut:])
    refused(tmp_path, path, f"byte {cut if at is None else at}: more than 1 MiB of blanks in a row; expected at "
            "most 1 MiB of blanks between two JSON values")


def test_64_mib_of_blanks_in_a_gzip_stream_are_named_as_blanks(tmp_path):
    # they read as 'no "traceEvents" array in the first 67,108,865 bytes'
    events = trace_bytes()
    path = tmp_path / "blanks.json.gz"
    gz_of_blanks(path, b"{", 64 << 20, events[1:])
    refused(tmp_path, path, "byte 1 of the inflated JSON: more than 1 MiB of blanks in a row")


def test_1_mib_of_blanks_in_a_row_loads(tmp_path):
    data = trace_bytes()
    cut = data.rindex(b"}, {") + 2          # before ' {': one blank more there
    path = tmp_path / "pretty.json"
    path.write_bytes(b" " * (1 << 20) + data[:1] + b" " * (1 << 20) + data[1:cut] + b" " * ((1 << 20) - 1)
                     + data[cut:])
    cli("ingest", str(path), "--db", str(tmp_path / "s.duckdb"))
    con = duckdb.connect(str(tmp_path / "s.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM kernels").fetchone()[0] == KERNELS
    con.close()


def test_a_long_run_of_blanks_is_not_kept_in_memory_while_it_is_walked(tmp_path, monkeypatch):
    # the walk forgets the blanks it has read: its window holds a block or two, not the whole run (2 GiB of
    # blanks took 5.4 GB)
    path = tmp_path / "w.json"
    path.write_bytes(b"[1," + b" " * 900_000 + b"2]")
    seen, held = [], []
    more = jsonscan.Window.more

    def counted(w):
        read = more(w)
        held.append(len(w.text))
        return read
    monkeypatch.setattr(jsonscan.Window, "more", counted)
    with open(path, "rb") as f:
        end = jsonscan.walk(f, 1, os.path.getsize(path), False, 4096, on_value=lambda a, b, v: seen.append((a, v)))
    assert end == 900_004 and seen == [(1, 1), (900_003, 2)]
    assert len(held) > 200 and max(held) <= 8192


# -------------------------------------------------------------------------------------------------- values
def test_a_value_longer_than_32_mib_is_refused_before_it_is_read_whole(tmp_path):
    doc = tiny_kineto.document()
    kernel = next(e for e in doc["traceEvents"] if e.get("cat") == "kernel")
    kernel["args"]["long"] = "a" * (32 << 20)
    path = tmp_path / "long.json"
    data = json.dumps(doc).encode()
    path.write_bytes(data)
    at = data.rindex(b'{"ph"', 0, data.index(b'"long"'))
    refused(tmp_path, path, f"byte {at}: a value longer than 32 MiB; expected events of at most 32 MiB each")


def test_brackets_nested_deep_are_counted_a_run_at_a_time():
    text = "[" * 300_000 + "{}" + "]" * 300_000 + ", 1"
    assert jsonscan.value_end(text, 0, 1 << 20) == 600_002
    with pytest.raises(jsonscan.ScanStop) as e:
        jsonscan.value_end(text, 0, 1_000)
    assert (e.value.kind, e.value.pos) == ("deep", 1_000)
    with pytest.raises(jsonscan.ScanStop) as e:
        jsonscan.value_end("[[{]]", 0, 10)
    assert (e.value.kind, e.value.pos, e.value.reason) == ("syntax", 3, "']' does not close what was opened")


def test_a_deep_value_is_counted_on_across_reads_not_again_from_its_start(tmp_path, monkeypatch):
    # past Python's parser (~1,000 levels) the brackets are counted; after each further read of the window the
    # count started again from the value's first byte (about twice the bytes counted)
    deep = '[{"a \\" ]":' * 3_000 + "1" + "}]" * 3_000      # a string that holds a quote and a bracket, too
    path = tmp_path / "deep.json"
    path.write_bytes(f"[{deep}, 2]".encode())
    counted, seen = [], []
    count = jsonscan._count

    def spy(text, pos, stack, max_depth):
        counted.append(len(text) - pos)
        return count(text, pos, stack, max_depth)
    monkeypatch.setattr(jsonscan, "_count", spy)
    with open(path, "rb") as f:
        end = jsonscan.walk(f, 1, os.path.getsize(path), False, 256, on_value=lambda a, b, v: seen.append((a, b, v)))
    assert end == len(deep) + 4 and seen == [(1, len(deep) + 1, jsonscan.DEEP), (len(deep) + 3, len(deep) + 4, 2)]
    assert len(counted) > 3 and sum(counted) < 1.1 * len(deep)


def test_a_value_nested_deep_in_a_trace_object_is_named_without_the_part_file(tmp_path):
    # the events of a trace object are read from a part file of their own: DuckDB's message named it
    events = trace_bytes()
    at = events.index(b'"traceEvents": [') + 16
    path = tmp_path / "deep.json"
    path.write_bytes(events[:at] + b"[" * 3_000 + b"]" * 3_000 + b", " + events[at:])
    line = refused(tmp_path, path, f"byte {at}: a value of the event array is an array nested too deep to show; "
                   'expected an event object {"ph": ..., "ts": ..., ...}')
    assert ".tracedb-json-" not in line and "part0" not in line


def test_a_million_objects_that_meet_are_not_each_read_as_a_candidate_event(tmp_path):
    # each `},{` in args was read 64 KiB at a time to see whether an event starts there: 9 MB took 32 s; the
    # candidates now read 4 KiB each and 32 MiB in all, then the walk goes from the first event
    doc = tiny_kineto.document()
    kernel = next(e for e in doc["traceEvents"] if e.get("cat") == "kernel")
    kernel["args"]["list"] = [{}] * 200_000
    path = tmp_path / "meets.json"
    path.write_bytes(json.dumps(doc).encode())
    layout = chrome_json.locate(str(path), str(path))
    assert not layout.truncated and path.read_bytes()[layout.end:layout.end + 1] == b"]"
    cli("ingest", str(path), "--db", str(tmp_path / "s.duckdb"))
    assert runs(tmp_path / "s.duckdb")[0][0] == "meets"


# ------------------------------------------------------------------------------- the host trace of a CSV
def _ascend_folder(tmp_path, trace: bytes) -> str:
    """A profiler folder of three kernels with `trace` as its trace_view.json (test_ascend_host's)."""
    from test_ascend_host import _folder
    return _folder(tmp_path, trace)[0]


def _host_op() -> bytes:
    return json.dumps({"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": f"{T}.000", "dur": 1,
                       "cat": "cpu_op"}).encode()


def _kept_without_host(tmp_path, folder, monkeypatch) -> str:
    """Ingest the folder: the CSV run lands (3 kernels, no trace_events row); returns the host side's note."""
    notes = []
    real = ascend_host.finish
    monkeypatch.setattr(ascend_host, "finish", lambda con, run_id, src=None: notes.append(real(con, run_id, src))
                        or notes[-1])
    db = tmp_path / "s.duckdb"
    r = cli("ingest", folder, "--db", str(db))
    assert r.returncode == 0 and "ingested run 'rank0_ascend_pt': 3 kernel rows" in r.stdout, r.stdout + r.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM trace_events)").fetchone() \
        == (3, 0)
    con.close()
    assert len(notes) == 1
    return notes[0]


def test_a_host_trace_nested_deep_leaves_the_csv_run_with_a_note(tmp_path, monkeypatch):
    # its one value nested past Python's parser made the Chrome reader ask for a safe read again, which the
    # CSV reader did by reading the CSV and the trace again, the same way, without end (> 5 min)
    op = _host_op()
    folder = _ascend_folder(tmp_path, b"[" + op + b", " + b"[" * 2_000 + b"]" * 2_000 + b"]")
    trace = os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "trace_view.json")
    assert _kept_without_host(tmp_path, folder, monkeypatch) == (
        f"host side left out, the kernels kept: {trace}: byte {len(op) + 3}: a value of the event array is an array "
        'nested too deep to show; expected an event object {"ph": ..., "ts": ..., ...}')


def test_a_host_trace_with_a_value_past_32_mib_leaves_the_csv_run_with_a_note(tmp_path, monkeypatch):
    op = _host_op()
    folder = _ascend_folder(tmp_path, b"[" + op[:-1] + b', "args": {"x": "' + b"a" * (32 << 20) + b'"}}]')
    trace = os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "trace_view.json")
    assert _kept_without_host(tmp_path, folder, monkeypatch) == (
        f"host side left out, the kernels kept: {trace}: byte 1: a value longer than 32 MiB; expected events of "
        "at most 32 MiB each (DuckDB's JSON reader reads none longer)")


# ------------------------------------------------------------------------------------ a file that changes
def _swap_after_load(monkeypatch, path, new: bytes):
    """The Chrome reader, once it has read `path`, replaces it with a new file holding `new` (as a copy
    finishing under it would)."""
    real = chrome_json.load

    def load(con, run_id, p, *a, **kw):
        facts = real(con, run_id, p, *a, **kw)
        tmp = str(path) + ".new"
        with open(tmp, "wb") as f:
            f.write(new)
        os.replace(tmp, path)
        return facts
    monkeypatch.setattr(chrome_json, "load", load)


def test_a_trace_swapped_while_it_is_ingested_is_refused_and_leaves_no_run(tmp_path, monkeypatch):
    old, new = trace_bytes(), trace_bytes(dur_factor=2)
    path = tmp_path / "t.json"
    path.write_bytes(old)
    _swap_after_load(monkeypatch, path, new)
    refused(tmp_path, path, "changed while it was ingested (replaced by another file); expected a file that stays "
            "as it is while it is ingested")
    monkeypatch.undo()
    # neither file is then taken for one already in: each lands with the hash of its own bytes
    db = tmp_path / "s.duckdb"
    cli("ingest", str(path), "--db", str(db), "--name", "new")
    path.write_bytes(old)
    cli("ingest", str(path), "--db", str(db), "--name", "old")
    assert runs(db) == [("new", hashlib.sha256(new).hexdigest(), len(new)),
                        ("old", hashlib.sha256(old).hexdigest(), len(old))]


def test_a_trace_written_to_between_the_identity_checks_is_refused(tmp_path, monkeypatch):
    data = trace_bytes()
    path = tmp_path / "t.json"
    path.write_bytes(data)
    real = chrome_json.load

    def load(con, run_id, p, *a, **kw):     # a writer still appending to the file
        facts = real(con, run_id, p, *a, **kw)
        with open(path, "ab") as f:
            f.write(b"\n")
        return facts
    monkeypatch.setattr(chrome_json, "load", load)
    refused(tmp_path, path, f"changed while it was ingested (its size went from {len(data):,} to "
            f"{len(data) + 1:,} bytes)")


def test_the_hasher_refuses_a_file_that_changed_before_it_was_read(tmp_path):
    from tracedb.engine.loading import hashing
    path = tmp_path / "t.json"
    path.write_bytes(b"[1]")
    h = hashing.Hasher([str(path)])      # identities taken now, before the parse opens anything
    path.write_bytes(b"[1, 2]")
    h.run()
    assert h.digest is None and h.error.message.startswith(f"{path}: changed before it was read (its size went "
                                                            "from 3 to 6 bytes)")


def test_a_plain_ingest_keeps_the_hash_of_the_bytes_read(tmp_path):
    data = trace_bytes()
    path = tmp_path / "t.json"
    path.write_bytes(data)
    cli("ingest", str(path), "--db", str(tmp_path / "s.duckdb"))
    assert runs(tmp_path / "s.duckdb") == [("t", hashlib.sha256(data).hexdigest(), len(data))]


def test_sniffing_reads_past_blanks_only_up_to_the_limit(tmp_path):
    ok, bad = tmp_path / "ok.json", tmp_path / "bad.json"
    ok.write_bytes(b" " * (1 << 20) + b"[]")
    bad.write_bytes(b" " * ((1 << 20) + 1) + b"[]")
    assert sniff.kind(str(ok)) == "json"
    with pytest.raises(Exception) as e:
        sniff.kind(str(bad))
    assert str(e.value) == f"{bad}: byte 0: more than 1 MiB of blanks in a row; expected at most 1 MiB of blanks " \
                           "between two JSON values"


def test_a_host_trace_left_out_is_said_on_the_ingest_line_and_not_listed_as_loaded(tmp_path):
    folder = _ascend_folder(tmp_path, b"not json at all")
    db = tmp_path / "s.duckdb"
    r = cli("ingest", folder, "--db", str(db))
    trace = os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "trace_view.json")
    line = next(x for x in r.stdout.splitlines() if x.startswith("ingested run 'rank0_ascend_pt': 3 kernel rows"))
    assert f"; host side left out, the kernels kept: {trace}: " in line
    loaded = [x for x in r.stdout.splitlines() if "loaded:" in x and "not loaded" not in x]
    assert loaded and all("trace_view.json" not in x for x in loaded), r.stdout


def test_the_rocprofv3_agent_scan_stops_at_the_gzip_cap(tmp_path, monkeypatch):
    # the scan for busy GPUs read a .gz whole before the ingest read it (a 2 MB bomb of blanks: 13 s and 2.2 GB;
    # now it stops at the cap and the ingest refuses it at the same cap: 8 s and 0.6 GB at the 256 MiB floor)
    monkeypatch.setattr(capped_read, "GZIP_FLOOR", 64 << 10)
    head = (b'{"rocprofiler-sdk-tool": [{"metadata": {}, "agents": [{"type": 2, "node_id": 1, "id": {"handle": 7}}], '
            b'"kernel_symbols": [], "buffer_records": {"kernel_dispatch": [')
    path = tmp_path / "bomb_results.json.gz"
    size = gz_of_blanks(path, head, 64 << 20, b"]}}]}")
    from tracedb.ingest import rocprof
    read = []
    real = rocprof._open_inflated

    def counted(p):
        f = real(p)
        inner = f.read
        f.read = lambda n=-1: read.append(len(chunk := inner(n))) or chunk
        return f
    monkeypatch.setattr(rocprof, "_open_inflated", counted)
    assert rocprof.busy_gpus(str(path)) == []
    # whole 4 MiB reads: the first past the cap of 100 x the .gz's bytes is the last
    assert sum(read) < capped_read.gzip_cap(size) + (4 << 20) < 64 << 20
