"""Chrome trace-event JSON ingest (Kineto, Ascend trace_view.json) over tests/tiny_kineto.py and variants."""
import dataclasses
import gzip
import json
import os
import time
import zlib

import pytest

import tiny_kineto
import tracedb
from tracedb.engine.reports.registry import render_report
from helpers import cli, slow_beyond
from tracedb.ingest import chrome_json
from tracedb.ingest.chrome_json import loader

BASE = tiny_kineto.BASE_NS
SPLIT_SMALL = dataclasses.replace(chrome_json.DEFAULT, part_min=0)   # split even this small file


def q(con, sql, **p):
    return con.execute(sql, p).fetchall()


def kernel_facts(con, run="t"):
    return q(con, "SELECT k.kind, k.name, k.start_ns, k.dur_ns, k.device_id, k.stream_id, k.correlation_id, k.grid, "
                  "k.block, k.registers_per_thread, k.shared_mem_bytes FROM kernels k JOIN runs r USING (run_id) "
                  "WHERE r.name = $n ORDER BY k.start_ns, k.seq", n=run)


@pytest.fixture
def reference(con, tmp_path):
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "ref.json"), name="t")
    return kernel_facts(con)


def test_kernels_times_and_launch_facts(con, reference):
    # 6 device activities a pass; the first: gemm_kernel at T=0 + 10 µs -> BASE + 10,000 ns, 10 µs long
    assert len(reference) == 12
    assert reference[0] == ("kernel", "gemm_kernel", BASE + 10_000, 10_000, 0, 7, 1001, [132, 1, 1], [256, 1, 1],
                            128, 4096)
    # pass 1's memcpy at 1000 + 70 µs; orphan at 1090 lasting 1.5 µs
    assert ("memcpy", BASE + 1_070_000, 2_000) in [(k[0], k[2], k[3]) for k in reference]
    assert reference[-1][1:4] == ("orphan_kernel", BASE + 1_090_000, 1_500)
    assert q(con, "SELECT format, rank, device_kind, device_name, world_size, clock_domain, truncated, kernel_count "
                  "FROM runs") == [("chrome-trace", 3, "gpu", "NVIDIA H800", 8, "unix-epoch", False, 12)]
    # host side: per pass 2 module frames, 2 cpu_ops, 2 annotations, 5 runtime calls
    assert q(con, "SELECT cat, count(*) FROM host_events GROUP BY 1 ORDER BY 1") == [
        ("cpu_op", 4), ("cuda_runtime", 10), ("python_function", 4), ("user_annotation", 4)]
    assert q(con, "SELECT pid, tid, process_name, thread_name FROM tracks ORDER BY pid, tid") == [
        ("0", "0", "GPU 0", None), ("0", "7", "GPU 0", "stream 7"), ("100", "0", "python3", None),
        ("100", "100", "python3", "python")]


@pytest.mark.parametrize("variant", slow_beyond([
    dict(compact=False), dict(form="array"), dict(gz=True), dict(string_pids=True), dict(legacy=True),
    dict(form="array", compact=False, gz=True)], range(0, 99, 2)))
def test_every_form_gives_the_same_kernels(con, tmp_path, reference, variant):
    suffix = ".json.gz" if variant.get("gz") else ".json"
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / f"v{suffix}", **variant), name="v")
    got = kernel_facts(con, "v")
    if variant.get("form") == "array":   # no baseTimeNanoseconds in a bare array: times stay relative
        got = [(k[0], k[1], k[2] + BASE) + k[3:] for k in got]
    assert got == reference


@pytest.mark.parametrize("gz", [False, True])
def test_long_keys_and_blanks_before_the_events_are_read_in_growing_steps(con, tmp_path, reference, gz):
    """The head is read 64 KB first, then in doubling steps: keys before the events of 300 KB and 1.5 MB, after
    blanks, give the same kernels and facts (distributedInfo after the long keys)."""
    doc = tiny_kineto.document()
    head = {"pad1": "x" * 300_000, "pad2": ["y" * 1000] * 1500, "distributedInfo": doc.pop("distributedInfo")}
    text = " " * 1000 + json.dumps({**head, **doc})
    path = tmp_path / ("long.json.gz" if gz else "long.json")
    with (gzip.open if gz else open)(path, "wb") as f:
        f.write(text.encode())
    tracedb.ingest_trace(con, str(path), name="long")
    assert kernel_facts(con, "long") == reference
    assert q(con, "SELECT rank, world_size FROM runs WHERE name = 'long'") == [(3, 8)]


