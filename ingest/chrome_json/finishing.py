"""The last steps of a Chrome trace's ingest, inside the run's final transaction: tracks, NPU tasks,
per-core tasks and the devices of simulators, derived from the events already inserted, and the check
that the trace holds device activity."""
from tracedb import sql
from tracedb.errors import InputError

DEFAULT_CORE_RULES = [("(?i)^(AIC)([_ (]|$)", "AIC"), ("(?i)^(AIV)([_ (]|$)", "AIV")]


def finish(con, run_ids: list[int], core_rules=()):
    """Inside the runs' final transaction, before their runs rows make their rows visible: tracks from the
    metadata events, NPU task facts, per-core tasks told from host events by thread name (`core_rules`
    before the built-in AIC/AIV ones), then category-less events of device-named processes (simulators).
    A folder ingest's worker finishes the runs of a batch at once: each statement costs 2-6 ms however few
    its rows, as much as a 2.6 MB trace's whole parse."""
    sql.run(con, "ingest_chrome_tracks", {"run_ids": run_ids})
    sql.run(con, "ingest_chrome_tasks", {"run_ids": run_ids})
    rules = list(core_rules) + DEFAULT_CORE_RULES
    sql.run(con, "ingest_chrome_cores", {"run_ids": run_ids, "patterns": [p for p, _ in rules],
                                          "classes": [c for _, c in rules]})
    sql.run(con, "ingest_chrome_devices", {"run_ids": run_ids})
    sql.run(con, "ingest_chrome_finish")


def without_device_activity(con, run_ids: list[int]) -> list[int]:
    """Those of the runs with no event of a kind (no device activity), after `finish`."""
    return [r for (r,) in con.execute(
        "SELECT r FROM (SELECT unnest($r) AS r) WHERE r NOT IN (SELECT DISTINCT run_id FROM trace_events "
        "WHERE run_id IN (SELECT unnest($r)) AND kind IS NOT NULL) ORDER BY r", {"r": run_ids}).fetchall()]


def check_device_activity(con, run_id: int, path: str):
    """A Chrome trace without device activity (no event with a kind) is refused, naming the threads seen
    in case they are cores."""
    if not without_device_activity(con, [run_id]):
        return
    seen = [r[0] for r in con.execute(
        "SELECT DISTINCT thread_name FROM tracks WHERE run_id = $r AND thread_name IS NOT NULL "
        "ORDER BY 1 LIMIT 8", {"r": run_id}).fetchall()]
    names = (f"; thread names seen: {', '.join(seen)} — if those are cores, map them with "
             "--core-rule 'REGEX=AIC'") if seen else ""
    if cut_short(path):
        raise InputError(f"{path}: no device activity, and the file is cut short (it ends inside its events, "
                         "with no closing bracket): the profiler writes the device events after the host ones, "
                         "so they were most likely cut off; copy or capture the whole file")
    raise InputError(f"{path}: no device activity (no kernel, gpu_memcpy or gpu_memset events, no "
                     "threads named like cores): a CPU-only profile? Record it with "
                     f"ProfilerActivity.CUDA (or the NPU activity){names}")


def cut_short(path: str) -> bool:
    """Whether a JSON trace (plain or gzip) stops before its end: a gzip stream that breaks off, or text
    whose last non-blank byte closes neither the event array nor the object (read to the end: only on the
    way to an error)."""
    import gzip
    import zlib
    tail = b""
    try:
        with open(path, "rb") as raw:
            gz = raw.read(2) == b"\x1f\x8b"
            raw.seek(0)
            f = gzip.GzipFile(fileobj=raw) if gz else raw
            while chunk := f.read(1 << 20):
                tail = (tail + chunk)[-256:]
    except (EOFError, gzip.BadGzipFile, zlib.error):
        return True
    except OSError:
        return False
    return not tail.rstrip().endswith((b"]", b"}"))
