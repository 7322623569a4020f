"""`tracedb report critical-path --job`: one path across a job's ranks, their clocks aligned on the
all-reduces, equals the path the job simulator knows (tests/job_sim.py): segment for segment, on the rank the
simulator says, crossing to the rank that arrived last at an all-reduce."""
import csv
import io
from decimal import Decimal

import pytest

import job_sim
import schedule_sim as sim
import tracedb
from helpers import assert_one_line_error, cli

SEEDS = range(4)
NCCL = job_sim.NCCL


def ns(us: str) -> int:
    return int(Decimal(us) * 1000)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    out = {}
    for seed in SEEDS:
        d = tmp_path_factory.mktemp(f"job{seed}")
        job = job_sim.simulate_job(seed, slow=1 if seed == 3 else None)
        con = tracedb.connect(str(d / "s.duckdb"))
        for r, path in enumerate(job_sim.write(d, job)):
            tracedb.ingest_trace(con, path, name=f"rank{r}", tags={"job": "j"})
        out[seed] = (con, job)
    yield out
    for con, _ in out.values():
        con.close()


def path_rows(con, **opts):
    return list(csv.DictReader(io.StringIO(tracedb.report(con, "critical-path", tag="job=j", job=True,
                                                          **opts).text("csv"))))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("step", [None, 2])
def test_the_job_path_is_the_simulators(jobs, seed, step):
    con, job = jobs[seed]
    got = [(ns(r["start_us"]), ns(r["end_us"]), r["category"], int(r["rank"])) for r in path_rows(con, step=step)]
    want = job_sim.true_path(job, step)
    assert _merge(got) == _merge(want)
    if seed == 3:      # a slow rank (its kernels 1.6x): the others wait for it, the path is its own
        assert {g[3] for g in got if g[2] == "device_compute"} == {1}
    elif step is None:  # ranks late in turn: over the whole trace the path crosses
        assert len({g[3] for g in got}) >= 2


def _merge(segs):
    """Adjacent segments of one category on one rank as one stretch."""
    out = []
    for s, e, c, rank in segs:
        if out and out[-1][2] == c and out[-1][3] == rank and out[-1][1] == s:
            out[-1] = (out[-1][0], e, c, rank)
        else:
            out.append((s, e, c, rank))
    return out


def rank_rows(con, run, step=None):
    rows = csv.DictReader(io.StringIO(tracedb.report(con, "critical-path", run=run, step=step).text("csv")))
    return sim.merge([(ns(r["start_us"]), ns(r["end_us"]), r["category"]) for r in rows])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_ranks_own_path_tells_its_wait_for_its_peers(jobs, seed):
    """Without --job each rank's path is its own; its job's other ranks in the store say when each all-reduce
    had every member in: comm_wait before, device_comm after, as the simulator knows it. On the job with a
    slow rank (seed 3) the others' windows are mostly that wait."""
    con, job = jobs[seed]
    for rank in range(4):
        for step in (None, 2):
            assert rank_rows(con, f"rank{rank}", step) == sim.merge(job_sim.rank_path(job, rank, step)), (rank, step)
    if seed == 3:
        for rank in (0, 2, 3):
            got = rank_rows(con, f"rank{rank}")
            waited = sum(e - s for s, e, c in got if c == "comm_wait")
            assert waited > 0.5 * got[-1][1]
        assert "comm_wait" not in {c for *_, c in rank_rows(con, "rank1")}


FORMS = [pytest.param("ascend", 0, id="ascend-0")] + [
    pytest.param(form, seed, id=f"{form}-{seed}", marks=pytest.mark.slow)
    for form in ("ascend", "nsys") for seed in SEEDS if (form, seed) != ("ascend", 0)]