def test_parts_split_at_event_boundaries_give_the_same_rows(con, tmp_path, reference, monkeypatch):
    path = tiny_kineto.write(tmp_path / "p.json")
    layout = chrome_json.locate(path, path, SPLIT_SMALL)
    assert len(chrome_json.split(layout, 4, SPLIT_SMALL)) == 4
    monkeypatch.setattr(chrome_json, "load", _with_parts(chrome_json.load, 4, config=SPLIT_SMALL))
    tracedb.ingest_trace(con, path, name="p", replace=True)   # same bytes as run t: replaces it
    assert kernel_facts(con, "p") == reference


def test_the_last_three_parts_become_two_balanced_ones(con, tmp_path, reference, monkeypatch):
    config = dataclasses.replace(SPLIT_SMALL, part_bytes=1)     # no floor under the balanced shares
    path = tiny_kineto.write(tmp_path / "b.json")
    monkeypatch.setattr(chrome_json, "load", _with_parts(chrome_json.load, 6, config=config))
    tracedb.ingest_trace(con, path, name="b", replace=True)
    assert kernel_facts(con, "b") == reference
    parts = con.execute("SELECT count(DISTINCT seq >> 32), max(seq >> 32) FROM trace_events").fetchone()
    assert parts == (5, 4)


@pytest.mark.parametrize("threads, cursors, parts", [(2, 2, 3), (1, 1, 2)])
def test_a_connection_held_to_one_thread_parses_with_one_cursor_in_whole_parts(con, tmp_path, reference, monkeypatch,
                                                                                threads, cursors, parts):
    # parts of exactly part_bytes (one kept event per part at most: rows_per_part=1 never raises the size);
    # the array is 2.5 part sizes long: two cursors get 3 parts (rounded up, under the part size), one
    # cursor 2 (rounded down: none smaller than the part size, so none goes through the WAL)
    path = tiny_kineto.write(tmp_path / "c.json")
    layout = chrome_json.locate(path, path, SPLIT_SMALL)
    config = dataclasses.replace(SPLIT_SMALL, part_bytes=(layout.end - layout.start) * 2 // 5, rows_per_part=1)
    widths = []
    real = loader.Inserters

    def spy(con_, insert, cfg, *rest):
        widths.append(cfg.inserters)
        return real(con_, insert, cfg, *rest)
    monkeypatch.setattr(loader, "Inserters", spy)
    monkeypatch.setattr(chrome_json, "load", _with_parts(chrome_json.load, None, config=config))
    con.execute(f"SET threads = {threads}")
    tracedb.ingest_trace(con, path, name="c", replace=True)
    assert widths == [cursors]
    assert kernel_facts(con, "c") == reference
    assert q(con, "SELECT count(DISTINCT seq >> 32) FROM trace_events") == [(parts,)]


def _with_parts(fn, forced, calls=None, config=chrome_json.DEFAULT):
    def load(con, run_id, path, parts=None, safe=False, **kw):
        parts = forced if parts is None else parts   # the retry asks for 1 part
        if calls is not None:
            calls.append((parts, safe))
        return fn(con, run_id, path, parts=parts, safe=safe, config=config, **kw)
    return load


def test_a_boundary_inside_args_falls_back_to_one_part(con, tmp_path, monkeypatch):
    # Inside a JSON string the pattern cannot occur (its quote would be escaped), but args may hold a list
    # of objects keyed "name": one cpu_op's args are 20,000 x's then such a list, so the middle of the
    # array lies in the x's and the cut for 2 parts lands inside args; DuckDB rejects that part and the
    # array is parsed again as one part
    doc = tiny_kineto.document()
    op = next(e for e in doc["traceEvents"] if e.get("cat") == "cpu_op")
    op["args"] = {"pad": "x" * 20000, "items": [{"name": "a"}, {"name": "b"}]}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc, separators=(",", ":")))
    calls = []
    monkeypatch.setattr(chrome_json, "load", _with_parts(chrome_json.load, 2, calls, config=SPLIT_SMALL))
    tracedb.ingest_trace(con, str(path), name="w")
    assert calls == [(2, False), (1, True)]
    assert q(con, "SELECT count(*) FROM kernels") == [(12,)]
    assert q(con, "SELECT count(*) FROM host_events") == [(22,)]


