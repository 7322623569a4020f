"""Turn query results into text: terminal table, Markdown, CSV, JSON or an HTML page, through jinja templates.

Values arrive already formatted by DuckDB (every cell cast to VARCHAR: µs as DECIMAL(23,3) print with
exactly 3 decimals, NULL stays None), so no float is ever formatted in Python and 100k rows render in a
fraction of a second (a per-cell jinja loop took 3.4 s for the same rows). Templates own the layout only:
a page per format plus partials, with StrictUndefined so a misspelt context key fails loudly.
NULL prints as an empty cell in every text format and as null in JSON. The HTML page (html_report.py)
embeds the JSON text and shows its cells in a table beside a chart."""
import contextvars
import html
import json
from dataclasses import dataclass, field, replace
from functools import lru_cache

from tracedb import sql
from tracedb.shown import printable
from tracedb.engine.rendering import run_notes

FORMATS = ("table", "md", "csv", "json", "html", "spreadsheet")
# CSV for data tools keeps every text exact; `spreadsheet` is CSV for Excel, LibreOffice and Google Sheets,
# which run a cell starting with = + - @ (or a tab or CR before one) as a formula: such a text cell gets a
# leading ' (shown by the spreadsheet as the text itself), the advice of OWASP's CSV-injection page;
# numbers are never changed. A trace's names can then never run a formula (=HYPERLINK, =WEBSERVICE).
CSV_FORMATS = ("csv", "spreadsheet")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# the layouts for people to read: fewer columns, short names, compare's wide table; the others keep every column
READING = ("table", "md")
# the lines a note of a terminal table wraps to at most: the longest notes of real traces (a training trace's
# phases, the definitions of report launches) take 7 to 10 lines at 60 columns; past this a note ends in `…`
NOTE_LINES = 12
NUMERIC = ("INTEGER", "BIGINT", "HUGEINT", "DECIMAL", "DOUBLE", "FLOAT", "SMALLINT", "TINYINT", "UBIGINT",
           "UINTEGER", "USMALLINT", "UTINYINT", "UHUGEINT")


def numeric_columns(description) -> list[bool]:
    """Per column of a DuckDB cursor description: a number type (right-aligned in tables)?"""
    return [str(d[1]).upper().startswith(NUMERIC) for d in description]

# True while a report runs for the Python API (tracedb.report): fetch then keeps the typed rows as Arrow
# beside the text cells, which the CLI never needs (a copy of every row).
ARROW = contextvars.ContextVar("tracedb_arrow", default=False)


@dataclass
class Result:
    """One report's rows and what the templates need to know about it (the declared context)."""
    report: str
    columns: list[str]
    numeric: list[bool]
    rows: list[tuple]                  # cells as str or None
    csv_body: str | None = None        # CSV data lines written by DuckDB (fmt csv: rows stay empty)
    title: str = ""
    params: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    display: dict = field(default_factory=dict)   # column -> label for NULL in table/md (e.g. layer: prologue)
    labels: dict = field(default_factory=dict)    # column -> (label, guard): NULL shown as label in every format
                                                  # (CSV, JSON too) where column `guard` is not NULL
    sparse: set = field(default_factory=set)      # columns table/md leave out when zero in every row
    table: object = None                          # the typed rows as a pyarrow Table (Python API calls only)
    charts: tuple = ()                            # the report's chart layouts (its declaration), first match wins

    def __post_init__(self):
        self.notes = run_notes.merged(list(self.notes))     # one note for what many runs share


def fetch(con, query: str, query_params: dict, report: str, fmt: str = "table", **kw) -> Result:
    """Run a report query and cast every cell to text inside DuckDB. For CSV, DuckDB's own writer makes
    the lines (quoting only where needed, NULL empty): 105k layer rows in ~0.2 s instead of ~3 s."""
    con.execute(sql.load("render_report").format(query=query), query_params)
    try:
        desc = sql.run(con, "render_columns").description
        cols = [d[0] for d in desc]
        numeric = numeric_columns(desc)
        if fmt == "csv":
            return Result(report=report, columns=cols, numeric=numeric, rows=[],
                          csv_body=_copy_csv(con, kw.get("labels") or {}, set(cols)), **kw)
        rows = sql.run(con, "render_text").fetchall()
        table = _arrow(con.sql(sql.load("render_rows"))) if ARROW.get() else None
        return Result(report=report, columns=cols, numeric=numeric, rows=rows, table=table, **kw)
    finally:
        sql.run(con, "render_drop")


