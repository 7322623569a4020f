"""`tracedb ingest`: load trace files or profiler folders into the store, one run each."""
from typing import Annotated, List, Optional

import typer

from tracedb.cli.common import DbOpt, fail, one_line_errors


@one_line_errors
def ingest(
    paths: Annotated[List[str], typer.Argument(help="Trace files or profiler output folders (*_ascend_pt, ASCEND_PROFILER_OUTPUT).")],
    db: DbOpt = None,
    name: Annotated[Optional[str], typer.Option("--name", "-n", help="Run name (default: folder or file name).")] = None,
    tag: Annotated[Optional[List[str]], typer.Option("--tag", "-t", help="KEY=VALUE, repeatable.")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Replace a run with the same name or identical content.")] = False,
    core_rule: Annotated[Optional[List[str]], typer.Option("--core-rule", help="Per-core traces: REGEX=CLASS maps thread names to a core class, before the built-in AIC/AIV rules; repeatable.")] = None,
):
    """Ingest traces: each path becomes one run, in one transaction (all or nothing)."""
    from tracedb.engine.ingest import ingest_path
    from tracedb.engine.store import open_store
    if name and len(paths) > 1:
        fail("--name names one run; give one path, or omit --name to name runs after their files", 2)
    con = open_store(db)
    try:
        for p in paths:
            typer.echo(ingest_path(con, p, name=name, tags=tag, replace=replace, core_rules=core_rule).summary())
    finally:
        con.close()
