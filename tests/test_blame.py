"""report blame: the waiting at each collective charged to the late rank's kernels or host, checked against
tests/tiny_job.py's hand-derived numbers and against a plain computation from the arrival times of a generated
job with a slow rank and a host stall (bench/gen_job.py)."""
import csv
import io
import json
import os
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal

import pytest

import tracedb
from helpers import ROOT, assert_one_line_error, cli
from tracedb.engine.reports.registry import render_report

GEN_JOB = os.path.join(ROOT, "bench", "gen_job.py")


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope="module")
def tiny(tiny_job_store):
    return tiny_job_store


def test_tiny_job_hand_derived(tiny):
    """Layer 1: rank 2's GEMM is 30 µs against 20 (passes 0 and 2), rank 0's 35 against 20 and 30 (pass 1): each
    time the other two wait 20 µs in all, charged to the late rank's GEMM, its excess over the others' median
    (20; 25, the mean of the middle two) 10 µs. Layer 0: rank 1's GEMM is 20.5 µs: 0.5 µs of excess, 1 µs of
    waiting, in every pass."""
    got = rows(render_report(tiny, "blame", fmt="csv", runs=["job-rank*"], anchor="attn_fwd", layers=2))
    assert [(r["rank"], r["pass"], r["layer"], r["kernel"], r["excess_us"], r["waited_us"], r["instances"])
            for r in got] == [
        ("0", "1", "1", "gemm_kernel", "10.000", "20.000", "1"),
        ("2", "0", "1", "gemm_kernel", "10.000", "20.000", "1"),
        ("2", "2", "1", "gemm_kernel", "10.000", "20.000", "1"),
        ("1", "0", "0", "gemm_kernel", "0.500", "1.000", "1"),
        ("1", "1", "0", "gemm_kernel", "0.500", "1.000", "1"),
        ("1", "2", "0", "gemm_kernel", "0.500", "1.000", "1")]
    by_layer = rows(render_report(tiny, "blame", fmt="csv", runs=["job-rank*"], anchor="attn_fwd", layers=2,
                                  by="layer"))
    assert [(r["rank"], r["layer"], r["waited_us"], r["instances"]) for r in by_layer] == [
        ("2", "1", "40.000", "2"), ("0", "1", "20.000", "1"), ("1", "0", "3.000", "3")]


def test_one_rank_is_refused(tiny):
    with pytest.raises(tracedb.UsageError, match="alone made no one wait"):
        render_report(tiny, "blame", runs=["job-rank0"], anchor="attn_fwd", layers=2)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """4 ranks, 8 layers, 3 passes: rank 2's compute 1.6x slower in layers 3 and 5; rank 1 launches the
    all-reduce of pass 1, layer 6 (TP collective 14) 60 µs late, its host stalled."""
    if not os.path.exists(GEN_JOB):
        pytest.skip("bench/gen_job.py is not in this checkout")
    d = tmp_path_factory.mktemp("gen_blame")
    out = d / "job"
    subprocess.run([sys.executable, GEN_JOB, str(out), "--ranks", "4", "--layers", "8", "--passes", "3",
                    "--slow-rank", "2", "--slow-layers", "3,5", "--slow-factor", "1.6", "--late",
                    "rank=1,coll=14,us=60", "--offsets-us", "0,12345,-678,9000"], check=True, capture_output=True)
    db = str(d / "g.duckdb")
    cli("ingest", str(out), "--db", db, "--name", "gj")
    with open(out / "truth.json", encoding="utf-8") as f:
        return db, json.load(f)


