"""The Python API behind `tracedb.report`: keyword names as on the command line, a result object that
gives the terminal table, any text format, a typed Arrow table or a pandas DataFrame, and the notes.

    import tracedb
    con = tracedb.connect("runs.duckdb", read_only=True)
    r = tracedb.report(con, "layers", run="qwen3-decode", profile="qwen3-npu", layers=28, pass_="steady")
    r.arrow()          # pyarrow.Table: exact decimal µs, integer counts
    r.df()             # pandas.DataFrame (pandas installed)
    r.notes            # what the report says about its window, pass split, anchor
    print(r)           # the terminal table; r.text("md"), r.text("csv"), r.text("json")
"""
import inspect

from tracedb.engine.reports import declared
from tracedb.engine.reports.declaration import PROFILED, RUNS, SEGMENTED
from tracedb.engine.rendering import render
from tracedb.errors import UsageError

# Segmentation options every report with layers takes, named as on the command line (pass_: `pass` is a
# Python keyword), and what the engine calls them.
SEGMENT = {"run": "runs", "tag": "tags", **{o.key: o.target for o in declared.SEGMENTATION}}
SELECTION = {SEGMENTED: SEGMENT, PROFILED: {"run": "runs", "tag": "tags", "profile": "profile"},
             RUNS: {"run": "runs", "tag": "tags"}}
# Per report: its options (CLI name -> engine name), from its declaration (engine/reports/catalog/).
OPTIONS = {r.name: {**SELECTION[r.selection], **{o.key: o.target for o in r.options}} for r in declared.REPORTS}


class Report:
    """One report's result: str() is the terminal table; .text(fmt) any of table, md, csv, json, html; .arrow()
    a pyarrow Table with typed columns; .df() a pandas DataFrame; .notes, .columns, .title, .params.
    `compare` gives its tidy rows (one per key and run, as its CSV), not the side-by-side terminal layout."""

    def __init__(self, result):
        self._result = result

    @property
    def notes(self) -> list[str]:
        return list(self._result.notes)

    @property
    def columns(self) -> list[str]:
        return list(self._result.columns)

    @property
    def title(self) -> str:
        return self._result.title

    @property
    def params(self) -> dict:
        return dict(self._result.params)

    def text(self, fmt: str = "table") -> str:
        """The report in format table, md, csv, json or html (as `tracedb report ... --format fmt` prints it)."""
        if fmt not in render.FORMATS:
            raise UsageError(f"format {fmt!r}: expected one of {', '.join(render.FORMATS)}")
        return render.render(self._result, fmt)

    def arrow(self):
        """The rows as a pyarrow Table: times as exact DECIMAL µs, counts as integers, names as strings."""
        return self._result.table

    def df(self):
        """The rows as a pandas DataFrame (needs pandas; .arrow() needs nothing more)."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise UsageError("Report.df() needs pandas (pip install pandas); Report.arrow() gives a pyarrow "
                             "Table without it") from None
        return self._result.table.to_pandas()

    def __str__(self):
        return self.text("table")

    def __repr__(self):
        return f"<tracedb.Report {self._result.report}: {len(self._result.rows)} rows, {len(self.columns)} columns>"

    def _repr_markdown_(self):
        return self.text("md")


def report(con, name: str, **options) -> Report:
    """Run report `name` ({reports}) over a store, its options defaulting as on the command line.

    `con` is a connection from tracedb.connect, or a store path (opened read-only for the call). Options
    are the command line's, with underscores: run= (a name, GLOB or list), tag=, profile=, anchor=,
    layers=, blocks_per_layer=, layer_offset=, window=, pass_= (`pass` is a Python keyword), pass_gap=,
    config=, and each report's own (layer=, by=, top=, match=, ...). An option the report does not take is
    a UsageError naming the ones it does."""
    from tracedb.engine.reports import registry as reports
    decl = declared.get(name)
    if decl is None:
        raise UsageError(f"unknown report {name!r}; reports: {', '.join(declared.NAMES)}")
    allowed = OPTIONS[name]
    unknown = [k for k in options if k not in allowed]
    if unknown:
        raise UsageError(f"report {name}: unknown option{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(map(repr, unknown))}; it takes {', '.join(sorted(allowed))}")
    kw = {}
    for key, value in options.items():
        own = decl.option(key)
        if isinstance(value, (str, int)) and (key in ("run", "tag") or (own and own.repeatable)):
            value = [value]   # one run, tag or timeline layer given alone
        kw[allowed[key]] = value
    kw = reports.check_options(name, kw)
    opened = isinstance(con, str)
    if opened:
        from tracedb.engine.store.connect import open_store
        con = open_store(con, read_only=True, confined=True)
    token = render.ARROW.set(True)
    try:
        # built as for JSON: rows kept (not a CSV body), and compare's tidy rows (a row per key and run); the
        # options not given take their declared defaults there, as on the command line
        return Report(reports.build_report(con, name, fmt="json", **kw))
    finally:
        render.ARROW.reset(token)
        if opened:
            con.close()


report.__doc__ = report.__doc__.replace("{reports}", ", ".join(declared.NAMES))


def cli_options(command) -> set[str]:
    """The option names of a `tracedb report` command's function (for the test that keeps both in step)."""
    return {p for p in inspect.signature(command).parameters if p not in ("db", "format", "output", "wide", "open_")}