def _arrow(rel):
    """A relation's rows as a pyarrow Table (DuckDB 2 names the call to_arrow_table, 1.x arrow)."""
    return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()


def _copy_csv(con, labels: dict, cols: set) -> str:
    import os
    import tempfile

    from tracedb import atomic
    from tracedb.sql import ident
    # in this process's own scratch folder: the one place a confined report session may write
    fd, path = tempfile.mkstemp(suffix=".csv", prefix="tracedb-", dir=atomic.scratch_dir())
    os.close(fd)
    # a labelled NULL (the prologue's layer) is written as its label, bound as a parameter, or as the text of
    # the label's source column when the report has one (the layer of an epilogue row: its unit)
    swap = ", ".join(
        f"coalesce(CAST({ident(c)} AS VARCHAR), CASE WHEN {ident(lab[1])} IS NOT NULL THEN "
        + (f"coalesce(CAST({ident(lab[2])} AS VARCHAR), $l{i})" if len(lab) > 2 and lab[2] in cols else f"$l{i}")
        + f" END) AS {ident(c)}" for i, (c, lab) in enumerate(labels.items()))
    source = f"(SELECT * REPLACE ({swap}) FROM _report)" if labels else "_report"
    try:
        sql.run(con, "render_copy_csv", {"path": path, **{f"l{i}": lab[0] for i, lab in enumerate(labels.values())}},
                source=source)
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    finally:
        os.remove(path)


@lru_cache(maxsize=1)
def _env():
    import jinja2
    return jinja2.Environment(loader=jinja2.PackageLoader("tracedb.engine.rendering", "templates"),
                              undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True,
                              trim_blocks=True, lstrip_blocks=True)


def terminal_width(stream=None) -> int | None:
    """The width terminal tables fit when `stream` (stdout) is a terminal: $COLUMNS when set, else the
    terminal's size, else 80; None when it is not a terminal (a table piped to a file or to grep keeps whole
    names, as CSV and JSON always do)."""
    import os
    import sys
    stream = stream or sys.stdout
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    if os.environ.get("COLUMNS", "").isdigit() and int(os.environ["COLUMNS"]) > 0:
        return int(os.environ["COLUMNS"])
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):
        return 80


def render(res: Result, fmt: str, width: int | None = None) -> str:
    """The report as text. A terminal table fits `width` when given (the CLI gives terminal_width(), None
    with --wide): engine/rendering/fitting.py; its notes wrap at the width (engine/rendering/names.py)."""
    if fmt not in FORMATS:
        raise ValueError(fmt)
    if fmt in READING and res.sparse:
        res = _without_empty_columns(res)
    if fmt in READING:
        res = _printable(_without_label_sources(res), fmt)
    if fmt == "html":
        from tracedb.engine.rendering import html as html_report
        report_json = _env().get_template("json.j2").render(**_context(res, "json"))
        return html_report.page(res, report_json, [_labelled(res, row) for row in res.rows], _env())
    ctx = _context(res, fmt, width if fmt == "table" else None)
    return _env().get_template(f"{'csv' if fmt in CSV_FORMATS else fmt}.j2").render(**ctx)


def _printable(res: Result, fmt: str) -> Result:
    """The text of a table for people, neutralised (tracedb/shown.py): what could restyle or split a terminal
    line escaped, the trace's text and ours alike (CSV and JSON keep the exact text); in Markdown also
    `&`, `<` and `>` in cells as entities, so a name like `<img onerror=…>` is text in any renderer (the title,
    notes and parameters escape `&` and `<`, enough that no tag can open, and keep their `->`)."""
    md = fmt == "md"

    def cell(v):
        return None if v is None else html.escape(printable(str(v)), quote=False) if md else printable(str(v))

    def text(v):
        v = printable(str(v))
        return v.replace("&", "&amp;").replace("<", "&lt;") if md else v
    return replace(res, columns=[cell(c) for c in res.columns], title=text(res.title),
                   notes=[text(n) for n in res.notes], params={text(k): text(v) for k, v in res.params.items()},
                   rows=[tuple(cell(v) for v in row) for row in res.rows],
                   display={cell(k): cell(v) for k, v in res.display.items()})


