"""`tracedb advise` on the real traces ($TRACEDB_TEST_DATA; skipped when absent), each finding checked here
against the profiler's own figures read from the raw files, not from tracedb's tables."""
import csv
import io
import os

import pytest

from helpers import cli, real_trace

pytestmark = pytest.mark.real_data


def _findings(db, *args):
    return list(csv.DictReader(io.StringIO(cli("advise", "--db", db, "--format", "csv", *args).stdout)))


def test_the_megatron_jobs_slow_rank_is_msprof_analyzes(tmp_path):
    """The Ascend Megatron job (ranks 0, 1 and 3 of 4; ranks 1 and 3 hold the profiler's analyses but no
    kernel_details.csv): the slow rank named is the one whose Computing in its step_trace_time.csv is the
    largest, as msprof-analyze's own figures name it, and no other rank is named."""
    folder = real_trace("ascend-megatron-job")
    computing = {}
    for name in sorted(os.listdir(folder)):
        rank = int(name.split("_")[1])
        with open(os.path.join(folder, name, "ASCEND_PROFILER_OUTPUT", "step_trace_time.csv"), encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        computing[rank] = sum(float(r["Computing"]) for r in rows)
    slowest = max(computing, key=computing.get)
    db = str(tmp_path / "s.duckdb")
    cli("ingest", folder, "--db", db, "--name", "meg")
    slow = [r for r in _findings(db, "--tag", "job=meg") if r["rule"] == "slow-rank"]
    assert [int(r["rank"]) for r in slow] == [slowest] == [3]
    assert f"{computing[slowest]:.3f}" in slow[0]["evidence"]


def test_unrelated_real_runs_name_no_slow_rank(tmp_path):
    """Four real traces of different models and machines in one store, none tagged as a job: no slow rank."""
    db = str(tmp_path / "s.duckdb")
    for name, parts in (("h100", ("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")),
                        ("mi300", ("amd-tracelens", "mi300", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")),
                        ("resnet", ("torch-tb-profiler-sample", "worker0.1623143089861.pt.trace.json.gz")),
                        ("nccl", ("hta-multirank", "nccl_parser_config", "nccl_data.json.gz"))):
        cli("ingest", real_trace(*parts), "--db", db, "--name", name)
    r = cli("advise", "--db", db, "--run", "*", "--format", "csv")
    assert "slow-rank" not in {x["rule"] for x in csv.DictReader(io.StringIO(r.stdout))}
    assert "not one job's ranks" in r.stderr


def test_the_resnet_samples_pageable_copies(tmp_path):
    """The tb-profiler ResNet sample copies each input batch from pageable memory: rule pageable-copy counts the
    copies and their time as the raw trace has them."""
    import gzip
    import json
    from decimal import Decimal
    path = real_trace("torch-tb-profiler-sample", "worker0.1623143089861.pt.trace.json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    copies = [e for e in events if e.get("ph") == "X" and "Pageable" in str(e.get("name"))]
    db = str(tmp_path / "s.duckdb")
    cli("ingest", path, "--db", db, "--name", "resnet")
    rows = [r for r in _findings(db, "--run", "resnet") if r["rule"] == "pageable-copy"]
    assert len(rows) == 1 and rows[0]["finding"].startswith(f"{len(copies)} copies") and len(copies) == 12
    assert Decimal(rows[0]["at_stake_us"]) == sum(Decimal(e["dur"]) for e in copies)


def test_megatron_ranks_without_kernels_have_a_step_time_and_no_pipeline_sends_in_exposed_comm(tmp_path):
    """The Megatron job's ranks 1 and 3 hold the profiler's analyses but no kernels: their step time is their
    step_trace_time.csv's Stage, so a finding on them has its share of the step (rank 3's slow-rank one
    included); their exposed communication is the csv's Communication(Not Overlapped) less the pipeline sends
    and receives (the p2p ops of communication.json), its waiting the collectives' Wait Time there."""
    import json
    from decimal import Decimal
    folder = real_trace("ascend-megatron-job")
    db = str(tmp_path / "s.duckdb")
    cli("ingest", folder, "--db", db, "--name", "meg")
    rows = _findings(db, "--tag", "job=meg")
    for rank in (1, 3):
        out = os.path.join(folder, f"rank_{rank}_ascend_pt", "ASCEND_PROFILER_OUTPUT")
        with open(os.path.join(out, "step_trace_time.csv"), encoding="utf-8") as f:
            steps = list(csv.DictReader(f))
        with open(os.path.join(out, "communication.json"), encoding="utf-8") as f:
            comm = json.load(f, parse_float=Decimal)
        stage = sum(Decimal(r["Stage"]) for r in steps)
        exposed = sum(Decimal(r["Communication(Not Overlapped)"]) for r in steps)
        ops = [(cls, o["Communication Time Info"]) for step in comm.values() for cls, named in step.items()
               for name, o in named.items() if name != "Total Op Info"]
        p2p = sum(t["Elapse Time(ms)"] for cls, t in ops if cls == "p2p") * 1000
        wait = sum(t["Wait Time(ms)"] for cls, t in ops if cls != "p2p") * 1000
        mine = {r["rule"]: r for r in rows if r["rank"] == str(rank)}
        got = mine["exposed-comm"]
        assert Decimal(got["at_stake_us"]) == pytest.approx(exposed - p2p, abs=Decimal("0.01"))
        assert Decimal(got["at_stake_pct"]) == round(100 * (exposed - p2p) / stage, 1)
        assert f"{wait:.3f} us waiting for a peer (the profiler's Wait Time)" in got["finding"]
        assert f"its pipeline sends and receives ({p2p:.3f} us) left out" in got["finding"]
    # rank 3's wait is the other ranks': its share is of their steps (each a step_trace_time.csv's Stage too)
    assert {r["rule"] for r in rows if r["rank"] == "3"} == {"slow-rank", "exposed-comm"}
    slow = next(r for r in rows if r["rule"] == "slow-rank")
    others = Decimal(0)
    for rank in (0, 1):
        with open(os.path.join(folder, f"rank_{rank}_ascend_pt", "ASCEND_PROFILER_OUTPUT", "step_trace_time.csv"),
                  encoding="utf-8") as f:
            others += sum(Decimal(r["Stage"]) for r in csv.DictReader(f))
    assert slow["severity"] == "critical" and Decimal(slow["at_stake_pct"]) == round(
        100 * Decimal(slow["at_stake_us"]) / others, 1)
