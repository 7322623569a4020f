"""What a file is, from its first bytes, without ingesting it: gzip or not, its first meaningful bytes, and
a short name from its file name. Shared by the source resolver and the readers."""
import gzip
import os
import zlib

# Before the first meaningful byte a producer may write a UTF-8 byte order mark and blanks.
LEADING = b"\xef\xbb\xbf \t\r\n"
# Suffixes a run name leaves out, outermost first: compression, format, a writer's temp suffix, and
# Kineto's `.pt.trace` (worker0.1623143089861.pt.trace.json.gz -> worker0.1623143089861).
STEM_SUFFIXES = (".gz", ".json", ".csv", ".tmp", ".trace", ".pt")


def is_gzip(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def head(path: str, n: int) -> bytes:
    """Up to n bytes from the start of the file (inflated when gzip), without a BOM and leading blanks;
    b"" when it cannot be read."""
    try:
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as f:
            return f.read(n).lstrip(LEADING)
    except (OSError, EOFError, zlib.error):
        return b""


def file_stem(path: str) -> str:
    """The file name without STEM_SUFFIXES (never down to nothing)."""
    base = os.path.basename(os.path.abspath(path).rstrip(os.sep))
    for ext in STEM_SUFFIXES:
        base = base[:-len(ext)] if base.endswith(ext) and len(base) > len(ext) else base
    return base
