"""An Ascend profiler folder read from kernel_details.csv takes its host side from the trace_view.json beside
it, when that trace is of the same capture (ingest/ascend_host.py): each kernel is linked to the op that
launched it as in a trace_view.json run, and no kernel is counted twice."""
from helpers import cli, real_trace

ALEXNET = ("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt")


def _modules(db, run):
    """(module, kernel, count) rows of report modules: times differ by the two files' rounding (1 ns)."""
    import csv
    import io
    rows = csv.DictReader(io.StringIO(cli("report", "modules", "--db", db, "--run", run, "--format", "csv").stdout))
    return sorted((r["module"], r["kernel"], r["count"]) for r in rows)


def test_a_kernel_details_folder_takes_the_launching_ops_from_its_trace_view(tmp_path):
    folder = real_trace(*ALEXNET)
    db = str(tmp_path / "s.duckdb")
    r = cli("ingest", folder, "--db", db, "--name", "kd")
    assert "loaded: kernel_details.csv, trace_view.json" in r.stdout
    cli("ingest", f"{folder}/ASCEND_PROFILER_OUTPUT/trace_view.json", "--db", db, "--name", "tv")
    got = cli("sql", "--db", db, "--format", "csv", "SELECT r.name, count(*), count(k.correlation_id), sum(k.dur_ns) "
              "FROM kernels k JOIN runs r USING (run_id) GROUP BY 1 ORDER BY 1").stdout.split()
    # every one of the CSV's 191 kernels linked to its task's flow; the trace's own tasks are not kernels twice
    # (the trace_view run's own time differs by the files' rounding: 2 ns in 108.8 ms)
    assert got[1] == "kd,191,191,108841491" and got[2].startswith("tv,191,191,")
    assert abs(int(got[2].split(",")[3]) - 108841491) < 10
    kd, tv = _modules(db, "kd"), _modules(db, "tv")
    assert kd == tv and len(kd) > 20 and not any(m == "(no host launch)" for m, _, _ in kd)


def test_a_trace_view_of_another_capture_is_left_out_and_said_so(tmp_path):
    folder = real_trace("ascend-mstt")     # kernels of November 2023 beside a trace of January 2024
    db = str(tmp_path / "s.duckdb")
    r = cli("ingest", folder, "--db", db, "--name", "ms")
    assert "loaded: kernel_details.csv (in" in r.stdout
    assert "not loaded: trace_view.json — another capture" in r.stdout
    events = cli("sql", "--db", db, "--format", "csv", "SELECT count(*) FROM trace_events").stdout.split()
    assert events == ["count_star()", "0"]


# ------------------------------------------------------------------ a host trace that cannot help is left out
# The host side only helps: kernel_details.csv holds the kernels. A trace_view.json beside it that cannot be
# read, or that links fewer than half the kernels, is left out with a note, and the CSV run lands (one that was
# not JSON refused the whole run; one that linked too few was dropped without a word).
FULL = ["Step Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State", "Accelerator Core",
        "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Mix Block Dim", "HF32 Eligible",
        "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "Output Data Types", "Output Formats",
        "Context ID", "aicore_time(us)"]
T = 1764246877073569             # the kernels' first start, µs since the epoch
HOST_OP = ('[{"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": "%d.000", "dur": 1, "cat": "cpu_op"}]'
           % T).encode()


def _folder(tmp_path, trace: bytes) -> tuple[str, str]:
    """A profiler folder of three kernels and `trace` as its trace_view.json: (folder, trace path)."""
    from helpers import write_csv
    out = tmp_path / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    rows = [["2", "0", "4294967295", str(100 + i), "2", "MatMulV3", "MatMulV3", "dynamic", "AI_CORE", f"{T + i}.640",
             "1.5", "0.5", "24", "0", "NO", '"8192,2"', "DT_BF16", "ND", '"8192,2"', "DT_BF16", "ND", "N/A", "1.2"]
            for i in range(3)]
    write_csv(out / "kernel_details.csv", FULL, rows)
    (out / "trace_view.json").write_bytes(trace)
    return str(tmp_path / "rank0_ascend_pt"), str(out / "trace_view.json")


