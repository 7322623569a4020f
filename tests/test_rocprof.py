"""rocprofv3 JSON (`rocprofv3 --kernel-trace --memory-copy-trace --output-format json`): one run per GPU that
ran kernels, exact ns, names from kernel_symbols, one-line refusals. The synthetic documents follow the
rocprofiler-sdk-tool schema of docs/formats.md ("rocprofv3 JSON")."""
import copy
import gzip
import json

import pytest

import tracedb
from helpers import assert_one_line_error, cli, real_trace, run_lines

T0 = 63857982592000          # rocprofv3 timestamps: monotonic ns, past 2^45
CPU, GPU0, GPU1 = 37944, 37946, 37947
SYMBOLS = {1: ("_Z8attn_fwdPv.kd", "attn_fwd(void*)"),
           2: ("Cijk_Ailk_Bljk_BBS_BH_MT64x32x256.kd", "Cijk_Ailk_Bljk_BBS_BH_MT64x32x256"),
           3: ("_ZN2at6native29vectorized_elementwise_kernelEv.kd", "void at::native::vectorized_elementwise_kernel()")}
# strings.buffer_records is indexed by the record's kind (rocprofiler_buffer_tracing_kind_t), as rocprofv3 writes it
KINDS = ["NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API", "HIP_RUNTIME_API",
         "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API", "MEMORY_COPY",
         "KERNEL_DISPATCH"]
HIP_OPS = ["hipApiName", "hipMalloc", "hipLaunchKernel"]
MEMCPY_OPS = ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
              "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"]


def agent(handle, kind, node, idx, name, product):
    return {"size": 312, "id": {"handle": handle}, "type": kind, "node_id": node, "logical_node_id": node,
            "logical_node_type_id": idx, "name": name, "product_name": product, "marketing_name": product}


def dispatch(n, agent_handle, kernel_id, start, dur, queue=16):
    return {"size": 184, "kind": 11, "operation": 2, "thread_id": 908,
            "correlation_id": {"internal": n, "external": 0}, "start_timestamp": start, "end_timestamp": start + dur,
            "dispatch_info": {"size": 72, "agent_id": {"handle": agent_handle}, "queue_id": {"handle": queue},
                              "kernel_id": kernel_id, "dispatch_id": n, "private_segment_size": 0,
                              "group_segment_size": 1024, "workgroup_size": {"x": 256, "y": 1, "z": 1},
                              "grid_size": {"x": 4096, "y": 2, "z": 1}},
            "stream_id": {"handle": 0}}


def document(gpus=2):
    """Two passes of two layers (attn_fwd, gemm, elementwise) on GPU 0, and a few kernels on GPU 1; one
    host-to-device copy to GPU 0."""
    recs, n, t = [], 0, T0
    for _ in range(2):
        for _ in range(2):
            for kid, dur in ((1, 1501), (2, 2003), (3, 307)):
                n += 1
                recs.append(dispatch(n, GPU0, kid, t, dur))
                t += dur + 113
        t += 50_000
    if gpus == 2:
        for kid, dur in ((2, 999), (3, 17)):
            n += 1
            recs.append(dispatch(n, GPU1, kid, T0 + 7 * n, dur, queue=32))
    tool = {
        "metadata": {"pid": 908, "init_time": T0 - 10**9, "fini_time": T0 + 10**9, "command": ["python3", "x.py"]},
        "agents": [agent(CPU, 1, 0, 0, "AMD EPYC 9575F", "AMD EPYC 9575F"),
                   agent(GPU0, 2, 2, 0, "gfx950", "AMD Instinct MI350X"),
                   agent(GPU1, 2, 3, 1, "gfx950", "AMD Instinct MI350X")],
        "counters": [],
        "strings": {"buffer_records": [{"kind": k, "operations": HIP_OPS if k == "HIP_RUNTIME_API" else
                                        MEMCPY_OPS if k == "MEMORY_COPY" else []} for k in KINDS]},
        "code_objects": [],
        "kernel_symbols": [{"size": 0, "kernel_id": 0, "code_object_id": 0, "kernel_name": "",
                            "formatted_kernel_name": "0", "truncated_kernel_name": "0"}]
        + [{"size": 200, "kernel_id": k, "code_object_id": 1, "kernel_name": m, "formatted_kernel_name": f,
            "demangled_kernel_name": m, "truncated_kernel_name": f.split("(")[0]} for k, (m, f) in SYMBOLS.items()],
        "host_functions": [], "summary": [], "callback_records": {"counter_collection": []},
        "buffer_records": {"kernel_dispatch": recs, "marker_api": [],
                           "hip_api": [{"size": 48, "kind": 5, "operation": 2, "thread_id": 909,
                                        "correlation_id": {"internal": r["correlation_id"]["internal"], "external": 7},
                                        "start_timestamp": r["start_timestamp"] - 3000,
                                        "end_timestamp": r["start_timestamp"] - 1800} for r in recs[:3]],
                           "memory_copy": [{"size": 80, "kind": 13, "operation": 2, "thread_id": 908,
                                            "correlation_id": {"internal": 99, "external": 0},
                                            "start_timestamp": T0 - 5000, "end_timestamp": T0 - 1234,
                                            "dst_agent_id": {"handle": GPU0}, "src_agent_id": {"handle": CPU},
                                            "bytes": 1 << 20}]},
    }
    return {"rocprofiler-sdk-tool": [tool]}


