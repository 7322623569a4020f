"""Jobs of many ranks at ingest: the job tag of a folder of ranks, each run's rank, world size and parallel
groups (Kineto distributedInfo.pg_config, Ascend profiler_metadata.json), the c10d metadata of NCCL kernels,
and the Ascend profiler's communication analyses, also of a rank folder that holds nothing else."""
import json
import os
import subprocess
import sys

import pytest

import tracedb
from helpers import ROOT, cli, real_trace

GEN_JOB = os.path.join(ROOT, "bench", "gen_job.py")


@pytest.fixture
def job_dir(tmp_path):
    if not os.path.exists(GEN_JOB):
        pytest.skip("bench/gen_job.py is not in this checkout")
    out = tmp_path / "myjob"
    subprocess.run([sys.executable, GEN_JOB, str(out), "--ranks", "4", "--tp", "2", "--layers", "1", "--passes", "1",
                    "--c10d-seq"], check=True, capture_output=True)
    return out


def q(db, query):
    con = tracedb.connect(db)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def test_job_tag_name_rank_and_groups(tmp_path, job_dir):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(job_dir), "--db", db, "--name", "J")
    assert q(db, "SELECT name, rank, world_size, tags['job'] FROM runs ORDER BY rank") == \
        [(f"J-rank{r}", r, 4, "J") for r in range(4)]
    groups = q(db, "SELECT r.rank, g.group_name, g.group_desc, g.backend, g.group_size, g.ranks, g.group_rank "
                   "FROM run_groups g JOIN runs r USING (run_id) WHERE r.rank = 3 ORDER BY g.group_name")
    assert groups == [(3, "0", "default_pg", "cuda:nccl", 4, [0, 1, 2, 3], 3),
                      (3, "2", "tp", "cuda:nccl", 2, [2, 3], 1), (3, "4", "dp", "cuda:nccl", 2, [1, 3], 1)]
    assert q(db, "SELECT count(*) FROM runs WHERE tags['job'] = 'J'") == [(4,)]
    r = cli("runs", "--db", db, "--tag", "job=J", "--format", "csv")
    assert r.stdout.count("J-rank") == 4


def test_job_tag_defaults_to_the_folder_and_a_users_tag_wins(tmp_path, job_dir):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(job_dir), "--db", db)
    assert {t for (t,) in q(db, "SELECT tags['job'] FROM runs")} == {"myjob"}
    db2 = str(tmp_path / "t.duckdb")
    cli("ingest", str(job_dir), "--db", db2, "--name", "J", "--tag", "job=other", "--tag", "hw=h100")
    assert {t for t in q(db2, "SELECT tags['job'], tags['hw'] FROM runs")} == {("other", "h100")}


def test_single_trace_is_not_a_job(tmp_path, job_dir):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(job_dir / "rank1.pt.trace.json"), "--db", db, "--name", "one")
    assert q(db, "SELECT name, rank, tags FROM runs") == [("one", 1, {})]


def test_nccl_metadata_kept_in_extra_args(tmp_path, job_dir):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(job_dir / "rank0.pt.trace.json"), "--db", db, "--name", "r0")
    got = q(db, "SELECT extra_args FROM trace_events WHERE kind = 'kernel' AND extra_args IS NOT NULL ORDER BY seq")
    first = json.loads(got[0][0])
    assert len(got) == 2 and first == {"collective": "allreduce", "in_nelems": 65536, "out_nelems": 65536,
                                       "group_size": 2, "dtype": "BFloat16", "in_split": "[]", "out_split": "[]",
                                       "pg_name": "1", "pg_desc": "tp", "pg_ranks": "[0, 1]", "seq": 1}


@pytest.mark.real_data
def test_real_nccl_kernels_keep_their_collective(tmp_path):
    db = str(tmp_path / "n.duckdb")
    cli("ingest", real_trace("hta-multirank", "nccl_parser_config", "nccl_data.json.gz"), "--db", db, "--name", "n")
    got = q(db, "SELECT extra_args ->> 'collective', count(*) FROM trace_events WHERE kind = 'kernel' "
                "AND extra_args IS NOT NULL GROUP BY 1 ORDER BY 1")
    assert got == [("allreduce", 15), ("broadcast", 6)]
    assert q(db, "SELECT group_name, group_desc, backend, group_size, ranks, group_rank FROM run_groups") == \
        [("0", "default_pg", "cuda:nccl", 2, [0, 1], 0)]


