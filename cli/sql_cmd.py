"""`tracedb sql`: ad-hoc SQL over the store, read-only unless --write."""
from typing import Annotated

import typer

from tracedb.cli.common import DbOpt, FormatOpt, OutOpt, check_format, check_not_the_store, emit, one_line_errors


@one_line_errors
def sql(
    query: Annotated[str, typer.Argument(help="SQL; the result of the last statement is printed.")],
    db: DbOpt = None,
    write: Annotated[bool, typer.Option("--write", help="Open the store writable (default: read-only).")] = False,
    format: FormatOpt = "table",
    output: OutOpt = None,
):
    """Run SQL on the store: tables runs, kernels_raw, trace_events; views kernels, host_events, kernel_extras (docs/schema.md)."""
    from tracedb.engine.reports.adhoc import run_sql
    from tracedb.engine.store.connect import open_store
    check_format(format)
    check_not_the_store(output, db)
    con = open_store(db, read_only=not write)
    try:
        emit(run_sql(con, query, format, write=write), output)
    finally:
        con.close()