def _without_empty_columns(res: Result) -> Result:
    """Human-readable tables leave out category columns with no time in any row (CSV and JSON keep a
    stable column set); a note names what was left out."""
    empty = [i for i, c in enumerate(res.columns)
             if c in res.sparse and all(row[i] is None or not row[i].strip("0.") for row in res.rows)]
    if not empty:
        return res
    return _without(res, empty, ["no time in: " + ", ".join(res.columns[i] for i in empty)])


def _without_label_sources(res: Result) -> Result:
    """A table for people prints a label's source (a unit: prologue, epilogue) in the labelled column and
    leaves the source column out; CSV and JSON keep both."""
    sources = {lab[2] for lab in res.labels.values() if len(lab) > 2} & set(res.columns)
    if not sources:
        return res
    labelled = replace(res, rows=[tuple(_labelled(res, row)) for row in res.rows], labels={})
    return drop_columns(labelled, sources)


def for_people(res: Result, drop=(), short: str = "short_name") -> Result:
    """A table for people: the short name (column `short`) instead of the name (and the `drop` columns left
    out). Where two different names share a short name, each gets the words of its name the others lack
    (demangled), so no two rows read alike (`aiter::add_rmsnorm_quant_kernel <64 8 false>` beside
    `<256 16 true>`)."""
    return told_apart(res, [("name", short)], drop)


def told_apart(res: Result, pairs, drop=()) -> Result:
    """The result with each short-name column of `pairs` ((name column, short-name column)) telling kernels
    apart as for_people does, over every pair at once: one text is one kernel across the whole table (report
    compare --by kernel puts each run's kernel in a column of its own). The name columns and the `drop`
    columns are left out."""
    at = {c: i for i, c in enumerate(res.columns)}
    both = [(at[n], at[s]) for n, s in pairs if n in at and s in at]
    if both:
        from tracedb.engine.rendering.names import distinguished
        better = distinguished([(row[n], row[s]) for row in res.rows for n, s in both])

        def shown(row):
            row = list(row)
            for n, s in both:
                row[s] = better.get((row[n], row[s]), row[s])
            return tuple(row)
        res = replace(res, rows=[shown(row) for row in res.rows])
    return drop_columns(res, [n for n, _ in pairs] + list(drop))


def with_names(res: Result, column: str, short: dict) -> Result:
    """The result with the names of `column` shown as their short names (`short`: name -> short name),
    names that share a short name told apart as for_people does."""
    if not short:
        return res
    from tracedb.engine.rendering.names import distinguished
    at = res.columns.index(column)
    pairs = [(n, s) for n, s in short.items() if s]
    better = distinguished(pairs)
    shown = {n: better.get((n, s), s) for n, s in pairs}
    return replace(res, rows=[row[:at] + (shown.get(row[at], row[at]),) + row[at + 1:] for row in res.rows])


def drop_columns(res: Result, names) -> Result:
    """The result without the named columns (a layout that shows fewer columns than its query gives)."""
    return _without(res, [i for i, c in enumerate(res.columns) if c in set(names)])


def rename_columns(res: Result, names: dict) -> Result:
    """The result with columns renamed (old -> new): a query whose key column means another thing under an
    option (report compare --by stage keys its category column by stage)."""
    new = [names.get(c, c) for c in res.columns]
    return replace(res, columns=new, display={names.get(k, k): v for k, v in res.display.items()},
                   labels={names.get(k, k): v for k, v in res.labels.items()},
                   sparse={names.get(c, c) for c in res.sparse},
                   table=None if res.table is None else res.table.rename_columns(new))


def _without(res: Result, drop: list[int], notes=()) -> Result:
    if res.csv_body is not None:
        raise ValueError("columns of a CSV body written by DuckDB cannot be dropped")
    keep = [i for i in range(len(res.columns)) if i not in drop]
    return Result(report=res.report, columns=[res.columns[i] for i in keep], numeric=[res.numeric[i] for i in keep],
                  rows=[tuple(row[i] for i in keep) for row in res.rows], title=res.title, params=res.params,
                  notes=res.notes + list(notes), display=res.display, labels=res.labels,
                  table=None if res.table is None else res.table.drop_columns([res.columns[i] for i in drop]))


