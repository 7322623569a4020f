"""Chrome trace-event JSON (PyTorch profiler / Kineto, Ascend trace_view.json) -> events in the store.

The file is never loaded as a whole Python object. Its `traceEvents` array is located from the two ends
of the file (the keys before it read one by one, its end found by walking its last few events with
`json`, the keys after it read with depth and size limits), cut into parts at event boundaries, and each
part is handed to DuckDB's JSON reader with an explicit schema, so parsing runs in C++ on every core with
memory bounded by DuckDB's buffers (the obvious `read_json(format='unstructured') + unnest` took 71 s and
5.3 GB for 1 GB; `json.load` 41 s, 5.4 GB). Every error is one line naming the user's file and, where it
applies, the byte offset in it (docs/formats.md, "What JSON input is refused").

    config         JsonIngestConfig, the tunables (DEFAULT), passed down from `load`
    sniff          its rank and world size from its head, without ingesting it
    gunzip         a .gz inflated on its own thread while its parts are parsed
    jsonscan       JSON read at byte offsets: an array's values walked, a value's end found within limits
    layout         where the event array lies, where events meet, how the file ends (complete, cut, or
                   followed by other data), what the keys around it say (checked for type and range)
    parts          the array cut into parts of a size chosen from the events' density
    tail_balance   the last parts cut so that both cursors end together
    part_files     each part copied into a JSON file of its own, in a work folder beside the store
    part_errors    DuckDB's error on a part told as the user's file, byte offset, event and field
    schema         the reader's columns and args keys, and how ts is written and read
    inserters      parts inserted on two cursors at once, each committed on its own
    loader         `load`: the steps above for one file, the check of its events, its run facts
    together       a folder ingest's small plain traces read by one statement, each its own run
    finishing      `finish`: tracks, tasks and cores, inside the run's final transaction
    facts          what the keys around the events say of the run, checked for type and range
    reader         the format's entry in the reader registry (ingest/formats.py): how a file is recognised
"""
from tracedb.ingest.chrome_json.config import DEFAULT, JsonIngestConfig
from tracedb.ingest.duckdb_memory import memory_cap, size_bytes
from tracedb.ingest.chrome_json.finishing import finish
from tracedb.ingest.chrome_json.gunzip import Gunzip
from tracedb.ingest.chrome_json.layout import locate
from tracedb.ingest.chrome_json.loader import RetrySafely, load
from tracedb.ingest.chrome_json.parts import part_bytes, split
from tracedb.ingest.chrome_json.reader import READER
from tracedb.ingest.chrome_json.schema import NPU_ARGS, args_keys
from tracedb.ingest.chrome_json.sniff import head_facts, is_gzip
from tracedb.ingest.chrome_json.tail_balance import balance_tail

__all__ = ["DEFAULT", "JsonIngestConfig", "memory_cap", "size_bytes", "finish", "Gunzip", "locate",
           "RetrySafely", "load", "part_bytes", "split", "NPU_ARGS", "args_keys", "head_facts", "is_gzip", "READER",
           "balance_tail"]