def _ingested_without_host(tmp_path, folder, monkeypatch) -> str:
    """Ingest the folder: its CSV run lands with its 3 kernels and no host event; returns the note
    ascend_host.finish gives for the run."""
    import duckdb
    from tracedb.ingest import ascend_host
    notes = []
    real = ascend_host.finish
    monkeypatch.setattr(ascend_host, "finish", lambda con, run_id, src=None: notes.append(real(con, run_id, src))
                        or notes[-1])
    db = str(tmp_path / "s.duckdb")
    r = cli("ingest", folder, "--db", db)
    assert "ingested run 'rank0_ascend_pt': 3 kernel rows" in r.stdout
    con = duckdb.connect(db, read_only=True)
    try:
        assert con.execute("SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM trace_events)").fetchone() \
            == (3, 0)
    finally:
        con.close()
    assert len(notes) == 1
    return notes[0]


def test_a_host_trace_that_is_not_json_leaves_the_csv_run_with_a_note(tmp_path, monkeypatch):
    folder, trace = _folder(tmp_path, b"hello, not json\n")
    assert _ingested_without_host(tmp_path, folder, monkeypatch) == (
        f"host side left out, the kernels kept: {trace}: byte offset 0: expected a JSON trace ('{{' or '['), "
        "found b'h'")


def test_a_host_trace_that_links_too_few_kernels_is_left_out_with_a_note(tmp_path, monkeypatch):
    folder, trace = _folder(tmp_path, HOST_OP)      # a host op, and no device task to link a kernel to
    assert _ingested_without_host(tmp_path, folder, monkeypatch) == (
        f"host side left out, the kernels kept: {trace}: its device tasks launch fewer than half of the 3 kernels "
        "(by name and start time): not the host side of these kernels")


def test_a_host_trace_left_out_is_no_longer_among_the_runs_files(tmp_path):
    # what the CSV reader hands ascend_host its Source for: the loaded-files line and runs.source_files then
    # name only what was loaded
    import tracedb
    from tracedb.ingest import ascend_host
    from tracedb.ingest.run_source import Source
    folder, trace = _folder(tmp_path, b"hello, not json\n")
    csv_path = trace.replace("trace_view.json", "kernel_details.csv")
    src = Source(path=folder, format="ascend-kernel-details", files=[csv_path, trace], host_trace=trace)
    con = tracedb.connect(str(tmp_path / "s.duckdb"))
    try:
        why = ascend_host.load(con, 1, trace, src)
        assert src.files == [csv_path]
        assert ascend_host.finish(con, 1, src) == why
        assert why.startswith(f"host side left out, the kernels kept: {trace}: byte offset 0: ")
    finally:
        con.close()


def _cut_copy(tmp_path, keep: float) -> str:
    """The AlexNet profiler folder copied with its trace_view.json cut after `keep` of its bytes."""
    import shutil
    src = real_trace(*ALEXNET)
    dst = tmp_path / "rank0_ascend_pt"
    shutil.copytree(src, dst)
    trace = dst / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    data = trace.read_bytes()
    trace.write_bytes(data[:int(len(data) * keep)])
    return str(dst)


def test_a_host_trace_cut_short_is_named_as_the_cause(tmp_path):
    """A crashed or partly copied capture's host side ends early: the note says the trace is cut, how many
    kernels it still links, and, when too few to keep, that the cut is why it was left out."""
    db = str(tmp_path / "s.duckdb")
    most = cli("ingest", _cut_copy(tmp_path / "a", 0.97), "--db", db, "--name", "most")
    linked = cli("sql", "--db", db, "--format", "csv",
                 "SELECT count(k.correlation_id), count(*) FROM kernels k JOIN runs r USING (run_id) "
                 "WHERE r.name = 'most'").stdout.split()[1]
    n, total = (int(x) for x in linked.split(","))
    assert total == 191
    if n:
        assert (f"trace_view.json is cut short (loaded to its last complete event): {n:,} of 191 kernels linked "
                "to their launch") in most.stdout
    else:      # the flows from ops to tasks are in the last 3 % of this trace
        assert ("host side left out, the kernels kept: " in most.stdout and "trace_view.json is cut short (loaded "
                "to its last complete event) and what is left links fewer than half of the 191 kernels to their "
                "launch") in most.stdout
    few = cli("ingest", _cut_copy(tmp_path / "b", 0.3), "--db", db, "--name", "few")
    assert "is cut short" in few.stdout and "not the host side of these kernels" not in few.stdout
