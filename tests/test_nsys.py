"""Nsight Systems SQLite exports (`nsys export --type sqlite`): device rows with exact ns and the names
`nsys stats` prints, CUDA API calls and NVTX ranges as host events that `report modules` attributes kernels
by, CUDA graph launches, one run per device, version drift, `.nsys-rep` reports and one-line refusals. The
synthetic exports are tests/nsys_synth.py's; the real one is an nsys 2023.1.2 export of a TensorRT run."""
import csv
import io
import os
import sqlite3
import stat
import sys
from decimal import Decimal

import pytest

import nsys_synth
import tiny_kineto
import tracedb
from helpers import assert_one_line_error, cli, real_trace, run_lines

REAL = ("nsys-sqlite-samples", "LeiWang1999_memfusion_artifact", "report1.sqlite")


def modules(db_path, run) -> dict:
    """`report modules --by module` as module -> (kernels, ns)."""
    out = cli("report", "modules", "--db", db_path, "--run", run, "--by", "module", "--format", "csv").stdout
    return {r["module"]: (int(r["kernels"]), int(Decimal(r["sum_us"]) * 1000))
            for r in csv.DictReader(io.StringIO(out))}


def query(db_path, q, params=None):
    con = tracedb.connect(db_path, read_only=True)
    try:
        return con.execute(q, params or {}).fetchall()
    finally:
        con.close()


def export_sums(path) -> tuple[int, int]:
    con = sqlite3.connect(path)
    try:
        n = s = 0
        for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
            if con.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0]:
                c, d = con.execute(f'SELECT count(*), coalesce(sum("end" - start), 0) FROM "{t}"').fetchone()
                n, s = n + c, s + d
        return n, s
    finally:
        con.close()


def test_one_run_per_device_attributed_to_nvtx_ranges(tmp_path, db_path):
    p = nsys_synth.profile(tmp_path / "prof.sqlite")
    r = cli("ingest", p, "--db", db_path, "--name", "P")
    assert run_lines(r.stdout) == ["ingested run 'P-gpu0'", "ingested run 'P-gpu1'"]
    runs = query(db_path, "SELECT name, format, rank, device_kind, device_name, clock_domain, kernel_count, "
                          "time_base_ns FROM runs ORDER BY run_id")
    assert runs == [(f"P-gpu{d}", "nsys", d, "gpu", "NVIDIA H100 80GB HBM3", "nsys-session", nsys_synth.PROFILE_ROWS, 0)
                    for d in (0, 1)]
    assert export_sums(p) == (2 * nsys_synth.PROFILE_ROWS, 2 * nsys_synth.PROFILE_DEVICE_NS)
    again = cli("ingest", p, "--db", db_path, "--name", "P").stdout
    assert run_lines(again) == ["skipped run 'P-gpu0'", "skipped run 'P-gpu1'"]
    for d in (0, 1):
        got = modules(db_path, f"P-gpu{d}")
        assert got == {m: v for m, v in nsys_synth.PROFILE_MODULES.items() if v[0]}
        assert sum(ns for _, ns in got.values()) == nsys_synth.PROFILE_DEVICE_NS


def test_device_rows_exact_with_names_geometry_and_graph_nodes(tmp_path, db_path):
    p = nsys_synth.profile(tmp_path / "prof.sqlite", devices=(0,))
    cli("ingest", p, "--db", db_path, "--name", "one")
    rows = query(db_path, "SELECT name, kind, start_ns, dur_ns, device_id, stream_id, context_id, correlation_id, "
                          "task_id, grid, block, registers_per_thread, shared_mem_bytes FROM kernels ORDER BY seq")
    assert query(db_path, "SELECT name FROM runs") == [("one",)]        # one device: one run, named as asked
    assert rows[0] == (nsys_synth.GEMM, "kernel", 10_000, 20_000, 0, 7, 1, 1001, None, [132, 1, 1], [384, 1, 1],
                       168, 1024 + 227_000)
    assert rows[1][:4] == (nsys_synth.ATTN, "kernel", 31_000, 30_001)
    graph = [(r[0], r[7], r[8]) for r in rows if r[8] is not None]
    assert graph == [(nsys_synth.GEMM, 1004, 11), (nsys_synth.ATTN, 1004, 12), (nsys_synth.NORM, 1004, 13)]
    assert [r[:4] for r in rows if r[1] != "kernel"] == [
        ("[CUDA memcpy Host-to-Device]", "memcpy", 312_000, 10_000), ("[CUDA memset]", "memset", 332_000, 2_000)]
    assert [r[1] for r in rows if r[0] == nsys_synth.NCCL] == ["kernel"]       # communication by name, as Kineto's
    assert [r[7] for r in rows if r[0].startswith("void at::native::fill")] == [None]