def write(path, doc, gz=False, indent=None):
    text = json.dumps(doc, indent=indent)
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


def expected(doc):
    """Independently of tracedb: (count, sum of end - start) of the kernel dispatches and copies, per GPU index."""
    tool = doc["rocprofiler-sdk-tool"][0]
    gpu = {a["id"]["handle"]: a["logical_node_type_id"] for a in tool["agents"] if a["type"] == 2}
    out = {}
    for r in tool["buffer_records"]["kernel_dispatch"]:
        c = out.setdefault(gpu[r["dispatch_info"]["agent_id"]["handle"]], [0, 0])
        c[0] += 1
        c[1] += r["end_timestamp"] - r["start_timestamp"]
    for r in tool["buffer_records"].get("memory_copy", []):
        c = out.setdefault(gpu[r["dst_agent_id"]["handle"]], [0, 0])
        c[0] += 1
        c[1] += r["end_timestamp"] - r["start_timestamp"]
    return {k: tuple(v) for k, v in out.items()}


def per_run(db):
    con = tracedb.connect(db, read_only=True)
    try:
        return con.execute("SELECT r.name, r.rank, r.device_name, r.format, count(*), sum(k.dur_ns)::BIGINT "
                           "FROM kernels k JOIN runs r USING (run_id) GROUP BY ALL ORDER BY 1").fetchall()
    finally:
        con.close()


def test_one_run_per_gpu_with_exact_ns(tmp_path, db_path):
    doc = document()
    p = write(tmp_path / "908_results.json", doc, indent=2)
    r = cli("ingest", p, "--db", db_path)
    assert run_lines(r.stdout) == ["ingested run '908_results-gpu0'",
                                                                      "ingested run '908_results-gpu1'"]
    want = expected(doc)
    assert per_run(db_path) == [(f"908_results-gpu{g}", g, "AMD Instinct MI350X", "rocprof-json", *want[g])
                                for g in (0, 1)]
    con = tracedb.connect(db_path, read_only=True)
    first = con.execute("SELECT kind, name, start_ns, dur_ns, device_id, stream_id, correlation_id, grid, block, "
                        "shared_mem_bytes FROM kernels WHERE run_id = 1 ORDER BY seq LIMIT 2").fetchall()
    short = con.execute("SELECT DISTINCT s.short_name FROM kernels k JOIN kernel_names s USING (name) "
                        "WHERE k.name LIKE 'attn%'").fetchall()
    con.close()
    assert first == [("kernel", "attn_fwd(void*)", T0, 1501, 0, 16, 1, [4096, 2, 1], [256, 1, 1], 1024),
                     ("kernel", "Cijk_Ailk_Bljk_BBS_BH_MT64x32x256", T0 + 1614, 2003, 0, 16, 2, [4096, 2, 1],
                      [256, 1, 1], 1024)]
    assert short == [("attn_fwd",)]
    # the copy is a device row of GPU 0's run, named after its operation
    copies = cli("sql", "--db", db_path, "--format", "csv",
                 "select name, start_ns, dur_ns from kernels where kind = 'memcpy'").stdout.splitlines()
    assert copies == ["name,start_ns,dur_ns", f"MEMORY_COPY_HOST_TO_DEVICE,{T0 - 5000},3766"]
    again = cli("ingest", p, "--db", db_path)
    assert again.stdout.count("skipped run") == 2


