"""`tracedb sql`: ad-hoc SQL over the store, read-only unless --write, and confined to the store."""
from typing import Annotated, List, Optional

import typer

from tracedb.cli.common import DbOpt, FormatOpt, OutOpt, check_format, check_not_the_store, emit, one_line_errors


@one_line_errors
def sql(
    query: Annotated[str, typer.Argument(help="SQL; the result of the last statement is printed.")],
    db: DbOpt = None,
    write: Annotated[bool, typer.Option(
        "--write", help="Open the store writable (default: read-only); COPY and EXPORT need it too.")] = False,
    allow_read: Annotated[Optional[List[str]], typer.Option(
        "--allow-read", help="A file or folder the SQL may read (repeatable), e.g. to join a CSV; nothing but the "
                             "store is reachable otherwise.")] = None,
    format: FormatOpt = "table",
    output: OutOpt = None,
):
    """Run SQL on the store: tables runs, trace_events; views kernels_raw, kernels, host_events, kernel_extras \
(docs/schema.md). The SQL reaches the store only: no other file (unless --allow-read), no extension, no setting."""
    from tracedb.engine.reports.adhoc import run_sql
    from tracedb.engine.store.connect import open_store
    check_format(format)
    check_not_the_store(output, db)
    con = open_store(db, read_only=not write)
    try:
        emit(run_sql(con, query, format, write=write, allow_read=allow_read or ()), output)
    finally:
        con.close()
