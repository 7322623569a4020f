"""`tracedb report collectives` over jobs made by bench/gen_job.py: every injected late arrival's skew is
recovered within 1 µs of the truth file's exact figure, transfer and bandwidths follow their definitions,
--no-align shows each rank's own clock, --per-rank gives each member's wait; one-line errors for what cannot
be compared. The real Ascend and HTA jobs at the end."""
import csv
import io
import json
import os
import subprocess
import sys
from decimal import Decimal

import pytest

import tiny_kineto
from helpers import ROOT, assert_one_line_error, cli, needs_html, real_trace

GEN_JOB = os.path.join(ROOT, "bench", "gen_job.py")
REQUIRED = ["op", "group", "seq", "ranks", "arrival_skew_us", "transfer_us"]


def job(tmp_path, *args):
    if not os.path.exists(GEN_JOB):
        pytest.skip("bench/gen_job.py is not in this checkout")
    out = tmp_path / "job"
    subprocess.run([sys.executable, GEN_JOB, str(out), *args], check=True, capture_output=True, text=True)
    db = str(tmp_path / "j.duckdb")
    cli("ingest", str(out), "--db", db, "--name", "job")
    return db, json.loads((out / "truth.json").read_text())


def rows(r):
    assert r.returncode == 0, r.stderr
    return list(csv.DictReader(io.StringIO(r.stdout)))


def us(ns) -> Decimal:
    return Decimal(ns) / 1000


def test_late_arrivals_recovered(tmp_path):
    db, truth = job(tmp_path, "--ranks", "4", "--layers", "8", "--passes", "3", "--slow-rank", "2",
                    "--slow-layers", "3,5", "--late", "rank=1,coll=7,us=150", "--late", "rank=3,coll=20,us=42.5",
                    "--offsets-us", "0,12345,-678,9000", "--jitter-ns", "100", "--seed", "0")
    r = cli("report", "collectives", "--db", db, "--tag", "job=job", "--format", "csv")
    table = rows(r)
    assert list(table[0])[:3] == ["op", "group", "group_desc"] and set(REQUIRED) <= set(table[0])
    got = {(t["group"], int(t["seq"])): t for t in table}
    assert len(got) == len(truth["collectives"]) == 24
    for late in truth["late"]:
        t = got[(late["group"], late["seq"])]
        assert abs(Decimal(t["arrival_skew_us"]) - us(late["arrival_skew_ns"])) <= 1, (late, t)
        assert int(t["last_rank"]) == late["rank"]
        assert late["arrival_skew_ns"] > late["late_ns"] - 5_000      # the injection dominates the natural skew
    for c in truth["collectives"]:                                   # every instance, not only the late ones
        t = got[(c["group"], c["seq"])]
        assert abs(Decimal(t["arrival_skew_us"]) - us(c["arrival_skew_ns"])) <= 1
        assert abs(Decimal(t["transfer_us"]) - us(c["transfer_ns"])) <= 1
        assert (t["op"], int(t["bytes"]), int(t["ranks"])) == (c["op"], c["bytes"], c["ranks"])
    assert "clocks aligned on 24 collectives" in r.stderr


def test_bandwidths_follow_nccl_tests(tmp_path):
    db, truth = job(tmp_path, "--ranks", "4", "--tp", "2", "--layers", "2", "--passes", "2")
    table = rows(cli("report", "collectives", "--db", db, "--tag", "job=job", "--format", "csv"))
    assert {t["op"] for t in table} == {"allreduce", "allgather"}
    for t in table:
        n, algbw = int(t["group_size"]), Decimal(t["bytes"]) / (Decimal(t["transfer_us"]) * 1000)
        assert Decimal(t["algbw_gbps"]) == round(algbw, 3)
        factor = Decimal(2 * (n - 1)) / n if t["op"] == "allreduce" else Decimal(n - 1) / n
        assert abs(Decimal(t["busbw_gbps"]) - algbw * factor) <= Decimal("0.001")