def _context(res: Result, fmt: str, width: int | None = None) -> dict:
    ctx = {"report": res.report, "title": res.title, "params": res.params, "notes": res.notes,
           "columns": res.columns, "row_count": len(res.rows)}
    if fmt in CSV_FORMATS:
        sheet = fmt == "spreadsheet"
        body = res.csv_body if res.csv_body is not None else "".join(
            ",".join(_csv_cell(_inert(c) if sheet and not n else c) for c, n in zip(_labelled(res, row), res.numeric))
            + "\n" for row in res.rows)
        ctx["body"] = body
        ctx["header"] = ",".join(_csv_cell(_inert(c) if sheet else c) for c in res.columns)
    elif fmt == "json":
        ctx["params_json"] = json.dumps(res.params, sort_keys=True)
        ctx["columns_json"] = json.dumps(res.columns)
        ctx["title_json"] = json.dumps(res.title)
        ctx["notes_json"] = json.dumps(res.notes)
        keys = [json.dumps(c) for c in res.columns]
        # a number column's labelled NULL (the prologue's layer) is a string
        ctx["lines"] = ["{" + ", ".join(f"{k}: {_json_cell(v, n and raw is not None)}"
                                        for k, v, raw, n in zip(keys, _labelled(res, row), row, res.numeric)) + "}"
                        for row in res.rows]
    else:
        shown = _displayed(res)
        if fmt == "md":
            ctx["header"] = "| " + " | ".join(_md_cell(c) for c in res.columns) + " |"
            ctx["rule"] = "|" + "|".join("---:" if n else "---" for n in res.numeric) + "|"
            ctx["lines"] = ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in shown]
        else:
            from tabulate import tabulate

            def draw(columns, numeric, rows):
                return tabulate(rows, headers=columns, tablefmt="simple", disable_numparse=True,
                                colalign=["right" if n else "left" for n in numeric])
            columns, numeric, notes = res.columns, res.numeric, list(res.notes)
            if width and shown:
                from tracedb.engine.rendering import fitting
                columns, numeric, shown, more = fitting.fit(columns, numeric, shown, width, draw)
                notes += more
            ctx["note_prefix"] = "note: "
            if width:
                from tracedb.engine.rendering.names import wrapped
                # each note wraps whole, `note: ` on its first line, at most NOTE_LINES lines
                notes = [wrapped("note: ", n, width, max_lines=NOTE_LINES) for n in notes]
                ctx["title"] = wrapped("", res.title, width, max_lines=3)
                ctx["note_prefix"] = ""
            ctx["notes"] = notes

            def table(rows):
                return draw(columns, numeric, rows)
            ctx["table"] = table(shown) if res.rows else ""
    return ctx


def _labelled(res: Result, row) -> list:
    """The row with its labelled NULLs (Result.labels) replaced by their labels."""
    if not res.labels:
        return list(row)
    at = {c: i for i, c in enumerate(res.columns)}
    out = list(row)
    for c, (label, guard, *source) in res.labels.items():
        if c in at and out[at[c]] is None and guard in at and row[at[guard]] is not None:
            out[at[c]] = (row[at[source[0]]] if source and source[0] in at else None) or label
    return out


def _displayed(res: Result):
    labels = [res.display.get(c) for c in res.columns]
    rows = [_labelled(res, row) for row in res.rows] if res.labels else res.rows
    if not any(labels):
        return [["" if v is None else v for v in row] for row in rows]
    return [[(lab or "") if v is None else v for v, lab in zip(row, labels)] for row in rows]


def _csv_cell(v) -> str:
    if v is None:
        return ""
    if any(ch in v for ch in ',"\n\r'):
        return '"' + v.replace('"', '""') + '"'
    return v


def _inert(v):
    """A spreadsheet cell that is text and not a formula (FORMULA_START)."""
    return "'" + v if v and v.startswith(FORMULA_START) else v


def _md_cell(v: str) -> str:
    return v.replace("|", "\\|")     # controls are escaped already (_printable): no CR or LF splits a row


def _json_cell(v, numeric: bool) -> str:
    if v is None:
        return "null"
    return v if numeric else json.dumps(v)


def fetch_file(con, fmt, file, params, name, b, meta, title, display=None, sparse=None, labels=None, **placeholders):
    """Run the last statement of sql/<file>.sql (earlier statements ran already) into a Result, with the
    report's notes (`b.notes`); `params` filtered to the ones the query names."""
    query = sql.file_statements(file, **placeholders)[-1].rstrip().rstrip(";")
    return fetch(con, query, sql.used_params(query, params), name, fmt=fmt, title=title, params=meta,
                 notes=list(b.notes), display=display or {}, sparse=sparse or set(), labels=labels or {})
