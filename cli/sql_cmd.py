"""`tracedb sql`: ad-hoc SQL over the store, read-only unless --write, and confined to the store."""
from typing import Annotated, List, Optional

import typer

from tracedb.cli.common import (DbOpt, FormatOpt, OutOpt, check_format, check_not_the_store, emit, one_line_errors,
                                writable_store)


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
    from tracedb.engine.admin.adhoc import run_sql
    from tracedb.engine.store import sandbox
    from tracedb.engine.store.connect import open_store, own_views
    check_format(format)
    check_not_the_store(output, db)
    # --write needs the store's folder writable (DuckDB keeps its log beside the store): said in one line
    con = open_store(writable_store(db) if write else db, read_only=not write)
    try:
        sandbox.confine(con, allow_read or ())
        if not write:
            # the views of tracedb, not the store's own (a file someone else made may hold any SQL in a view);
            # --write keeps the store's, to be changed or dropped
            own_views(con)
        emit(run_sql(con if write else sandbox.Checked(con), query, format, write=write,
                     allow_read=allow_read or ()), output)
    finally:
        con.close()
