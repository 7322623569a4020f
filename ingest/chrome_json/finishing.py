"""The last steps of a Chrome trace's ingest, inside the run's final transaction: tracks, NPU tasks,
per-core tasks and the devices of simulators, derived from the events already inserted, and the check
that the trace holds device activity."""
import os

from tracedb import sql
from tracedb.errors import InputError

# what a lane must be named to be placed, said under the ingest's line when some are not
EXPECTED = ("expected each core's thread named with its core type (AIC, AIV, AICPU) and its number, as in AIC_0, "
            "AIV12, AIV0 (core24) or core24 AIV, one name per core, or mapped with --core-rule REGEX=CLASS")
WHY = {"type": "no single core type in its name", "number": "no core number of its own",
       "shared": "another thread's name gives the same core", "unnamed": "no thread_name"}
NAMED = 6       # threads named in the line; the rest are counted


def finish(con, run_ids: list[int], core_rules=()) -> dict[int, str]:
    """Inside the runs' final transaction, before their runs rows make their rows visible: tracks from the
    metadata events, NPU task facts, per-core tasks told from host events by thread name (`core_rules`
    before the built-in AIC/AIV/AICPU naming), then category-less events of device-named processes
    (simulators). Returns, per run whose per-core lanes left events out, the line that says so
    (`unplaced_line`). A folder ingest's worker finishes the runs of a batch at once: each statement costs
    2-6 ms however few its rows, as much as a 2.6 MB trace's whole parse."""
    sql.run(con, "ingest_chrome_tracks", {"run_ids": run_ids})
    sql.run(con, "ingest_chrome_tasks", {"run_ids": run_ids})
    sql.run(con, "ingest_chrome_cores", {"run_ids": run_ids, "patterns": [p for p, _ in core_rules],
                                          "classes": [c for _, c in core_rules]})
    sql.run(con, "ingest_chrome_devices", {"run_ids": run_ids})
    rows = sql.run(con, "ingest_chrome_unplaced", {"run_ids": run_ids}).fetchall()
    sql.run(con, "ingest_chrome_finish")
    per_run: dict[int, list] = {}
    for run_id, thread, events, reason in rows:
        per_run.setdefault(run_id, []).append((thread, events, reason))
    return {run_id: unplaced_line(threads) for run_id, threads in per_run.items()}


def unplaced_line(threads: list[tuple[str, int, str]]) -> str:
    """One line for the (thread name, events, reason) of a run's lanes whose events no core took, most
    events first: how many events, of which threads and why, and what a core's thread name must be."""
    total = sum(n for _, n, _ in threads)
    named = ", ".join(f"{t!r} ({n:,} event{'s' if n != 1 else ''}, {WHY.get(r, r)})" for t, n, r in threads[:NAMED])
    more = f" and {len(threads) - NAMED} more" if len(threads) > NAMED else ""
    return (f"{total:,} event{'s' if total != 1 else ''} of {len(threads)} thread{'s' if len(threads) != 1 else ''} "
            f"not placed on a core, kept as host events: {named}{more}; {EXPECTED}")


def without_device_activity(con, run_ids: list[int]) -> list[int]:
    """Those of the runs with no event of a kind (no device activity), after `finish`."""
    return [r for (r,) in sql.run(con, "ingest_chrome_no_device", {"r": run_ids}).fetchall()]


def check_device_activity(con, run_id: int, path: str):
    """A Chrome trace without device activity (no event with a kind) is refused, naming the threads seen
    in case they are cores."""
    if not without_device_activity(con, [run_id]):
        return
    seen = [r[0] for r in sql.run(con, "ingest_chrome_thread_names", {"r": run_id}).fetchall()]
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

    from tracedb.ingest.capped_read import gzip_cap
    tail, read = b"", 0
    try:
        with open(path, "rb") as raw:
            gz = raw.read(2) == b"\x1f\x8b"
            raw.seek(0)
            cap = gzip_cap(os.fstat(raw.fileno()).st_size)
            f = gzip.GzipFile(fileobj=raw) if gz else raw
            while read <= cap and (chunk := f.read(1 << 20)):     # never past what the ingest inflated
                tail, read = (tail + chunk)[-256:], read + len(chunk)
    except (EOFError, gzip.BadGzipFile, zlib.error):
        return True
    except OSError:
        return False
    return not tail.rstrip().endswith((b"]", b"}"))
