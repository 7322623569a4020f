"""`report collectives` on Ascend: an HCCL op has no c10d message size, so its bytes are the transit size its
communication.json counts, as msprof-analyze counts it (SDMA, msprof's sum of HCCS, PCIE and SIO, plus RDMA;
HCCS + PCIE + SIO + RDMA where a file has no SDMA entry), the largest over the instance's members; algbw and
busbw follow from them as for a GPU. Synthetic rank folders written here, then the shared Megatron job
($TRACEDB_TEST_DATA; skipped when absent), checked against its communication.json parsed here."""
import csv
import glob
import io
import json
import os
from decimal import Decimal

import pytest

import tiny_trace
from helpers import cli, real_trace

T0 = 1_764_246_877_000_000   # µs


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def op(start_us, elapse_ms, links):
    """An op of communication.json: its time info and its Communication Bandwidth Info (link type -> MB)."""
    return {"Communication Time Info": {"Start Timestamp(us)": start_us, "Elapse Time(ms)": elapse_ms,
                                        "Transit Time(ms)": 0.5, "Wait Time(ms)": 0, "Synchronization Time(ms)": 0,
                                        "Idle Time(ms)": 0, "Wait Time Ratio": 0, "Synchronization Time Ratio": 0},
            "Communication Bandwidth Info": {t: {"Transit Size(MB)": mb, "Transit Time(ms)": 0.5 if mb else 0,
                                                 "Bandwidth(GB/s)": 1, "Large Packet Ratio": 0}
                                             for t, mb in links.items()}}


def comm_rank(root, rank, ops):
    out = root / f"rank_{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "communication.json").write_text(json.dumps({"step1": {"collective": ops}}))


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """Two ranks of one allreduce (group 77) and a second op on rank 0 alone that moved nothing. Rank 0 arrives
    at T0 and rank 1 0.2 ms later; both end at T0 + 1 ms: transfer 0.8 ms."""
    root = tmp_path_factory.mktemp("bytes") / "job"
    comm_rank(root, 0, {
        "hcom_allReduce__077_1_1@77": op(T0, 1.0, {"HCCS": 1.5, "SDMA": 1.5, "RDMA": 0.3, "PCIE": 0}),
        "hcom_allReduce__077_2_1@77": op(T0 + 2000, 0.01, {"HCCS": 0, "SDMA": 0}),
        "Total Op Info": op(0, 1.01, {"HCCS": 1.5, "SDMA": 1.5, "RDMA": 0.3})})
    # an older file without SDMA: its intra-node link types add up
    comm_rank(root, 1, {"hcom_allReduce__077_1_1@77": op(T0 + 200, 0.8, {"HCCS": 1.0, "PCIE": 0.25, "SIO": 0.25})})
    db = str(root.parent / "b.duckdb")
    cli("ingest", str(root), "--db", db, "--name", "b")
    return db


def test_bytes_are_sdma_plus_rdma_the_largest_over_the_members(job):
    r = cli("report", "collectives", "--db", job, "--tag", "job=b", "--format", "csv")
    first, second = rows(r.stdout)
    # rank 0: SDMA 1.5 MB + RDMA 0.3 MB (not + HCCS, which SDMA holds); rank 1: 1.0 + 0.25 + 0.25 MB
    assert (first["op"], first["ranks"], first["bytes"], first["transfer_us"]) == ("allreduce", "2", "1800000",
                                                                                 "800.000")
    # nccl-tests' formulas over tracedb's transfer: 1.8e6 bytes / 800,000 ns; allreduce of 2: busbw = algbw
    assert (first["algbw_gbps"], first["busbw_gbps"]) == ("2.250", "2.250")
    # an op the file lists with no transfer moved 0 bytes
    assert (second["ranks"], second["bytes"], second["algbw_gbps"]) == ("1", "0", "0.000")
    assert "bytes of 2 HCCL instances: the transit size the Ascend profiler counts" in r.stderr
    per = rows(cli("report", "collectives", "--db", job, "--tag", "job=b", "--per-rank", "--format", "csv").stdout)
    assert [(p["seq"], p["rank"], p["prof_bytes"]) for p in per] == [("0", "0", "1800000"), ("0", "1", "1500000"),
                                                                   ("1", "0", "0")]


