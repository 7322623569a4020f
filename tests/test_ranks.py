"""`tracedb report ranks` over tests/tiny_job.py (three ranks, rank 2 slow in layer 1), every figure checked
against the derivation there; the refusals; the headers of its query files against DuckDB's columns; a job
of bench/gen_job.py with an injected slow rank (when the generator is present); the real two-rank traces."""
import csv
import io
import json
import os
import subprocess
import sys
from decimal import Decimal

import pytest

import tiny_job
import tracedb
from helpers import ROOT, assert_one_line_error, cli, needs_html, real_trace, slow_beyond
from tracedb.engine.jobs import align
from tracedb.engine.reports.registry import render_report

SEG = {"runs": ["job-rank*"], "anchor": "attn_fwd", "layers": 2}
US = lambda ns: Decimal(ns) / 1000   # noqa: E731


@pytest.fixture(scope="module")
def store(tiny_job_store):
    return tiny_job_store


def rows(con, **kw):
    text = render_report(con, "ranks", fmt="csv", **{**SEG, **kw})
    return list(csv.DictReader(io.StringIO(text)))


def exact_offsets(monkeypatch):
    """align.rank_offsets as a perfect alignment of tiny_job would give it: -CLOCK_US of each rank (after the
    real one, which leaves the matched collectives, _coll_aligned, that report ranks also reads)."""
    real = tracedb.engine.jobs.align.rank_offsets

    def offsets(con, run_ids, align=True, profile=None):
        real(con, run_ids, align=align, profile=profile)
        if not align:
            return tracedb.engine.jobs.align.Alignment(offsets={r: 0 for r in run_ids})
        names = dict(con.execute("SELECT run_id, name FROM runs").fetchall())
        off = {r: -tiny_job.CLOCK_US[int(names[r][-1])] * 1000 for r in run_ids}
        return tracedb.engine.jobs.align.Alignment(offsets=off, residual_ns=0, aligned=True,
                                                   note="clocks aligned (test)")
    import tracedb.engine.jobs.ranks as ranks
    monkeypatch.setattr(ranks.align, "rank_offsets", offsets)


def layer_of(row):
    return None if row["layer"] == "prologue" else int(row["layer"])


def test_per_layer_compute_spread_slowest_rank_and_skew(store):
    got = rows(store)
    assert [(int(r["pass"]), layer_of(r)) for r in got] == [(p, layer) for p in range(3) for layer in (None, 0, 1)]
    for r in got:
        p, layer = int(r["pass"]), layer_of(r)
        comp = [tiny_job.compute_ns(p, layer, k) for k in range(tiny_job.RANKS)]
        med = tiny_job.lower_median(comp)
        assert int(r["ranks"]) == 3
        assert (Decimal(r["min_compute_us"]), Decimal(r["median_compute_us"]), Decimal(r["max_compute_us"])) == \
            (US(min(comp)), US(med), US(max(comp)))
        slowest = None if max(comp) == min(comp) else comp.index(max(comp))
        assert (int(r["slowest_rank"]) if r["slowest_rank"] else None) == slowest
        assert Decimal(r["skew"]) == round(Decimal(max(comp) - med) / med, 3)
        assert (r["straggler"] == "true") == (max(comp) - med >= Decimal("0.05") * med and max(comp) > med)
    layer1 = [r for r in got if layer_of(r) == 1]
    assert [r["slowest_rank"] for r in layer1] == ["2", "0", "2"]
    assert [r["skew"] for r in layer1] == ["0.333", "0.125", "0.333"]
    assert {r["straggler"] for r in got if layer_of(r) != 1} == {"false"}


