"""Per-core NPU traces: which threads are cores, the two-run table, the scheduler view, bad input."""
import csv
import io
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
    # a mapped channel's core id is the only number of its name
    assert q(con, "SELECT core_type, core_id FROM kernels ORDER BY 1, 2") == [("AIC", 0), ("AIC", 1), ("AIV", 0)]


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


# thread name -> (core class, core id): the forms swimlane writers use, the core's number anywhere in it
NAMING_FORMS = [("AIC0", "AIC", 0), ("AIV12", "AIV", 12), ("AIV0 (core24)", "AIV", 24), ("core24 AIV", "AIV", 24),
                ("AIC_3", "AIC", 3), ("AICore 5", "AIC", 5), ("AI_CPU 2", "AICPU", 2), ("AICPU_1", "AICPU", 1),
                ("AIV 1", "AIV", 1), ("AIC (core3)", "AIC", 3), ("3_AIC", "AIC", 3), ("AI Vector 7", "AIV", 7),
                ("aiv_4", "AIV", 4), ("AI_CORE_6", "AIC", 6), ("AIV-9 lane", "AIV", 9), ("AIC#2 die1", "AIC", 2)]


def lanes_read(con, run):
    """(thread name, core class, core id, tasks) of the run's tasks, by thread."""
    return con.execute("SELECT t.thread_name, e.core_type, e.core_id, count(*) FROM trace_events e JOIN runs r "
                       "USING (run_id) JOIN tracks t ON t.run_id = e.run_id AND t.pid = e.pid AND t.tid = e.tid "
                       "WHERE r.name = $run AND e.kind = 'task' GROUP BY ALL ORDER BY 1", {"run": run}).fetchall()


def test_every_naming_form_is_a_core_with_its_number(con, tmp_path):
    # one process per form: two forms of one core in one process would be two names of it (test below)
    spec = [(f"View {k}", name, k + 1) for k, (name, _, _) in enumerate(NAMING_FORMS)]
    res = tracedb.ingest_trace(con, tiny_swimlane.lanes(tmp_path / "forms.json", spec), name="forms")
    assert res.unplaced is None and "not placed" not in res.summary()
    want = sorted((name, cls, cid, k + 1) for k, (name, cls, cid) in enumerate(NAMING_FORMS))
    assert lanes_read(con, "forms") == want
    rows = render_report(con, "cores", runs=["forms"], fmt="csv").splitlines()
    # every task of the file (1 + 2 + ... + 16 = 136) is on a core: AIC 7 forms (1 + 5 + 6 + 10 + 11 + 14 + 16
    # tasks), AICPU 2 (7 + 8), AIV 7 (2 + 3 + 4 + 9 + 12 + 13 + 15)
    assert [r.split(",")[1:5] for r in rows[1:]] == [["AIC", "7", "0", "63"], ["AICPU", "2", "0", "15"],
                                                      ["AIV", "7", "0", "58"]]


def test_names_that_spell_no_core_are_not_cores(con, tmp_path):
    # a core type must be a word of its own: 'MAIC_0', 'AICx 1', 'HAIV 2' spell none; the trace then holds no core
    spec = [("AICore Viewer", name, 2) for name in ("MAIC_0", "AICx 1", "HAIV 2")]
    with pytest.raises(InputError, match=r"no device activity .* thread names seen: AICx 1, HAIV 2, MAIC_0"):
        tracedb.ingest_trace(con, tiny_swimlane.lanes(tmp_path / "none.json", spec), name="none")