@pytest.mark.parametrize("form,seed", FORMS)
def test_the_ascend_and_nsys_forms_give_the_simulators_paths(tmp_path, form, seed):
    """The same job written as each rank's trace_view.json (an all-reduce on HCCL's thread, its hardware task
    on the stream it ran on: job_sim._trace_view) or as each rank's Nsight Systems export: one folder ingest
    makes the job, and the job's path and each rank's own path are the simulator's, and each rank's what-if
    its re-simulated window within 1 %."""
    job = job_sim.simulate_job(seed, slow=1 if seed == 3 else None)
    job_sim.write(tmp_path / "traces", job, form)
    cli("ingest", str(tmp_path / "traces"), "--db", str(tmp_path / "s.duckdb"), "--name", "j")
    con = tracedb.connect(str(tmp_path / "s.duckdb"))
    try:
        runs = [r for (r,) in con.execute("SELECT name FROM runs ORDER BY rank").fetchall()]
        assert len(runs) == 4
        for step in (None, 2):
            rows = csv.DictReader(io.StringIO(tracedb.report(con, "critical-path", tag="job=j", job=True,
                                                             step=step).text("csv")))
            got = [(ns(r["start_us"]), ns(r["end_us"]), r["category"], int(r["rank"])) for r in rows]
            assert _merge(got) == _merge(job_sim.true_path(job, step)), step
        for rank, run in enumerate(runs):
            assert rank_rows(con, run) == sim.merge(job_sim.rank_path(job, rank)), run
            for factor in (0.5, 1.4):
                assert rank_what_if_error(con, job, seed, run, rank, factor) <= 0.01, (run, factor)
    finally:
        con.close()


def test_the_path_crosses_ranks_at_the_all_reduces(jobs):
    """Where it moves to another rank, it leaves an all-reduce for the rank that started it last."""
    crossings = 0
    for seed in SEEDS:
        con, _ = jobs[seed]
        got = path_rows(con)
        for a, b in zip(got, got[1:]):
            if a["rank"] != b["rank"]:
                crossings += 1
                assert b["category"] == "device_comm" and b["segment"] == "comm" and NCCL in b["kernel"]
        assert sum(Decimal(r["dur_us"]) for r in got) == Decimal(got[-1]["end_us"])
    assert crossings >= 4


def test_by_category_of_a_job_adds_up_to_its_window(jobs):
    con, job = jobs[0]
    by = list(csv.DictReader(io.StringIO(tracedb.report(con, "critical-path", tag="job=j", job=True,
                                                        by="category").text("csv"))))
    want = {}
    for s, e, c, _ in job_sim.true_path(job):
        want[c] = want.get(c, 0) + e - s
    assert {r["key"]: ns(r["dur_us"]) for r in by} == want
    assert {r["run"] for r in by} == {"(job of 4 runs)"}


def test_job_needs_two_runs(tmp_path):
    job = job_sim.simulate_job(0, ranks=2)
    paths = job_sim.write(tmp_path, job)
    db = str(tmp_path / "s.duckdb")
    cli("ingest", paths[0], "--db", db, "--name", "rank0")
    assert_one_line_error(cli("report", "critical-path", "--db", db, "--job", check=False),
                          "--job: one path across a job's ranks needs two runs or more")


def test_by_rank_says_where_the_job_path_runs(jobs):
    """--by rank: each rank's time on the job's path, adding up to the window; the slow rank (seed 3) holds
    all of its computing."""
    for seed in SEEDS:
        con, job = jobs[seed]
        by = list(csv.DictReader(io.StringIO(tracedb.report(con, "critical-path", tag="job=j", job=True,
                                                            by="rank").text("csv"))))
        want = {}
        for s, e, _, rank in job_sim.true_path(job):
            want[f"rank{rank}"] = want.get(f"rank{rank}", 0) + e - s
        assert {r["key"]: ns(r["dur_us"]) for r in by} == want
        assert {r["key"]: r["rank"] for r in by} == {k: k[4:] for k in want}
    con, job = jobs[3]
    path = [(s, e, c, rank) for s, e, c, rank in job_sim.true_path(job) if c == "device_compute"]
    assert {rank for *_, rank in path} == {1}


def _what_if(con, **opts):
    return {r["edit"]: r for r in csv.DictReader(io.StringIO(
        tracedb.report(con, "what-if", tag="job=j", job=True, **opts).text("csv")))}


