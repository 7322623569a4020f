"""How an ingest writes a DuckDB file, store or side store: the checkpoint after appended rows (without DuckDB's
vacuum), the row-group buffer of its writers, a rollback that tolerates a transaction already closed, and the
one line that a failed write (a full disk) ends in."""
import os

import duckdb

from tracedb import sql
from tracedb.errors import StoreError

# Row groups DuckDB buffers before writing them, in a worker's side store and in a merge (DuckDB's default: a
# fifth of its memory limit over its threads, GBs here). With 16 MB, a 128-rank job's largest worker
# peaked at 143-147 MB instead of 168-172, the merging process at 196-199 MB instead of 238, at the
# same speed.
ROW_GROUP_BUFFER = "16MB"


def checkpoint_appended(con):
    """Write the run's rows to the file now, without DuckDB's vacuum: at the default checkpoint (on close)
    it merges the partly filled row groups that each committed part ends with, which rewrote ~11 MB and
    took 0.4 s after a 1 GB trace for no gain in reading. A checkpoint that cannot run now (another
    transaction of an API user is open) is left to DuckDB's next one."""
    before = sql.run(con, "parsing_setting", {"s": "max_vacuum_tasks"}).fetchone()[0]   # an API user's own
    try:
        con.execute("SET max_vacuum_tasks = 0")
        con.execute("CHECKPOINT")
    except duckdb.Error:
        pass
    finally:
        con.execute("SET max_vacuum_tasks = $v", {"v": before})


def _write_failed(path, e) -> StoreError:
    return StoreError(f"{os.path.dirname(os.path.abspath(path)) or '.'}: cannot write the ingest's data: "
                      f"{str(e).strip().splitlines()[0]}; the store is unchanged")


def _rollback(con):
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass  # the transaction may already be closed by the error