def test_full_core_swimlane_reads_all_480_tasks(tmp_path, db_path):
    """AIC_0 .. AIC_23 and AIV0 (core24) .. AIV47 (core71): every one of the 480 tasks is on its core, the
    vector cores numbered by their core<N> (24 .. 71), not by the per-type index before it (0 .. 47, which
    would give AIV0 the number of AIC_0)."""
    path = tiny_swimlane.full_core(tmp_path / "full.json")
    out = cli("ingest", path, "--db", db_path, "--name", "full").stdout
    assert out.startswith("ingested run 'full': 480 kernel rows (0 duplicates not counted)")
    assert "not placed" not in out
    rows = list(csv.DictReader(io.StringIO(cli("report", "cores", "--db", db_path, "--run", "full",
                                               "--format", "csv").stdout)))
    assert sum(int(r["tasks"]) for r in rows) == 480
    # 24 cube cores busy 10 x 5 µs of a 95 µs window, 48 vector cores 5 x 5 µs
    assert [(r["core_class"], r["cores"], r["tasks"], r["busy_us"]) for r in rows] == [
        ("AIC", "24", "240", "1200.000"), ("AIV", "48", "240", "1200.000")]
    con = tracedb.connect(db_path, read_only=True)
    try:
        ids = q(con, "SELECT core_type, count(DISTINCT core_id), min(core_id), max(core_id), count(*) FROM kernels "
                     "GROUP BY 1 ORDER BY 1")
    finally:
        con.close()
    assert ids == [("AIC", 24, 0, 23, 240), ("AIV", 48, 24, 71, 240)]


UNPLACEABLE = [("AICore View", "AIC_0", 2),
               ("AICore View", "AIV_1", 3), ("AICore View", "AIV 1", 4),     # two names of AIV core 1
               ("AICore View", "AIV", 1),              # no number, beside other AIV names
               ("AICore View", "AIV2 core5 core6", 1),  # two core numbers
               ("AICore View", "AIC/AIV 3", 1),        # two core types
               ("AICore View", "DMA 0", 2),            # no core type
               ("AICore View", None, 1)]               # no thread_name (tid 107)


def test_unplaceable_threads_are_counted_and_named_at_ingest(tmp_path, db_path):
    path = tiny_swimlane.lanes(tmp_path / "bad.json", UNPLACEABLE)
    out = cli("ingest", path, "--db", db_path, "--name", "bad").stdout.splitlines()
    assert len(out) == 1
    assert out[0].startswith("ingested run 'bad': 2 kernel rows (0 duplicates not counted), ")
    # the 13 events of the 7 threads that are no core, most events first, then by name
    assert out[0].split(" s; ", 1)[1] == (
        "13 events of 7 threads not placed on a core, kept as host events: "
        "'AIV 1' (4 events, another thread's name gives the same core), "
        "'AIV_1' (3 events, another thread's name gives the same core), "
        "'DMA 0' (2 events, no single core type in its name), "
        "'AIC/AIV 3' (1 event, no single core type in its name), "
        "'AIV' (1 event, no core number of its own), "
        "'AIV2 core5 core6' (1 event, no core number of its own) and 1 more; "
        "expected each core's thread named with its core type (AIC, AIV, AICPU) and its number, as in AIC_0, "
        "AIV12, AIV0 (core24) or core24 AIV, one name per core, or mapped with --core-rule REGEX=CLASS")
    rows = list(csv.DictReader(io.StringIO(cli("report", "cores", "--db", db_path, "--run", "bad",
                                               "--format", "csv").stdout)))
    assert [(r["core_class"], r["cores"], r["tasks"]) for r in rows] == [("AIC", "1", "2")]
    con = tracedb.connect(db_path, read_only=True)
    try:
        # nothing is lost: the 15 events of the file are the 2 tasks and 13 host events
        assert q(con, "SELECT kind, count(*) FROM trace_events WHERE ph = 'X' GROUP BY 1 ORDER BY 1 NULLS LAST") == [
            ("task", 2), (None, 13)]
    finally:
        con.close()


def test_an_unnamed_thread_of_a_core_process_is_named_by_its_tid(con, tmp_path):
    res = tracedb.ingest_trace(con, tiny_swimlane.lanes(tmp_path / "u.json", [("AICore View", "AIC_0", 1),
                                                                             ("AICore View", None, 2)]), name="u")
    assert res.unplaced == ("2 events of 1 thread not placed on a core, kept as host events: 'tid 101' (2 events, "
                            "no thread_name); expected each core's thread named with its core type (AIC, AIV, "
                            "AICPU) and its number, as in AIC_0, AIV12, AIV0 (core24) or core24 AIV, one name per "
                            "core, or mapped with --core-rule REGEX=CLASS")
    assert res.summary().endswith("; " + res.unplaced)