def test_last_arrival_on_raw_clocks(store):
    """--no-align: each rank's collective start as its own trace shows it."""
    for r in rows(store, no_align=True):
        p, layer = int(r["pass"]), layer_of(r)
        if layer is None:
            assert (r["collectives"], r["last_arrival_rank"], r["arrival_spread_us"]) == ("0", "", "")
            continue
        arr = tiny_job.arrivals_ns(p, layer, aligned=False)
        last = max(range(3), key=lambda k: (arr[k], k))       # ties: the higher rank
        assert (int(r["collectives"]), int(r["last_arrival_rank"]), Decimal(r["arrival_spread_us"])) == \
            (1, last, US(max(arr) - min(arr)))
    # layer 1 of pass 0: true arrivals 33, 33, 43 µs after B; raw clocks add 0, 7, -3: a tie at 40
    r = rows(store, no_align=True)[2]
    assert (r["last_arrival_rank"], r["arrival_spread_us"]) == ("2", "7.000")


def test_last_arrival_on_aligned_clocks(store, monkeypatch):
    exact_offsets(monkeypatch)
    doc = json.loads(render_report(store, "ranks", fmt="json", **SEG), parse_float=Decimal)
    assert any("clocks aligned (test)" in n for n in doc["notes"])
    for r in doc["rows"]:
        if r["layer"] == "prologue":
            continue
        arr = tiny_job.arrivals_ns(r["pass"], r["layer"])
        last = max(range(3), key=lambda k: (arr[k], k))
        assert (r["last_arrival_rank"], Decimal(r["arrival_spread_us"])) == (last, US(max(arr) - min(arr)))
    # the slow rank arrives last, 10 µs after the others, in layer 1 of passes 0 and 2; rank 0 in pass 1
    assert [(r["last_arrival_rank"], r["arrival_spread_us"]) for r in doc["rows"] if r["layer"] == 1] == \
        [(2, Decimal("10.000")), (0, Decimal("15.000")), (2, Decimal("10.000"))]


def test_per_rank_compute_communication_and_wait(store, monkeypatch):
    exact_offsets(monkeypatch)
    got = rows(store, per_rank=True)
    assert len(got) == 3 * 3 * 3
    for r in got:
        p, layer, k = int(r["pass"]), layer_of(r), int(r["rank"])
        assert r["run"] == f"job-rank{k}"
        comp = [tiny_job.compute_ns(p, layer, j) for j in range(3)]
        med = tiny_job.lower_median(comp)
        assert Decimal(r["compute_us"]) == US(comp[k])
        assert Decimal(r["skew"]) == round(Decimal(comp[k] - med) / med, 3)
        assert (r["slowest"] == "true") == (max(comp) > min(comp) and k == comp.index(max(comp)))
        if layer is None:
            assert (r["comm_us"], r["wall_us"], r["collectives"], r["wait_us"]) == ("0.000", "5.000", "0", "0.000")
            continue
        base, ready, end = tiny_job.timeline(p, layer)
        arr = tiny_job.arrivals_ns(p, layer)
        assert Decimal(r["comm_us"]) == end - ready[k]
        assert Decimal(r["wall_us"]) == end - base
        assert int(r["collectives"]) == 1
        assert Decimal(r["wait_us"]) == US(max(arr) - arr[k])
        assert Decimal(r["late_us"]) == US(arr[k] - min(arr))
    # the slow rank never waits in layer 1 of pass 0; the others wait for it 10 µs
    p0l1 = [r for r in got if r["pass"] == "0" and r["layer"] == "1"]
    assert [r["wait_us"] for r in p0l1] == ["10.000", "10.000", "0.000"]


def test_stragglers_vote(store):
    got = rows(store, stragglers=True)
    assert [(r["layer"], r["rank"], r["slowest_count"], r["passes"], r["units"], r["share"], r["median_skew"],
             r["stragglers"]) for r in got] == [
        ("0", "", "0", "3", "3", "0.000", "", "0"),
        ("1", "2", "2", "3", "3", "0.667", "0.333", "3"),
        ("all", "2", "2", "3", "6", "0.333", "0.333", "3")]
    assert got[1]["run"] == "job-rank2"


