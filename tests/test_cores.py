"""Per-core NPU traces: which threads are cores, the two-run table, the scheduler view, bad input."""
import json

import pytest

import tiny_swimlane
import tracedb
from tracedb.engine.reports.registry import render_report
from helpers import cli
from tracedb.errors import InputError, UsageError


def tracr(path, channels=("cube lane 0", "cube lane 1", "vec 0"), scale=1.0):
    """A TraCR-like trace: one process, one thread per user-named channel, ts relative, 6 significant
    digits in scientific notation. Channel c runs one task [10c, 10c + 5 x scale) µs."""
    ev = [{"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "TraCR"}}]
    for c, ch in enumerate(channels):
        ev.append({"ph": "M", "name": "thread_name", "pid": 7, "tid": c + 1, "args": {"name": ch}})
        ev.append({"ph": "X", "cat": "tracr", "name": "Running_Task_Single", "pid": 7, "tid": c + 1,
                   "ts": float(f"{10.0 * c:.6g}"), "dur": 5 * scale, "args": {"extra_id": c}})
    path.write_text(json.dumps({"traceEvents": ev}))
    return str(path)


def q(con, sql):
    return con.execute(sql).fetchall()


def test_aicpu_view_threads_named_like_cores_are_not_cores(con, tmp_path):
    tracedb.ingest_trace(con, tiny_swimlane.write(tmp_path / "s.json"), name="s")
    # 6 tasks on the 4 AICore View threads; the AICPU View "AIC_0" dispatch record and the scheduler
    # phase stay host events
    assert q(con, "SELECT core_type, count(*) FROM kernels WHERE kind = 'task' GROUP BY 1 ORDER BY 1") == [
        ("AIC", 4), ("AIV", 2)]
    assert q(con, "SELECT name FROM host_events ORDER BY name") == [("dispatch(r1t0)",), ("idle(0)",)]


def test_user_core_rules_map_tracr_channels(con, tmp_path):
    path = tracr(tmp_path / "t.json")
    with pytest.raises(InputError, match=r"thread names seen: cube lane 0, cube lane 1, vec 0 — if those are cores, "
                                         r"map them with --core-rule 'REGEX=AIC'"):
        tracedb.ingest_trace(con, path, name="t")
    # no name starts with AIC/AIV: the built-in rules see no core; the user's rules map them (class upper-cased)
    tracedb.ingest_trace(con, path, name="t", core_rules=["^cube=AIC", "^vec=aiv"])
    assert q(con, "SELECT core_type, count(*) FROM kernels GROUP BY 1 ORDER BY 1") == [("AIC", 2), ("AIV", 1)]


def test_bad_core_rule(con, tmp_path):
    with pytest.raises(UsageError, match="expected REGEX=CLASS"):
        tracedb.ingest_trace(con, tracr(tmp_path / "t.json"), name="t", core_rules=["nope"])
    with pytest.raises(UsageError, match="not a valid RE2 pattern"):
        tracedb.ingest_trace(con, tracr(tmp_path / "t.json"), name="t", core_rules=["(x=AIC"])


def test_two_runs_side_by_side_with_ratio(con, tmp_path):
    # the same 3 channels, tasks 5 µs in run a and 11.5 µs in run b: AIC 10 vs 23 µs -> 2.3x
    tracedb.ingest_trace(con, tracr(tmp_path / "a.json"), name="a", core_rules=["^cube=AIC", "^vec=AIV"])
    tracedb.ingest_trace(con, tracr(tmp_path / "b.json", scale=2.3), name="b", core_rules=["^cube=AIC", "^vec=AIV"])
    out = render_report(con, "cores", runs=["a", "b"], fmt="csv")
    assert out.splitlines() == ["core_class,run_a,tasks_a,busy_us_a,run_b,tasks_b,busy_us_b,ratio",
                                "AIC,a,2,10.000,b,2,23.000,2.300",
                                "AIV,a,1,5.000,b,1,11.500,2.300"]
    stacked = render_report(con, "cores", runs=["a", "b"], fmt="csv", stack=True).splitlines()
    assert [line.split(",")[:2] for line in stacked[1:]] == [["a", "AIC"], ["a", "AIV"], ["b", "AIC"], ["b", "AIV"]]


def test_cores_report_needs_tasks(con, tmp_path):
    import tiny_trace
    tracedb.ingest_trace(con, tiny_trace.write(tmp_path / "k.csv"), name="ascend")
    with pytest.raises(UsageError, match="run 'ascend' has no per-core tasks"):
        render_report(con, "cores", runs=["ascend"])


def test_cli_scheduler_view(tmp_path, db_path):
    cli("ingest", tiny_swimlane.write(tmp_path / "s.json"), "--db", db_path, "--name", "s")
    out = cli("report", "cores", "--db", db_path, "--run", "s", "--scheduler", "--format", "csv").stdout
    # the AICPU View dispatch record (40 µs) and the scheduler's idle phase (2 µs), each 100 % of its thread
    assert out.splitlines() == ["run,process,thread,phase,count,sum_us,share_pct",
                                "s,AICPU Scheduler,Sched_0,idle,1,2.000,100.00",
                                "s,AICPU View,AIC_0,dispatch,1,40.000,100.00"]


def test_tracr_scientific_notation_timestamps(con, tmp_path):
    # TraCR prints ts relative to the first event with 6 significant digits: 1.23457e+06 µs = 1234570 µs
    text = ('{"traceEvents": [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "AIC_0"}},'
            '{"ph": "X", "cat": "tracr", "name": "Running_Task_Single", "pid": 1, "tid": 1, "ts": 0, "dur": 5,'
            ' "args": {"extra_id": 3}},'
            '{"ph": "X", "cat": "tracr", "name": "Running_Task_Single", "pid": 1, "tid": 1, "ts": 1.23457e+06,'
            ' "dur": 2.5e+01, "args": {"extra_id": 4}}]}')
    path = tmp_path / "perfetto.json"
    path.write_text(text)
    tracedb.ingest_trace(con, str(path), name="t")
    assert q(con, "SELECT start_ns, dur_ns, task_id, core_type FROM kernels ORDER BY start_ns") == [
        (0, 5000, 3, "AIC"), (1_234_570_000, 25_000, 4, "AIC")]


def test_idle_cores_follow_the_ingest_rules(con, tmp_path):
    # a fourth channel named in the metadata but without a task: an idle core of the user-mapped class
    path = tmp_path / "t.json"
    tracr(path)
    doc = json.loads(path.read_text())
    doc["traceEvents"].append({"ph": "M", "name": "thread_name", "pid": 7, "tid": 9, "args": {"name": "cube lane 9"}})
    path.write_text(json.dumps(doc))
    tracedb.ingest_trace(con, str(path), name="t", core_rules=["^cube=AIC", "^vec=AIV"])
    out = render_report(con, "cores", runs=["t"], fmt="csv").splitlines()
    assert [line.split(",")[1:5] for line in out[1:]] == [["AIC", "2", "1", "2"], ["AIV", "1", "0", "1"]]


def test_a_match_that_finds_no_task_is_an_error_naming_the_frequent_tasks(con, tmp_path):
    tracedb.ingest_trace(con, tracr(tmp_path / "t.json"), name="t", core_rules=["^cube=AIC", "^vec=AIV"])
    with pytest.raises(UsageError, match=r"--match 'nomatch': no task name of the runs matches; most frequent: "
                                         r"Running_Task_Single \(3\)"):
        render_report(con, "cores", runs=["t"], match="nomatch")


def test_cores_whose_ids_are_not_numbers_stay_apart(con, tmp_path):
    """A swimlane may name its core threads ('core1000'): each (pid, tid) is still one core, as with numbers
    (AIC: 2 cores, 4 tasks, 55 µs busy; a cast to a number would make them one NULL core)."""
    ev = tiny_swimlane.events()
    for e in ev:
        if e["pid"] == 1 and e.get("tid"):
            e["tid"] = f"core{e['tid']}"
    path = tmp_path / "named.json"
    path.write_text(json.dumps({"traceEvents": ev}))
    tracedb.ingest_trace(con, str(path), name="named")
    rows = tracedb.report(con, "cores", run="named").arrow().to_pylist()
    aic = next(r for r in rows if r["core_class"] == "AIC")
    assert (aic["cores"], aic["tasks"], round(float(aic["busy_us"]) * 1000)) == (2, 4, 55000)
    per_core = tracedb.report(con, "cores", run="named", per_core=True).arrow().to_pylist()
    assert sorted(r["core"] for r in per_core if r["core_class"] == "AIC") == ["AIC_0", "AIC_1"]
