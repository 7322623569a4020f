"""`--format html` rendered in a real browser: headless Chromium (tests/browser.py, the DevTools protocol on a
pipe) opens each page from a file and the test checks that the page made no request but for its own file,
logged no console error or warning and threw nothing, that its chart drew one mark per non-zero value it
shows (counted in Vega's SVG, worked out here from the CSV report independently of the chart's spec), and
that its table holds exactly the CSV report's header and cells. Skipped where Chromium is not installed
(Debian: `apt-get install chromium`; any other binary: $TRACEDB_CHROMIUM)."""
import csv
import io
from collections import defaultdict
from decimal import Decimal

import pytest

import tracedb
from browser import Browser, chromium
from helpers import needs_html, real_trace
from example_stores import BASE
from test_golden import CASES, stores, tiny_store  # noqa: F401  (fixtures: the golden tests' stores)
from tracedb.engine.reports.registry import render_report

pytestmark = pytest.mark.browser

TOP = 40   # the report modules' charts (engine/reports/catalog/): the longest kernel and module lists keep 40 bars

# golden cases (their options) whose pages are checked: every report and every chart layout
PAGES = ["passes.csv", "layers_full.csv", "layers_mean.md", "layers_clusters.md", "layers_gpu.csv",
         "kernels.csv", "kernels_flow.csv", "kernels_compare.csv", "timeline.table", "modules.csv", "modules.md",
         "compare.md", "compare_kernel.csv", "compare_module.csv", "compare_mean.csv", "cores.csv", "cores_window.csv",
         "cores_gaps.csv", "breakdown.csv", "breakdown.table", "launches.csv", "launches.md"]
MORE = {   # layouts no golden case shows
    "cores_scheduler": ("cores", {"runs": ["cores"], "scheduler": True}),
    "cores_two_runs": ("cores", {"runs": ["cores", "cores2"]}),
}
CASE_OPTIONS = {**{name: (CASES[name][0], CASES[name][3]) for name in PAGES}, **MORE}
SEG = BASE["tiny"]


@pytest.fixture(scope="module")
def browser():
    exe = chromium()
    if not exe:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium; or set $TRACEDB_CHROMIUM)")
    needs_html()
    b = Browser(exe)
    yield b
    b.close()


@pytest.fixture(scope="module")
def store(tiny_store):  # noqa: F811
    """The golden tests' tiny store (two per-core runs, cores and cores2, for the two-run layout)."""
    return tiny_store


def _pos(v) -> bool:
    return v not in ("", None) and Decimal(v) > 0


def _sums(rows, key, value="sum_us"):
    out = defaultdict(Decimal)
    for r in rows:
        out[key(r)] += Decimal(r[value] or 0)
    return out


def _parts(rows, cols):
    return sum(_pos(r[c]) for r in rows for c in cols)


FIXED_US = {"sum_us", "wall_us", "start_us", "end_us", "sum_min_us", "sum_max_us"}
IDLE = ["host_bound_idle_us", "other_idle_us", "unknown_idle_us"]