def test_stragglers_cli_csv(store, tmp_path):
    db = str(tmp_path / "c.duckdb")
    con = tracedb.connect(db)
    tiny_job.ingest(con, tmp_path)
    con.close()
    r = cli("report", "ranks", "--db", db, "--tag", "job=job", "--anchor", "attn_fwd", "--layers", "2", "--stragglers",
            "--format", "csv")
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    assert {"layer", "rank", "slowest_count"} <= set(table[0])
    assert [(t["layer"], t["rank"]) for t in table] == [("0", ""), ("1", "2"), ("all", "2")]
    assert "note: " in r.stderr          # CSV keeps notes on stderr
    both = cli("report", "ranks", "--db", db, "--tag", "job=job", "--anchor", "attn_fwd", "--per-rank", "--stragglers",
               check=False)
    assert_one_line_error(both, "--per-rank and --stragglers")
    one = cli("report", "ranks", "--db", db, "--run", "job-rank0", "--anchor", "attn_fwd", check=False)
    assert_one_line_error(one, "1 run selected ('job-rank0')")
    mean = cli("report", "ranks", "--db", db, "--tag", "job=job", "--anchor", "attn_fwd", "--pass", "mean", check=False)
    assert_one_line_error(mean, "--pass mean")


def test_ranks_without_a_recorded_rank_are_numbered_in_run_order(tmp_path):
    con = tracedb.connect(str(tmp_path / "n.duckdb"))
    paths = tiny_job.write(tmp_path)
    for r, path in reversed(list(enumerate(paths))):      # ingested 2, 1, 0: store order differs from rank
        doc = json.load(open(path))
        del doc["distributedInfo"]
        other = str(tmp_path / f"trace_{'abc'[r]}.json")
        json.dump(doc, open(other, "w"))
        tracedb.ingest_trace(con, other, name=f"job-{'abc'[r]}")
    text = render_report(con, "ranks", fmt="json", runs=["job-a", "job-b", "job-c"], anchor="attn_fwd", layers=2,
                         stragglers=True)
    doc = json.loads(text)
    assert any(n.startswith("ranks numbered in run order (no rank recorded for") and "0=job-a, 1=job-b, 2=job-c" in n
               for n in doc["notes"])
    assert doc["rows"][-1]["rank"] == 2 and doc["rows"][-1]["run"] == "job-c"
    con.close()


def test_two_runs_of_one_rank_are_numbered_in_run_order(tmp_path):
    """A rank's trace ingested twice (two runs of rank 0): the ranks are numbered in run order, with a note."""
    con = tracedb.connect(str(tmp_path / "t.duckdb"))
    tiny_job.ingest(con, tmp_path)
    doc = json.load(open(tmp_path / "job_rank0.json"))
    doc["traceEvents"].append({"ph": "M", "name": "thread_name", "pid": 0, "tid": 99, "args": {"name": "other bytes"}})
    json.dump(doc, open(tmp_path / "again.json", "w"))
    tracedb.ingest_trace(con, str(tmp_path / "again.json"), name="job-again")
    doc = json.loads(render_report(con, "ranks", fmt="json", runs=["job-rank*", "job-again"], anchor="attn_fwd",
                                   layers=2, per_rank=True, pass_spec="0"))
    assert any(n.startswith("ranks numbered in run order (two runs share a rank): 0=job-rank0, 1=job-rank1, "
                            "2=job-rank2, 3=job-again") for n in doc["notes"])
    assert {r["rank"] for r in doc["rows"]} == {0, 1, 2, 3}
    con.close()


def test_different_layer_counts_are_refused(tmp_path):
    """A rank whose passes hold another layer count (passes by gaps, no --layers; it ran fewer anchors, so no
    common cut fits) cannot be compared layer by layer."""
    con = tracedb.connect(str(tmp_path / "d.duckdb"))
    paths = tiny_job.write(tmp_path)
    doc = json.load(open(paths[1]))
    doc["traceEvents"] = [e for e in doc["traceEvents"]                 # rank 1 loses the anchor of layer 1
                          if not (e.get("name") == "attn_fwd_kernel" and (e["ts"] - tiny_job.START_US) % 1000 > 100)]
    json.dump(doc, open(paths[1], "w"))
    for r, path in enumerate(paths):
        tracedb.ingest_trace(con, path, name=f"job-rank{r}")
    with pytest.raises(tracedb.errors.UsageError, match="do not hold the same number of layers: 'job-rank0' 2, "
                                                          "'job-rank1' 3, 'job-rank2' 2"):
        render_report(con, "ranks", fmt="csv", runs=["job-rank*"], anchor="attn_fwd")
    con.close()


