"""`report compare`: every kernel of every run accounted for, misaligned keys flagged, not dropped; --pass
mean; runs of different depth; predicted (simulated) vs measured."""
import csv
import json
import io
from fractions import Fraction

import pytest

import tiny_kineto
import tiny_simulated
import tiny_trace
import tracedb
from tracedb.engine.reports.registry import render_report
from helpers import cli, copy_store, real_trace, write_csv
from tracedb.errors import UsageError

# the strict window (the per-pass extraction method of docs/segmentation.md) unless a test says full: the
# numbers below are derived for it
SEG = {"profile": "qwen3-npu", "layers": 2, "pass_spec": "all", "window": "strict"}


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def store_of(folder, *traces):
    """A closed store in `folder` holding (path, name, tags) traces, in that order."""
    path = str(folder / "store.duckdb")
    con = tracedb.connect(path)
    for trace, name, tags in traces:
        tracedb.ingest_trace(con, trace, name=name, tags=tags)
    con.close()
    return path


@pytest.fixture
def own_copy(db_path):
    """own_copy(store) -> a writable connection to this test's copy (at db_path) of a module's store."""
    opened = []

    def open_copy(store):
        opened.append(tracedb.connect(copy_store(store, db_path)))
        return opened[-1]
    yield open_copy
    for con in opened:
        con.close()


@pytest.fixture(scope="module")
def two_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("two")
    # run b lacks the SwiGlu of every layer: its kernels after the hcom shift one rank up in 'activation'
    kept = [r for r in tiny_trace.rows() if r[6] != "SwiGlu"]
    return store_of(d, (tiny_trace.write(d / "a.csv"), "a", None),
                    (write_csv(d / "b.csv", tiny_trace.HEADER, kept), "b", None))


@pytest.fixture
def two(two_store, own_copy):
    """Runs a (tests/tiny_trace.py) and b (the same without SwiGlu)."""
    return own_copy(two_store)


@pytest.mark.parametrize("by", ["layer", "category", "kernel"])
def test_compare_rows_add_up_to_each_runs_layers(two, by):
    got = rows(render_report(two, "compare", runs=["a", "b"], by=by, fmt="csv", **SEG))
    for run in ("a", "b"):
        layers = rows(render_report(two, "layers", runs=[run], fmt="csv", **SEG))
        want = {(r["pass"], r["layer"]): round(float(r["sum_us"]) * 1000) for r in layers}
        per = {}
        for r in got:
            if r["run"] == run:
                key = (r["pass"], r["layer"])
                per[key] = per.get(key, 0) + round(float(r["sum_us"]) * 1000)
        assert per == want


def test_unaligned_kernels_are_flagged(two):
    got = rows(render_report(two, "compare", runs=["a", "b"], by="kernel", fmt="csv", **SEG))
    # run a has one activation kernel (SwiGlu, 1 µs x scale) in layer 0 of each pass, run b none
    act = [r for r in got if r["category"] == "activation" and r["layer"] == "0"]
    assert [(r["pass"], r["run"], r["aligned"]) for r in act] == [(str(p), "a", "false") for p in range(4)]
    assert all(r["aligned"] == "true" for r in got if r["category"] != "activation")


def test_compare_needs_two_runs_and_a_known_by(two):
    with pytest.raises(UsageError, match="two or more --run"):
        render_report(two, "compare", runs=["a"], **SEG)
    with pytest.raises(UsageError, match="--by .op.: unknown; expected one of layer, category, module, kernel, stage"):
        render_report(two, "compare", runs=["a", "b"], by="op", **SEG)


def test_by_module_needs_host_events(two, db_path):
    with pytest.raises(UsageError, match="run 'a' has no host launches .* --by module needs a trace with host events"):
        render_report(two, "compare", runs=["a", "b"], by="module", **SEG)
    two.close()
    p = cli("report", "compare", "--db", db_path, "--run", "a", "--run", "b", "--profile", "qwen3-npu", "--layers", "2",
            "--by", "module", check=False)
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.splitlines()) == 1
    assert p.stderr.startswith("error: run 'a' has no host launches")


