"""The bytes of a small side file of a profiler folder (communication.json, step_trace_time.csv), read whole
but never past a cap: a hostile or corrupt file of many GB must not be loaded into memory to be refused."""
from tracedb.errors import InputError


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