def test_gzip_by_content_and_name_prefix(tmp_path, db_path):
    doc = document()
    p = write(tmp_path / "capture.bin", doc, gz=True)      # not named .json.gz: sniffed by content
    cli("ingest", p, "--db", db_path, "--name", "R")
    want = expected(doc)
    assert [(n, rk, c, s) for n, rk, _, _, c, s in per_run(db_path)] == [(f"R-gpu{g}", g, *want[g]) for g in (0, 1)]


def test_one_busy_gpu_is_one_run_named_as_the_file(tmp_path, db_path):
    doc = document(gpus=1)
    p = write(tmp_path / "rank3_results.json", doc)
    r = cli("ingest", p, "--db", db_path)
    assert r.stdout.startswith("ingested run 'rank3_results':")
    assert per_run(db_path) == [("rank3_results", 0, "AMD Instinct MI350X", "rocprof-json", *expected(doc)[0])]


def test_python_api_loads_every_gpu_into_one_run(tmp_path, con):
    doc = document()
    tracedb.ingest_trace(con, str(write(tmp_path / "r.json", doc)), name="all")
    got = con.execute("SELECT device_id, count(*), sum(dur_ns)::BIGINT FROM kernels GROUP BY 1 ORDER BY 1").fetchall()
    assert got == [(g, *expected(doc)[g]) for g in (0, 1)]
    assert con.execute("SELECT rank, device_kind, clock_domain FROM runs").fetchall() == [(None, "gpu", "monotonic")]


def test_reports_on_a_gpu_run(tmp_path, db_path):
    cli("ingest", write(tmp_path / "r.json", document()), "--db", db_path)
    passes = cli("report", "passes", "--db", db_path, "--run", "r-gpu0", "--anchor", "attn_fwd", "--layers", "2",
                 "--format", "csv").stdout
    rows = [line.split(",") for line in passes.strip().splitlines()]
    cols = rows[0]
    assert [(row[cols.index("pass")], row[cols.index("anchors")], row[cols.index("kernels")]) for row in rows[1:]] == \
        [("0", "2", "7"), ("1", "2", "6")]   # pass 0: + the copy
    kernels = cli("report", "kernels", "--db", db_path, "--run", "r-gpu0", "--anchor", "attn_fwd", "--layers", "2",
                  "--pass", "1", "--format", "csv").stdout
    assert "attention" in kernels and "gemm" in kernels


def mutate(doc, fn):
    doc = copy.deepcopy(doc)
    fn(doc["rocprofiler-sdk-tool"][0])
    return doc


def set_in(tool, i, key, value):
    tool["buffer_records"]["kernel_dispatch"][i][key] = value


@pytest.mark.parametrize("change,message", [
    (lambda t: t["buffer_records"]["kernel_dispatch"][4]["dispatch_info"].update(kernel_id=77),
     "buffer_records.kernel_dispatch[4] has kernel_id 77, which kernel_symbols does not list"),
    (lambda t: set_in(t, 5, "end_timestamp", T0),
     "buffer_records.kernel_dispatch[5] ends before it starts"),
    (lambda t: t["buffer_records"].update(kernel_dispatch=[]), "no kernel_dispatch records"),
    (lambda t: t.pop("kernel_symbols"), "no kernel_symbols in rocprofiler-sdk-tool"),
    (lambda t: set_in(t, 2, "start_timestamp", "soon"), "a field of another type than rocprofv3 writes"),
    (lambda t: set_in(t, 2, "start_timestamp", None), "kernel_dispatch[2] has no start_timestamp"),
])
def test_refusals_are_one_line(tmp_path, db_path, change, message):
    p = write(tmp_path / "bad.json", mutate(document(gpus=1), change))
    r = cli("ingest", p, "--db", db_path, check=False)
    assert_one_line_error(r, message, code=1)
    assert str(p) in r.stderr


