"""`--format html`: one self-contained page per report: its parameters and notes, its chart (Vega-Lite,
engine/rendering/charts.py) and its table, sortable by a click on a column header. Nothing is fetched: Vega, Vega-Lite
and vega-embed are inlined from the bundle vl-convert-python builds (the `html` extra), the data is a JSON
block in the page.

The data block (`<script type="application/json" id="tracedb-data">`) holds the report exactly as
`--format json` gives it and the chart's spec, which reads the report's rows; `embedded(page)` returns it
(golden/*.html.json). The table shows the same cells as text: the CSV report's header and cells."""
import html
import json
import os
import re
from functools import lru_cache

from tracedb import atomic
from tracedb.engine.rendering import charts
from tracedb.errors import UsageError

EXTRA = "pip install 'tracedb[html]'"


def extra_hint() -> str:
    """How to install the html extra: from the package index, or, when tracedb runs from a checkout (its
    pyproject.toml beside the package), from that checkout."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(charts.__file__)))
    root = os.path.dirname(root)
    if os.path.exists(os.path.join(root, "pyproject.toml")):
        return f"{EXTRA}; from this checkout: pip install -e '{root}[html]'"
    return EXTRA
DATA_ID = "tracedb-data"
VEGA_LITE_MAJOR = "6"     # charts.SCHEMA's major version
_DATA = re.compile(r'<script type="application/json" id="' + DATA_ID + r'">(.*?)</script>', re.S)


def vl_convert():
    """The vl_convert module, or the one-line error naming the extra to install."""
    try:
        import vl_convert
    except ImportError:
        raise UsageError(f"--format html needs the Vega bundle of vl-convert-python: {extra_hint()}") from None
    return vl_convert


def cache_dir() -> str:
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tracedb")


@lru_cache(maxsize=1)
def javascript() -> str:
    """Vega, Vega-Lite (the newest 6.x vl-convert has) and vega-embed as one script. vl-convert builds the
    bundle in 2.4-3.3 s, so it is kept in the user's cache folder, named by the three versions; a cache that
    cannot be written only costs that time again."""
    vlc = vl_convert()
    version = max((v for v in vlc.get_vegalite_versions() if v.split(".")[0] == VEGA_LITE_MAJOR),
                  key=lambda v: tuple(int(p) for p in v.split(".")))
    name = f"vega{vlc.get_vega_version()}-vega-lite{version}-vega-embed{vlc.get_vega_embed_version()}.js"
    path = os.path.join(cache_dir(), name)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        pass
    js = vlc.javascript_bundle(vl_version=version)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with atomic.replaced(path) as f:
            f.write(js)
    except OSError:
        pass
    return js


def data_block(report_json: str, spec: dict | None) -> str:
    """The JSON the page embeds: the report as --format json gives it, and the chart's Vega-Lite spec (null
    without one). Every '<' is written \\u003c, so no text of the data can end its script element."""
    text = '{"report": ' + report_json.rstrip("\n") + ',\n "chart": ' + _compact(spec, 1) + "}\n"
    return text.replace("<", "\\u003c")


def _compact(value, level: int, width: int = 100) -> str:
    """JSON text, a list or object on one line when that fits `width`, else one member a line (a spec stays
    short and reviewable in golden/*.html.json)."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value or len(flat) + level <= width:
        return flat
    pad = " " * (level + 1)
    if isinstance(value, dict):
        items = [f"{json.dumps(k, ensure_ascii=False)}: {_compact(v, level + 1, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(pad + i for i in items) + "\n" + " " * level + "}"
    return "[\n" + ",\n".join(pad + _compact(v, level + 1, width) for v in value) + "\n" + " " * level + "]"


def embedded(page: str) -> str:
    """The data block of a page written by `page`."""
    m = _DATA.search(page)
    if not m:
        raise ValueError("no tracedb data block in the page")
    return m.group(1)


def _inline_script(js: str) -> str:
    """A script safe inside <script>...</script>: no closing tag or comment opener in its text."""
    return re.sub(r"</(script)", r"<\\/\1", js, flags=re.I).replace("<!--", "<\\!--")


def page(res, report_json: str, rows: list, env) -> str:
    """The HTML page of a Result: `report_json` its --format json text, `rows` its cells with labelled NULLs
    replaced (render._labelled), `env` the jinja environment of the templates."""
    spec = charts.spec(res)
    body = "\n".join("<tr>" + "".join(f'<td class="num">{_cell(v)}</td>' if n else f"<td>{_cell(v)}</td>"
                                      for v, n in zip(row, res.numeric)) + "</tr>" for row in rows)
    return env.get_template("html.j2").render(
        report=res.report, title=res.title, params=res.params, notes=res.notes,
        header=list(zip(res.columns, res.numeric)), body=body, row_count=len(rows),
        findings=_findings(res, rows) if res.report == "advise" else None,
        data=data_block(report_json, spec), vega=_inline_script(javascript()) if spec else "")


# a command the evidence names, up to the next ';' (the evidence joins its parts with '; ')
_COMMAND = re.compile(r"tracedb (?:report|sql|export|advise) [^;]*")


def _findings(res, rows) -> list[dict]:
    """`tracedb advise`'s findings as the page's ranked list: each one's cells by column (escaped), where it
    is (run, rank, step, kernel), its share of the step as a bar width in % (capped at 100), and its evidence
    with each report command it names set as code."""
    out = []
    for row in rows:
        f = dict(zip(res.columns, row))
        where = [f"run {f['run']}"] + [f"{k} {f[k]}" for k in ("rank", "step", "layer", "kernel") if f.get(k)]
        pct = float(f["at_stake_pct"] or 0)
        evidence = html.escape(f["evidence"] or "", quote=False)
        out.append({**{k: _cell(v) for k, v in f.items()}, "where": _cell(", ".join(where)),
                    "width": f"{min(pct, 100.0):.1f}",
                    "evidence_html": _COMMAND.sub(lambda m: f"<code>{m.group(0)}</code>", evidence)})
    return out


def _cell(v) -> str:
    return "" if v is None else html.escape(v, quote=False)
