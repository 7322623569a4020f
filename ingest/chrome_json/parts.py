"""Cutting the event array into parts: byte ranges that end between two events, of a size chosen from the
density of the events the store keeps, cut from a whole file or from a .gz while it is inflated."""
import re

from tracedb.ingest.chrome_json.config import DEFAULT, JsonIngestConfig
from tracedb.ingest.chrome_json.gunzip import Gunzip
from tracedb.ingest.chrome_json.layout import Layout, boundary_after, find_end

KEPT_EVENT = re.compile(rb'"ph"\s*:\s*"[XM]"')   # complete and metadata events: the rows a part aims at
# Bytes an event boundary (layout.BOUNDARY: `}`, `,`, `{`, a key, `:` and the blanks between them) is
# looked for across two chunks; one with more blanks than this is passed over, and the part ends at the next.
_ACROSS = 1 << 12


def split(layout: Layout, parts: int, config: JsonIngestConfig = DEFAULT) -> list[tuple[int, int]]:
    """Byte ranges of the event array, cut at event boundaries near equal sizes."""
    a, b = layout.start, layout.end
    if parts <= 1 or b - a < config.part_min:
        return [(a, b)]
    cuts = [a]
    for k in range(1, parts):
        target = a + (b - a) * k // parts
        cut = boundary_after(layout.path, target, target + config.chunk)
        if cut is not None and cut < b:
            cuts.append(cut)   # after the '}', the comma starts the next part
    cuts.append(b)
    return [(x, y) for x, y in zip(cuts, cuts[1:]) if y > x]


def stream_ranges(layout: Layout, gz: Gunzip, source: str, size: int, config: JsonIngestConfig):
    """Byte ranges of the event array of a file that `gz` is still writing: a part is cut every
    `size` bytes as soon as the bytes after the cut are there; once the stream has ended, the end is found
    by walking its last events (layout.find_end: layout.end, truncated, the keys after the events) and the
    rest is split as usual."""
    x = layout.start
    while True:
        target = x + size
        limit = target + config.chunk
        cut, look = None, target
        while cut is None and gz.wait_for(limit) >= limit and not gz.done:
            cut = boundary_after(layout.path, look, limit)
            # an event longer than a chunk: look in the next chunk only (from its start, each look read
            # every chunk again: 2 GiB of blanks was ~500 GB of reads), from a little before it, where a
            # boundary across the two may start
            look = max(target, limit - _ACROSS)
            limit += config.chunk
        if cut is None:
            break              # the stream has ended: the rest is cut below
        yield x, cut
        x = cut
    find_end(layout, source, config)
    if layout.end > x:
        rest = Layout(layout.path, x, layout.end, layout.truncated)
        yield from split(rest, max(1, -(-(layout.end - x) // size)), config)


def part_bytes(path: str, start: int, end: int | None, config: JsonIngestConfig = DEFAULT) -> int:
    """Bytes per part for ~config.rows_per_part kept (complete and metadata) events, from their density in
    samples of the event array (its start, middle and end; the start alone when `end` is not known yet),
    between config.part_bytes and twice that. Kineto events with long args (input shapes, strides) halve
    the density of the bench generator's."""
    sample = config.sample_bytes
    spots = [start] if end is None else sorted({start, max(start, (start + end - sample) // 2),
                                                max(start, end - sample)})
    kept = seen = 0
    with open(path, "rb") as f:
        for at in spots:
            f.seek(at)
            block = f.read(sample if end is None else max(0, min(sample, end - at)))
            kept += len(KEPT_EVENT.findall(block))
            seen += len(block)
    if kept == 0:
        return config.part_bytes
    return int(min(2 * config.part_bytes, max(config.part_bytes, config.rows_per_part * seen / kept)))