def test_graph_kernels_belong_to_their_graph_launch(tmp_path, db_path):
    cli("ingest", nsys_synth.profile(tmp_path / "prof.sqlite", devices=(0,)), "--db", db_path, "--name", "g")
    launches = query(db_path, "SELECT k.task_id, h.name, h.cat FROM kernels k JOIN host_events h "
                              "ON h.run_id = k.run_id AND h.correlation_id = k.correlation_id "
                              "WHERE k.task_id IS NOT NULL ORDER BY k.task_id")
    assert launches == [(n, "cudaGraphLaunch", "cuda_runtime") for n in (11, 12, 13)]
    assert modules(db_path, "g")["decode_graph"] == nsys_synth.PROFILE_MODULES["decode_graph"]


def test_host_events_are_the_run_processes_api_calls_and_ranges(tmp_path, db_path):
    cli("ingest", nsys_synth.profile(tmp_path / "prof.sqlite", devices=(0,)), "--db", db_path, "--name", "h")
    host = query(db_path, "SELECT cat, name, pid, tid, start_ns, dur_ns, extra_args FROM trace_events ORDER BY seq")
    assert {h[2] for h in host} == {"100"}          # the call of process 999 (same correlation id) is left out
    ranges = [(h[1], h[4], h[5], h[6]) for h in host if h[0] == "user_annotation"]
    assert ranges == [("step", 0, 900_000, None), ("forward", 1_000, 499_000, None), ("layer.0", 2_000, 98_000, None),
                      ("norm", 110_000, 40_000, '{"domain":"app"}'), ("decode_graph", 200_000, 100_000, None)]
    api = [h[1] for h in host if h[0] == "cuda_runtime"]
    assert api == ["cudaLaunchKernel"] * 3 + ["cudaGraphLaunch", "cudaMemcpyAsync", "cudaMemsetAsync"] + \
        ["cudaLaunchKernel"] * 2


def test_a_range_never_closed_ends_with_the_capture(tmp_path, db_path):
    x = nsys_synth.Export()
    x.gpu(0, "NVIDIA A100-SXM4-80GB")
    x.push(100, None, 7, 1, "serve")
    c = x.api(200, 300, 7, 1, "cudaLaunchKernel_v7000")
    x.kernel(1_000, 4_000, "k", pid=7, corr=c)
    cli("ingest", x.write(tmp_path / "open.sqlite"), "--db", db_path, "--name", "o")
    assert query(db_path, "SELECT name, start_ns, dur_ns FROM host_events WHERE cat = 'user_annotation'") == [
        ("serve", 100, 3_900)]
    assert modules(db_path, "o") == {"serve": (1, 3_000)}


def test_python_api_loads_every_device_keeping_processes_apart(tmp_path, con):
    tracedb.ingest_trace(con, nsys_synth.profile(tmp_path / "prof.sqlite"), name="all")
    per_dev = con.execute("SELECT device_id, count(*), sum(dur_ns) FROM kernels GROUP BY 1 ORDER BY 1").fetchall()
    assert per_dev == [(d, nsys_synth.PROFILE_ROWS, nsys_synth.PROFILE_DEVICE_NS) for d in (0, 1)]
    # both processes number their calls from 1001: the ids are kept apart by pid
    first = con.execute("SELECT min(correlation_id) FROM kernels WHERE device_id = 1").fetchone()
    assert first == (200 * 2**32 + 1001,)
    domains = con.execute("SELECT pid, extra_args FROM trace_events WHERE name = 'norm' ORDER BY pid").fetchall()
    assert domains == [("100", '{"domain":"app"}'), ("200", '{"domain":"lib"}')]
    rows = tracedb.report(con, "modules", run="all", by="module").arrow().to_pylist()
    got = {r["module"]: int(r["kernels"]) for r in rows}
    assert got == {m: 2 * n for m, (n, _) in nsys_synth.PROFILE_MODULES.items() if n}