def test_no_align_shows_raw_offsets(tmp_path):
    """Rank r writes true time + offset_r; raw, the skew of an instance where everyone arrived within ~2 µs
    is the spread of the offsets, and each member's offset_us is 0."""
    db, truth = job(tmp_path, "--ranks", "3", "--layers", "2", "--passes", "1", "--offsets-us", "0,500,-250")
    raw = rows(cli("report", "collectives", "--db", db, "--tag", "job=job", "--no-align", "--per-rank",
                   "--format", "csv"))
    assert {t["offset_us"] for t in raw} == {"0.000"}
    first = [t for t in raw if t["seq"] == "0"]
    starts = {int(t["rank"]): Decimal(t["start_us"]) for t in first}
    assert abs((starts[1] - starts[2]) - 750) <= 3                  # offsets 500 - (-250) µs, ± arrival spread
    aligned = rows(cli("report", "collectives", "--db", db, "--tag", "job=job", "--per-rank", "--format", "csv"))
    assert {int(t["rank"]): t["offset_us"] for t in aligned if t["seq"] == "0"} == {0: "0.000", 1: "-500.000",
                                                                                   2: "250.000"}


def test_per_rank_wait(tmp_path):
    db, truth = job(tmp_path, "--ranks", "4", "--layers", "2", "--passes", "2", "--late", "rank=2,coll=1,us=80")
    table = rows(cli("report", "collectives", "--db", db, "--run", "job-rank*", "--per-rank", "--format", "csv"))
    inst = [t for t in table if t["seq"] == "1"]
    assert len(inst) == 4 and {t["wait_us"] for t in inst if t["rank"] == "2"} == {"0.000"}
    skew = us(truth["late"][0]["arrival_skew_ns"])
    assert max(Decimal(t["wait_us"]) for t in inst) == Decimal(inst[0]["arrival_skew_us"])
    assert abs(Decimal(inst[0]["arrival_skew_us"]) - skew) <= 1


def test_formats_and_notes(tmp_path):
    db, _ = job(tmp_path, "--ranks", "2", "--layers", "2", "--passes", "1")
    md = cli("report", "collectives", "--db", db, "--tag", "job=job", "--format", "md")
    header = next(line for line in md.stdout.splitlines() if line.startswith("| op | group |"))
    assert "prof_wait_us" not in header and "no time in: group_desc" not in md.stdout   # empty columns left out
    doc = json.loads(cli("report", "collectives", "--db", db, "--tag", "job=job", "--format", "json").stdout)
    assert doc["params"]["clocks"] == "aligned" and any("nccl-tests" in n for n in doc["notes"])
    assert len(doc["rows"]) == 2


def test_one_rank_is_reported_and_runs_without_collectives_cannot_be(tmp_path):
    db, _ = job(tmp_path, "--ranks", "2", "--layers", "1", "--passes", "1")
    # a job of one captured rank: its collectives, each of one member, and a note that says so
    one = cli("report", "collectives", "--db", db, "--run", "job-rank0", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(one.stdout)))
    assert rows and {r["ranks"] for r in rows} == {"1"} and {r["arrival_skew_us"] for r in rows} == {"0.000"}
    assert "run 'job-rank0' is the only rank selected" in one.stderr
    for n in ("a", "b"):
        path = str(tmp_path / f"{n}.json")
        tiny_kineto.write(path, dur_factor=1 if n == "a" else 2)
        cli("ingest", path, "--db", db, "--name", n)
    assert_one_line_error(cli("report", "collectives", "--db", db, "--run", "a", "--run", "b", check=False),
                          "no communication ops")


def test_size_mismatch_is_reported(tmp_path):
    """Rank 1's first all-reduce written with another size: that instance is flagged, has no figures and is
    not used for alignment; the others are compared as usual."""
    if not os.path.exists(GEN_JOB):
        pytest.skip("bench/gen_job.py is not in this checkout")
    out = tmp_path / "job"
    subprocess.run([sys.executable, GEN_JOB, str(out), "--ranks", "2", "--layers", "2", "--passes", "1"], check=True)
    trace = out / "rank1.pt.trace.json"
    trace.write_text(trace.read_text().replace('"In msg nelems": 65536', '"In msg nelems": 99999', 2))
    db = str(tmp_path / "j.duckdb")
    cli("ingest", str(out), "--db", db, "--name", "job")
    r = cli("report", "collectives", "--db", db, "--tag", "job=job", "--format", "csv")
    table = rows(r)
    assert table[0]["mismatch"] == "bytes: 131072 vs 199998" and table[0]["arrival_skew_us"] == ""
    assert [t["mismatch"] for t in table[1:]] == [""] and table[1]["arrival_skew_us"] != ""
    assert "1 of 2 instances: members disagree" in r.stderr and "aligned on 1 collectives" in r.stderr