def expected_marks(report, cols, rows, opts) -> dict:
    """Per named mark of the chart, how many it should draw: one per non-zero value shown."""
    has = set(cols)
    if report == "passes":
        return {"bars": _parts(rows, ["wall_us", "sum_us"])}
    if report == "layers" and "layer_type" in has:
        return {"bars": sum(_pos(r[c]) and _pos(r["avg_sum_us"]) for r in rows for c in cols if c.endswith("_pct")),
                "wall": len({r["run"] for r in rows})}
    if report == "layers":
        return {"bars": _parts(rows, [c for c in cols if c.endswith("_us") and c not in FIXED_US]),
                "wall": len({(r["run"], r["pass"]) for r in rows})}
    if report == "kernels" and "sum_us_a" in has:
        return {"bars": _parts(rows, ["sum_us_a", "sum_us_b"])}
    if report == "kernels" and "dur_us" in has:
        return {"bars": _parts(rows, ["dur_us"])}
    if report == "kernels":
        return {"bars": sum(_pos(r["sum_us"]) and int(r["rank"]) <= TOP for r in rows)}
    if report in ("timeline",) or (report == "cores" and "gap_us" in has):
        return {"bars": len(rows)}
    if report == "modules":
        per = _sums(rows, lambda r: (r["module"], r["run"]))
        totals = _sums([{"m": m, "us": v} for (m, _), v in per.items()], lambda r: r["m"], "us")
        rank = {t: i for i, t in enumerate(sorted(set(totals.values()), reverse=True), 1)}
        return {"bars": sum(v > 0 and rank[totals[m]] <= TOP for (m, _), v in per.items())}
    if report == "compare":
        first = opts["runs"][0]
        if opts.get("by") == "kernel":
            per = _sums(rows, lambda r: (r["category"], r["run"]))
            return {"bars": sum(v > 0 for v in per.values()),
                    "ratio": sum(run != first and per.get((c, first), 0) > 0 for c, run in per)}
        return {"bars": _parts(rows, ["sum_us"]), "ratio": sum(r["run"] != first and r["ratio"] != "" for r in rows)}
    if report == "cores" and "busy_us_a" in has:
        return {"bars": _parts(rows, ["busy_us_a", "busy_us_b"])}
    if report == "cores" and "phase" in has:
        return {"bars": _parts(rows, ["sum_us"])}
    if report == "cores":
        return {"bars": _parts(rows, ["busy_us", "idle_us"])}
    if report == "breakdown":
        return {"bars": _parts(rows, ["computing_us", "comm_not_overlapped_us", "free_us"])}
    if report == "launches" and "name" in has:
        idle = sorted((sum(Decimal(r[c]) for c in IDLE), i) for i, r in enumerate(rows))
        top = [rows[i] for total, i in sorted(idle, key=lambda t: -t[0])[:TOP] if total > 0]
        return {"bars": _parts(top, IDLE)}
    if report == "launches":
        return {"bars": _parts(rows, IDLE)}
    raise AssertionError(f"no expected marks for report {report} with columns {cols}")


TABLE_JS = """(function () {
  var t = document.getElementById("rows");
  var text = function (c) { return c.textContent; };
  return [Array.prototype.map.call(t.tHead.rows[0].cells, text),
          Array.prototype.map.call(t.tBodies[0].rows,
                                   function (r) { return Array.prototype.map.call(r.cells, text); })];
})()"""
MARKS_JS = """(function () {
  var out = {};
  document.querySelectorAll("#chart svg g.role-mark").forEach(function (g) {
    var name = (g.getAttribute("class").match(/(\\w+)_marks/) || [])[1];
    if (name) out[name] = (out[name] || 0) + g.querySelectorAll(":scope > path").length;
  });
  return out;
})()"""


def check_page(browser, tmp_path, name, report, opts, con):
    page_file = tmp_path / f"{name}.html"
    page_file.write_text(render_report(con, report, fmt="html", **opts), encoding="utf-8")
    table = list(csv.reader(io.StringIO(render_report(con, report, fmt="csv", **opts))))
    page = browser.load(str(page_file))
    assert page.requests == [page.url], f"{name}: the page asked for more than its own file: {page.requests}"
    assert not page.problems, f"{name}: {page.problems}"
    header, cells = page.evaluate(TABLE_JS)
    assert [header] + cells == table, f"{name}: the page's table differs from the CSV report"
    rows = [dict(zip(header, r)) for r in table[1:]]
    want = expected_marks(report, header, rows, opts)
    assert want["bars"] > 0, f"{name}: a case with nothing to draw checks nothing"
    got = page.evaluate(MARKS_JS)
    assert {k: got.get(k, 0) for k in want} == want, f"{name}: marks {got}, expected {want}"
    return page


@pytest.mark.parametrize("name", sorted(CASE_OPTIONS))
def test_page_renders_offline_with_its_numbers(name, browser, store, tmp_path):
    report, extra = CASE_OPTIONS[name]
    check_page(browser, tmp_path, name, report, {**SEG, **extra}, store)


