"""What a Chrome trace's head says of its rank and world size, without ingesting it: what a folder ingest
asks to name and group its ranks (how the file is recognised is chrome_json/reader.py's)."""
import gzip
import zlib

from tracedb.errors import InputError
from tracedb.ingest.sniff import head, is_gzip
from tracedb.ingest.chrome_json.config import DEFAULT, JsonIngestConfig
from tracedb.ingest.chrome_json.facts import run_facts
from tracedb.ingest.chrome_json.layout import object_start


def head_facts(path: str, config: JsonIngestConfig = DEFAULT) -> dict:
    """run_facts of the keys written before the event array (Kineto puts distributedInfo there): the rank
    of a trace without ingesting it. Empty for a bare array or a file that cannot be read."""
    if head(path, 4096)[:1] != b"{":
        return {}
    try:
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as f:
            return run_facts(object_start(f, path, config)[1])
    except (OSError, EOFError, zlib.error, InputError):
        return {}