def test_passes_split_on_some_ranks_only_are_cut_alike(tmp_path):
    """Passes by gaps: when one rank shows the pass breaks and another does not (one pass of every layer), and
    both ran as many anchors, every rank is cut at the shared layer count, with a note."""
    con = tracedb.connect(str(tmp_path / "s.duckdb"))
    paths = tiny_job.write(tmp_path)
    doc = json.load(open(paths[0]))
    for e in doc["traceEvents"]:                                          # rank 0: passes back to back
        if e["ph"] == "X":
            p = int((e["ts"] - tiny_job.START_US) // 1000)
            e["ts"] -= p * 800
            if e["name"] == "embedding_kernel":   # and no embedding lookup to mark where a pass starts
                e["name"] = "gather_kernel"
    json.dump(doc, open(paths[0], "w"))
    for r, path in enumerate(paths):
        tracedb.ingest_trace(con, path, name=f"job-rank{r}")
    doc = json.loads(render_report(con, "ranks", fmt="json", runs=["job-rank*"], anchor="attn_fwd", stragglers=True))
    assert any("every rank cut into passes of 2 layers" in n and "'job-rank0' 6" in n for n in doc["notes"])
    assert [(r["layer"], r["rank"]) for r in doc["rows"]] == [(0, None), (1, 2), ("all", 2)]
    con.close()


def test_passes_only_some_ranks_have_are_left_out_with_a_note(tmp_path):
    con = tracedb.connect(str(tmp_path / "p.duckdb"))
    paths = tiny_job.write(tmp_path)
    doc = json.load(open(paths[1]))
    last = 2 * 1000 + tiny_job.START_US + tiny_job.CLOCK_US[1] - 1         # rank 1 loses its last pass
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e["ph"] != "X" or e["ts"] < last]
    json.dump(doc, open(paths[1], "w"))
    for r, path in enumerate(paths):
        tracedb.ingest_trace(con, path, name=f"job-rank{r}")
    doc = json.loads(render_report(con, "ranks", fmt="json", **SEG))
    assert {r["pass"] for r in doc["rows"]} == {0, 1}
    assert any("'job-rank1' passes 0..1" in n and "compared the 2 they share, passes 0..1" in n for n in doc["notes"])
    con.close()


def test_real_alignment_when_present(store):
    """With engine/jobs/align.py's estimate on the collectives (every collective of tiny_job ends at one true
    instant on all ranks), the arrivals are the true ones. Skipped while the alignment gives no offsets."""
    clocks = align.rank_offsets(store, [1, 2, 3])
    if not clocks.aligned:
        pytest.skip("engine/jobs/align.py gives no alignment on this store")
    doc = json.loads(render_report(store, "ranks", fmt="json", **SEG), parse_float=Decimal)
    assert [(r["last_arrival_rank"], r["arrival_spread_us"]) for r in doc["rows"] if r["layer"] == 1] == \
        [(2, Decimal("10.000")), (0, Decimal("15.000")), (2, Decimal("10.000"))]


# ------------------------------------------------------------------------------------------- query headers
RANK_FILES = ("ranks_shape", "ranks_units", "report_ranks", "report_ranks_per_rank", "report_ranks_stragglers")


def test_query_headers_match_duckdb_columns(store, monkeypatch):
    """The columns each ranks query file documents are the ones DuckDB gives."""
    import test_sql_headers as th

    def calls():
        for kw in ({}, {"per_rank": True}, {"stragglers": True}, {"window": "strict"}):
            render_report(store, "ranks", fmt="csv", **SEG, **kw)
    th.check_headers_over(monkeypatch, RANK_FILES, calls)