@pytest.mark.real_data
@pytest.mark.slow
def test_real_rocprofv3_capture(tmp_path, db_path):
    path = real_trace("amd-tracelens", "rocprofv3", "908_results.json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    gpus = {a["id"]["handle"]: a["logical_node_type_id"] for t in doc["rocprofiler-sdk-tool"] for a in t["agents"]
            if a["type"] == 2}
    want = {}
    for t in doc["rocprofiler-sdk-tool"]:
        for r in t["buffer_records"]["kernel_dispatch"]:
            c = want.setdefault(gpus[r["dispatch_info"]["agent_id"]["handle"]], [0, 0])
            c[0] += 1
            c[1] += r["end_timestamp"] - r["start_timestamp"]
    assert sum(c for c, _ in want.values()) == 43_915 and len(gpus) == 8
    cli("ingest", path, "--db", db_path)
    got = per_run(db_path)
    names = ["908_results"] if len(want) == 1 else [f"908_results-gpu{g}" for g in sorted(want)]
    assert [(n, rk, c, s) for n, rk, _, _, c, s in got] == [(n, g, *want[g]) for n, g in zip(names, sorted(want))]
    assert {d for _, _, d, _, _, _ in got} == {"AMD Instinct MI350X"}
    r = cli("report", "kernels", "--db", db_path, "--run", names[0], "--format", "csv")
    assert "communication" in r.stdout and "gemm" in r.stdout


def test_a_document_past_the_size_bound_is_refused(tmp_path, con, monkeypatch):
    from tracedb.errors import InputError
    from tracedb.ingest import rocprof
    monkeypatch.setattr(rocprof, "MAX_DOC_BYTES", 4096)     # a .gz past it: DuckDB's reader says so (16 MB at least)
    p = write(tmp_path / "big.json", document())
    with pytest.raises(InputError, match=r"big.json: a rocprofv3 JSON document larger than [0-9.e-]+ GiB"):
        tracedb.ingest_trace(con, str(p))
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (0,)


def test_a_folder_of_rocprof_files(tmp_path, db_path):
    d = tmp_path / "node"
    d.mkdir()
    write(d / "908_results.json", document())
    write(d / "909_results.json.gz", document(gpus=1), gz=True)
    (d / "config.json").write_text('{"a": 1}')
    r = cli("ingest", d, "--db", db_path)
    assert run_lines(r.stdout) == [
        "ingested run 'node-908_results-gpu0'", "ingested run 'node-908_results-gpu1'",
        "ingested run 'node-909_results'"]


def test_hip_api_calls_are_host_events_linked_to_their_kernels(tmp_path, db_path):
    cli("ingest", write(tmp_path / "r.json", document()), "--db", db_path)
    con = tracedb.connect(db_path, read_only=True)
    host = con.execute("SELECT r.name, h.cat, h.name, h.pid, h.tid, h.start_ns, h.dur_ns, h.correlation_id, "
                       "h.external_id "
                       "FROM host_events h JOIN runs r USING (run_id) ORDER BY r.name, h.seq").fetchall()
    con.close()
    calls = [("cuda_runtime", "hipLaunchKernel", "908", "909", start - 3000, 1200, n, 7)
             for n, start in ((1, T0), (2, T0 + 1614), (3, T0 + 1614 + 2116))]
    # the process's calls, in each run
    assert host == [("r-gpu0", *c) for c in calls] + [("r-gpu1", *c) for c in calls]
    launches = cli("report", "launches", "--db", db_path, "--run", "r-gpu0", "--by", "run", "--format", "csv").stdout
    row = dict(zip(*[line.split(",") for line in launches.splitlines()[:2]]))
    assert (row["run"], row["kernels"], row["launched"], row["delay_max_us"]) == ("r-gpu0", "12", "3", "3.000")


def test_a_negative_hip_call_is_refused(tmp_path, db_path):
    doc = mutate(document(gpus=1), lambda t: t["buffer_records"]["hip_api"][1].update(end_timestamp=0))
    r = cli("ingest", write(tmp_path / "bad.json", doc), "--db", db_path, check=False)
    assert_one_line_error(r, "buffer_records.hip_api[1] ends before it starts", code=1)
