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