def _small_streaming(monkeypatch, calls):
    """Parts of a few hundred bytes and a .gz inflated 512 bytes at a time, so a tiny trace is cut into
    parts while it is inflated; `calls` records each load (a retry in safe mode would hide a bad cut) and
    whether the streaming path ran."""
    config = dataclasses.replace(
        chrome_json.DEFAULT, part_bytes=700, part_min=0, chunk=256, head_bytes=256, ts_sniff=512,
        sample_bytes=512,   # the density sample waits for no more
        gunzip_in_block=256, gunzip_out_cap=512)
    emit = chrome_json.Gunzip._emit

    def slow_emit(self, dst, data):   # ~20 emits of 20 ms: parts are cut before the stream ends
        time.sleep(0.02)
        emit(self, dst, data)
    monkeypatch.setattr(chrome_json.Gunzip, "_emit", slow_emit)
    real = chrome_json.parts.stream_ranges

    def spy(layout, gz, *a, **kw):
        calls.append("stream")
        early = 0
        for r in real(layout, gz, *a, **kw):
            early += not gz.done
            yield r
        calls.append("cut while inflating" if early else "cut after")
    monkeypatch.setattr(loader, "stream_ranges", spy)   # where load looks it up
    load = chrome_json.load

    def counted(con, run_id, path, parts=None, safe=False, **kw):
        calls.append("safe" if safe else "load")
        return load(con, run_id, path, parts=parts, safe=safe, config=config, **kw)
    monkeypatch.setattr(chrome_json, "load", counted)


def test_gzip_parts_cut_while_inflating_give_the_same_rows(con, tmp_path, reference, monkeypatch):
    hosts = q(con, "SELECT cat, name, start_ns, dur_ns, pid, tid, correlation_id FROM host_events ORDER BY seq")
    calls = []
    _small_streaming(monkeypatch, calls)
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "s.json.gz", compact=False, gz=True), name="s")
    assert calls == ["load", "stream", "cut while inflating"]
    assert kernel_facts(con, "s") == reference
    assert q(con, "SELECT h.cat, h.name, h.start_ns, h.dur_ns, h.pid, h.tid, h.correlation_id FROM host_events h "
                  "JOIN runs r USING (run_id) WHERE r.name = 's' ORDER BY h.seq") == hosts
    assert q(con, "SELECT device_name, world_size, clock_domain, truncated FROM runs WHERE name = 's'") == [
        ("NVIDIA H800", 8, "unix-epoch", False)]   # deviceProperties and distributedInfo read too


def test_gzip_with_the_time_base_after_the_events_waits_for_it(con, tmp_path, reference, monkeypatch):
    """Newer Kineto writes baseTimeNanoseconds after traceEvents (the Qwen1.5 and ROCm 6.2 traces of the
    real-trace folder, $TRACEDB_TEST_DATA): the parts cannot be staged before it is known, so the file is
    inflated first."""
    doc = tiny_kineto.document()
    base = doc.pop("baseTimeNanoseconds")
    doc["baseTimeNanoseconds"] = base                     # now the last key
    path = tmp_path / "late.json.gz"
    path.write_bytes(gzip.compress(json.dumps(doc, indent=1).encode()))
    calls = []
    _small_streaming(monkeypatch, calls)
    tracedb.ingest_trace(con, str(path), name="late")
    assert calls == ["load"]
    assert kernel_facts(con, "late") == reference


def test_truncated_gzip_stream_keeps_the_complete_events(con, tmp_path, monkeypatch):
    """A .gz cut short (crashed run): parts cut while inflating, then the end is the last complete event."""
    text = json.dumps(tiny_kineto.document(), indent=1)
    raw = gzip.compress(text.encode())
    path = tmp_path / "cut.json.gz"
    path.write_bytes(raw[:int(len(raw) * 0.7)])
    calls = []
    _small_streaming(monkeypatch, calls)
    res = tracedb.ingest_trace(con, str(path), name="cut")
    inflated = zlib.decompressobj(wbits=31).decompress(raw[:int(len(raw) * 0.7)]).decode()
    complete = inflated[:inflated.rfind("},")]   # everything up to the last complete event
    want = sum(complete.count(f'"cat": "{c}"') for c in ("kernel", "gpu_memcpy"))
    assert calls == ["load", "stream", "cut while inflating"] and res.truncated and res.rows == want and 0 < want < 12