# ------------------------------------------------------------------------------------------- generated job
GEN_JOB = os.path.join(ROOT, "bench", "gen_job.py")


def _generate(tmp_path, name, *args):
    """A job of bench/gen_job.py ingested as job `name`: (store path, truth)."""
    if not os.path.exists(GEN_JOB):
        pytest.skip("bench/gen_job.py is not in this checkout")
    out = tmp_path / name
    subprocess.run([sys.executable, GEN_JOB, str(out), *args], check=True, capture_output=True, text=True)
    db = str(tmp_path / f"{name}.duckdb")
    cli("ingest", str(out), "--db", db, "--name", name)
    with open(out / "truth.json", encoding="utf-8") as f:
        return db, json.load(f)


def _stragglers(db, name, *args):
    r = cli("report", "ranks", "--db", db, "--tag", f"job={name}", *args, "--stragglers", "--format", "csv")
    return list(csv.DictReader(io.StringIO(r.stdout))), r


@pytest.mark.parametrize("args", slow_beyond([
    ("--ranks", "4", "--layers", "8", "--passes", "3", "--slow-rank", "2", "--slow-layers", "3,5",
     "--offsets-us", "0,12345,-678,9000", "--late", "rank=1,coll=7,us=150", "--seed", "0"),
    ("--ranks", "4", "--layers", "8", "--passes", "3", "--slow-rank", "1", "--slow-layers", "2", "--slow-factor", "1.2",
     "--tp", "2", "--offsets-us", "0,500,-300,70", "--jitter-ns", "200", "--seed", "2"),
    ("--ranks", "8", "--layers", "6", "--passes", "4", "--slow-rank", "5", "--slow-layers", "0,5", "--seed", "1"),
], {0}, one_arg=True), ids=["4-ranks-late", "tp2-jitter-factor1.2", "8-ranks-layer0"])
def test_generated_job_names_the_slow_rank_and_layers(tmp_path, args):
    """bench/gen_job.py: a rank slower in chosen layers, clock offsets; --stragglers names that rank in exactly
    those layers (every pass) and overall, and no rank in the others."""
    db, truth = _generate(tmp_path, "gj", *args)
    table, r = _stragglers(db, "gj", "--anchor", truth["anchor"], "--layers", str(truth["layers"]))
    slow, layers = str(truth["slow_rank"]), {str(layer) for layer in truth["slow_layers"]}
    assert {t["layer"] for t in table if t["rank"] == slow} == layers | {"all"}, r.stdout
    assert {t["layer"] for t in table if t["rank"] not in ("", slow)} == set(), r.stdout
    assert all(t["slowest_count"] == str(truth["passes"]) for t in table if t["layer"] in layers), r.stdout
    assert "note: clocks aligned" in r.stderr


def test_generated_job_without_layers_or_anchor(tmp_path):
    """No --anchor (proposed per rank) and no --layers: the fast ranks wait at every collective, so no gap shows
    the pass breaks on them; each rank's ProfilerStep#N does (a step holds its passes), and the vote is the same."""
    db, truth = _generate(tmp_path, "gk", "--ranks", "4", "--layers", "8", "--passes", "3", "--slow-rank", "2",
                          "--slow-layers", "3,5", "--offsets-us", "0,12345,-678,9000", "--seed", "0")
    table, r = _stragglers(db, "gk")
    assert [(t["layer"], t["rank"]) for t in table if t["rank"]] == [("3", "2"), ("5", "2"), ("all", "2")], r.stdout
    # one note for the four ranks, whose pass splits differ only in the largest gap inside a pass
    assert "note: runs 'gk-rank0', 'gk-rank1', 'gk-rank2', 'gk-rank3' (4 runs): 2 pass breaks at step boundaries" \
        in r.stderr


