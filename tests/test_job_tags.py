"""Which runs of a folder ingest are ranks of one job (engine/loading/job_tags.py, docs/jobs.md "Ingesting a job"):
only runs whose metadata agree (world size, job id or capture window) share the tag `job`; unrelated captures are
runs of their own, said in one line; two runs of one rank are named by the ingest and matched with no one by the
cross-rank reports; run names do not repeat path parts. Synthetic folders (always run), then the shared data."""
import copy
import csv
import io
import json
import os
import random

import pytest

import tiny_job
import tiny_kineto
import tracedb
from helpers import cli, real_trace
from tracedb.engine.loading import job_facts, job_tags
from tracedb.engine.loading.folder import plan
from tracedb.engine.loading.job_facts import Facts
from tracedb.engine.loading.job_tags import Member

DAY_NS = 86_400 * 10**9


def q(db, query):
    con = tracedb.connect(db, read_only=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def jobs_of(db) -> dict:
    return dict(q(db, "SELECT name, tags['job'] FROM runs ORDER BY run_id"))


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def kineto(path, rank=None, world_size=None, base_ns=tiny_kineto.BASE_NS):
    """tiny_kineto's trace, with the distributedInfo asked for (none: a single-process trace) and time base."""
    doc = tiny_kineto.document()
    dist = {"backend": "nccl", **({"rank": rank} if rank is not None else {}),
            **({"world_size": world_size} if world_size is not None else {})}
    # distributedInfo where Kineto writes it, before the events (the plan reads no further)
    doc = {k: (dist if k == "distributedInfo" else v) for k, v in doc.items()
           if k != "distributedInfo" or rank is not None or world_size is not None}
    doc["baseTimeNanoseconds"] = base_ns
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def tiny_ranks(folder, shift_ns=0):
    """tests/tiny_job.py's three ranks (NCCL all-reduces) in `folder`, their clocks moved by shift_ns."""
    os.makedirs(folder, exist_ok=True)
    paths = tiny_job.write(folder)
    if shift_ns:
        for p in paths:
            doc = json.load(open(p))
            doc["baseTimeNanoseconds"] += shift_ns
            json.dump(doc, open(p, "w"))
    return paths


# ------------------------------------------------------------------------------------------------ ingest
def test_unrelated_captures_are_separate_runs_said_in_one_line(tmp_path):
    d = tmp_path / "mixed"
    kineto(str(d / "h100" / "trace.json"))                          # no rank, no world size
    kineto(str(d / "mi300" / "trace.json"), base_ns=tiny_kineto.BASE_NS + DAY_NS)
    kineto(str(d / "serve" / "decode.json"), rank=0, world_size=1)   # a world of one rank
    db = str(tmp_path / "m.duckdb")
    r = cli("ingest", d, "--db", db, "--name", "m")
    assert jobs_of(db) == {"m-h100-trace": None, "m-mi300-trace": None, "m-rank0": None}
    said = [line for line in r.stdout.splitlines() if "are unrelated captures" in line]
    assert said == [f"  3 traces of {d} are unrelated captures (2 with no rank or world size, 1 of world size 1): "
                    "ingested as separate runs, no job tag"]
    assert "job '" not in r.stdout


def test_ranks_captured_apart_are_two_jobs_named_after_their_folders(tmp_path):
    d = tmp_path / "d"
    for sub, shift in (("monday", 0), ("tuesday", DAY_NS)):
        for rank in (0, 1):
            kineto(str(d / sub / f"rank{rank}.json"), rank=rank, world_size=2, base_ns=tiny_kineto.BASE_NS + shift)
    db = str(tmp_path / "d.duckdb")
    r = cli("ingest", d, "--db", db)
    assert jobs_of(db) == {"d-monday-rank0": "d-monday", "d-monday-rank1": "d-monday",
                           "d-tuesday-rank0": "d-tuesday", "d-tuesday-rank1": "d-tuesday"}
    assert "  job 'd-monday': 2 runs, ranks 0, 1 of 2" in r.stdout.splitlines()
    # within the slack the hosts' clocks are allowed (1 s), one capture: one job
    e = tmp_path / "e"
    kineto(str(e / "rank0.json"), rank=0, world_size=2)
    kineto(str(e / "rank1.json"), rank=1, world_size=2, base_ns=tiny_kineto.BASE_NS + 900_000_000)
    cli("ingest", e, "--db", str(tmp_path / "e.duckdb"))
    assert set(jobs_of(str(tmp_path / "e.duckdb")).values()) == {"e"}


def test_world_sizes_apart_and_a_lone_rank(tmp_path):
    d = tmp_path / "d"
    kineto(str(d / "a" / "rank0.json"), rank=0, world_size=4)
    kineto(str(d / "a" / "rank1.json"), rank=1, world_size=4)
    kineto(str(d / "b" / "rank0.json"), rank=0, world_size=8)   # the one rank here of a job of 8: still its job
    kineto(str(d / "c" / "rank5.json"), rank=5)                  # a rank, no world size, alone: no job
    db = str(tmp_path / "d.duckdb")
    r = cli("ingest", d, "--db", db, "--name", "x")
    assert jobs_of(db) == {"x-a-rank0": "x-a", "x-a-rank1": "x-a", "x-b-rank0": "x-b", "x-rank5": None}
    out = r.stdout.splitlines()
    assert "  job 'x-b': 1 run, rank 0 of 8; the only rank here" in out
    assert any("1 trace of" in line and "with a rank but no world size, and no other rank" in line for line in out)


def test_a_users_job_tag_wins(tmp_path):
    d = tmp_path / "d"
    kineto(str(d / "rank0.json"), rank=0, world_size=2)
    kineto(str(d / "other.json"))
    db = str(tmp_path / "d.duckdb")
    r = cli("ingest", d, "--db", db, "--tag", "job=mine")
    assert set(jobs_of(db).values()) == {"mine"}
    assert "unrelated" not in r.stdout and "job '" not in r.stdout


def test_two_runs_of_one_rank_are_named_and_never_matched(tmp_path):
    d = tmp_path / "job"
    tiny_ranks(str(d))
    copy_path = str(d / "again" / "job_rank0.json")       # a second capture file of rank 0, beside the job
    os.makedirs(os.path.dirname(copy_path))
    doc = json.load(open(d / "job_rank0.json"))
    doc["deviceProperties"][0]["numSms"] = 114            # other bytes: not skipped as known content
    json.dump(doc, open(copy_path, "w"))
    db = str(tmp_path / "j.duckdb")
    r = cli("ingest", d, "--db", db)
    names = list(jobs_of(db))
    assert set(jobs_of(db).values()) == {"job"} and len(names) == 4
    line = next(line for line in r.stdout.splitlines() if "both claim" in line)
    assert line.startswith("  runs 'job-again-rank0' (again/job_rank0.json) and 'job-rank0' (job_rank0.json) both "
                           "claim rank 0 of job 'job': two runs of one rank are never matched with each other")
    rep = cli("report", "collectives", "--db", db, "--tag", "job=job", "--format", "csv")
    got = rows(rep.stdout)
    # rank 0's two runs are in no instance: every instance is ranks 1 and 2, aligned, with their own skew
    assert got and {g["ranks"] for g in got} == {"2"} and all(g["arrival_skew_us"] for g in got)
    assert "runs 'job-again-rank0' and 'job-rank0' both claim rank 0: two runs of one rank are matched with no one" \
        in rep.stderr
    per = rows(cli("report", "collectives", "--db", db, "--tag", "job=job", "--per-rank", "--format", "csv").stdout)
    assert {p["rank"] for p in per} == {"1", "2"}
    # untag one copy: rank 0 is matched again, and the other two ranks' figures are those of the three-rank job
    cli("runs", "tag", "--db", db, "job-again-rank0", "--untag", "job")
    got = rows(cli("report", "collectives", "--db", db, "--tag", "job=job", "--format", "csv").stdout)
    assert {g["ranks"] for g in got} == {"3"}


def test_no_rank_is_paired_with_itself_in_clock_alignment(tmp_path):
    """The copies are in no instance and never the clocks' reference."""
    d = tmp_path / "job"
    tiny_ranks(str(d))
    con = tracedb.connect(str(tmp_path / "b.duckdb"))
    try:
        for r, p in enumerate(sorted(os.listdir(d))):
            tracedb.ingest_trace(con, str(d / p), name=f"job-rank{r}", tags=["job=job"])
        doc = json.load(open(d / "job_rank0.json"))
        doc["deviceProperties"][0]["numSms"] = 114
        json.dump(doc, open(tmp_path / "copy.json", "w"))
        tracedb.ingest_trace(con, str(tmp_path / "copy.json"), name="job-copy0", tags=["job=job"])
        from tracedb.engine.jobs import align
        ids = [r for (r,) in con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]
        a = align.rank_offsets(con, ids)
        names = dict(con.execute("SELECT run_id, name FROM runs").fetchall())
        assert names[a.reference] == "job-rank1"           # the lowest rank that one run claims
        assert con.execute("SELECT count(*) FROM _coll_match m JOIN runs r USING (run_id) WHERE r.rank = 0") \
            .fetchone() == (0,)
        assert "both claim rank 0" in a.note
    finally:
        con.close()


def test_names_drop_repeated_path_parts_and_stay_the_same(tmp_path):
    d = tmp_path / "data"
    # the layout of TraceLens's test data: serving traces of world size 1, each rank 0, under amd/inference/...
    for i, sub in enumerate(("vllm_decode", "sglang")):
        kineto(str(d / "amd" / "inference" / sub / f"{sub}.json"), rank=0, world_size=1, base_ns=i)
    kineto(str(d / "amd" / "h100" / "Qwen.json"), base_ns=2)      # distinct contents: none skipped as known
    kineto(str(d / "amd" / "mi300" / "Qwen.json"), base_ns=3)
    kineto(str(d / "solo" / "worker0.json"), base_ns=4)
    want = ["data-amd-h100-Qwen", "data-amd-inference-sglang-rank0", "data-amd-inference-vllm_decode-rank0",
            "data-amd-mi300-Qwen", "data-worker0"]
    assert [p.name for p in plan([str(d)])] == want
    assert [p.name for p in plan([str(d)])] == want          # the same folder, the same names
    db = str(tmp_path / "n.duckdb")
    cli("ingest", d, "--db", db)
    assert sorted(jobs_of(db)) == sorted(want)


def test_the_plan_reads_heads_not_events(tmp_path):
    """A trace's rank and world size come from the keys before its events: a file whose events are broken plans
    (its facts read), and its ingest alone fails on them."""
    p = tmp_path / "d" / "big.json"
    kineto(str(p), rank=2, world_size=4)
    text = p.read_text()
    p.write_text(text[:text.index('"traceEvents"') + 20] + "garbage")
    assert job_facts.trace_facts(str(p)) == Facts(2, 4)
    kineto(str(tmp_path / "d" / "rank3.json"), rank=3, world_size=4)
    planned = plan([str(tmp_path / "d")])
    assert [(x.name, x.facts.rank, x.facts.world_size) for x in planned] == [("d-rank2", 2, 4), ("d-rank3", 3, 4)]


def test_ascend_window_and_job_id_from_side_files(tmp_path):
    """An Ascend folder's collection window (profiler_info) and job id (profiler_metadata.json) are known before
    parsing: ranks with different job ids are different jobs, even captured at once."""
    from test_folder_ingest import ascend_rank
    root = tmp_path / "asc"
    for rank, addr in ((0, "10.0.0.1"), (1, "10.0.0.1"), (2, "10.0.0.9")):
        pt = ascend_rank(root, f"rank_{rank}_ascend_pt", rank=rank, dur_factor=rank + 1)
        info = {"rank_id": rank, "start_info": {"start_monotonic": 5_000_000_000},
                "end_info": {"collectionTimeEnd": 1_700_000_002_000_000_000, "MonotonicTimeEnd": 7_000_000_000}}
        (pt / f"profiler_info_{rank}.json").write_text(json.dumps(info))
        (pt / "profiler_metadata.json").write_text(json.dumps({
            "distributed_args": {"rank": rank, "world_size": 4}, "ENV_VARIABLES": {"MASTER_ADDR": addr},
            "MASTER_PORT": "29500"}))
    facts = job_facts.trace_facts(str(root / "rank_0_ascend_pt"))
    assert facts == Facts(0, 4, "MASTER_ADDR=10.0.0.1:29500", (1_700_000_000_000_000_000, 1_700_000_002_000_000_000))
    db = str(tmp_path / "a.duckdb")
    r = cli("ingest", root, "--db", db)
    assert jobs_of(db) == {"asc-rank0": "asc-job1", "asc-rank1": "asc-job1", "asc-rank2": "asc-job2"}
    assert "  job 'asc-job2': 1 run, rank 2 of 4; the only rank here" in r.stdout.splitlines()


def test_a_dataset_decides_before_parsing(tmp_path):
    d = tmp_path / "d"
    tiny_ranks(str(d / "job"))
    kineto(str(d / "single.json"))
    ds = str(tmp_path / "ds") + "/"
    r = cli("ingest", d, "--to", ds, "--name", "x")
    assert dict((x["run"], x["tags"]) for x in rows(cli("runs", "--db", ds, "--format", "csv").stdout)) == {
        "x-rank0": "job=x", "x-rank1": "job=x", "x-rank2": "job=x", "x-single": ""}
    assert "  1 trace of" in r.stdout and "  job 'x': 3 runs, ranks 0-2 of 3" in r.stdout.splitlines()


def test_an_ingest_again_tags_what_an_interrupted_one_left_untagged(tmp_path):
    d = tmp_path / "job"
    tiny_ranks(str(d))
    db = str(tmp_path / "j.duckdb")
    cli("ingest", d, "--db", db)
    con = tracedb.connect(db)
    con.execute("UPDATE runs SET tags = MAP {}")      # as an ingest cut short before its tagging leaves them
    con.close()
    r = cli("ingest", d, "--db", db)
    assert set(jobs_of(db).values()) == {"job"} and "  job 'job': 3 runs, ranks 0-2 of 3" in r.stdout.splitlines()
    r = cli("ingest", d, "--db", db)                  # tagged already: nothing to decide, nothing said
    assert "job '" not in r.stdout and set(jobs_of(db).values()) == {"job"}


# ------------------------------------------------------------------------------------------------ grouping
def member(name, rank=None, ws=None, job_id=None, window=None, capture=False):
    return Member(name, f"/d/{name}", Facts(rank, ws, job_id), window, capture)


def test_grouping_rules():
    g = job_tags.group([
        member("a0", 0, 4, window=(0, 10)), member("a1", 1, 4, window=(5, 20)),
        member("late", 2, 4, window=(DAY_NS, DAY_NS + 10)),        # windows apart: a job of its own
        member("copy0", 0, 4, window=(1, 9)),                      # rank 0 again, same window: a copy, same job
        member("x", 3, 4, job_id="J2", window=(0, 10)),            # a job id only it records: windows decide
        member("nothing"), member("one", 0, 1), member("cap", 0, 4, capture=True),
        member("n0", 0, window=(0, 10)), member("n0b", 0, window=(2, 8)),   # copies of a rank, no world size
    ])
    assert [[m.name for m in j] for j in g.jobs] == [["a0", "a1", "copy0", "x"], ["late"]]
    assert [(m.name, why) for m, why in g.alone] == [
        ("nothing", "with no rank or world size"), ("one", "of world size 1"), ("cap", "graph capture"),
        ("n0", "copies of one rank with no world size"), ("n0b", "copies of one rank with no world size")]
    assert [r for r in job_tags.claims(g.jobs[0])] == [0]
    # job ids: equal ids join whatever their windows, different ones never do
    g = job_tags.group([member("p", 0, 2, "J", (0, 1)), member("q", 1, 2, "J", (DAY_NS, DAY_NS + 1)),
                        member("r", 1, 2, "K", (0, 1))])
    assert [[m.name for m in j] for j in g.jobs] == [["p", "q"], ["r"]]


def test_a_job_is_checked_at_once_as_pair_by_pair():
    """_Job's aggregate check places every member where checking it against each member would (first job whose
    every member agrees), on random members."""
    rnd = random.Random(7)
    for _ in range(200):
        ms = []
        for i in range(rnd.randint(1, 12)):
            s = rnd.choice([None, rnd.randint(0, 5) * 10**9])
            ms.append(member(f"m{i}", rnd.randint(0, 3), rnd.choice([2, 4, None]), rnd.choice([None, None, "A", "B"]),
                             None if s is None else (s, s + rnd.randint(0, 2) * 10**9)))
        jobs: list = []
        for m in ms:
            if job_tags.why_alone(m):
                continue
            home = next((j for j in jobs if all(job_tags._agree(m, o) for o in j)), None)
            jobs.append([m]) if home is None else home.append(m)
        got = [j.members for j in _jobs_of(ms)]
        assert [[m.name for m in j] for j in got] == [[m.name for m in j] for j in jobs]


def _jobs_of(ms):
    jobs = []
    for m in ms:
        if job_tags.why_alone(m):
            continue
        home = next((j for j in jobs if j.agrees(m)), None)
        if home is None:
            home = job_tags._Job()
            jobs.append(home)
        home.add(m)
    return jobs


def test_a_thousand_ranks_group_at_once():
    ms = [member(f"r{i}", i, 1024, window=(i, 10**9 + i)) for i in range(1024)]
    ms += [copy.copy(ms[5])]
    g = job_tags.group(ms)
    assert len(g.jobs) == 1 and len(g.jobs[0]) == 1025 and list(job_tags.claims(g.jobs[0])) == [5]
    assert job_tags._ranges(list(range(1024))) == "0-1023" and job_tags._ranges([0, 1, 3, 5, 6, 7]) == "0, 1, 3, 5-7"


# ------------------------------------------------------------------------------------------------ real data
@pytest.mark.real_data
def test_real_megatron_job_with_a_copy_of_its_rank_0(tmp_path):
    """The Megatron job's rank 0 beside the same capture's rank 0 from the msinsight samples, in one folder: one
    job, the two named, no collective of rank 0 matched."""
    a = real_trace("ascend-megatron-job", "rank_0_ascend_pt")
    b = real_trace("ascend-msinsight", "st_level2_qwen3_megatron", "rank_0_ascend_pt")
    d = tmp_path / "dup"
    d.mkdir()
    for rank in (1, 3):
        os.symlink(os.path.join(os.path.dirname(a), f"rank_{rank}_ascend_pt"), d / f"rank_{rank}_ascend_pt")
    os.symlink(a, d / "copy_a_rank_0_ascend_pt")
    os.symlink(b, d / "copy_b_rank_0_ascend_pt")
    db = str(tmp_path / "d.duckdb")
    r = cli("ingest", d, "--db", db)
    assert set(jobs_of(db).values()) == {"dup"}
    assert "runs 'dup-rank0-1' (copy_a_rank_0_ascend_pt) and 'dup-rank0-2' (copy_b_rank_0_ascend_pt) both claim " \
           "rank 0 of job 'dup'" in r.stdout
    got = rows(cli("report", "collectives", "--db", db, "--tag", "job=dup", "--format", "csv").stdout)
    assert got
    ranks = {x for (x,) in q(db, "SELECT rank FROM runs")}
    assert ranks == {0, 1, 3}
    # ranks 1 and 3 still share their pipeline send/receive: matched, with a skew
    assert any(g["ranks"] == "2" and g["arrival_skew_us"] for g in got)


@pytest.mark.real_data
@pytest.mark.slow
def test_real_shared_folder_keeps_real_jobs_and_nothing_else(tmp_path):
    """The whole shared data folder: the Megatron job (with its copy of rank 0), HTA's two sampled ranks, three
    single ranks of larger jobs; every other capture a run of its own. The truncated op_summary still fails in
    one line, and the others are in."""
    d = real_trace("hta-multirank")
    data = os.path.dirname(d)
    db = str(tmp_path / "u.duckdb")
    r = cli("ingest", data, "--db", db, "--name", "u", check=False)
    assert r.returncode == 1
    assert [line for line in r.stderr.splitlines() if line.startswith("error: ")] == [
        f"error: {data}/ascend-msinsight/test_kernel_parse/op_summary_1.csv: line 17: expected 32 columns, found 31 "
        "(truncated or malformed row)"]
    tagged = {}
    for name, job in jobs_of(db).items():
        tagged.setdefault(job, []).append(name)
    assert {j: len(n) for j, n in tagged.items() if j} == {
        "u-ascend-megatron-job": 4, "u-hta-multirank-trace_filter": 2, "u-hta-multirank-nccl_parser_config": 1,
        "u-deepseek-profile-data": 1, "u-hta-tests-data-trace_diff-control": 1}
    assert len(tagged[None]) == 21
    assert "u-amd-tracelens-inference-vllm_decode_full-rank0" in jobs_of(db)
    assert any(line.startswith("  18 traces of") and "unrelated captures" in line for line in r.stdout.splitlines())
    assert "both claim rank 0 of job 'u-ascend-megatron-job'" in r.stdout