@pytest.mark.real_data
@pytest.mark.slow
def test_real_ascend_job(tmp_path):
    """The Megatron job on Ascend (ranks 0, 1 and 3; 1 and 3 exported without kernels): instances from rank 0's
    HCCL kernels and the others' communication.json, beside the profiler's own wait and transit."""
    db = str(tmp_path / "a.duckdb")
    cli("ingest", os.path.dirname(real_trace("ascend-megatron-job", "rank_0_ascend_pt")), "--db", db, "--name", "mega")
    r = cli("report", "collectives", "--db", db, "--tag", "job=mega", "--format", "csv")
    table = rows(r)
    assert len(table) == 34 and {t["op"] for t in table} == {"allreduce", "allgather", "reducescatter", "batchsendrecv"}
    shared = [t for t in table if t["group"] == "5862276093215481612"]    # the group of ranks 0-3 (2 not captured)
    assert [t["ranks"] for t in shared] == ["3", "3", "3", "3"]
    assert all(t["prof_elapse_us"] for t in table)
    assert "clocks aligned on 15 collectives" in r.stderr


@pytest.mark.real_data
def test_real_two_sampled_ranks_send_recv(tmp_path):
    """HTA's two sampled ranks of a 128-rank job: SendRecv kernels without c10d metadata, grouped by stream;
    point-to-point ops grouped by stream are not used for alignment, so the clocks stay raw."""
    db = str(tmp_path / "h.duckdb")
    cli("ingest", os.path.dirname(real_trace("hta-multirank", "trace_filter", "sampled_rank-0.json.gz")), "--db", db,
        "--name", "hta")
    r = cli("report", "collectives", "--db", db, "--tag", "job=hta", "--format", "csv")
    table = rows(r)
    assert {t["group"] for t in table} == {"stream 84", "stream 203"} and {t["op"] for t in table} == {"sendrecv"}
    assert "clocks are raw" in r.stderr and "grouped by their stream" in r.stderr


# ------------------------------------------------------------------------------------------- query headers
COLL_FILES = ("collectives_ops", "collectives_match", "align_edges", "align_apply", "align_residual",
              "collectives_report", "collectives_per_rank")


def test_query_headers_match_duckdb_columns(tmp_path, monkeypatch):
    """The columns each collectives and alignment query file documents are the ones DuckDB gives."""
    import test_sql_headers as th
    import tracedb
    from tracedb.engine.reports.registry import render_report
    db, _ = job(tmp_path, "--ranks", "2", "--layers", "2", "--passes", "1")
    con = tracedb.connect(db)

    def calls():
        for kw in ({}, {"per_rank": True}):
            render_report(con, "collectives", fmt="csv", runs=[], tags=["job=job"], **kw)
    try:
        th.check_headers_over(monkeypatch, COLL_FILES, calls)
    finally:
        con.close()




@pytest.mark.browser
def test_html_pages_render_offline_with_a_mark_per_collective(tmp_path):
    """In headless Chromium (skipped where it is not installed), with no request leaving the page: one bar per
    collective instance (its arrival skew), and with --per-rank one bar per member (its wait: zero for the
    last to arrive, drawn as an empty bar)."""
    from browser import Browser, chromium
    from test_html_browser import MARKS_JS
    import tracedb
    from tracedb.engine.reports.registry import render_report
    exe = chromium()
    if not exe:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium; or set $TRACEDB_CHROMIUM)")
    needs_html()
    db, _ = job(tmp_path, "--ranks", "3", "--layers", "2", "--passes", "2", "--late", "rank=1,coll=1,us=40")
    con = tracedb.connect(db, read_only=True)
    b = Browser(exe)
    try:
        for kw in ({}, {"per_rank": True}):
            opts = {"runs": [], "tags": ["job=job"], **kw}
            table = list(csv.DictReader(io.StringIO(render_report(con, "collectives", fmt="csv", **opts))))
            page_file = tmp_path / f"collectives{len(kw)}.html"
            page_file.write_text(render_report(con, "collectives", fmt="html", **opts), encoding="utf-8")
            page = b.load(str(page_file))
            assert page.requests == [page.url] and not page.problems, page.problems
            assert len(table) > 1 and any(Decimal(r["arrival_skew_us" if not kw else "wait_us"]) > 0 for r in table)
            assert page.evaluate(MARKS_JS).get("bars", 0) == len(table)
    finally:
        b.close()
        con.close()