def test_renamed_tables_of_other_versions(tmp_path, db_path):
    p = nsys_synth.profile(tmp_path / "new.sqlite", devices=(0,), variant="renamed", schema_version="3.14.1",
                           product="2024.6.1.90")
    cli("ingest", p, "--db", db_path, "--name", "n")
    assert query(db_path, "SELECT device_name, metadata FROM runs") == [(
        "NVIDIA H100 80GB HBM3", '{"nsys": {"EXPORT_PRODUCT_NAME": "NVIDIA Nsight Systems", "EXPORT_PRODUCT_VERSION": '
        '"2024.6.1.90", "EXPORT_SCHEMA_VERSION": "3.14.1", "session_start_utc_epoch_ns": 1700000000123456789}}')]
    # no ENUM tables: the event types and copy kinds of the versions checked
    assert modules(db_path, "n") == {m: v for m, v in nsys_synth.PROFILE_MODULES.items() if v[0]}
    assert query(db_path, "SELECT name FROM kernels WHERE kind = 'memcpy'") == [("[CUDA memcpy Host-to-Device]",)]


def test_optional_columns_may_be_missing(tmp_path, db_path):
    p = nsys_synth.profile(tmp_path / "old.sqlite", devices=(0,), drop={
        "CUPTI_ACTIVITY_KIND_KERNEL": ["graphNodeId", "mangledName", "demangledName"],
        "NVTX_EVENTS": ["textId", "domainId", "endGlobalTid"]})
    cli("ingest", p, "--db", db_path, "--name", "old")
    names = query(db_path, "SELECT DISTINCT name FROM kernels WHERE kind = 'kernel' ORDER BY 1")
    assert ("void flash::flash_fwd_kernel",) in names           # shortName when there is no demangledName
    assert query(db_path, "SELECT count(*) FROM kernels WHERE task_id IS NOT NULL") == [(0,)]
    got = modules(db_path, "old")
    assert sum(ns for _, ns in got.values()) == nsys_synth.PROFILE_DEVICE_NS
    # without textId the registered-string range has no name; its kernel goes to the range around it
    assert "norm" not in got and got["(unnamed NVTX range)"] == nsys_synth.PROFILE_MODULES["norm"]


def test_timestamps_past_2_to_the_62_stay_exact(tmp_path, db_path):
    x = nsys_synth.Export()
    t0 = (1 << 62) + 123_456_789
    c = x.api(t0 - 5, t0 - 1, 7, 1, "cudaLaunchKernel_v7000")
    x.kernel(t0, t0 + 1_234_567_891, "k", pid=7, corr=c)
    x.kernel(t0 + 2_000_000_000, t0 + 2_000_000_001, "k2", pid=7)
    cli("ingest", x.write(tmp_path / "t.sqlite"), "--db", db_path, "--name", "t")
    assert query(db_path, "SELECT start_ns, dur_ns FROM kernels ORDER BY seq") == [
        (t0, 1_234_567_891), (t0 + 2_000_000_000, 1)]
    assert query(db_path, "SELECT start_ns FROM host_events") == [(t0 - 5,)]


