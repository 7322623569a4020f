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

from tracedb.engine.rendering import render
from tracedb.errors import UsageError

# Segmentation options every report with layers takes, named as on the command line (pass_: `pass` is a
# Python keyword), and what the engine calls them.
SEGMENT = {"run": "runs", "tag": "tags", "profile": "profile", "anchor": "anchor", "layers": "layers",
           "blocks_per_layer": "blocks_per_layer", "layer_offset": "layer_offset", "window": "window",
           "pass_gap": "pass_gap", "config": "config", "phase": "phase"}
# Per report: its own options (CLI name -> engine name), on top of SEGMENT where the report segments.
OPTIONS = {
    "passes": {**SEGMENT, "absolute": "absolute"},
    "layers": {**SEGMENT, "pass_": "pass_spec", "absolute": "absolute", "clusters": "clusters"},
    "kernels": {**SEGMENT, "pass_": "pass_spec", "absolute": "absolute", "layer": "layer",
                "compare_layer": "compare_layer", "flow": "flow", "top": "top", "order": "order"},
    "timeline": {**SEGMENT, "pass_": "pass_spec", "absolute": "absolute", "layer": "timeline_layers"},
    "modules": {**SEGMENT, "pass_": "pass_spec", "by": "by", "module_path": "module_path"},
    "compare": {**SEGMENT, "pass_": "pass_spec", "by": "by", "layer": "layer", "module_path": "module_path"},
    "breakdown": {**SEGMENT, "pass_": "pass_spec", "by": "by"},
    "launches": {**SEGMENT, "pass_": "pass_spec", "by": "by"},
    "ranks": {**SEGMENT, "pass_": "pass_spec", "per_rank": "per_rank", "stragglers": "stragglers", "no_align": "no_align"},
    "collectives": {"run": "runs", "tag": "tags", "profile": "profile", "per_rank": "per_rank", "no_align": "no_align"},
    "blame": {**SEGMENT, "pass_": "pass_spec", "by": "by", "no_align": "no_align"},
    "cores": {"run": "runs", "tag": "tags", "match": "match", "from_": "from_us", "to": "to_us",
              "per_core": "per_core", "scheduler": "scheduler", "stack": "stack", "top_gaps": "top_gaps"},
}
# Defaults that differ from the engine's, as the CLI sets them.
DEFAULTS = {"kernels": {"pass_spec": "auto"}, "compare": {"by": "layer"}, "breakdown": {"by": "run"},
            "launches": {"by": "kernel"}}


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
    """Run report `name` (passes, layers, kernels, timeline, modules, cores, compare, breakdown, launches) over a store.

    `con` is a connection from tracedb.connect, or a store path (opened read-only for the call). Options
    are the command line's, with underscores: run= (a name, GLOB or list), tag=, profile=, anchor=,
    layers=, blocks_per_layer=, layer_offset=, window=, pass_= (`pass` is a Python keyword), pass_gap=,
    config=, and each report's own (layer=, by=, top=, match=, ...). An option the report does not take is
    a UsageError naming the ones it does."""
    from tracedb.engine.reports import registry as reports
    if name not in OPTIONS:
        raise UsageError(f"unknown report {name!r}; reports: {', '.join(OPTIONS)}")
    allowed = OPTIONS[name]
    unknown = [k for k in options if k not in allowed]
    if unknown:
        raise UsageError(f"report {name}: unknown option{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(map(repr, unknown))}; it takes {', '.join(sorted(allowed))}")
    kw = dict(DEFAULTS.get(name, {}))
    for key, value in options.items():
        if key in ("run", "tag", "layer") and isinstance(value, (str, int)) and not (name == "compare" and key == "layer"):
            value = [value] if key != "layer" or name == "timeline" else value
        kw[allowed[key]] = value
    own = isinstance(con, str)
    if own:
        from tracedb.engine.store.connect import open_store
        con = open_store(con, read_only=True)
    token = render.ARROW.set(True)
    try:
        # built as for JSON: rows kept (not a CSV body), and compare's tidy rows (a row per key and run)
        return Report(reports.build_report(con, name, fmt="json", **kw))
    finally:
        render.ARROW.reset(token)
        if own:
            con.close()


def cli_options(command) -> set[str]:
    """The option names of a `tracedb report` command's function (for the test that keeps both in step)."""
    return {p for p in inspect.signature(command).parameters if p not in ("db", "format", "output", "open_")}