def test_truncated_file_keeps_the_complete_events(con, tmp_path):
    path = tiny_kineto.write(tmp_path / "cut.json", truncate_at=0.6)
    res = tracedb.ingest_trace(con, path, name="cut")
    with open(path) as f:
        text = f.read()
    # the complete device events before the cut, counted from the text itself
    complete = text[:text.rfind("},{") + 1]
    want = sum(complete.count(f'"cat":"{c}"') for c in ("kernel", "gpu_memcpy"))
    assert res.truncated and res.rows == want and 0 < want < 12
    assert "cut short" in res.summary()
    assert q(con, "SELECT truncated FROM runs") == [(True,)]


def test_ascend_trace_view_string_ts_is_exact(con, tmp_path):
    # Ascend writes ts as a string of absolute µs with 3 decimals: 19 digits, exact to the ns
    ev = [{"ph": "M", "name": "process_name", "pid": 800, "tid": 0, "args": {"name": "Ascend Hardware"}},
          {"ph": "M", "name": "process_name", "pid": 437675, "tid": 0, "args": {"name": "Python"}},
          {"name": "aclnnMatmul_MatMulV3_MatMulV3", "pid": 800, "tid": 3, "ts": "1704161511422904.204", "dur": 1.35,
           "ph": "X", "args": {"Task Type": "AI_CORE", "Stream Id": 3, "Task Id": 279, "connection_id": 8}},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 437675, "tid": 437675,
           "ts": "1704161511422900.001", "dur": 3.0, "args": {}}]
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(ev))
    tracedb.ingest_trace(con, str(path), name="a")
    assert q(con, "SELECT name, start_ns, dur_ns, stream_id, task_id, core_type, correlation_id FROM kernels") == [
        ("aclnnMatmul_MatMulV3_MatMulV3", 1704161511422904204, 1350, 3, 279, "AI_CORE", 8)]
    assert q(con, "SELECT format, device_kind, clock_domain FROM runs") == [
        ("ascend-trace-view", "npu", "unix-epoch-local")]
    assert q(con, "SELECT start_ns FROM host_events") == [(1704161511422900001,)]


@pytest.mark.parametrize("content, message", [
    (b'{"traceEvents": []}', "the trace holds no complete events; expected a non-empty traceEvents array"),
    (b'{"schemaVersion": 1, "other": [1, 2]}', 'no "traceEvents" array in the first'),
    (b'[{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 2}]',
     "no device activity (no kernel, gpu_memcpy or gpu_memset events, no threads named like cores): a CPU-only "
     "profile?"),
    (b'[{"ph": "X", "cat": "kernel", "na', "the event array is cut before its first complete event"),
    (b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": 2}, {"ph": "X"', "missing"),
])
def test_bad_json_one_line_store_unchanged(tmp_path, db_path, content, message):
    if message == "missing":   # cut after one complete event: not an error, the run is marked truncated
        f = tmp_path / "cut.json"
        f.write_bytes(content)
        assert "cut short" in cli("ingest", str(f), "--db", db_path, "--name", "cut").stdout
        return
    cli("ingest", tiny_kineto.write(tmp_path / "ok.json"), "--db", db_path, "--name", "ok")
    before = cli("sql", "--db", db_path, "--format", "csv", "select * from runs").stdout
    f = tmp_path / "bad.json"
    f.write_bytes(content)
    p = cli("ingest", str(f), "--db", db_path, check=False)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith(f"error: {f}: ") and message in p.stderr
    assert cli("sql", "--db", db_path, "--format", "csv", "select * from runs").stdout == before


def test_args_of_unexpected_types_are_read_safely(con, tmp_path):
    # a producer writing ids as strings ("7") or an odd grid: the typed read fails, the safe one casts
    doc = tiny_kineto.document()
    k = next(e for e in doc["traceEvents"] if e.get("cat") == "kernel")
    k["args"].update(stream="seven", grid="1x1x1")
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(doc))
    tracedb.ingest_trace(con, str(path), name="odd")
    # that kernel: stream not a number -> the tid (7); grid not a list -> NULL; the others as usual
    assert q(con, "SELECT stream_id, grid FROM kernels ORDER BY start_ns LIMIT 2") == [(7, None), (7, [132, 1, 1])]


