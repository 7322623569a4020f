"""Telling a Chrome trace (plain or gzip) from other files, and reading the rank from its head, without
ingesting it: what the source resolver asks before it picks a format."""
import gzip
import zlib

from tracedb.errors import InputError
from tracedb.ingest.sniff import head, is_gzip
from tracedb.ingest.chrome_json.config import DEFAULT, JsonIngestConfig
from tracedb.ingest.chrome_json.facts import run_facts
from tracedb.ingest.chrome_json.layout import object_start


def looks_like_json(path: str) -> bool:
    """First non-blank byte is '{' or '[' (after gunzip): the sniffer's test for this format."""
    return head(path, 4096)[:1] in (b"{", b"[")


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