def test_generated_late_arrival_is_the_layers_last_arrival(tmp_path):
    """A rank injected late at collective 7 (pass 0, layer 7 of an 8-layer job) arrives last there, by the arrival
    skew the truth file gives, to the ns; its compute is not slower, so it is no straggler."""
    db, truth = _generate(tmp_path, "gl", "--ranks", "4", "--layers", "8", "--passes", "2",
                          "--offsets-us", "0,12345,-678,9000", "--late", "rank=1,coll=7,us=150", "--seed", "5")
    out = cli("report", "ranks", "--db", db, "--tag", "job=gl", "--anchor", truth["anchor"], "--layers", "8",
              "--format", "csv").stdout
    row = next(t for t in csv.DictReader(io.StringIO(out)) if (t["pass"], t["layer"]) == ("0", "7"))
    late = truth["late"][0]
    assert (row["last_arrival_rank"], Decimal(row["arrival_spread_us"])) == ("1", US(late["arrival_skew_ns"]))
    assert row["straggler"] == "false"


# ------------------------------------------------------------------------------------------- real traces
@pytest.mark.real_data
@pytest.mark.slow
def test_real_two_ranks_of_one_job(tmp_path):
    """Two sampled ranks of one 128-rank training job (HTA's test data): a layer-norm kernel as anchor gives
    2 passes of 4 layers (and their prologue and epilogue) on both; every (pass, unit) compares 2 ranks."""
    db = str(tmp_path / "h.duckdb")
    for r in (0, 1):
        cli("ingest", real_trace("hta-multirank", "trace_filter", f"sampled_rank-{r}.json.gz"), "--db", db,
            "--name", f"hta-rank{r}", "--tag", "job=hta")
    out = cli("report", "ranks", "--db", db, "--tag", "job=hta", "--anchor", "vectorized_layer_norm_kernel",
              "--format", "csv").stdout
    table = list(csv.DictReader(io.StringIO(out)))
    assert [(t["pass"], t["layer"]) for t in table] == [(str(p), layer) for p in (0, 1)
                                                        for layer in ("prologue", "0", "1", "2", "3", "epilogue")]
    assert {t["ranks"] for t in table} == {"2"}
    for t in table:
        assert Decimal(t["min_compute_us"]) <= Decimal(t["median_compute_us"]) <= Decimal(t["max_compute_us"])


@pytest.mark.real_data
@pytest.mark.slow
def test_real_job_with_one_rank_of_kernels_says_so(tmp_path):
    """The Ascend Megatron job: ranks 1 and 3 hold communication analyses only. The job is reported all the same:
    rank 0 per layer, and a note that the others' collectives are none rank 0 has in its passes (its
    batchSendRecvs pair it with rank 2, not captured; its all-reduces run in the optimizer step)."""
    db = str(tmp_path / "a.duckdb")
    cli("ingest", real_trace("ascend-megatron-job"), "--db", db, "--name", "meg")
    r = cli("report", "ranks", "--db", db, "--tag", "job=meg", "--per-rank", "--format", "csv")
    assert {row["run"] for row in csv.DictReader(io.StringIO(r.stdout))} == {"meg-rank0"}
    assert "no kernels, communication ops only: 'meg-rank1', 'meg-rank3'" in r.stderr
    assert "none of the collectives of the ranks without kernels is one a rank with kernels has" in r.stderr
    con = tracedb.connect(db)                 # beside ranks with kernels, a rank without is named in a note
    tiny_job.ingest(con, tmp_path)
    con.close()
    r = cli("report", "ranks", "--db", db, "--run", "job-rank*", "--run", "meg-rank1", "--anchor", "attn_fwd",
            "--layers", "2", "--stragglers", "--format", "csv")
    assert "note: no kernels, communication ops only: 'meg-rank1'" in r.stderr
    assert r.stdout.splitlines()[-1].startswith("all,2,job-rank2,")
    only = cli("report", "ranks", "--db", db, "--run", "meg-rank1", "--run", "meg-rank3", check=False)
    assert_one_line_error(only, "none of the 2 runs selected has kernels")


