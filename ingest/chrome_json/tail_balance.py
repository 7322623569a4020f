"""Cutting the last stretch of the event array so that the two cursors finish their last parts together."""
from tracedb.ingest.chrome_json.config import DEFAULT, JsonIngestConfig
from tracedb.ingest.chrome_json.layout import Layout, boundary_after


def balance_tail(layout: Layout, stretch: tuple[int, int], busy_left: float, rate: float | None,
                 min_bytes: int = 0, config: JsonIngestConfig = DEFAULT) -> list:
    """The last stretch of the event array as one or two ranges, for two cursors: the first range for the
    cursor free now, the second for the one still busy for `busy_left` seconds, cut at an event boundary
    so that both end together when a cursor parses `rate` bytes per second (halves without a rate).
    Neither range is cut shorter than `min_bytes`. With equal parts the last one often ran alone: 0.6 s
    of a 5.8 s ingest of 1 GB; a last part under a row group of rows went through the WAL, and once
    triggered DuckDB's automatic checkpoint in its commit (1.8 s for a 39 MB part)."""
    x, y = stretch
    first = (y - x + busy_left * rate) / 2 if rate else (y - x) / 2
    first = int(max(min_bytes, min(first, y - x - min_bytes)))
    if first >= y - x or y - x < 2 * min_bytes:
        return [(x, y)]
    cut = boundary_after(layout.path, x + first, min(y, x + first + config.chunk))
    return [(x, cut), (cut, y)] if cut is not None and x < cut < y else [(x, y)]
