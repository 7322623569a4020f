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
