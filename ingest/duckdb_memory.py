"""DuckDB's memory_limit lowered while the parts go in, and set back after; sizes as DuckDB writes them."""
import contextlib
import re

import duckdb

from tracedb import sql

_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTP]?i?B|bytes)?\s*", re.IGNORECASE)


@contextlib.contextmanager
def memory_cap(con, cap: int):
    """DuckDB's memory_limit lowered to `cap` bytes for the block, then RESET to the default, or set back
    to an API user's own limit (to the 0.1 GiB current_setting shows); a limit under `cap` is kept."""
    setting = {"s": "memory_limit"}
    before = sql.run(con, "parsing_setting", setting).fetchall()[0][0]
    lower = size_bytes(before) > cap
    if lower:
        con.execute("SET memory_limit = $v", {"v": f"{cap}B"})
    try:
        yield
    finally:
        if lower:
            try:
                con.execute("RESET memory_limit")
                if sql.run(con, "parsing_setting", setting).fetchall()[0][0] != before:
                    con.execute("SET memory_limit = $v", {"v": before})
            except duckdb.Error:
                pass   # never hide the error that ended the block; the cap only slows a later big query


def size_bytes(text: str) -> float:
    """Bytes of a DuckDB size setting as current_setting shows it ('18.8 GiB', '381.4 MiB', '400MB', '0 bytes');
    unreadable text counts as no limit."""
    m = _SIZE.fullmatch(str(text))
    if not m:
        return float("inf")
    unit = (m.group(2) or "B").upper()
    power = "BKMGTP".index(unit[0]) if unit != "BYTES" else 0
    return float(m.group(1)) * (1024 if "I" in unit else 1000) ** power