@pytest.mark.parametrize("make,message", [
    (lambda x, p: x.write(p, drop={"CUPTI_ACTIVITY_KIND_KERNEL": ["streamId"]}),
     "CUPTI_ACTIVITY_KIND_KERNEL: no column streamId; expected the columns of an Nsight Systems export"),
    (lambda x, p: x.write(p, drop={"CUPTI_ACTIVITY_KIND_RUNTIME": ["correlationId"]}, schema_version="9.0.0"),
     "CUPTI_ACTIVITY_KIND_RUNTIME: no column correlationId; expected the columns of an Nsight Systems export "
     "(read: schema 3.x; this is export schema 9.0.0)"),
    (lambda x, p: x.write(p, drop={"CUPTI_ACTIVITY_KIND_KERNEL": ["demangledName", "shortName", "mangledName"]}),
     "CUPTI_ACTIVITY_KIND_KERNEL: no column demangledName"),
    (lambda x, p: x.write(p, tables={"StringIds", "EXPORT_META_DATA", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"}),
     "no CUPTI_ACTIVITY_KIND_KERNEL rows: profile with --trace=cuda"),
    (lambda x, p: nsys_synth.Export().write(p), "no CUPTI_ACTIVITY_KIND_KERNEL rows: profile with --trace=cuda"),
    (lambda x, p: x.write(p, schema_version="three"),
     "EXPORT_META_DATA: EXPORT_SCHEMA_VERSION 'three' is no version; expected MAJOR.MINOR.MICRO"),
])
def test_refusals_are_one_line(tmp_path, db_path, make, message):
    p = str(tmp_path / "bad.sqlite")
    make(nsys_synth.build(devices=(0,)), p)
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, message, code=1)
    assert p in r.stderr
    assert not os.path.exists(db_path) or query(db_path, "SELECT count(*) FROM runs") == [(0,)]


def test_a_kernel_ending_before_it_starts_or_a_text_time_is_refused(tmp_path, db_path):
    p = nsys_synth.profile(tmp_path / "bad.sqlite", devices=(0,))
    con = sqlite3.connect(p)
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET \"end\" = start - 1")
    con.commit()
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, "CUPTI_ACTIVITY_KIND_MEMSET: a row with start 332000 and end 331999; expected integer ns, "
                             "start <= end", code=1)
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET \"end\" = 'late'")
    con.commit()
    con.close()
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, "CUPTI_ACTIVITY_KIND_MEMSET.end: 'late' in row 1; expected a 64-bit integer", code=1)


@pytest.mark.real_data
def test_a_cut_export_is_refused_in_one_line(tmp_path, db_path):
    real = real_trace(*REAL)
    cut = tmp_path / "cut.sqlite"
    with open(real, "rb") as f:
        cut.write_bytes(f.read(os.path.getsize(real) // 3))
    r = cli("ingest", cut, "--db", db_path, check=False)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"error: {cut}: ") and ("SQLite" in r.stderr or "malformed" in r.stderr)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"SQLite format 3\x00" + b"\x07" * 5000)
    r = cli("ingest", garbage, "--db", db_path, check=False)
    assert_one_line_error(r, f"{garbage}: cannot", code=1)


def test_a_report_without_nsys_names_the_export_command(tmp_path, db_path):
    rep = tmp_path / "run1.nsys-rep"
    rep.write_bytes(b"\x00" * 64)
    r = cli("ingest", rep, "--db", db_path, check=False, env={**os.environ, "PATH": str(tmp_path / "nobin")})
    out = tmp_path / "run1.sqlite"
    assert_one_line_error(r, "no nsys on PATH to export it: run `nsys export --type sqlite --force-overwrite=true "
                             f"--output {out} {rep}` and ingest {out}", code=1)


def test_a_report_is_exported_with_nsys_beside_it(tmp_path, db_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "nsys"       # stands in for nsys: writes the synthetic export where --output says
    fake.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {os.path.dirname(__file__)!r})\n"
                    "import nsys_synth\na = sys.argv[1:]\n"
                    "assert a[:5] == ['export', '--type', 'sqlite', '--force-overwrite=true', '--output'], a\n"
                    "nsys_synth.profile(a[5], devices=(0,))\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    rep = tmp_path / "run1.nsys-rep"
    rep.write_bytes(b"\x00" * 64)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    cli("ingest", rep, "--db", db_path, "--name", "rep", env=env)
    assert os.path.exists(tmp_path / "run1.sqlite")
    assert query(db_path, "SELECT source_path, source_files, kernel_count FROM runs") == [
        (str(rep), [str(tmp_path / "run1.sqlite")], nsys_synth.PROFILE_ROWS)]
    fake.unlink()           # an export newer than the report is used as it is: no nsys needed
    cli("ingest", rep, "--db", db_path, "--name", "rep2", "--replace", env=env)
    assert query(db_path, "SELECT name, source_path FROM runs") == [("rep2", str(rep))]


