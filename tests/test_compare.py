"""`report compare`: every kernel of every run accounted for, misaligned keys flagged, not dropped."""
import csv
import io

import pytest

import tiny_trace
import tracedb
from conftest import write_csv
from tracedb.errors import UsageError

SEG = {"profile": "qwen3-npu", "layers": 2, "pass_spec": "all"}


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def two(con, tmp_path):
    tracedb.ingest_trace(con, tiny_trace.write(tmp_path / "a.csv"), name="a")
    # run b lacks the SwiGlu of every layer: its kernels after the hcom shift one rank up in 'activation'
    kept = [r for r in tiny_trace.rows() if r[6] != "SwiGlu"]
    tracedb.ingest_trace(con, write_csv(tmp_path / "b.csv", tiny_trace.HEADER, kept), name="b")
    return con


@pytest.mark.parametrize("by", ["layer", "category", "kernel"])
def test_compare_rows_add_up_to_each_runs_layers(two, by):
    got = rows(tracedb.report(two, "compare", runs=["a", "b"], by=by, fmt="csv", **SEG))
    for run in ("a", "b"):
        layers = rows(tracedb.report(two, "layers", runs=[run], fmt="csv", **SEG))
        want = {(r["pass"], r["layer"]): round(float(r["sum_us"]) * 1000) for r in layers}
        per = {}
        for r in got:
            if r["run"] == run:
                key = (r["pass"], r["layer"])
                per[key] = per.get(key, 0) + round(float(r["sum_us"]) * 1000)
        assert per == want


def test_unaligned_kernels_are_flagged(two):
    got = rows(tracedb.report(two, "compare", runs=["a", "b"], by="kernel", fmt="csv", **SEG))
    # run a has one activation kernel (SwiGlu, 1 µs x scale) in layer 0 of each pass, run b none
    act = [r for r in got if r["category"] == "activation" and r["layer"] == "0"]
    assert [(r["pass"], r["run"], r["aligned"]) for r in act] == [(str(p), "a", "false") for p in range(4)]
    assert all(r["aligned"] == "true" for r in got if r["category"] != "activation")


def test_compare_needs_two_runs_and_a_known_by(two):
    with pytest.raises(UsageError, match="two or more --run"):
        tracedb.report(two, "compare", runs=["a"], **SEG)
    with pytest.raises(UsageError, match="--by: expected layer, category or kernel"):
        tracedb.report(two, "compare", runs=["a", "b"], by="module", **SEG)