def test_corrupt_gzip_names_the_offset(tmp_path, db_path):
    raw = gzip.compress(json.dumps(tiny_kineto.document()).encode())
    bad = raw[:40] + bytes(b ^ 0x5A for b in raw[40:80]) + raw[80:]
    f = tmp_path / "bad.json.gz"
    f.write_bytes(bad)
    p = cli("ingest", str(f), "--db", db_path, check=False)
    assert p.returncode == 1 and p.stderr.startswith(f"error: {f}: byte offset ~") and "corrupt gzip data" in p.stderr


def test_modules_account_for_every_kernel(con, tmp_path):
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "m.json"), name="m")
    out = render_report(con, "modules", runs=["m"], fmt="csv")
    rows = [line.split(",") for line in out.splitlines()[1:]]
    # 60 µs under the module Layer (its role: the instances Layer_0, Layer_1 of both passes), 4 µs of memcpy
    # with no frame, 3 µs with no launch: 67 µs of device time
    assert sorted((r[3], r[5], r[6]) for r in rows) == [
        ("(no host frame)", "2", "4.000"), ("(no host launch)", "2", "3.000"),
        ("Layer", "4", "20.000"), ("Layer", "4", "40.000")]
    out = render_report(con, "modules", runs=["m"], fmt="csv", by="module", module_path=True)
    assert sorted(line.split(",")[3:5] for line in out.splitlines()[1:]) == [
        ["(no host frame)", "2"], ["(no host launch)", "2"], ["Layer_0", "4"], ["Layer_1", "4"]]
    assert all(r[1] == "" and r[2] == "" for r in rows)      # no anchor: no pass, no layer


def test_launches_find_their_frames_across_time_buckets(con, tmp_path):
    """Frames are matched to launches through 1 ms buckets: a frame spanning many buckets, one crossing a
    boundary, a launch exactly on a boundary and one after its inner frame ended get the innermost frames
    that enclose them, on their own thread only."""
    from tracedb import sql

    def x(cat, name, ts, dur, tid=1, **args):
        return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": args}
    events = [x("user_annotation", "step", 0, 5000),                      # 0-5 ms: buckets 0..4
              x("cpu_op", "aten::linear", 2000, 2500),                    # 2-4.5 ms
              x("cpu_op", "aten::mm", 2999.5, 1),                         # crosses 3 ms
              x("cuda_runtime", "cudaLaunchKernel", 3000, 0.2, correlation=1),   # at 3 ms exactly
              x("cuda_runtime", "cudaLaunchKernel", 4000, 0.2, correlation=2),   # after aten::mm ended
              x("cuda_runtime", "cudaLaunchKernel", 3000.5, 0.2, correlation=3),  # as aten::mm ends
              x("cpu_op", "aten::other_thread", 3500, 1000, tid=2),       # encloses 4 ms, other thread
              x("kernel", "k1", 3010, 5, device=0, stream=7, correlation=1),
              x("kernel", "k2", 4010, 5, device=0, stream=7, correlation=2),
              x("kernel", "k3", 3020, 5, device=0, stream=7, correlation=3)]
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"traceEvents": events}))
    tracedb.ingest_trace(con, str(path), name="b")
    sql.run(con, "attribute_scope_runs", {"run_ids": [1]})
    sql.run(con, "attribute_modules", {"run_ids": [1]})
    got = q(con, "SELECT k.name, a.launch_ns, a.cpu_op, a.annotation, a.module FROM _attr a "
                 "JOIN kernels k USING (run_id, seq) ORDER BY k.name")
    assert got == [("k1", 3_000_000, "aten::mm", "step", "step"),
                   ("k2", 4_000_000, "aten::linear", "step", "step"),
                   ("k3", 3_000_500, "aten::linear", "step", "step")]


def test_nccl_kernels_count_as_communication(con, tmp_path):
    # pass 0's first gemm_kernel renamed to an NCCL all-reduce: layer 0 of pass 0 (strict window) holds
    # the flash kernel at 21 and that kernel at 50 -> one communication kernel of 10 µs
    doc = tiny_kineto.document()
    gemms = [e for e in doc["traceEvents"] if e.get("name") == "gemm_kernel"]
    gemms[1]["name"] = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
    path = tmp_path / "nccl.json"
    path.write_text(json.dumps(doc))
    tracedb.ingest_trace(con, str(path), name="n")
    out = render_report(con, "layers", runs=["n"], profile="dsv3-gpu", anchor="flash_fwd", layers=2, fmt="csv",
                         window="strict")
    header, first = out.splitlines()[:2]
    row = dict(zip(header.split(","), first.split(",")))
    assert (row["pass"], row["layer"], row["communication_us"], row["comm_count"]) == ("0", "0", "10.000", "1")


