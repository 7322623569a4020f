"""Jobs that add up: groups named as the profiler's metadata names them, ranks with communication only in the
breakdown, jobs told apart by what their traces say, and no cross-rank figure where clocks are not one."""
import csv
import glob
import io
import json
import os
import shutil

import duckdb
import pytest

import tiny_kineto
from helpers import cli, real_trace
from tracedb import sql


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_hccl_group_id_is_msprof_analyzes_double_hash():
    con = duckdb.connect()
    sql.run(con, "macros")
    # the double hash by hand: two polynomial hashes (29, 131) of the key modulo 2^32, (h29 << 32) | h131
    def h(s, p):
        v = 0
        for c in s:
            v = (v * p + ord(c)) % 2**32
        return v
    for key in ("group_name_5", "group_name_19", "a", ""):
        want = str((h(key, 29) << 32) | h(key, 131))
        assert con.execute("SELECT hccl_group_id($k)", {"k": key}).fetchone()[0] == want
    assert con.execute("SELECT hccl_group_id('group_name_5')").fetchone()[0] == "5862276114690318097"


def test_real_ascend_collectives_carry_the_metadatas_group_names(tmp_path):
    folder = os.path.dirname(real_trace("ascend-megatron-job", "rank_0_ascend_pt"))
    db = str(tmp_path / "m.duckdb")
    cli("ingest", folder, "--db", db, "--name", "mega")
    names = {}
    for meta in glob.glob(os.path.join(folder, "*", "profiler_metadata.json")):
        for g in json.load(open(meta))["parallel_group_info"].values():
            names[g["group_name"]] = str(len(g["global_ranks"]))
    got = rows(cli("report", "collectives", "--db", db, "--tag", "job=mega", "--format", "csv").stdout)
    assert len(got) == 34
    assert all(r["group_desc"] in names and r["group_size"] == names[r["group_desc"]] for r in got)


def test_real_ranks_with_communication_only_are_in_the_breakdown(tmp_path):
    folder = os.path.dirname(real_trace("ascend-megatron-job", "rank_0_ascend_pt"))
    db = str(tmp_path / "m.duckdb")
    cli("ingest", folder, "--db", db, "--name", "mega")
    r = cli("report", "breakdown", "--db", db, "--tag", "job=mega", "--format", "csv")
    got = {row["run"]: row for row in rows(r.stdout)}
    assert sorted(got) == ["mega-rank0", "mega-rank1", "mega-rank3"]
    want = {}
    for rank in (1, 3):
        with open(os.path.join(folder, f"rank_{rank}_ascend_pt", "ASCEND_PROFILER_OUTPUT", "step_trace_time.csv")) as f:
            want[rank] = next(csv.DictReader(f))
        row = got[f"mega-rank{rank}"]
        # no kernels: the profiler's own step_trace_time.csv figures stand in, and say so
        assert row["source"] == "step_trace_time" and row["rank"] == str(rank)
        for column, ours in (("Computing", "computing_us"), ("Communication", "communication_us"), ("Free", "free_us")):
            assert abs(float(row[ours]) - float(want[rank][column])) <= 0.0005
        assert f"run 'mega-rank{rank}' has no kernel rows: its span, computing" in r.stderr
    # without the file, a rank of communication ops only keeps its computing unknown
    os.makedirs(tmp_path / "bare" / "rank_1_ascend_pt")
    shutil.copytree(os.path.join(folder, "rank_1_ascend_pt", "ASCEND_PROFILER_OUTPUT"),
                    tmp_path / "bare" / "rank_1_ascend_pt" / "ASCEND_PROFILER_OUTPUT",
                    ignore=shutil.ignore_patterns("step_trace_time.csv"))
    cli("ingest", str(tmp_path / "bare" / "rank_1_ascend_pt"), "--db", db, "--name", "bare")
    r = cli("report", "breakdown", "--db", db, "--run", "bare", "--format", "csv")
    (row,) = rows(r.stdout)
    assert row["source"] == "communication.json" and row["computing_us"] == row["free_us"] == ""
    # the union of its communication ops is the profiler's own Communication figure
    assert abs(float(row["communication_us"]) - float(want[1]["Communication"])) <= 0.0005
    assert "run 'bare' has no kernel rows, only its profiler's communication ops" in r.stderr