@pytest.mark.real_data
@pytest.mark.slow
def test_real_ascend_job_with_comm_only_ranks(tmp_path):
    """ascend-megatron-job: rank 0 with kernel_details.csv, ranks 1 and 3 with their communication analyses only:
    three runs of the job, the comm-only ones with no kernels; every rank's groups and profiler figures."""
    src = os.path.dirname(real_trace("ascend-megatron-job", "rank_1_ascend_pt"))
    db = str(tmp_path / "a.duckdb")
    r = cli("ingest", src, "--db", db, "--name", "mega")
    assert "ingested run 'mega-rank1': 0 kernel rows" in r.stdout
    assert q(db, "SELECT name, rank, world_size, format, kernel_count, tags['job'] FROM runs ORDER BY rank") == [
        ("mega-rank0", 0, 4, "ascend-kernel-details", 2463, "mega"), ("mega-rank1", 1, 4, "ascend-comm", 0, "mega"),
        ("mega-rank3", 3, 4, "ascend-comm", 0, "mega")]
    assert q(db, "SELECT group_name, group_desc, ranks, group_rank FROM run_groups g JOIN runs r USING (run_id) "
                 "WHERE r.rank = 3 AND group_desc = 'dp'") == [("group_name_3", "dp", [2, 3], 1)]
    assert q(db, "SELECT r.rank, count(*) FROM comm_ops JOIN runs r USING (run_id) GROUP BY 1 ORDER BY 1") == \
        [(0, 17), (1, 17), (3, 25)]
    # exact: Start Timestamp(us) 1764246877147674.5, Elapse Time(ms) 0.43614, Wait Time(ms) 0.4035
    assert q(db, "SELECT start_ns, elapse_ns, wait_ns, idle_ns FROM comm_ops c JOIN runs r USING (run_id) WHERE "
                 "r.rank = 0 AND op_name = 'hcom_batchSendRecv__128_3_1'") == \
        [(1764246877147674500, 436140, 403500, 32640)]
    assert q(db, "SELECT transport, size_bytes, time_ns FROM comm_links c JOIN runs r USING (run_id) WHERE r.rank = 0 "
                 "AND op_name = 'hcom_batchSendRecv__128_4_1' ORDER BY 1") == [("HCCS", 8388608, 401680),
                                                                              ("SDMA", 8388608, 401680)]
    assert q(db, "SELECT src_rank, dst_rank, transport, size_bytes, op_name FROM comm_matrix c JOIN runs r "
                 "USING (run_id) WHERE r.rank = 0 AND matrix_op = 'batchsendrecv-top1' ORDER BY 1, 2") == \
        [(0, 0, "LOCAL", 8388616, "hcom_batchSendRecv__128_3_1"),
         (0, 1, "HCCS", 8388608, "hcom_batchSendRecv__128_5_1")]
    files = q(db, "SELECT source_files FROM runs WHERE rank = 1")[0][0]
    assert [os.path.basename(f) for f in files] == ["communication.json", "communication_matrix.json",
                                                    "step_trace_time.csv"]
    # the profiler's step_trace_time.csv of every rank, kernels or not (tests/test_step_times.py has the figures)
    assert q(db, "SELECT r.rank, s.device_id, s.step FROM step_times s JOIN runs r USING (run_id) ORDER BY 1") == \
        [(0, 0, 13), (1, 1, 13), (3, 5, 13)]


def test_comm_only_folder_and_bad_analysis(tmp_path):
    """A rank folder with only communication.json is a run of no kernels; a malformed one is a one-line error."""
    pt = tmp_path / "rank_5_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    pt.mkdir(parents=True)
    (pt / "communication.json").write_text(json.dumps({"step1": {"collective": {"hcom_allReduce__001_1_1@77": {
        "Communication Time Info": {"Start Timestamp(us)": 1000.25, "Elapse Time(ms)": 0.5, "Transit Time(ms)": 0.1,
                                    "Wait Time(ms)": 0.4, "Synchronization Time(ms)": 0.4, "Idle Time(ms)": 0,
                                    "Wait Time Ratio": 0.8, "Synchronization Time Ratio": 0.8},
        "Communication Bandwidth Info": {}}}}}))
    db = str(tmp_path / "c.duckdb")
    cli("ingest", str(pt.parent), "--db", db)
    assert q(db, "SELECT name, rank, kernel_rows FROM runs") == [("rank_5_ascend_pt", 5, 0)]
    assert q(db, "SELECT op_name, comm_group, start_ns, elapse_ns FROM comm_ops") == \
        [("hcom_allReduce__001_1_1", "77", 1000250, 500000)]
    (pt / "communication.json").write_text('{"step1": [1, 2]}')
    r = cli("ingest", str(pt.parent), "--db", str(tmp_path / "d.duckdb"), check=False)
    assert r.returncode != 0 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1
    assert "step1 is not an object" in r.stderr