def test_generated_culprits(generated):
    db, _ = generated
    by_layer = rows(cli("report", "blame", "--db", db, "--tag", "job=gj", "--by", "layer", "--format", "csv").stdout)
    numbered = [(r["rank"], r["layer"]) for r in by_layer if r["layer"].isdigit()]
    assert set(numbered[:3]) == {("2", "3"), ("2", "5"), ("1", "6")}
    causes = rows(cli("report", "blame", "--db", db, "--tag", "job=gj", "--format", "csv").stdout)
    stall = max((r for r in causes if (r["rank"], r["layer"]) == ("1", "6")), key=lambda r: Decimal(r["waited_us"]))
    assert (stall["pass"], stall["kernel"]) == ("1", "(host)")
    slow = {r["kernel"] for r in causes if (r["rank"], r["layer"]) == ("2", "3") and Decimal(r["waited_us"]) > 1}
    assert slow and "(host)" not in slow and "(unexplained)" not in slow


def test_generated_waiting_adds_up_to_the_arrival_times(generated):
    """Every instance's waiting, summed over the causes it is shared among, is the plain sum over its members
    of (last arrival - arrival) from the generator's true arrival times (the offsets are recovered exactly)."""
    db, truth = generated
    want = defaultdict(int)
    for c in truth["collectives"]:
        arrivals = [int(a) for a in c["arrival_ns"].values()]
        if len(arrivals) > 1:
            want[c["last_rank"]] += sum(max(arrivals) - a for a in arrivals)
    got = defaultdict(Decimal)
    every = rows(cli("report", "blame", "--db", db, "--tag", "job=gj", "--format", "csv").stdout)
    for r in every:
        got[int(r["rank"])] += Decimal(r["waited_us"])
    # each row's waiting is rounded to the ns once: at most 1 ns per row
    rows_per_rank = defaultdict(int)
    for r in every:
        rows_per_rank[int(r["rank"])] += 1
    assert set(got) == {r for r, ns in want.items() if ns}
    for rank, ns in want.items():
        assert abs(got[rank] * 1000 - ns) <= rows_per_rank[rank], rank


@pytest.mark.parametrize("by", ["kernel", "layer"])
def test_top_rows_and_one_row_for_the_rest(generated, by):
    """--top N keeps the N most waited rows of the full list, in its order, and one '(M more)' row sums the
    other M rows' excess and waiting; by default CSV keeps every row and the terminal table 30."""
    db, _ = generated
    args = ("report", "blame", "--db", db, "--tag", "job=gj", "--by", by, "--format", "csv")
    every = rows(cli(*args, "--top", "0").stdout)
    assert len(every) > 5
    top = rows(cli(*args, "--top", "5").stdout)
    assert top[:5] == every[:5]
    rest = top[5]
    label = rest["kernel"] if by == "kernel" else rest["run"]
    assert label == f"({len(every) - 5:,} more)" and len(top) == 6
    assert (rest["rank"], rest["pass"], rest["layer"], rest["unit"]) == ("", "", "", "")
    assert Decimal(rest["excess_us"]) == sum(Decimal(r["excess_us"]) for r in every[5:])
    # each row's waiting is rounded to the ns once, the rest row's too: at most 1 ns per row apart
    cut = sum(Decimal(r["waited_us"]) for r in every[5:])
    assert abs(Decimal(rest["waited_us"]) - cut) * 1000 <= len(every) - 5
    assert int(rest["instances"]) <= sum(int(r["instances"]) for r in every[5:])
    assert rows(cli(*args).stdout) == every
    assert rows(cli(*args, "--top", "30").stdout)[:30] == every[:30]
    lines = cli("report", "blame", "--db", db, "--tag", "job=gj", "--by", by).stdout.splitlines()
    rule = next(i for i, ln in enumerate(lines) if ln.startswith("---"))    # under the header
    shown = [ln for ln in lines[rule + 1:] if ln.strip()]
    assert len(shown) == (31 if len(every) > 30 else len(every)), len(shown)
    table = cli("report", "blame", "--db", db, "--tag", "job=gj", "--by", by, "--top", "5").stdout
    assert f"({len(every) - 5:,} more)" in table and "(no pass)" not in table.splitlines()[-1]


def test_cli_error_for_an_unknown_by(generated):
    db, _ = generated
    assert_one_line_error(cli("report", "blame", "--db", db, "--tag", "job=gj", "--by", "step", check=False),
                          "--by")
