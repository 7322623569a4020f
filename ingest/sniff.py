"""What a file is, from its first bytes, without ingesting it: a regular file or not, gzip or not, another
compression, archive or encoding tracedb does not read, its first meaningful bytes, and a short name from
its file name. Shared by the source resolver and the readers.

Nothing here blocks: a named pipe, device or socket is refused from its `stat` before it is opened, and
the files are opened with O_NONBLOCK so that one swapped in after that check cannot hang the open."""
import os
import stat
import zlib

from tracedb.errors import InputError
from tracedb.ingest.capped_read import BLANK_RUN_MAX, blank_refusal, check_sparse

# Before the first meaningful byte a producer may write a UTF-8 byte order mark and blanks.
LEADING = b"\xef\xbb\xbf \t\r\n"
# Suffixes a run name leaves out, outermost first: compression, format, a writer's temp suffix, and
# Kineto's `.pt.trace` (worker0.1623143089861.pt.trace.json.gz -> worker0.1623143089861); SQLite exports'
# `.sqlite`/`.db` (report1.sqlite -> report1).
STEM_SUFFIXES = (".gz", ".json", ".csv", ".sqlite", ".sqlite3", ".db", ".nsys-rep", ".tmp", ".trace", ".pt")
# Bytes read to tell what a file is: magic numbers are at most 16 bytes; 4 KiB also holds the first line
# of a CSV header (kernel_details.csv's 47 columns take ~700) and a JSON trace's opening.
SNIFF = 4096
SQLITE_MAGIC = b"SQLite format 3\x00"

_NOT_REGULAR = {stat.S_IFIFO: "a named pipe", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
                stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}
