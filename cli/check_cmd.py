"""`tracedb check`: reports against golden CSV files, for CI regression gates."""
from typing import Annotated

import typer

from tracedb.cli.common import one_line_errors


@one_line_errors
def check(
    config: Annotated[str, typer.Option("--config", "-c", help="TOML file of [[check]] entries (report, args, golden, tolerances).")],
    update: Annotated[bool, typer.Option("--update", help="Rewrite the golden files from the current reports.")] = False,
):
    """Render the listed reports and compare each with its golden CSV: exit 0 when all match, 1 on a regression."""
    from tracedb.engine.check import run_checks
    failed = 0
    for o in run_checks(config, update=update):
        if update:
            typer.echo(f"updated  {o.check.name} ({o.rows} rows) -> {o.check.golden}")
            continue
        typer.echo(f"{'PASS' if o.ok else 'FAIL'}  {o.check.name} ({o.rows} rows)")
        for p in o.problems[:50]:
            typer.echo(f"      {p}")
        if len(o.problems) > 50:
            typer.echo(f"      ... and {len(o.problems) - 50} more")
        failed += not o.ok
    if failed:
        raise typer.Exit(1)