@pytest.fixture(scope="module")
def gpus_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("gpus")
    return store_of(d, (tiny_kineto.write(d / "a.json"), "gpu", None),
                    (tiny_kineto.write(d / "b.json", dur_factor=2), "gpu_x2", None))


@pytest.fixture
def gpus(gpus_store, own_copy):
    return own_copy(gpus_store)


@pytest.mark.parametrize("window", ["strict", "full"])
def test_by_module_rows_are_report_modules_rows_side_by_side(gpus, window):
    seg = {"profile": None, "anchor": "flash_fwd", "layers": 2, "window": window}
    got = rows(render_report(gpus, "compare", runs=["gpu", "gpu_x2"], by="module", fmt="csv", **seg))
    for run in ("gpu", "gpu_x2"):
        modules = rows(render_report(gpus, "modules", runs=[run], by="module", fmt="csv", **seg))
        want = {(r["pass"], r["layer"], r["module"], r["kernels"], r["sum_us"]) for r in modules if r["pass"] != ""}
        assert {(r["pass"], r["layer"], r["module"], r["kernels"], r["sum_us"]) for r in got if r["run"] == run} == want
    # the doubled run's memcpy (launched outside any frame) ends up in layer 1 of the strict window only
    lone = {(r["pass"], r["layer"], r["module"], r["run"]) for r in got if r["aligned"] == "false"}
    assert lone == ({(p, "1", "(no host frame)", "gpu_x2") for p in "01"} if window == "strict" else set())


def test_steady_passes_of_different_numbers_are_matched(two, tmp_path):
    # run c settles one pass later (scales 1.5, 1.2, 1.1, 1, 1): its steady pass is 4, a's is 3
    tracedb.ingest_trace(two, tiny_trace.write(tmp_path / "c.csv", scales=[(3, 2), (6, 5), (11, 10), (1, 1), (1, 1)]),
                         name="c")
    res = render_report(two, "compare", runs=["a", "c"], by="kernel", fmt="json", **{**SEG, "pass_spec": "steady"})
    assert '"steady pass: a -> pass 3; c -> pass 4"' in res
    got = rows(render_report(two, "compare", runs=["a", "c"], by="kernel", fmt="csv", **{**SEG, "pass_spec": "steady"}))
    assert {r["pass"] for r in got} == {"steady"} and {r["aligned"] for r in got} == {"true"}
    assert {r["ratio"] for r in got} == {"1.000"}


def _layer_ns(trace_rows, pass_index, layer):
    """The durations (ns) of one layer's kernels in the strict window, from the CSV rows (hcom counted once)."""
    per_pass = [r for r in trace_rows if r[0] == pass_index + 1 and not (r[3] == "N/A" and r[6].startswith("hcom"))]
    starts = [tiny_trace_ns(r[9]) for r in per_pass]
    anchors = [s for s, r in zip(starts, per_pass) if r[6] == "FusedInferAttentionScore"]
    hi = anchors[-1] + tiny_trace_ns(next(r[10] for r in reversed(per_pass) if r[6] == "FusedInferAttentionScore"))
    lo = anchors[layer]
    top = anchors[layer + 1] if layer + 1 < len(anchors) else hi + 1
    return [tiny_trace_ns(r[10]) for s, r in zip(starts, per_pass) if lo <= s < top and s <= hi]


def tiny_trace_ns(text):
    whole, _, frac = text.strip().partition(".")
    return int(whole) * 1000 + int(frac)


