"""Reports that need no layers answer on a trace that has none to find (no attention kernel repeats: a CNN, a
collective benchmark): roofline by kernel, category or run, blame and ranks, over the whole run with a note."""
import csv
import io

import duckdb
import pytest

from helpers import cli, real_trace


def test_roofline_by_run_takes_the_whole_run_of_a_cnn(tmp_path):
    db = str(tmp_path / "a.duckdb")
    cli("ingest", real_trace("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt"), "--db", db, "--name", "an")
    r = cli("report", "roofline", "--db", db, "--run", "an", "--by", "run", "--format", "csv")
    row = next(csv.DictReader(io.StringIO(r.stdout)))
    total = cli("sql", "--db", db, "SELECT count(*) AS n FROM kernels", "--format", "csv")
    assert row["count"] == next(csv.DictReader(io.StringIO(total.stdout)))["n"]
    assert "no layers to find" in r.stderr and "as with --phase all" in r.stderr
    # a layer view still needs layers: the same refusal as before
    bad = cli("report", "roofline", "--db", db, "--run", "an", "--by", "layer", check=False)
    assert bad.returncode != 0 and "no attention kernel repeats" in bad.stderr


def test_blame_answers_on_a_job_without_layers(tmp_path):
    db = str(tmp_path / "h.duckdb")
    cli("ingest", real_trace("hta-multirank", "trace_filter"), "--db", db, "--name", "hm", "--tag", "job=hm")
    r = cli("report", "blame", "--db", db, "--tag", "job=hm", "--format", "csv")
    assert r.stdout.splitlines()[0].startswith("run,rank,pass,layer,kernel")
    assert "no layers to find" in r.stderr


def _compute_us(con, run: str) -> float:
    """A rank's compute over its whole run, recomputed here: the union of its non-communication kernels'
    intervals (NCCL kernels are its communication), in µs."""
    rows = sorted(con.execute("SELECT k.start_ns, k.start_ns + k.dur_ns FROM kernels k JOIN runs r USING (run_id) "
                              "WHERE r.name = $n AND k.kind = 'kernel' AND k.name NOT ILIKE '%nccl%'",
                              {"n": run}).fetchall())
    total, end = 0, None
    for s, e in rows:
        if end is None or s > end:
            total, end = total + (e - s), e
        elif e > end:
            total, end = total + (e - end), e
    return total / 1000


def test_ranks_compare_whole_runs_on_a_job_without_layers(tmp_path):
    db = str(tmp_path / "h.duckdb")
    cli("ingest", real_trace("hta-multirank", "trace_filter"), "--db", db, "--name", "hm", "--tag", "job=hm")
    r = cli("report", "ranks", "--db", db, "--tag", "job=hm", "--per-rank", "--format", "csv")
    assert "no layers to find" in r.stderr and "each rank's whole run compared" in r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    con = duckdb.connect(db, read_only=True)
    want = {run: _compute_us(con, run) for run in ("hm-rank0", "hm-rank1")}
    con.close()
    # the layer column names the unit where there is no layer, as for a prologue
    assert [(x["run"], x["unit"], x["pass"], x["layer"]) for x in rows] == [("hm-rank0", "run", "0", "run"),
                                                                          ("hm-rank1", "run", "0", "run")]
    assert {x["run"]: float(x["compute_us"]) for x in rows} == pytest.approx(want, abs=0.0005)
    slow = max(want, key=want.get)
    assert [x["run"] for x in rows if x["slowest"] == "true"] == [slow]
    s = cli("report", "ranks", "--db", db, "--tag", "job=hm", "--stragglers", "--format", "csv")
    votes = list(csv.DictReader(io.StringIO(s.stdout)))
    assert [(v["layer"], v["run"], v["units"]) for v in votes] == [("all", slow, "1")]