@pytest.mark.parametrize("seed", SEEDS)
def test_what_if_ranks_balanced_is_the_resimulated_job(jobs, seed):
    """--job --balance-ranks: each rank's compute brought down to the median rank's (from the simulator's own
    durations here) and the job re-simulated with those kernels shorter: the replay predicts its window within
    1 %. Seed 3 has a slow rank (kernels 1.6x) the others wait for at every all-reduce: balancing it saves a
    good part of the window; an edit that matches nothing predicts the measured window exactly."""
    con, job = jobs[seed]
    rows = _what_if(con, balance_ranks=True, kernel=["^no_such_kernel$=50"])
    got = rows["ranks balanced to the median"]
    assert rows["all of the above"]["predicted_us"] == got["predicted_us"]
    same = rows["kernel ^no_such_kernel$ at 50 %"]
    busy = {r: sum(n.end - n.start for n in sch.nodes if n.side == "device" and n.name.startswith("compute_"))
            for r, sch in enumerate(job.ranks)}
    times = sorted(busy.values())
    median = (times[1] + times[2]) / 2
    scale = {r: min(1.0, median / b) for r, b in busy.items()}
    again = job_sim.simulate_job(seed, slow=1 if seed == 3 else None, scale=scale)
    window = max(n.end for n in again.all.nodes) - min(n.start for n in again.all.nodes)
    measured = max(n.end for n in job.all.nodes) - min(n.start for n in job.all.nodes)
    assert ns(same["measured_us"]) == ns(same["predicted_us"]) == measured
    assert abs(ns(got["predicted_us"]) - window) <= 0.01 * window, (got, window)
    if seed == 3:
        assert ns(got["saving_us"]) > 0.1 * measured


def rank_what_if_error(con, job, seed, run, rank, factor) -> float:
    """`what-if --run RUN --kernel ^compute_=PCT` (one rank of the job: its kernels alone edited) against the job
    simulated again with that rank's compute kernels scaled: the relative error of the rank's window."""
    got = next(csv.DictReader(io.StringIO(tracedb.report(con, "what-if", run=run, kernel=[
        f"^compute_={round(factor * 100)}"]).text("csv"))))
    nodes = job.ranks[rank].nodes
    assert ns(got["measured_us"]) == max(n.end for n in nodes) - min(n.start for n in nodes)
    again = job_sim.simulate_job(seed, slow=1 if seed == 3 else None, scale={rank: factor}).ranks[rank].nodes
    window = max(n.end for n in again) - min(n.start for n in again)
    return abs(ns(got["predicted_us"]) - window) / window


@pytest.mark.parametrize("seed", SEEDS)
def test_what_if_on_one_rank_replays_it_with_the_others(jobs, seed):
    """A rank's what-if (--run rankN) edits its own kernels and replays it with the job's other ranks in the store:
    an all-reduce still ends when the others arrive, so a rank made faster that then waits longer saves nothing.
    Against the job simulated again with that rank's compute kernels at 50 % and 140 %: each rank's window
    within 1 % (replayed alone, without the others, it was up to 25 % off)."""
    con, job = jobs[seed]
    for rank in range(4):
        for factor in (0.5, 1.4):
            assert rank_what_if_error(con, job, seed, f"rank{rank}", rank, factor) <= 0.01, (rank, factor)
    note = tracedb.report(con, "what-if", run="rank0", kernel=["^compute_=50"]).notes
    assert any("one of the 4 ranks of its job in the store: replayed with them" in n for n in note)


def test_a_job_whose_collectives_match_nothing_gives_each_rank_its_own_path(tmp_path):
    """The ranks of one job whose clocks no collective can align (here no communication op at all) keep their own
    paths: a path across unaligned clocks would compare times that do not compare. A note says so."""
    import json
    job = job_sim.simulate_job(0, ranks=2)
    paths = job_sim.write(tmp_path, job)
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for e in doc["traceEvents"]:
            if e.get("name") == NCCL:
                e["name"] = "reduce_kernel"
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
    con = tracedb.connect(str(tmp_path / "s.duckdb"))
    try:
        for r, path in enumerate(paths):
            tracedb.ingest_trace(con, path, name=f"rank{r}", tags={"job": "k"})
        res = tracedb.report(con, "critical-path", tag="job=k", by="category")
        assert {r["run"] for r in csv.DictReader(io.StringIO(res.text("csv")))} == {"rank0", "rank1"}
        assert any("no collective is matched across them" in n for n in res.notes)
    finally:
        con.close()