def test_a_click_on_a_header_sorts_the_table(browser, store, tmp_path):
    page = check_page(browser, tmp_path, "layers", "layers", {**SEG, "pass_spec": "all", "window": "full"}, store)
    column = """(function (name) {
      var t = document.getElementById("rows"), i = Array.prototype.map.call(t.tHead.rows[0].cells,
          function (c) { return c.textContent; }).indexOf(name);
      return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[i].textContent; });
    })"""
    click = """document.querySelectorAll("#rows th")[%d].click()"""
    header = page.evaluate(TABLE_JS)[0]
    sums = page.evaluate(f"{column}('sum_us')")
    page.evaluate(click % header.index("sum_us"))
    assert page.evaluate(f"{column}('sum_us')") == sorted(sums, key=Decimal)
    page.evaluate(click % header.index("sum_us"))
    assert page.evaluate(f"{column}('sum_us')") == sorted(sums, key=Decimal, reverse=True)
    page.evaluate(click % header.index("layer"))        # numbers as numbers, the prologue's label after them
    layers = page.evaluate(f"{column}('layer')")
    assert layers == sorted(layers, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else 0, v))
    assert layers[0] == "0" and layers[-1] == "prologue"


@pytest.mark.real_data
def test_real_gpu_trace_layers_page(browser, tmp_path):
    """Qwen1.5 on an H100 (TraceLens): 24 layers and a fragment of 10, eleven categories."""
    con = tracedb.connect(str(tmp_path / "h100.duckdb"))
    try:
        tracedb.ingest_trace(con, real_trace("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
                             name="h100")
        page = check_page(browser, tmp_path, "h100-layers", "layers",
                          {"runs": ["h100"], "anchor": "flash_fwd_kernel", "layers": 24, "pass_spec": "all"}, con)
        assert page.evaluate(MARKS_JS)["bars"] > 100
    finally:
        con.close()


def test_advise_page_ranks_the_findings(browser, tmp_path):
    """`tracedb advise --format html`: the findings' table as the CSV gives it, and a bar per finding of its time
    at stake (tests/advise_faults.py's job with a sync between layers and one with a slow rank: the sync's four
    findings, one per rank, then the slow rank's, in one store)."""
    import advise_faults
    from helpers import cli
    db = str(tmp_path / "s.duckdb")
    folder = tmp_path / "job"
    folder.mkdir()
    advise_faults.store(db, folder, 0, "sync")
    page_file = tmp_path / "advise.html"
    cli("advise", "--db", db, "--tag", "job=job", "--format", "html", "-o", str(page_file))
    table = list(csv.reader(io.StringIO(cli("advise", "--db", db, "--tag", "job=job", "--format", "csv").stdout)))
    page = browser.load(str(page_file))
    assert page.requests == [page.url] and not page.problems, (page.requests, page.problems)
    header, cells = page.evaluate(TABLE_JS)
    assert [header] + cells == table and len(cells) == advise_faults.RANKS
    assert page.evaluate(MARKS_JS)["bars"] == sum(_pos(r[header.index("at_stake_us")]) for r in cells) > 0
    # the ranked list: an item per finding in the table's order, its finding, evidence and what to try as the CSV
    # has them, each report command of the evidence set as code
    items = page.evaluate("""Array.prototype.map.call(document.querySelectorAll("ol.findings > li"), function (li) {
      return [li.className, li.querySelectorAll("p")[0].textContent, li.querySelectorAll("p")[1].textContent,
              li.querySelectorAll("p")[2].textContent,
              Array.prototype.map.call(li.querySelectorAll("code"), function (c) { return c.textContent; })];
    })""")
    col = {c: header.index(c) for c in ("severity", "finding", "evidence", "try")}
    assert [i[:4] for i in items] == [[r[col["severity"]], r[col["finding"]], "Evidence: " + r[col["evidence"]],
                                       "Try: " + r[col["try"]]] for r in cells]
    for (*_, codes), r in zip(items, cells):
        assert codes and all(c.startswith("tracedb report ") and c in r[col["evidence"]] for c in codes)
