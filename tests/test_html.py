"""`--format html` without a browser: the page is self-contained (no element loads anything), its table
is the CSV report's, its data block parses whatever the cells hold, the JSON it embeds is valid where a
number column holds a label (the prologue), the Vega bundle is cached, a missing `html` extra is one
`error:` line, and `--open` writes a temporary page and opens it only where there is a display.
tests/test_html_browser.py renders the pages in Chromium."""
import csv
import io
import json
import os
import re
import sys
import types
import webbrowser
from html.parser import HTMLParser

import pytest

import tiny_trace
from helpers import assert_one_line_error, cli, needs_html, store_of
from tracedb.engine.rendering import html as html_report
from tracedb.engine.rendering import render
from tracedb.engine.reports.registry import render_report

SEG = {"runs": ["tiny"], "profile": "qwen3-npu", "layers": 2, "window": "full"}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("html")
    return store_of(folder, {"tiny": tiny_trace.write(folder / "kernel_details.csv")})


@pytest.fixture(scope="module")
def con(db):
    import tracedb
    c = tracedb.connect(db, read_only=True)
    yield c
    c.close()


class _Table(HTMLParser):
    """The text of every th and td of a page, row by row."""

    def __init__(self):
        super().__init__()
        self.rows, self.cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("th", "td"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            self.rows[-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def _table(page: str) -> list:
    parser = _Table()
    parser.feed(page)
    return parser.rows


def test_page_loads_nothing_and_holds_the_csv_table(con):
    needs_html()
    opts = {**SEG, "pass_spec": "all"}
    page = render_report(con, "layers", fmt="html", **opts)
    assert page.startswith("<!DOCTYPE html>")
    markup = re.sub(r"(<script\b[^>]*>).*?</script>", r"\1</script>", page, flags=re.S)   # the tags, not the code
    loads = re.findall(r"<(?:script|link|img|iframe|object|embed|source|video|audio)\b[^>]*\b(?:src|href|data)\s*=",
                       markup, re.I)
    assert not loads, loads
    assert not re.search(r"@import|url\(", markup), "the style sheet loads nothing"
    assert markup.count("<script") == 3, "the data block, the Vega bundle, the page's own script"
    want = list(csv.reader(io.StringIO(render_report(con, "layers", fmt="csv", **opts))))
    assert _table(page) == want
    data = json.loads(html_report.embedded(page))
    assert data["report"] == json.loads(render_report(con, "layers", fmt="json", **opts))
    assert data["chart"]["data"] == {"name": "rows"} and data["chart"]["layer"][0]["name"] == "bars"


def test_json_of_a_labelled_number_column_is_valid(con):
    """The prologue's and the epilogue's layer (NULLs in a number column, labelled) are JSON strings, not bare
    words."""
    rows = json.loads(render_report(con, "layers", fmt="json", **SEG, pass_spec="3"))["rows"]
    assert [r["layer"] for r in rows] == ["prologue", 0, 1, "epilogue"]


def test_no_cell_can_end_the_data_block():
    nasty = "</script><script>alert(1)</script><!--"
    res = render.Result(report="kernels", columns=["run", "name", "sum_us"], numeric=[False, False, True],
                        rows=[("r</script>", nasty, "1.000")], title=nasty, notes=[nasty], params={"runs": nasty})
    page = render.render(res, "html")
    assert page.count("</script>") == page.count("<script")
    assert json.loads(html_report.embedded(page))["report"]["rows"] == [{"run": "r</script>", "name": nasty,
                                                                         "sum_us": 1.0}]
    assert _table(page)[1] == ["r</script>", nasty, "1.000"]


def test_page_without_rows_has_no_chart_and_no_bundle():
    res = render.Result(report="layers", columns=["run", "layer", "wall_us"], numeric=[False, True, True], rows=[])
    page = render.render(res, "html")
    assert "(no rows)" in page and 'id="chart"' not in page and len(page) < 20_000
    assert json.loads(html_report.embedded(page))["chart"] is None


def test_bundle_is_built_once_and_kept_in_the_cache(monkeypatch, tmp_path):
    built = []
    fake = types.SimpleNamespace(get_vegalite_versions=lambda: ["5.21", "6.1", "6.10", "6.4"],
                                 get_vega_version=lambda: "6.2.0", get_vega_embed_version=lambda: "7.0.2",
                                 javascript_bundle=lambda vl_version: built.append(vl_version) or "/* vega */")
    monkeypatch.setitem(sys.modules, "vl_convert", fake)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    html_report.javascript.cache_clear()
    try:
        assert html_report.javascript() == "/* vega */"
        html_report.javascript.cache_clear()
        assert html_report.javascript() == "/* vega */"
        assert built == ["6.10"], "built once, with the newest Vega-Lite 6"
        assert os.listdir(tmp_path / "tracedb") == ["vega6.2.0-vega-lite6.10-vega-embed7.0.2.js"]
    finally:
        html_report.javascript.cache_clear()


def test_missing_extra_is_one_error_line(db, monkeypatch):
    monkeypatch.setitem(sys.modules, "vl_convert", None)   # import vl_convert raises ImportError
    r = cli("report", "passes", "--db", db, "--run", "tiny", "--format", "html", check=False)
    assert_one_line_error(r, "pip install 'tracedb[html]'")


def _no_browser(url):
    raise AssertionError(f"a browser was started for {url}")


def test_open_without_a_display_prints_the_temporary_page(db, monkeypatch):
    needs_html()
    monkeypatch.setattr(webbrowser, "open", _no_browser)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    r = cli("report", "passes", "--db", db, "--run", "tiny", "-p", "qwen3-npu", "--layers", "2", "--open", env=env)
    path = r.stdout.strip()
    try:
        assert path.endswith(".html") and os.path.basename(path).startswith("tracedb-passes-")
        with open(path, encoding="utf-8") as f:
            assert "forward passes" in html_report.embedded(f.read())
    finally:
        os.remove(path)


def test_open_with_a_display_opens_the_written_page(db, monkeypatch, tmp_path):
    needs_html()
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    out = tmp_path / "layers.html"
    r = cli("report", "layers", "--db", db, "--run", "tiny", "-p", "qwen3-npu", "--layers", "2", "--format", "html",
            "-o", str(out), "--open", env={**os.environ, "DISPLAY": ":0"})
    assert opened == [out.resolve().as_uri()] and out.exists()
    assert r.stdout == "" and f"wrote {out}" in r.stderr


def test_open_is_refused_for_other_formats(db):
    r = cli("report", "passes", "--db", db, "--run", "tiny", "--format", "csv", "--open", check=False)
    assert_one_line_error(r, "--open shows the HTML page")


def test_python_api_gives_the_page(con):
    needs_html()
    import tracedb
    page = tracedb.report(con, "passes", run="tiny", profile="qwen3-npu", layers=2).text("html")
    assert json.loads(html_report.embedded(page))["report"]["title"] == "forward passes"