def test_ranks_in_sets_no_collective_links_are_not_one_path(tmp_path):
    """Ranks 0-1 meet on one communicator's stream, ranks 2-3 on another's: two sets whose clocks no collective
    relates (as a job whose tensor-parallel groups alone communicate). Selected together they keep their own
    paths, with a note; --job over them is refused in one line, and over one set it is that set's path."""
    import json
    job = job_sim.simulate_job(0)
    paths = job_sim.write(tmp_path, job)
    for path in paths[2:]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for e in doc["traceEvents"]:
            if e.get("name") == NCCL:
                e["tid"] = e["args"]["stream"] = 14
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
    db = str(tmp_path / "s.duckdb")
    for r, path in enumerate(paths):
        cli("ingest", path, "--db", db, "--name", f"rank{r}", "--tag", "job=t")
    con = tracedb.connect(db)
    try:
        res = tracedb.report(con, "critical-path", tag="job=t", by="category")
        assert {r["run"] for r in csv.DictReader(io.StringIO(res.text("csv")))} == {f"rank{r}" for r in range(4)}
        assert any("they fall into 2 sets of ranks that no collective links" in n for n in res.notes)
        one = tracedb.report(con, "critical-path", run=["rank2", "rank3"], by="rank")
        assert {r["run"] for r in csv.DictReader(io.StringIO(one.text("csv")))} == {"(job of 2 runs)"}
    finally:
        con.close()
    assert_one_line_error(cli("report", "critical-path", "--db", db, "--tag", "job=t", "--job", check=False),
                          "--job: the selected ranks fall into 2 sets that no collective links")


def test_slack_of_a_job_is_what_the_resimulated_job_allows(jobs):
    """--by slack over a job (its ranks selected: their one graph, an all-reduce ending when its last member
    arrived): a compute kernel off the path grown by its slack less 1 µs leaves the job's window as it was
    in the simulator, and grown by its slack and 5 µs more moves it (at least 90 % of them, as for one rank:
    another chain within those µs may take over)."""
    held = moved = tried = 0
    for seed in SEEDS:
        con, job = jobs[seed]
        rows = list(csv.DictReader(io.StringIO(tracedb.report(con, "critical-path", tag="job=j", by="slack").text(
            "csv"))))
        slack = {(r["run"], r["name"]): ns(r["min_slack_us"]) for r in rows if r["min_slack_us"]}
        assert any(v == 0 for v in slack.values())
        span = max(n.end for n in job.all.nodes) - min(n.start for n in job.all.nodes)
        off = [n for n in job.all.nodes if n.kind == "kernel" and slack.get((f"rank{n.rank}", n.name), 0) > 10_000]
        for n in off[::5]:
            s = slack[(f"rank{n.rank}", n.name)]
            for extra, want_same in ((s - 1_000, True), (s + 5_000, False)):
                again = job_sim.simulate_job(seed, slow=1 if seed == 3 else None, grow={n.id: extra}).all.nodes
                same = max(m.end for m in again) - min(m.start for m in again) == span
                held += want_same and same
                moved += not want_same and not same
            tried += 1
    assert tried >= 20
    assert held >= 0.9 * tried and moved >= 0.9 * tried, (held, moved, tried)


def test_balance_ranks_needs_job(jobs):
    con, _ = jobs[0]
    with pytest.raises(tracedb.UsageError, match="--balance-ranks.*--job"):
        tracedb.report(con, "what-if", tag="job=j", rank=0, balance_ranks=True)


def test_the_ranks_of_one_job_have_one_path_and_rank_picks_one(jobs):
    """Selecting a job's ranks (--tag job=j) gives the job's one path, as --job does, and says so; --rank N gives
    that rank's own path, as --run does; a rank no selected run has, or --rank with --job, is refused."""
    con, _ = jobs[1]
    whole = tracedb.report(con, "critical-path", tag="job=j")
    assert whole.text("csv") == tracedb.report(con, "critical-path", tag="job=j", job=True).text("csv")
    assert any("the 4 ranks of job 'j': one path across them" in n for n in whole.notes)
    assert tracedb.report(con, "critical-path", tag="job=j", rank=2).text("csv") == \
        tracedb.report(con, "critical-path", run="rank2").text("csv")
    assert next(csv.DictReader(io.StringIO(tracedb.report(con, "what-if", tag="job=j", kernel=["compute=50"]).text(
        "csv"))))["run"] == "job (4 runs)"
    with pytest.raises(tracedb.UsageError, match=r"--rank 9: no selected run has rank 9 \(ranks: 0, 1, 2, 3\)"):
        tracedb.report(con, "critical-path", tag="job=j", rank=9)
    with pytest.raises(tracedb.UsageError, match="--rank and --job"):
        tracedb.report(con, "critical-path", tag="job=j", rank=1, job=True)