# ------------------------------------------------------------------ parts commit on their own (flat memory)
def table_counts(con):
    return [q(con, f"SELECT count(*) FROM {t}")[0][0] for t in ("trace_events", "kernels", "host_events", "tracks")]


def test_parts_of_an_unfinished_ingest_stay_hidden_and_are_removed(db_path, tmp_path):
    """A process killed between its committed parts and the run's final transaction: no kernel or host
    event of it is seen, the next writer removes every row of it, and the run id is used again."""
    from tracedb import sql
    con = tracedb.connect(db_path)
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "a.json"), name="a")
    before = table_counts(con)
    sql.run(con, "ingest_pending", {"run_id": 2})              # what ingest_path does first
    chrome_json.load(con, 2, tiny_kineto.write(tmp_path / "b.json", string_pids=True), parts=3,
                     config=SPLIT_SMALL)                       # 3 commits
    raw = table_counts(con)
    con.close()                                                # ... and the process dies here
    assert raw[0] > before[0]                                  # the parts are in the file
    assert raw[1:3] == before[1:3]                             # but not in the kernels and host_events views
    reader = tracedb.connect(db_path, read_only=True)
    assert table_counts(reader)[1:3] == before[1:3]
    assert q(reader, "SELECT name FROM runs") == [("a",)]
    reader.close()
    con = tracedb.connect(db_path)                             # the next writer cleans up
    assert table_counts(con) == before
    assert q(con, "SELECT count(*) FROM tracedb_meta WHERE key = 'pending_run'") == [(0,)]
    assert tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "c.json", string_pids=True), name="c").run_id == 2
    con.close()


def test_a_failed_json_ingest_removes_its_batches(con, tmp_path):
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "a.json"), name="a")
    before = table_counts(con)
    cpu_only = tiny_kineto.document()
    cpu_only["traceEvents"] = [e for e in cpu_only["traceEvents"] if e.get("cat") not in ("kernel", "gpu_memcpy")]
    path = tmp_path / "cpu.json"
    path.write_text(json.dumps(cpu_only))
    with pytest.raises(tracedb.InputError, match="no device activity"):
        tracedb.ingest_trace(con, str(path), name="cpu")
    assert table_counts(con) == before
    assert q(con, "SELECT count(*) FROM tracedb_meta WHERE key = 'pending_run'") == [(0,)]


def test_parts_aim_at_more_than_a_row_group_of_kept_events(tmp_path):
    """A part's insert is written straight to the file only when it fills a row group: the part size
    follows the density of complete and metadata events (flows do not count), within its bounds."""
    config = dataclasses.replace(chrome_json.DEFAULT, part_bytes=1000, rows_per_part=10)
    event = b'{"ph": "X", "name": "k", "pid": 1, "tid": 1, "ts": 1, "dur": 1},'
    flow = b'{"ph": "s", "name": "f", "id": 1, "pid": 1, "tid": 1, "ts": 1},'
    for body, want in ((event * 400, 1000),                               # 10 events' bytes, under the floor
                       ((event + flow) * 400, 10 * len(event + flow)),     # 10 kept among 10 flows: 1260
                       ((event + flow * 8) * 400, 2000)):                  # capped at twice the floor
        path = tmp_path / "d.json"
        path.write_bytes(b"[" + body[:-1] + b"]")
        layout = chrome_json.locate(str(path), str(path))
        got = chrome_json.part_bytes(layout.path, layout.start, layout.end, config)
        assert got == pytest.approx(want, abs=1)
        # the head alone
        assert chrome_json.part_bytes(layout.path, layout.start, None, config) == pytest.approx(got, abs=1)