def test_mean_of_the_steady_passes(con, tmp_path):
    tracedb.ingest_trace(con, tiny_trace.write(tmp_path / "j.csv", scales=tiny_trace.JITTER), name="j")
    tracedb.ingest_trace(con, tiny_trace.write(tmp_path / "a.csv"), name="a")
    trace = tiny_trace.rows(scales=tiny_trace.JITTER)
    seg = {**SEG, "pass_spec": "mean"}
    layers = rows(render_report(con, "layers", runs=["j"], fmt="csv", **seg))
    for r in layers:
        per = [sum(_layer_ns(trace, p, int(r["layer"]))) for p in (3, 4, 6)]   # the steady passes
        mean = Fraction(sum(per), 3)
        assert r["pass"] == "mean" and r["passes"] == "3"
        assert Fraction(r["sum_us"]) * 1000 == round(mean)                      # rounded to the ns
        assert (Fraction(r["sum_min_us"]) * 1000, Fraction(r["sum_max_us"]) * 1000) == (min(per), max(per))
    assert [r["sum_us"] for r in layers] == ["27.090", "5.017"]               # 81.27 / 3; 15.05 / 3 = 5.01666..
    got = rows(render_report(con, "compare", runs=["j", "a"], by="layer", fmt="csv", **seg))
    assert [(r["run"], r["passes"], r["sum_us"], r["ratio"]) for r in got] == [
        ("j", "3", "27.090", "1.000"), ("a", "1", "27.000", "0.997"), ("j", "3", "5.017", "1.000"),
        ("a", "1", "5.000", "0.997")]


def test_mean_is_for_layers_and_compare_only(two):
    for report in ("kernels", "timeline", "modules"):
        with pytest.raises(UsageError, match=f"--pass mean: report {report} shows single passes"):
            render_report(two, report, runs=["a"], **{**SEG, "pass_spec": "mean"})


def test_different_layer_counts_are_noted_and_flagged(two, tmp_path, db_path):
    # a 3-layer model against the 2-layer one, passes by gaps: layer 2 exists in one run only
    tracedb.ingest_trace(two, tiny_simulated.write(tmp_path / "deep.json", layers=3), name="deep")
    seg = {"profile": "qwen3-npu", "pass_spec": "0", "window": "strict"}
    got = rows(render_report(two, "compare", runs=["a", "deep"], by="layer", fmt="csv", **seg))
    assert [(r["layer"], r["run"], r["aligned"]) for r in got] == [
        ("0", "a", "true"), ("0", "deep", "true"), ("1", "a", "true"), ("1", "deep", "true"), ("2", "deep", "false")]
    two.close()
    p = cli("report", "compare", "--db", db_path, "--run", "a", "--run", "deep", "--profile", "qwen3-npu",
            "--pass", "0", "--window", "strict", "--format", "csv")
    assert "note: layer counts differ in pass 0: a 2 layers, deep 3 layers; layers of one run only are kept, " \
           "flagged aligned=false" in p.stderr.splitlines()
    assert rows(p.stdout) == got


def test_passes_of_one_run_only_are_flagged_and_left_out_of_the_totals(two, tmp_path):
    # a 2-pass run against tiny's 4 passes (--pass all): passes 2 and 3 are a's alone
    kept = [r for r in tiny_trace.rows() if r[0] <= 2]
    tracedb.ingest_trace(two, write_csv(tmp_path / "short.csv", tiny_trace.HEADER, kept), name="short")
    res = render_report(two, "compare", runs=["a", "short"], by="layer", fmt="json", **SEG)
    assert '"pass counts differ: a 4, short 2; passes of one run only are kept, flagged aligned=false, and left ' \
           'out of the totals"' in res
    # the totals cover passes 0 and 1 only (scales 1.5 and 1.2): 32 us x 1.5 + 32 us x 1.2 = 86.4 us in both
    assert '"device time over the compared passes: a 86.400 us; short 86.400 us (1.000 x a)"' in res
    got = rows(render_report(two, "compare", runs=["a", "short"], by="layer", fmt="csv", **SEG))
    assert {(r["pass"], r["aligned"]) for r in got} == {("0", "true"), ("1", "true"), ("2", "false"), ("3", "false")}


# -------------------------------------------------------------------------------- predicted vs measured
@pytest.fixture(scope="module")
def predicted_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("predicted")
    return store_of(d, (tiny_trace.write(d / "m.csv"), "measured", None),
                    (tiny_simulated.write(d / "s.json"), "sim", {"kind": "simulated"}))


@pytest.fixture
def predicted(predicted_store, own_copy):
    return own_copy(predicted_store)


CATEGORY = {"GatherV2": "other", "RmsNorm": "norm", "MatMulV3": "gemm", "FusedInferAttentionScore": "attention",
            "hcom_allReduce_": "communication", "SwiGlu": "activation", "ArgMaxV2": "topk"}   # qwen3-npu's rules