@pytest.mark.slow
def test_real_folder_of_two_jobs_gives_two_jobs_and_no_negative_figure(tmp_path):
    folder = os.path.dirname(os.path.dirname(real_trace("hta-multirank", "trace_filter", "sampled_rank-0.json.gz")))
    real_trace("hta-multirank", "nccl_parser_config", "nccl_data.json.gz")
    db = str(tmp_path / "h.duckdb")
    cli("ingest", folder, "--db", db, "--name", "hm")
    runs = {r["run"]: r["tags"] for r in rows(cli("runs", "--db", db, "--format", "csv").stdout)}
    # world sizes 128 (two sampled ranks) and 2 (the nccl trace): two jobs, named after their sub-folders
    assert runs == {"hm-trace_filter-rank0": "job=hm-trace_filter", "hm-trace_filter-rank1": "job=hm-trace_filter",
                    "hm-nccl_parser_config-rank0": "job=hm-nccl_parser_config"}
    r = cli("report", "collectives", "--db", db, "--tag", "job=hm-trace_filter", "--format", "csv")
    got = rows(r.stdout)
    # the two ranks share no collective to align on: no instance of both has cross-rank figures, each says why
    both = [g for g in got if g["ranks"] == "2"]
    assert both and all(g["transfer_us"] == g["arrival_skew_us"] == g["waiting_us"] == "" for g in both)
    assert all(g["flag"].startswith("clocks not aligned") for g in both)
    assert all(float(g[c]) >= 0 for g in got for c in ("arrival_skew_us", "transfer_us") if g[c])


def test_a_folder_of_one_job_stays_one_job(tmp_path):
    folder = tmp_path / "job"
    for rank in (0, 1):
        os.makedirs(folder / f"node{rank}")
        doc = tiny_kineto.document()
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 2}
        with open(folder / f"node{rank}" / f"rank{rank}.json", "w") as f:
            json.dump(doc, f)
    db = str(tmp_path / "j.duckdb")
    cli("ingest", str(folder), "--db", db)
    assert {r["run"]: r["tags"] for r in rows(cli("runs", "--db", db, "--format", "csv").stdout)} == {
        "job-rank0": "job=job", "job-rank1": "job=job"}


@pytest.mark.slow
def test_real_blame_takes_the_ranks_without_kernels(tmp_path):
    folder = os.path.dirname(real_trace("ascend-megatron-job", "rank_0_ascend_pt"))
    db = str(tmp_path / "m.duckdb")
    cli("ingest", folder, "--db", db, "--name", "mega")
    r = cli("report", "blame", "--db", db, "--tag", "job=mega", "--format", "csv")
    got = rows(r.stdout)
    # ranks 1 and 3 have communication.json and step_trace_time.csv only: waited for, their waiting charged to
    # the pipeline schedule (their late arrivals are at the send/receive and embedding groups across the two
    # stages) or to what their step_trace_time.csv says they computed; never to a kernel, never '(no kernels)'
    bare = {g["run"]: g["kernel"] for g in got if g["run"] in ("mega-rank1", "mega-rank3")}
    assert set(bare) == {"mega-rank1", "mega-rank3"}
    assert set(bare.values()) <= {"(pipeline bubble)", "(computing, from step_trace_time)"}
    assert "no kernel rows, only communication ops: mega-rank1, mega-rank3" in r.stderr
    assert "mega-rank3 computing 401,131.7 us" in r.stderr


