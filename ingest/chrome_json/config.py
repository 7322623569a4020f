"""The tunables of the Chrome JSON ingest: one frozen object, handed from `load` to every step that reads one.

The defaults are measured choices (the numbers below); tests shrink them with
`dataclasses.replace(DEFAULT, part_min=0, ...)` so that a trace of a few KB is cut into parts and inflated
in small steps like a trace of GBs."""
from dataclasses import dataclass


@dataclass(frozen=True)
class JsonIngestConfig:
    # Bytes read at a time: the head of the file, each step of the read of the keys before `"traceEvents":
    # [` and after the array (top_keys.META_MAX_BYTES in all), the window after a cut in which an event
    # boundary is looked for (a cut made while a .gz inflates looks a window further for each event longer
    # than that), and a part's bytes when the kernel cannot copy them.
    chunk: int = 1 << 22
    # Inflated before the head of a .gz is read (Kineto's keys before the events: a few KB).
    head_bytes: int = 4 << 20
    # Bytes after the array's start in which ts_kind looks at the first ts.
    ts_sniff: int = 1 << 16
    # No longer read: the array's end is found by walking its last events (layout.find_end), whatever the
    # size of the keys after it. Kept so that callers that set it still work.
    tails: tuple[int, ...] = (1 << 16, 1 << 20)
    # Below this an array is parsed as one part.
    part_min: int = 16 << 20
    # The smallest part, and half the largest: one INSERT, parsed by one core.
    part_bytes: int = 64 << 20
    # Kept events a part aims at: more than a row group (122,880 rows), which DuckDB writes straight to
    # the file; a smaller insert goes through the WAL and is written again at the checkpoint (32 MB parts
    # of a 1 GB trace: +2 CPU-s).
    rows_per_part: int = 150_000
    # Bytes of each sample (start, middle, end of the array) in which the density of kept events is
    # counted; a .gz is inflated this far past the array's start before its part size is chosen.
    sample_bytes: int = 1 << 20
    # Parts inserted at once, each on its own cursor (DuckDB reads one file on one thread; two cursors
    # keep both cores of a small machine busy); never more than the connection's DuckDB threads.
    inserters: int = 2
    # Part files written before a cursor is free for them (disk: inserters + ahead parts).
    ahead: int = 1
    # DuckDB's memory_limit while the parts go in. DuckDB keeps the blocks it has written in its buffer
    # pool until memory is short, so without a cap the peak RSS grew with the store: 0.36-0.39 GB for
    # 1 GB of JSON, 0.46-0.54 GB for 3 GB. Two parts in flight need ~150-250 MB (with 150 MB DuckDB
    # spilled 4 MB; with 300 MB nothing).
    memory_cap: int = 400 << 20
    # Compressed bytes of a .gz read at a time.
    gunzip_in_block: int = 1 << 20
    # Most bytes inflated per call, so a block of a 20:1 stream stays small in memory (with 16 MB, peak
    # RSS for 1 GB reached 0.57-0.62 GB; with 2 MB, 0.55 GB).
    gunzip_out_cap: int = 2 << 20


DEFAULT = JsonIngestConfig()