def test_kineto_traces_skip_the_npu_args_and_other_traces_read_them(con, tmp_path):
    """The reader's args struct leaves out the keys only NPU producers write when the top-level keys say
    Kineto; a bare array or an object without them (an on-device NPU trace) still gets its task ids."""
    events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 2,
               "args": {"correlation": 5, "taskId": 41}}]
    kinds = {}
    for label, doc in (("kineto", {"schemaVersion": 1, "traceEvents": events}), ("object", {"traceEvents": events}),
                       ("array", events)):
        path = tmp_path / f"{label}.json"
        path.write_text(json.dumps(doc))
        keys = chrome_json.args_keys(chrome_json.locate(str(path), str(path)))
        kinds[label] = set(chrome_json.NPU_ARGS) & set(keys)
        tracedb.ingest_trace(con, str(path), name=label)
    assert kinds == {"kineto": set(), "object": set(chrome_json.NPU_ARGS), "array": set(chrome_json.NPU_ARGS)}
    got = dict(con.execute("SELECT r.name, e.task_id FROM trace_events e JOIN runs r USING (run_id) "
                           "WHERE e.ph = 'X'").fetchall())
    assert got == {"kineto": None, "object": 41, "array": 41}
    assert {r[0] for r in con.execute("SELECT correlation_id FROM kernels").fetchall()} == {5}


def test_the_last_parts_are_cut_so_both_cursors_end_together(tmp_path):
    """The last stretch goes to the free cursor and the busy one in shares that end at the same time:
    halves without a rate, more for the free cursor the longer the other is busy, all of it when the
    busy one needs longer than the whole stretch, yet no share under min_bytes (a part under a row group
    goes through the WAL); every cut falls between two events."""
    event = '{"ph": "X", "name": "k", "pid": 1, "tid": 1, "ts": %d, "dur": 1}'
    path = tmp_path / "t.json"
    path.write_text("[" + ",\n".join(event % (1000 + i) for i in range(1000)) + "]")
    layout = chrome_json.locate(str(path), str(path))
    x, y = layout.start, layout.end
    whole = y - x

    def shares(busy_left, rate, min_bytes=0):
        ranges = chrome_json.balance_tail(layout, (x, y), busy_left, rate, min_bytes)
        data = path.read_bytes()
        events = [json.loads(b"[" + data[a:b].strip(b" \n,") + b"]") for a, b in ranges]
        assert [e["ts"] for part in events for e in part] == list(range(1000, 2000))   # nothing lost, in order
        return [len(part) for part in events]

    assert shares(0.0, None) == pytest.approx([500, 500], abs=2)
    assert shares(5.0, whole / 2 / 5.0) == pytest.approx([750, 250], abs=2)   # busy for half the stretch
    assert shares(5.0, whole / 5.0) == [1000]                                  # busy for all of it
    assert shares(5.0, whole / 5.0, whole // 4) == pytest.approx([750, 250], abs=2)   # but not under min_bytes
    assert shares(0.0, None, whole // 2 + 1) == [1000]                         # too short for two


def test_a_failure_while_inserting_a_part_removes_every_part(con, tmp_path, monkeypatch):
    """Parts are inserted on two cursors at once; when one fails, the parts committed before and beside
    it are removed too, and no further part is inserted."""
    from tracedb import sql
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "a.json"), name="a")
    before = table_counts(con)
    monkeypatch.setattr(chrome_json, "load", _with_parts(chrome_json.load, 8, config=SPLIT_SMALL))
    real, inserts = sql.run, []

    def failing(cur, name, *a, **kw):
        if name == "ingest_chrome_part":
            inserts.append(name)
            if len(inserts) == 3:    # two parts committed (or in flight beside it)
                raise RuntimeError("disk full")
        return real(cur, name, *a, **kw)
    monkeypatch.setattr(sql, "run", failing)
    path = tiny_kineto.write(tmp_path / "b.json", string_pids=True)
    assert len(chrome_json.split(chrome_json.locate(path, path, SPLIT_SMALL), 8, SPLIT_SMALL)) == 8
    with pytest.raises(RuntimeError, match="disk full"):
        tracedb.ingest_trace(con, path, name="b")
    # the parts in flight beside it end (at most inserters + ahead are), the rest are never inserted
    assert len(inserts) <= 3 + SPLIT_SMALL.inserters + SPLIT_SMALL.ahead < 8
    assert table_counts(con) == before
    assert q(con, "SELECT count(*) FROM tracedb_meta WHERE key = 'pending_run'") == [(0,)]
    assert q(con, "SELECT name FROM runs") == [("a",)]


def test_replacing_a_json_run_replaces_its_host_events_and_tracks(con, tmp_path):
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "a.json"), name="a")
    once = table_counts(con)
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "a.json"), name="a", replace=True)
    assert table_counts(con) == once
    assert q(con, "SELECT DISTINCT run_id FROM host_events UNION SELECT DISTINCT run_id FROM tracks") == [(2,)]