def _predicted_and_measured_by_category(part):
    """Per category: (simulated ns, measured ns) over tiny_trace.PASS[part] at scale 1."""
    out = {}
    for _, dur, _, op, _, _ in tiny_trace.PASS[part]:
        num, den = tiny_simulated.FACTORS.get(op, (1, 1))
        sim, meas = out.get(CATEGORY[op], (0, 0))
        out[CATEGORY[op]] = (sim + dur * 1000 * num // den, meas + dur * 1000)
    return out


def test_simulated_over_measured_by_layer_and_category(predicted):
    got = rows(render_report(predicted, "compare", runs=["measured", "sim"], by="category", fmt="csv",
                              **{**SEG, "pass_spec": "steady"}))
    # strict window: layer 0 = PASS[3:9], layer 1 = its anchor PASS[9]
    for layer, part in (("0", slice(3, 9)), ("1", slice(9, 10))):
        for cat, (sim_ns, meas_ns) in _predicted_and_measured_by_category(part).items():
            row = next(r for r in got if r["layer"] == layer and r["category"] == cat and r["run"] == "sim")
            assert Fraction(row["ratio"]) == round(Fraction(sim_ns, meas_ns), 3), (layer, cat)
    assert {(r["category"], r["ratio"]) for r in got if r["run"] == "sim" and r["layer"] == "0"} == {
        ("attention", "0.800"), ("gemm", "1.250"), ("communication", "0.500"), ("norm", "1.000"),
        ("activation", "1.000")}


@pytest.mark.parametrize("window, m6", [("strict", "1.016"), ("full", "1.075")])
def test_m6_is_total_simulated_over_total_measured(predicted, window, m6):
    parts = {"strict": slice(3, 10), "full": slice(0, 15)}[window]
    totals = _predicted_and_measured_by_category(parts).values()
    want = round(Fraction(sum(s for s, _ in totals), sum(m for _, m in totals)), 3)
    assert Fraction(m6) == want
    res = render_report(predicted, "compare", runs=["measured", "sim"], by="layer", fmt="md",
                         **{**SEG, "pass_spec": "steady", "window": window})
    assert f"> M6 (simulated / measured device time) sim / measured = {m6}\n" in res
    assert "> steady pass: measured -> pass 3; sim (simulated) -> pass 0\n" in res


def test_m6_is_simulated_over_measured_whatever_the_order(predicted):
    res = render_report(predicted, "compare", runs=["sim", "measured"], by="layer", fmt="md",
                         **{**SEG, "pass_spec": "steady"})
    assert "> M6 (simulated / measured device time) sim / measured = 1.016\n" in res
    assert "measured 32.000 us (0.985 x sim)" in res          # the rows' ratio: against the first run


def test_no_m6_without_a_simulated_run(two):
    res = render_report(two, "compare", runs=["a", "b"], fmt="md", **SEG)
    assert "M6" not in res and "> device time over the compared passes: a " in res


def test_simulated_trace_without_categories_ingests(con, tmp_path):
    tracedb.ingest_trace(con, tiny_simulated.write(tmp_path / "s.json", cat=None), name="sim")
    assert con.execute("SELECT count(*) FROM kernels").fetchone()[0] == 15


@pytest.mark.parametrize("by", ["category", "kernel"])
def test_layer_mean_rows_add_up_to_the_mean_layer(two, by):
    """--layer mean: a layer without a key counts 0, so each run's rows add up to its mean full layer (the
    full window's epilogue, no layer, holds kernels no layer has)."""
    seg = {**SEG, "window": "full"}
    got = rows(render_report(two, "compare", runs=["a", "b"], by=by, layer="mean", fmt="csv", **seg))
    for run in ("a", "b"):
        layers = [r for r in rows(render_report(two, "layers", runs=[run], fmt="csv", **seg))
                  if r["layer"] not in ("", "prologue", "epilogue")]
        total = sum(Fraction(r["sum_us"]) for r in layers)
        mean_ns = round(total * 1000 / len(layers))
        mine = [r for r in got if r["run"] == run]
        assert abs(sum(round(Fraction(r["sum_us"]) * 1000) for r in mine) - mean_ns) <= len(mine)  # ns rounding
        assert max(int(r["layers"]) for r in mine) == len(layers)


@pytest.mark.slow
def test_a_pass_cut_by_the_capture_is_flagged(tmp_path):
    """The H100 and MI300X traces start mid-pass: comparing their pass 0 by layer says so, their full pass 1
    does not."""
    db = str(tmp_path / "c.duckdb")
    for name in ("h100", "mi300"):
        cli("ingest", real_trace("amd-tracelens", name, "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"), "--db", db,
            "--name", name)
    cut = cli("report", "compare", "--db", db, "--run", "h100", "--run", "mi300", "--by", "layer", "--pass", "0",
              "--format", "csv").stderr
    assert "run 'h100' pass 0 is cut by the capture (10 of 24 anchors)" in cut
    whole = cli("report", "compare", "--db", db, "--run", "h100", "--run", "mi300", "--by", "layer", "--pass", "1",
                "--format", "csv").stderr
    assert "cut by the capture" not in whole


def test_the_totals_note_of_many_runs_names_five_and_gives_the_others_as_a_range(tmp_path):
    names = [f"r{f}" for f in range(1, 8)]
    db = store_of(tmp_path, *((tiny_trace.write(tmp_path / f"{n}.csv", dur_factor=f), n, None)
                              for f, n in enumerate(names, 1)))
    doc = json.loads(cli("report", "compare", "--db", db, *[a for n in names for a in ("--run", n)], "--profile",
                         "qwen3-npu", "--layers", "2", "--pass", "all", "--format", "json").stdout)
    note = next(n for n in doc["notes"] if n.startswith("device time over the compared passes: "))
    parts = note.split(": ", 1)[1].split("; ")
    # r1..r5 with their figures, then r6 and r7 (every duration 6 and 7 times r1's) as a range
    assert [p.split()[0] for p in parts[:5]] == names[:5] and "(2.000 x r1)" in parts[1]
    assert parts[5:] == ["2 more runs at 6.000-7.000 x r1"]


def test_more_runs_than_fit_side_by_side_give_the_first_run_and_the_spread(tmp_path):
    names = [f"r{f}" for f in range(1, 10)]
    db = store_of(tmp_path, *((tiny_trace.write(tmp_path / f"{n}.csv", dur_factor=f), n, None)
                              for f, n in enumerate(names, 1)))
    runs = [a for n in names for a in ("--run", n)]
    seg = ["--profile", "qwen3-npu", "--layers", "2", "--pass", "3", "--window", "strict"]
    md = cli("report", "compare", "--db", db, *runs, *seg, "--format", "md").stdout
    assert md.startswith("## r1 vs 8 runs (r2, r3, r4, r5 and 4 more) by layer\n")
    table = [[c.strip() for c in line.strip("|").split("|")] for line in md.splitlines() if line.startswith("|")]
    head, rows_ = table[0], {tuple(r[:2]): dict(zip(table[0], r)) for r in table[2:]}
    assert head == ["pass", "layer", "r1_kernels", "r1_us", "runs", "min_us", "median_us", "max_us", "slowest",
                    "max_ratio"]
    # the pass total of each run, from CSV's one row per run and key
    csv_rows = rows(cli("report", "compare", "--db", db, *runs, *seg, "--format", "csv").stdout)
    assert {r["run"] for r in csv_rows} == set(names)
    per_run = {n: sum(Fraction(r["sum_us"]) for r in csv_rows if r["run"] == n and r["pass"] == "3") for n in names}
    ordered = sorted(per_run.values())
    total = rows_[("3", "all")]
    assert Fraction(total["r1_us"]) == per_run["r1"] and total["runs"] == "9"
    assert [Fraction(total[c]) for c in ("min_us", "median_us", "max_us")] == [ordered[0], ordered[4], ordered[-1]]
    assert total["slowest"] == max(names, key=lambda n: per_run[n])
    assert total["max_ratio"] == f"{round(float(ordered[-1] / per_run['r1']), 3):.3f}"
