"""`tracedb report ...`: one command per report, made from its declaration (engine/reports/catalog/):
the run selection, the segmentation options of cli/options.py where the report segments, and its own options."""
import inspect
from typing import Annotated

import typer

from tracedb.cli.common import DbOpt, OutOpt, check_format, check_not_the_store, emit, fail, one_line, one_line_errors
from tracedb.cli.options import ProfileOpt, RunOpt, TagOpt, annotated, segmentation_options
from tracedb.engine.reports import declared
from tracedb.engine.reports.declaration import PROFILED, SEGMENTED

app = typer.Typer(help="Reports over one or more runs, segmented into passes and layers by anchor kernels.",
                  no_args_is_help=True)

FmtOpt = Annotated[str, typer.Option(
    "--format", "-f", help="table, md, csv, json, html (a page with a chart; kernels: also compute-flow) or "
                           "spreadsheet (CSV whose text cells never start a formula).")]
WideOpt = Annotated[bool, typer.Option(
    "--wide", help="In a terminal, print the table whole: no column left out, no name or note shortened "
                   "(piped output is never shortened).")]
OpenOpt = Annotated[bool, typer.Option(
    "--open", help="Show the HTML page in the default browser (implies --format html; without -o it is written to "
                   "a temporary file, whose path is printed).")]


def _format(fmt: str, show: bool) -> str:
    """The checked --format; --open means the HTML page. HTML needs the `html` extra: said before any work."""
    from tracedb.engine.rendering import render
    if show and fmt == "table":
        fmt = "html"
    check_format(fmt, render.FORMATS)
    if show and fmt != "html":
        fail(f"--open shows the HTML page; --format {fmt} cannot be opened "
             "(use --format html or leave --format out)", 2)
    if fmt == "html":
        from tracedb.engine.rendering import html as html_report
        html_report.vl_convert()
    return fmt


def _run(name, db, fmt, output, run, tag, show=False, wide=False, **kw):
    from tracedb.engine.rendering import render
    from tracedb.engine.reports import registry as reports
    from tracedb.engine.store.connect import open_store
    check_not_the_store(output, db)
    kw = reports.check_options(name, kw)
    con = open_store(db, read_only=True, confined=True)
    try:
        res = reports.build_report(con, name, fmt=fmt, runs=run or [], tags=tag or [], **kw)
    finally:
        con.close()
    if fmt in ("csv", "spreadsheet"):   # CSV carries data only: notes (fallback anchor, misaligned passes) go to stderr
        for note in res.notes:
            typer.echo(f"note: {one_line(note)}", err=True)
    text = render.render(res, fmt, width=None if output or wide else render.terminal_width())
    if show and not output:
        _show(name, text)
        return
    emit(text, output)
    from tracedb.engine.rendering.output import is_stream
    if show and not is_stream(output):
        _open(output)


def _show(name, text):
    """--open without -o: the page goes to a temporary file, whose path is printed (on stdout), then opened."""
    import os
    import tempfile

    from tracedb.engine.rendering.output import write_output
    fd, path = tempfile.mkstemp(prefix=f"tracedb-{name}-", suffix=".html")
    os.close(fd)
    write_output(text, path)
    typer.echo(path)
    _open(path)


def _open(path):
    """Open the page in the default browser, unless there is no display to show it on (then the printed
    path is all): a Linux or BSD session without DISPLAY or WAYLAND_DISPLAY, where Python's webbrowser would
    fall back to a text browser in the terminal."""
    import os
    import pathlib
    import sys
    import webbrowser
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return
    if not webbrowser.open(pathlib.Path(path).resolve().as_uri()):
        typer.echo(f"note: no browser could be started; open {one_line(path)}", err=True)


def _parameters(decl) -> list[inspect.Parameter]:
    """The command's parameters in --help order: --run, --tag, --db, --profile where the report takes only
    that of the selection options (the segmentation options are added by segmentation_options), its own
    declared options, then --format, --output, --wide, --open."""
    def param(name, default, annotation=inspect.Parameter.empty):
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)

    params = [param("run", None, RunOpt), param("tag", None, TagOpt), param("db", None, DbOpt)]
    if decl.selection == PROFILED:
        params.append(param("profile", None, ProfileOpt))
    params += [param(o.key, o.default, annotated(o)) for o in decl.options]
    params += [param("format", "table", FmtOpt), param("output", None, OutOpt), param("wide", False, WideOpt),
               param("open_", False, OpenOpt)]
    return params + ([param("seg", None)] if decl.selection == SEGMENTED else [])


def _command(decl):
    """The `tracedb report NAME` command of a declared report: its options become the engine's keywords."""
    def command(run=None, tag=None, db=None, format="table", output=None, wide=False, open_=False, seg=None, **own):
        if decl.name == "kernels" and format == "compute-flow":
            format, own["flow"] = "table", True
        engine = {(decl.option(k).target if decl.option(k) else k): v for k, v in own.items()}
        _run(decl.name, db, _format(format, open_), output, run, tag, show=open_, wide=wide, **(seg or {}), **engine)

    params = _parameters(decl)
    command.__name__ = command.__qualname__ = decl.name
    command.__signature__ = inspect.Signature(params)
    command.__annotations__ = {p.name: p.annotation for p in params if p.annotation is not inspect.Parameter.empty}
    if decl.selection == SEGMENTED:
        command = segmentation_options(command)
    return app.command(name=decl.name, help=decl.help)(one_line_errors(command))


# one command per declared report, in the declarations' order (as `tracedb report --help` lists them)
COMMANDS = {decl.name: _command(decl) for decl in declared.REPORTS}