def test_epoch_microseconds_are_exact_to_the_ns(con, tmp_path):
    # older Kineto (the H800 DeepSeek trace): integer µs since the epoch, no baseTimeNanoseconds. ts * 1000
    # is past 2^53, so a float product lands on a multiple of 256 ns; the whole µs must convert exactly
    t0 = 1740461679479712
    doc = {"traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t0 + i * 37, "dur": 3 + i,
         "args": {"device": 0, "stream": 7, "correlation": i}} for i in range(50)]
        + [{"ph": "X", "cat": "kernel", "name": "q", "pid": 0, "tid": 7, "ts": "T_FRACTION", "dur": 1.5}]}
    path = tmp_path / "epoch.json"
    # the fractional epoch is written as text with its 3 decimals (json.dumps of the float t0 + 5000.25
    # would print the shortest repr, 1740461679484712.2): the digits in the file are what is stored
    path.write_text(json.dumps(doc).replace('"T_FRACTION"', f"{t0 + 5000}.250"))
    tracedb.ingest_trace(con, str(path), name="e")
    got = q(con, "SELECT start_ns, dur_ns FROM kernels ORDER BY seq")
    assert got == [((t0 + i * 37) * 1000, (3 + i) * 1000) for i in range(50)] + [(t0 * 1000 + 5000250, 1500)]
    assert q(con, "SELECT clock_domain FROM runs") == [("unix-epoch",)]


def test_duckdb_memory_is_capped_while_the_parts_go_in(con, tmp_path, monkeypatch):
    """DuckDB keeps the blocks it wrote cached until memory is short, so the parts go in under
    chrome_json.DEFAULT.memory_cap; the default limit comes back after, and a lower limit of an API user's stays."""
    from tracedb import sql
    limits, real_run = [], sql.run

    def run(cur, name, *args, **kw):
        if name == "ingest_chrome_part":
            limits.append(cur.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        return real_run(cur, name, *args, **kw)

    monkeypatch.setattr(sql, "run", run)

    def limit():
        return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]

    default = limit()
    path = tiny_kineto.write(tmp_path / "a.json")
    tracedb.ingest_trace(con, path, name="a")
    assert limits and {chrome_json.size_bytes(x) for x in limits} == {chrome_json.DEFAULT.memory_cap}
    assert limit() == default
    con.execute("SET memory_limit = '100MB'")
    own, limits[:] = limit(), []
    tracedb.ingest_trace(con, path, name="a", replace=True)
    # the parse runs in a side store that takes the connection's limit (as text: 95.3 MiB may read 95.2)
    assert limits and all(abs(chrome_json.size_bytes(x) - chrome_json.size_bytes(own)) <= 0.1 * 2**20 for x in limits)
    assert limit() == own
    assert chrome_json.size_bytes("18.8 GiB") == 18.8 * 2**30 and chrome_json.size_bytes("400MB") == 400e6


def test_a_gzip_ingest_reports_its_inflated_size(con, tmp_path):
    plain = tiny_kineto.write(tmp_path / "p.json")
    packed = tiny_kineto.write(tmp_path / "p.json.gz", gz=True)
    res = tracedb.ingest_trace(con, packed, name="gz")
    with open(plain, "rb") as f:
        assert res.inflated == len(f.read()) and res.bytes == os.path.getsize(packed)
    assert f"MB gzip, {res.inflated / 1e6:.1f} MB inflated, in " in res.summary()
    res = tracedb.ingest_trace(con, plain, name="plain", replace=True)
    assert res.inflated is None and "inflated" not in res.summary()


def test_timeline_is_relative_to_the_first_event_and_gives_the_files_timestamps(con, tmp_path):
    # tests/tiny_kineto.py: the first event is the host frame nn.Module: Layer_0 at T = 0; the first kernel
    # (gemm, 10 us later) starts pass 0 of the full window; ts_ns is the file's ts x 1000, without the base
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "t.json"), name="t")
    out = render_report(con, "timeline", runs=["t"], anchor="flash_fwd", layers=2, fmt="csv")
    first = dict(zip(out.splitlines()[0].split(","), out.splitlines()[1].split(",")))
    raw_first_kernel = con.execute("SELECT min(start_ns) FROM kernels").fetchone()[0] - tiny_kineto.BASE_NS
    assert (first["start_s"], int(first["ts_ns"])) == ("0.000010000", raw_first_kernel)
