"""`tracedb check`: reports against golden CSV files, for CI regression gates."""
import contextlib
import io
from typing import Annotated

import typer

from tracedb.cli.common import one_line, one_line_errors
from tracedb.cli.options import non_empty
from tracedb.errors import InputError, UsageError


def _render(check) -> str:
    """A check's report as CSV, from the `tracedb report` command itself with the check's options."""
    from tracedb.cli.report_cmd import app
    from tracedb.engine.gate.check import csv_args
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = app(csv_args(check), standalone_mode=False)
        except SystemExit as e:
            code = e.code
        except Exception as e:   # click usage errors
            raise UsageError(f"check '{check.name}': {e}") from None
    if code not in (None, 0):
        why = err.getvalue().strip().removeprefix("error: ") or f"exit {code}"
        raise InputError(f"check '{check.name}': {why}")
    return out.getvalue()


@one_line_errors
def check(
    config: Annotated[str, typer.Option(
        "--config", "-c", help="TOML file of \\[\\[check]] entries (report, args, golden, tolerances); relative paths "
                               "in it (golden, --db, --config, a --profile .toml) are relative to the file.",
        callback=non_empty("a TOML file"))],
    update: Annotated[bool, typer.Option(
        "--update", help="Rewrite the golden files from the current reports.")] = False,
):
    """Render the listed reports and compare each with its golden CSV: exit 0 when all match, 1 on a regression."""
    from tracedb.engine.gate.check import run_checks
    failed = 0
    # names, paths and cells come from the config and the reports: a control character in them (an ESC in a
    # check's name, a kernel name) is shown escaped, never sent to the terminal
    for o in run_checks(config, _render, update=update):
        if update:
            typer.echo(one_line(f"updated  {o.check.name} ({o.rows} rows) -> {o.check.golden}"))
            continue
        typer.echo(one_line(f"{'PASS' if o.ok else 'FAIL'}  {o.check.name} ({o.rows} rows)"))
        for p in o.problems[:50]:
            typer.echo(one_line(f"      {p}"))
        if len(o.problems) > 50:
            typer.echo(f"      ... and {len(o.problems) - 50} more")
        failed += not o.ok
    if failed:
        raise typer.Exit(1)