def test_a_folder_of_mixed_files(tmp_path, db_path):
    d = tmp_path / "node"
    d.mkdir()
    nsys_synth.profile(d / "prof.sqlite")
    tiny_kineto.write(d / "kineto.json")
    other = sqlite3.connect(d / "notes.sqlite")
    other.execute("CREATE TABLE notes (id INTEGER, text TEXT)")
    other.execute("INSERT INTO notes VALUES (1, 'not a profile')")
    other.commit()
    other.close()
    r = cli("ingest", d, "--db", db_path)
    runs = query(db_path, "SELECT format, device_id, kernel_count FROM runs ORDER BY format, name")
    assert [f for f, _, _ in runs] == ["chrome-trace", "nsys", "nsys"], r.stdout
    assert [k for f, _, k in runs if f == "nsys"] == [nsys_synth.PROFILE_ROWS] * 2
    # the database that is no profile is named as not loaded; the files read by a run are not
    assert "not loaded: notes.sqlite — not a trace" in r.stdout and "not loaded: prof" not in r.stdout


@pytest.mark.real_data
def test_real_export_every_device_ns_and_module(tmp_path, db_path):
    path = real_trace(*REAL)
    cli("ingest", path, "--db", db_path, "--name", "R")
    n, ns = export_sums(path)
    assert (n, ns) == (40, 6_421_420)
    assert query(db_path, "SELECT count(*), sum(dur_ns) FROM kernels") == [(n, ns)]
    assert query(db_path, "SELECT name, rank, device_name FROM runs") == [("R", 0, "NVIDIA GeForce RTX 3090")]
    got = modules(db_path, "R")
    assert sum(k for k, _ in got.values()) == n and sum(v for _, v in got.values()) == ns
    assert got["/conv1/Conv + /relu/Relu"] == (1, 854_662)     # a TensorRT layer's NVTX range
    # kernel names: demangledName through StringIds, as cuda_gpu_kern_sum prints them
    src = sqlite3.connect(path)
    want = sorted(r[0] for r in src.execute("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                            "JOIN StringIds s ON s.id = k.demangledName"))
    src.close()
    assert sorted(r[0] for r in query(db_path, "SELECT name FROM kernels WHERE kind = 'kernel'")) == want
    assert query(db_path, "SELECT count(*) FROM host_events WHERE cat = 'cuda_runtime'") == [(5668,)]


def test_sqlite_reader_is_chosen_by_tables(tmp_path):
    from tracedb.ingest import formats, nsys
    p = nsys_synth.profile(tmp_path / "x.db", devices=(0, 3))
    assert formats.identify(p) is nsys.READER
    assert nsys.devices(p) == [0, 3]


@pytest.mark.real_data
def test_names_have_the_form_cuda_gpu_kern_sum_prints(db_path):
    """`nsys stats --report cuda_gpu_kern_sum` prints templated names with their parameter list (T-numbered
    template parameters: `...>(int, T2, T3)`): the demangledName form, which tracedb stores."""
    kern_sum = real_trace("nsys-stats-deepseek-ocr", "per-stage", "decode", "nsys", "summary_cuda_gpu_kern_sum.csv")
    with open(kern_sum, newline="", encoding="utf-8") as f:
        printed = [r["Name"] for r in csv.DictReader(f)]
    templated = [n for n in printed if n.startswith("void ") and "<" in n]
    assert templated and all(n.endswith(")") for n in templated)
    cli("ingest", real_trace(*REAL), "--db", db_path, "--name", "R")
    stored = [r[0] for r in query(db_path, "SELECT DISTINCT name FROM kernels WHERE name LIKE 'void %<%'")]
    assert stored and all(n.endswith(")") for n in stored) and any(">(T" in n for n in stored)
