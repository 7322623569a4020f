"""Ad-hoc SQL (`tracedb sql`): any statement, rendered like a report.

Unlike reports, the query is the user's own text, so results are formatted here in Python: Decimal and
int print exactly, floats with repr, NULL as an empty cell (null in JSON)."""
import contextlib
import decimal

import duckdb

from tracedb import sql
from tracedb.engine.rendering import render
from tracedb.engine.store import sandbox
from tracedb.errors import UsageError


def run_sql(con, query: str, fmt: str, write: bool = False, allow_read=()) -> str:
    """Run the text (any number of statements) and render the last one's result, on `con` confined to the
    store and `allow_read` (engine/store/sandbox.py). With `write` the whole text runs in one transaction, so
    a text that fails half-way changes nothing (a text that opens its own transaction is refused by DuckDB
    with one error line)."""
    sandbox.confine(con, allow_read)
    sandbox.refuse_file_writers(con, query, write)
    if write:
        con.execute("BEGIN")
    try:
        out = _run(con, query, fmt)
    except BaseException:
        if write:
            with contextlib.suppress(duckdb.Error):
                con.execute("ROLLBACK")
        raise
    if write:
        try:
            con.execute("COMMIT")
        except duckdb.Error as e:
            raise UsageError(f"sql: {str(e).strip().splitlines()[0]}") from None
    return out


def _run(con, query: str, fmt: str) -> str:
    try:
        cur = con.execute(query)
        if cur is None:   # DuckDB returns no cursor for text with no statement: '', blanks, comments, ';'
            raise UsageError("sql: no statement in the text; expected SQL such as 'SELECT * FROM runs'")
        desc = cur.description
        rows = cur.fetchall() if desc else []
    except duckdb.Error as e:
        msg = str(e).strip().splitlines()[0]
        if "read-only" in msg.lower() or "read only" in msg.lower():
            msg += " (tracedb sql opens the store read-only; pass --write to change it)"
        elif "file system operations are disabled" in msg or "external extensions is disabled" in msg:
            msg = msg.split(" - ")[0] + " (tracedb sql reads the store only; name other files with --allow-read PATH)"
        elif "the configuration has been locked" in msg:
            msg = msg.split(" - ")[0] + " (tracedb sql does not change settings; use the duckdb CLI on the file)"
        raise UsageError(f"sql: {msg}") from None
    if not desc:
        return "ok\n" if fmt == "table" else ""
    res = render.Result(report="sql", columns=[d[0] for d in desc], numeric=render.numeric_columns(desc),
                        rows=[tuple(_cell(v) for v in row) for row in rows], notes=_unsegmented(con, query, rows))
    return render.render(res, fmt)


def _unsegmented(con, query: str, rows) -> list[str]:
    """A note when a query of the stored segmentation (kernel_layers, kernel_segments) found nothing because
    no run has been segmented yet."""
    if rows or not any(v in query.lower() for v in ("kernel_layers", "kernel_segments")):
        return []
    try:
        stored = sql.run(con, "adhoc_segments_stored").fetchone()[0]
    except duckdb.Error:
        return []
    if stored:
        return []
    from tracedb.engine.segmentation.at_ingest import AUTO_MAX_KERNELS
    return ["kernel_layers is empty until runs are segmented: run `tracedb segment --run NAME` (with the options "
            f"of `report layers`) first; an ingest does it for up to {AUTO_MAX_KERNELS:,} kernels unless --no-segment"]


def _cell(v):
    if v is None:
        return None
    if isinstance(v, (list, tuple)):   # printed as DuckDB prints them: [a, b], NULL inside
        return "[" + ", ".join("NULL" if x is None else _cell(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_cell(k)}={'NULL' if x is None else _cell(x)}" for k, x in v.items()) + "}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, decimal.Decimal, str)):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    return str(v)