def test_real_communication_matrix_in_global_ranks(tmp_path):
    folder = os.path.dirname(real_trace("ascend-megatron-job", "rank_0_ascend_pt"))
    db = str(tmp_path / "m.duckdb")
    cli("ingest", folder, "--db", db, "--name", "mega")
    con = duckdb.connect(db, read_only=True)
    try:
        got = con.execute("SELECT DISTINCT r.rank, m.src_rank, m.dst_rank, m.src_global, m.dst_global "
                          "FROM comm_matrix m "
                          "JOIN runs r USING (run_id) JOIN run_groups g ON g.run_id = m.run_id "
                          "AND g.group_desc = 'pp' AND g.group_name LIKE 'group_name_%' "
                          "WHERE m.src_rank <> m.dst_rank ORDER BY ALL").fetchall()
        unmapped = con.execute("SELECT count(*) FROM comm_matrix WHERE src_global IS NULL").fetchone()[0]
    finally:
        con.close()
    # every link maps; the pipeline group of ranks 0 and 2: its member 1 is global rank 2
    assert unmapped == 0
    assert (0, 0, 1, 0, 2) in got


def test_synthetic_comm_only_rank_in_the_breakdown(tmp_path):
    """A rank folder with communication.json only: two ops, [1000.25, 1000.75) and [1000.5, 1001.5) µs, whose
    union is 1.25 µs of communication; computing, overlap and free unknown (empty), as the note says."""
    pt = tmp_path / "rank_5_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    pt.mkdir(parents=True)
    info = {"Transit Time(ms)": 0.1, "Wait Time(ms)": 0.0, "Synchronization Time(ms)": 0.0, "Idle Time(ms)": 0,
            "Wait Time Ratio": 0, "Synchronization Time Ratio": 0}
    (pt / "communication.json").write_text(json.dumps({"step1": {"collective": {
        "hcom_allReduce__001_1_1@77": {
            "Communication Time Info": {"Start Timestamp(us)": 1000.25, "Elapse Time(ms)": 0.0005, **info},
            "Communication Bandwidth Info": {}},
        "hcom_allReduce__002_1_1@77": {
            "Communication Time Info": {"Start Timestamp(us)": 1000.5, "Elapse Time(ms)": 0.001, **info},
            "Communication Bandwidth Info": {}}}}}))
    db = str(tmp_path / "c.duckdb")
    cli("ingest", str(pt.parent), "--db", db, "--name", "r5")
    r = cli("report", "breakdown", "--db", db, "--run", "r5", "--format", "csv")
    (row,) = rows(r.stdout)
    assert (row["span_us"], row["communication_us"], row["computing_us"], row["free_us"]) == ("1.250", "1.250", "", "")
    assert "run 'r5' has no kernel rows, only its profiler's communication ops (2, communication.json)" in r.stderr


def test_synthetic_ranks_with_nothing_to_align_on_get_no_cross_rank_figure(tmp_path):
    """Two ranks whose only communication is NCCL send/receive kernels without c10d metadata (grouped by stream,
    never used for alignment): their clocks stay apart, so every instance of both is flagged, with no skew,
    transfer, waiting or bandwidth, whatever their raw times say."""
    import tiny_steps
    folder = tmp_path / "pp"
    folder.mkdir()
    for rank in (0, 1):
        doc = tiny_steps.one_f_one_b(layers=2, microbatches=2, steps=1)
        # the optimizer's all-reduce would align them: only the pipeline's send/receive kernels stay
        doc["traceEvents"] = [e for e in doc["traceEvents"] if "AllReduce" not in e.get("name", "")]
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 2}
        with open(folder / f"rank{rank}.json", "w") as f:
            json.dump(doc, f)
    db = str(tmp_path / "p.duckdb")
    cli("ingest", str(folder), "--db", db)
    r = cli("report", "collectives", "--db", db, "--tag", "job=pp", "--format", "csv")
    got = rows(r.stdout)
    both = [g for g in got if g["ranks"] == "2"]
    assert both and all(g["flag"].startswith("clocks not aligned") and g["transfer_us"] == g["arrival_skew_us"]
                        == g["waiting_us"] == g["algbw_gbps"] == "" for g in both)
    assert "clocks are raw (no collective matched across ranks that alignment can use)" in r.stderr