def test_hccl_ops_without_communication_json_have_no_bytes_and_a_note(tmp_path):
    """The tiny decode's hcom kernels, in a folder without communication.json: no bytes, and a note says why."""
    out = tmp_path / "rank_0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    tiny_trace.write(out / "kernel_details.csv")
    db = str(tmp_path / "t.duckdb")
    cli("ingest", str(out.parent), "--db", db, "--name", "t")
    r = cli("report", "collectives", "--db", db, "--run", "t", "--format", "csv")
    got = rows(r.stdout)
    assert got and all(g["bytes"] == g["algbw_gbps"] == "" for g in got)
    assert f"{len(got)} HCCL instances have no bytes and no bandwidth: none of their ops matched an op" in r.stderr


# -------------------------------------------------------------------------------------------- real data
def transit_bytes(links) -> int:
    """msprof-analyze's count of an op's bytes, from communication.json's Communication Bandwidth Info."""
    mb = {t: Decimal(str(v.get("Transit Size(MB)", 0))) for t, v in links.items()}
    sdma = max(mb.get("SDMA", Decimal(0)), sum(mb.get(t, Decimal(0)) for t in ("HCCS", "PCIE", "SIO")))
    return int((sdma + mb.get("RDMA", Decimal(0))) * 1_000_000)


@pytest.mark.real_data
def test_real_megatron_job_bytes_are_communication_jsons(tmp_path):
    """Every one of the job's 34 instances has bytes; each member's is its own communication.json's op (found
    by its group and its order within the group on that rank), and the instance's the largest of them."""
    folder = os.path.dirname(real_trace("ascend-megatron-job", "rank_0_ascend_pt"))
    want = {}       # (rank, group, k-th op of the group by start) -> bytes
    for path in glob.glob(os.path.join(folder, "rank_*_ascend_pt", "ASCEND_PROFILER_OUTPUT", "communication.json")):
        rank = int(path.split("rank_")[1].split("_")[0])
        by_group = {}
        for classes in json.load(open(path)).values():
            for ops in classes.values():
                for key, v in ops.items():
                    if key != "Total Op Info":
                        start = v["Communication Time Info"]["Start Timestamp(us)"]
                        by_group.setdefault(key.split("@")[1], []).append((start, transit_bytes(
                            v["Communication Bandwidth Info"])))
        for group, ops in by_group.items():
            for k, (_, b) in enumerate(sorted(ops)):
                want[(rank, group, k)] = b
    db = str(tmp_path / "m.duckdb")
    cli("ingest", folder, "--db", db, "--name", "mj")
    per = rows(cli("report", "collectives", "--db", db, "--tag", "job=mj", "--per-rank", "--format", "csv").stdout)
    assert {(int(p["rank"]), p["group"], int(p["seq"])): int(p["prof_bytes"]) for p in per} == want
    got = rows(cli("report", "collectives", "--db", db, "--tag", "job=mj", "--format", "csv").stdout)
    assert len(got) == 34 and all(g["bytes"] != "" and g["algbw_gbps"] != "" for g in got)
    for g in got:
        members = [b for (_, group, k), b in want.items() if group == g["group"] and k == int(g["seq"])]
        assert int(g["bytes"]) == max(members)
    # hcom_reduceScatter__097_4_1 of dp_cp: HCCS (and SDMA) 440.466432 MB on ranks 0 and 1
    rs = next(g for g in got if g["op"] == "reducescatter" and g["group_desc"] == "dp_cp" and g["ranks"] == "2"
              and g["seq"] == "0")
    assert (rs["bytes"], rs["transfer_us"], rs["algbw_gbps"], rs["busbw_gbps"]) == ("440466432", "26309.140", "16.742",
                                                                                  "8.371")