def test_lone_unnumbered_lanes_and_sub_lanes_are_cores(con, tmp_path):
    """A process's one name of a class needs no number ('AIC', 'AIV' of a simulator: ids NULL); threads of one
    name (sub-lanes of one core) share its id; an event's own CoreId hint wins over its lane's number."""
    hinted = [{"ph": "M", "name": "process_name", "pid": 5, "tid": 0, "args": {"name": "AICore View"}},
              {"ph": "M", "name": "thread_name", "pid": 5, "tid": 1, "args": {"name": "AIV0"}},
              {"ph": "X", "cat": "event", "name": "h", "pid": 5, "tid": 1, "ts": 0, "dur": 5,
               "args": {"event-hint": "Task:r1t0, FuncId:0, CoreId:24", "taskId": 7}}]
    spec = [("Sim", "AIC", 2), ("Sim", "AIV", 3), ("Chip", "AIC_3", 1), ("Chip", "AIC_3", 2), ("Chip", "AIC_4", 1)]
    res = tracedb.ingest_trace(con, tiny_swimlane.lanes(tmp_path / "s.json", spec, hinted), name="s")
    assert res.unplaced is None
    assert lanes_read(con, "s") == [("AIC", "AIC", None, 2), ("AIC_3", "AIC", 3, 3), ("AIC_4", "AIC", 4, 1),
                                    ("AIV", "AIV", None, 3), ("AIV0", "AIV", 24, 1)]


def test_a_folder_ingest_says_what_each_run_left_out(tmp_path, db_path):
    # a folder's traces are finished together, one statement for the batch: each run keeps its own line
    folder = tmp_path / "swimlanes"
    folder.mkdir()
    tiny_swimlane.full_core(folder / "a_full.json")
    tiny_swimlane.lanes(folder / "b_bad.json", UNPLACEABLE)
    out = cli("ingest", str(folder), "--db", db_path, "--jobs", "1").stdout.splitlines()
    full, bad = (next(line for line in out if line.startswith(f"ingested run 'swimlanes-{n}': "))
                 for n in ("a_full", "b_bad"))
    assert full.startswith("ingested run 'swimlanes-a_full': 480 kernel rows ") and "not placed" not in full
    assert bad.startswith("ingested run 'swimlanes-b_bad': 2 kernel rows ")
    assert "; 13 events of 7 threads not placed on a core, kept as host events: 'AIV 1' (4 events, " in bad


def test_core_rules_are_part_of_the_content(con, tmp_path):
    """The same file ingested with other --core-rule lists holds other rows: it is not skipped as identical
    content; the same file with the same rules is."""
    path = tracr(tmp_path / "t.json", channels=("cube 0", "vec 1", "vec 2"))
    first = tracedb.ingest_trace(con, path, name="a", core_rules=["^cube=AIC", "^vec=AIV"])
    assert first.status == "ingested"
    again = tracedb.ingest_trace(con, path, name="b", core_rules=["^cube=AIC", "^vec=AIV"])
    assert again.status == "skipped" and again.same_as == "a"
    # every channel a cube: another reading of the same bytes, stored as its own run
    other = tracedb.ingest_trace(con, path, name="c", core_rules=["^(cube|vec)=AIC"])
    assert other.status == "ingested"
    assert q(con, "SELECT r.name, k.core_type, count(*) FROM kernels k JOIN runs r USING (run_id) "
                  "GROUP BY ALL ORDER BY ALL") == [("a", "AIC", 1), ("a", "AIV", 2), ("c", "AIC", 3)]
    # the same name with rules not seen yet is a name taken by other content
    with pytest.raises(UsageError, match="already exists with other content"):
        tracedb.ingest_trace(con, path, name="a", core_rules=["^cube=AIV", "^vec=AIC"])