# (leading bytes, what they are, how to get text from it). Formats a user may hand over by mistake: other
# compressors' output, archives, and text in another encoding. (SQLite files are kind 'sqlite': the
# profilers' SQLite exports are read by ingest/sqlite_export.py.)
# UTF-32 comes before UTF-16: its little-endian mark starts with UTF-16's.
_MAGIC = (
    (b"\xfd7zXZ\x00", "xz-compressed data", "decompress it first with `xz -d`"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data", "decompress it first with `zstd -d`"),
    (b"\x04\x22\x4d\x18", "lz4-compressed data", "decompress it first with `lz4 -d`"),
    (b"PK\x03\x04", "a zip archive", "extract it first with `unzip`"),
    (b"PK\x05\x06", "an empty zip archive", "extract it first with `unzip`"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "extract it first with `7z x`"),
    (b"\xff\xfe\x00\x00", "UTF-32 text", "expected UTF-8: convert it with `iconv -f UTF-32 -t UTF-8`"),
    (b"\x00\x00\xfe\xff", "UTF-32 text", "expected UTF-8: convert it with `iconv -f UTF-32 -t UTF-8`"),
    (b"\xff\xfe", "UTF-16 text", "expected UTF-8: convert it with `iconv -f UTF-16 -t UTF-8`"),
    (b"\xfe\xff", "UTF-16 text", "expected UTF-8: convert it with `iconv -f UTF-16 -t UTF-8`"),
)
_COMPRESSED_HINT = "tracedb reads plain or gzip-compressed traces"


def check_regular(path: str):
    """Refuse, before any open, what is not a regular file: reading a named pipe without a writer blocks
    forever, and a pipe (`<(cat trace.json)`) can be read once while tracedb reads a trace several times."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    mode = st.st_mode
    if not stat.S_ISREG(mode):
        what = _NOT_REGULAR.get(stat.S_IFMT(mode), "a special file")
        hint = " — save the stream to a file first" if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) else ""
        raise InputError(f"{path}: not a regular file ({what}); expected a trace file{hint}")
    check_sparse(path, st)      # a 20 GB file of holes is minutes of reading zeros


def open_regular(path: str):
    """The file opened for binary reading, refused when it is not a regular file (checked on the open
    file too: O_NONBLOCK makes opening a named pipe return at once instead of waiting for a writer)."""
    check_regular(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        check_regular(path)     # says what it is now
        raise InputError(f"{path}: not a regular file; expected a trace file")
    try:
        check_sparse(path, st, fd)      # the file opened, should another have been swapped in
    except InputError:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def is_gzip(path: str) -> bool:
    with open_regular(path) as f:
        return f.read(2) == b"\x1f\x8b"


def refusal(path: str, first: bytes) -> str | None:
    """The one-line refusal for a file whose first bytes are a format tracedb does not read, else None."""
    for magic, what, how in _MAGIC:
        if first.startswith(magic):
            hint = f"{_COMPRESSED_HINT}: {how}" if "compressed" in what else how
            return f"{path}: {what}; {hint}"
    if _is_bzip2(first):
        return f"{path}: bzip2-compressed data; {_COMPRESSED_HINT}: decompress it first with `bzip2 -d`"
    if _is_zlib(first):
        return (f"{path}: zlib-compressed data (deflate without a gzip header); {_COMPRESSED_HINT}: "
                "recompress it with gzip")
    if _looks_utf16(first):
        return (f"{path}: UTF-16 text without a byte order mark; expected UTF-8: "
                "convert it with `iconv -f UTF-16LE -t UTF-8`")
    return None


def _is_bzip2(first: bytes) -> bool:
    """`BZh` + block size digit + the block magic 0x314159265359 (or the end-of-stream magic of an empty
    stream): 10 bytes no CSV header or JSON starts with."""
    return (len(first) >= 10 and first[:3] == b"BZh" and first[3:4].isdigit()
            and first[4:10] in (b"1AY&SY", b"\x17rE8P\x90"))


def _is_zlib(first: bytes) -> bool:
    """A zlib header (0x78: deflate, 32 KiB window; header % 31 == 0) whose stream inflates: `x^` also starts
    a text line, so the header alone is not enough."""
    if len(first) < 2 or first[0] != 0x78 or (first[0] << 8 | first[1]) % 31:
        return False
    try:
        zlib.decompressobj().decompress(first, 1)
        return True
    except zlib.error:
        return False


def _looks_utf16(first: bytes) -> bool:
    """ASCII text in UTF-16 without a byte order mark: every second byte of the first 64 is NUL."""
    sample = first[:64]
    if len(sample) < 8:
        return False
    odd, even = sample[1::2], sample[0::2]
    return (odd.count(0) == len(odd) and 0 not in even) or (even.count(0) == len(even) and 0 not in odd)


def kind(path: str) -> str:
    """'gzip' (gzip whose content starts like JSON), 'json', 'sqlite', 'empty' (no bytes, or only a BOM and
    blanks) or 'text' (anything else: a CSV, or something the CSV reader refuses with its own line).
    Refuses non-regular files, other compressions, archives and UTF-16/32 text with one line."""
    with open_regular(path) as f:
        first = f.read(SNIFF)
        more = bool(f.read(1))
        if first[:2] == b"\x1f\x8b":
            return _gzip_kind(path)
        if first.startswith(SQLITE_MAGIC):
            return "sqlite"
        why = refusal(path, first)
        if why:
            raise InputError(why)
        text = first.lstrip(LEADING)
        if not text and more:         # blanks past the first 4 KiB: what comes after them, within a limit
            f.seek(0)
            text = past_blanks(f.read(BLANK_RUN_MAX + 1), path)
            more = False
    if not text and not more:
        return "empty"
    return "json" if text[:1] in (b"{", b"[") else "text"


def past_blanks(data: bytes, path: str, note: str = "") -> bytes:
    """`data` (the first bytes of a file, up to BLANK_RUN_MAX + 1 of them) after its BOM and blanks;
    refused in one line when those blanks fill it and more may follow."""
    text = data.lstrip(LEADING)
    if not text and len(data) > BLANK_RUN_MAX:
        raise InputError(blank_refusal(path, 0, note))
    return text


def _gzip_kind(path: str) -> str:
    inner = inflated_head(path, SNIFF)
    text = inner.lstrip(LEADING)
    if not text and len(inner) == SNIFF:
        text = past_blanks(inflated_head(path, BLANK_RUN_MAX + 1), path, " of the inflated JSON")
    if text[:1] in (b"{", b"["):
        return "gzip"
    if not text:
        raise InputError(f"{path}: gzip-compressed empty file; expected a gzip-compressed Chrome trace JSON")
    shown = text[:40].decode("utf-8", "replace")
    raise InputError(f"{path}: gzip-compressed data that is not a JSON trace (it starts with {shown!r}); "
                     "tracedb reads gzip only for Chrome trace JSON: decompress it first with `gzip -d`")


def inflated_head(path: str, n: int) -> bytes:
    """Up to n inflated bytes of a gzip file. A stream cut short gives what it holds (the trace readers
    keep the complete events of a crashed writer); corrupt data is refused, naming the file offset (to the
    4 KiB read, as the Chrome reader words it: `byte offset ~N`) and the inflated bytes before it."""
    out = bytearray()
    d = zlib.decompressobj(wbits=31)    # 16 + 15: a gzip header and a 32 KiB window
    fed = 0
    with open_regular(path) as f:
        while len(out) < n:
            chunk = d.unconsumed_tail
            if not chunk:
                chunk = f.read(SNIFF)
                fed += len(chunk)
            if not chunk:
                break
            try:
                out += d.decompress(chunk, n - len(out))
                if d.eof and d.unused_data.lstrip(b"\0"):      # a second gzip member (`cat a.gz b.gz`)
                    rest, d = d.unused_data, zlib.decompressobj(wbits=31)
                    out += d.decompress(rest, max(1, n - len(out)))
                elif d.eof:
                    break
            except zlib.error as e:
                raise InputError(f"{path}: byte offset ~{fed}: corrupt gzip data ({e}) after {len(out):,} inflated "
                                 "bytes; expected a gzip-compressed trace") from None
    return bytes(out[:n])


def head(path: str, n: int) -> bytes:
    """Up to n bytes from the start of the file (inflated when gzip), without a BOM and leading blanks;
    b"" when it cannot be read (a folder's search asks this of files that may be anything)."""
    try:
        if is_gzip(path):
            return inflated_head(path, n).lstrip(LEADING)
        with open_regular(path) as f:
            return f.read(n).lstrip(LEADING)
    except (OSError, InputError):
        return b""


def file_stem(path: str) -> str:
    """The file name without STEM_SUFFIXES (never down to nothing)."""
    base = os.path.basename(os.path.abspath(path).rstrip(os.sep))
    for ext in STEM_SUFFIXES:
        base = base[:-len(ext)] if base.endswith(ext) and len(base) > len(ext) else base
    return base