# ------------------------------------------------------------------------------------------- HTML page
@pytest.mark.browser
def test_html_pages_render_in_a_browser(store, tmp_path):
    """Each layout's page in headless Chromium (skipped without it): nothing fetched, no console problem, and
    one mark per non-zero value shown (the per-layer page: min, median and max bars, and a skew point per row;
    per rank: compute and wait bars; stragglers: a bar per layer that has one, and the overall one)."""
    from browser import Browser, chromium
    from test_html_browser import MARKS_JS
    exe = chromium()
    if not exe:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium; or set $TRACEDB_CHROMIUM)")
    needs_html()
    b = Browser(exe)
    try:
        for kw, want in (({}, lambda t: {"bars": sum(Decimal(r[c]) > 0 for r in t for c in ("min_compute_us",
                                                                                           "median_compute_us",
                                                                                           "max_compute_us")),
                                        "skew": len(t)}),
                         ({"per_rank": True}, lambda t: {"bars": sum(Decimal(r[c]) > 0 for r in t
                                                                     for c in ("compute_us", "wait_us"))}),
                         ({"stragglers": True}, lambda t: {"bars": sum(int(r["slowest_count"]) > 0 for r in t)})):
            page_file = tmp_path / f"ranks{len(kw)}{sorted(kw)}.html"
            page_file.write_text(render_report(store, "ranks", fmt="html", **SEG, **kw), encoding="utf-8")
            page = b.load(str(page_file))
            assert page.requests == [page.url] and not page.problems, page.problems
            expected = want(rows(store, **kw))
            got = page.evaluate(MARKS_JS)
            assert {k: got.get(k, 0) for k in expected} == expected
    finally:
        b.close()


def test_a_rank_without_kernels_is_placed_by_its_collectives(tmp_path):
    """A generated 3-rank job whose rank 2 keeps only what an Ascend rank folder of communication analyses
    would give: its all-reduces as communication ops (group '1', in order), no kernels. Each of its ops goes to
    the layer its instance has on ranks 0 and 1: a row per (pass, layer) with no compute, its ops' time, and
    its waits; the compute comparison stays between ranks 0 and 1."""
    db, truth = _generate(tmp_path, "gb", "--ranks", "3", "--layers", "4", "--passes", "2",
                          "--offsets-us", "0,0,0", "--seed", "3")
    con = tracedb.connect(db)
    try:
        rid = con.execute("SELECT run_id FROM runs WHERE name = 'gb-rank2'").fetchone()[0]
        ops = con.execute("SELECT start_ns, dur_ns FROM kernels "
                          "WHERE run_id = $r AND name LIKE 'ncclDevKernel_AllReduce%' ORDER BY start_ns",
                          {"r": rid}).fetchall()
        con.execute("DELETE FROM trace_events WHERE run_id = $r AND kind IS NOT NULL", {"r": rid})
        for i, (start, dur) in enumerate(ops):
            con.execute("INSERT INTO comm_ops (run_id, step, op_class, op_name, comm_group, start_ns, elapse_ns) "
                        "VALUES ($r, 'step1', 'collective', $n, '1', $s, $d)",
                        {"r": rid, "n": f"hcom_allReduce__{i:03d}_1_1", "s": start, "d": dur})
    finally:
        con.close()
    r = cli("report", "ranks", "--db", db, "--tag", "job=gb", "--anchor", truth["anchor"], "--layers", "4",
            "--per-rank", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    bare = [x for x in rows if x["run"] == "gb-rank2"]
    assert {(x["pass"], x["layer"]) for x in bare} == {(str(p), str(layer)) for p in (0, 1) for layer in range(4)}
    assert all(x["compute_us"] == "" and x["wall_us"] == "" and x["collectives"] == "1" and Decimal(x["comm_us"]) > 0
               for x in bare)
    assert "no kernels, communication ops only: 'gb-rank2'" in r.stderr
    per_layer = list(csv.DictReader(io.StringIO(cli("report", "ranks", "--db", db, "--tag", "job=gb", "--anchor",
                                                    truth["anchor"], "--layers", "4", "--format", "csv").stdout)))
    assert {x["ranks"] for x in per_layer if x["layer"].isdigit()} == {"2"}
