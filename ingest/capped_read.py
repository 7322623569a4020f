"""What reading an input may cost, and the reads that keep to it.

A hostile file can be small on disk and still cost minutes or gigabytes: a gzip stream of blanks (2 MB
inflated to 2 GiB: 43-49 s and 5.4 GB of memory), a sparse file (7 KB of data in a 20 GB file: over 60 s
to read its zeros), a run of blanks, a value of hundreds of MB. The limits below bound each, and every
refusal is one line naming the file, the place and the limit (docs/guarantees.md, "Untrusted traces").

Also: the bytes of a small side file of a profiler folder (communication.json, step_trace_time.csv), read
whole but never past a cap: a hostile or corrupt file of many GB must not be loaded into memory to be
refused."""
import errno
import os
import stat

from tracedb.errors import InputError

# A .gz may inflate to GZIP_RATIO times its size on disk, and to GZIP_FLOOR whatever its size, never past
# GZIP_MAX. Real traces inflate 12 to 30 times (14 Kineto, HTA, rocprof and vLLM traces; 30x:
# torch-tb-profiler's sample); gzip's own limit is ~1,030x, which a stream of blanks reaches.
GZIP_RATIO = 100
GZIP_FLOOR = 256 << 20
GZIP_MAX = 64 << 30
# Holes a file may have (bytes its size counts that no block stores): a crashed writer's tail of zero
# bytes is a few blocks; a 20 GB file holding a 7 KB trace is all holes.
SPARSE_HOLES_MAX = 64 << 20
# Blanks in a row wherever tracedb reads JSON itself (before the document, between its keys and values,
# after it): a pretty-printed trace indents by at most a few hundred bytes.
BLANK_RUN_MAX = 1 << 20
# One value read by tracedb's own JSON walk (an event of the array): DuckDB's JSON reader, with the
# maximum_object_size of 16 MiB that ingest_chrome_part.sql keeps, reads an event of up to twice that
# (32 MiB less 5 bytes; one of 33 MiB is refused). A value walked past this is refused before it is read
# whole: read whole, a 300 MB args string costs 12 s and 0.8 GB to refuse.
VALUE_MAX = 32 << 20


def mib(n: int) -> str:
    """A limit in KiB, MiB or GiB, as the messages name it."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):g} {unit}"
    return f"{n} bytes"


def capped_bytes(path: str, max_bytes: int, expected: str) -> bytes:
    """The file's bytes; a one-line InputError when it cannot be read or holds more than `max_bytes`
    (`expected`: what the file should be, for the message)."""
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    if len(data) > max_bytes:
        raise InputError(f"{path}: larger than {max_bytes >> 20} MiB; expected {expected}")
    return data


# ------------------------------------------------------------------------------------------ sparse files
def sparse_refusal(path: str, st: os.stat_result, fd: int | None = None) -> str | None:
    """The one-line refusal of a file with more than SPARSE_HOLES_MAX bytes of holes, else None. The
    blocks it stores (st_blocks) tell at once; a file system that compresses (ZFS) or does not count blocks
    (some FUSE ones) also stores fewer blocks than bytes, so the holes are then counted with SEEK_HOLE /
    SEEK_DATA, which only real holes answer."""
    stored = getattr(st, "st_blocks", None)
    if stored is None or not stat.S_ISREG(st.st_mode) or st.st_size - stored * 512 <= SPARSE_HOLES_MAX:
        return None
    holes = _holes(path, st.st_size, fd)
    if holes is None or holes <= SPARSE_HOLES_MAX:
        return None
    return (f"{path}: a sparse file: {st.st_size:,} bytes long, {holes:,} of them holes no block stores; "
            f"expected a file written out in full (at most {mib(SPARSE_HOLES_MAX)} of holes)")


def _holes(path: str, size: int, fd: int | None) -> int | None:
    """Bytes of the file in holes, by SEEK_DATA / SEEK_HOLE; None when the system cannot tell."""
    if not hasattr(os, "SEEK_HOLE"):
        return None
    own = fd is None
    try:
        if own:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        holes, at = 0, 0
        while at < size:
            try:
                data = os.lseek(fd, at, os.SEEK_DATA)
            except OSError as e:
                if e.errno == errno.ENXIO:      # no data after `at`: the rest is a hole
                    return holes + size - at
                raise
            holes += data - at
            at = os.lseek(fd, data, os.SEEK_HOLE)
        return holes
    except OSError:
        return None
    finally:
        if own and fd is not None:
            os.close(fd)


def check_sparse(path: str, st: os.stat_result | None = None, fd: int | None = None):
    """Refuse a sparse file (sparse_refusal) in one line."""
    if st is None:
        try:
            st = os.fstat(fd) if fd is not None else os.stat(path)
        except OSError:
            return          # the read that follows says why it cannot read
    why = sparse_refusal(path, st, fd)
    if why:
        raise InputError(why)


# ------------------------------------------------------------------------------------------------ gzip
def gzip_cap(compressed: int) -> int:
    """The most bytes a .gz of `compressed` bytes may inflate to."""
    return min(GZIP_MAX, max(GZIP_FLOOR, GZIP_RATIO * compressed))


def gzip_refusal(path: str, compressed: int) -> str:
    """The one line of a .gz that inflates past gzip_cap."""
    cap = gzip_cap(compressed)
    why = (f"{GZIP_RATIO} times its {compressed:,} bytes" if cap == GZIP_RATIO * compressed else
           f"the {mib(GZIP_MAX)} cap" if cap == GZIP_MAX else f"the {mib(GZIP_FLOOR)} any .gz may inflate to")
    return (f"{path}: inflates to more than {cap:,} bytes, {why}; expected a gzip-compressed trace that inflates "
            f"at most {GZIP_RATIO} times its size (or to {mib(GZIP_FLOOR)}, {mib(GZIP_MAX)} at most): real traces "
            "inflate 10 to 30 times")


def blank_refusal(path: str, at: int, note: str = "") -> str:
    """The one line of a run of more than BLANK_RUN_MAX blanks starting at byte `at`."""
    return (f"{path}: byte {at}{note}: more than {mib(BLANK_RUN_MAX)} of blanks in a row; expected at most "
            f"{mib(BLANK_RUN_MAX)} of blanks between two JSON values")
