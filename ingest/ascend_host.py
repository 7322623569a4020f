"""The host side of an Ascend profiler folder read from kernel_details.csv: the trace_view.json beside it.

kernel_details.csv lists the kernels with their shapes and PMU columns but nothing of the host; trace_view.json
of the same capture holds the framework's ops, the CANN calls and the flows from each op to the device tasks it
launched. Its events go into trace_events as the run's own; each CSV kernel takes the flow id of its task
(sql/ingest/ingest_ascend_host_link.sql), so `report modules` and the module columns find what launched it, and
the trace_view's device tasks are dropped (the CSV holds the kernels). The host side only helps: a trace that
cannot be read, or that links fewer than half the kernels, is left out with a note, and the CSV run lands."""
import csv
import os
import re

from tracedb import sql
from tracedb.errors import InputError
from tracedb.ingest import formats

NAME = "trace_view.json"
# A trace_view.json of the same capture starts within the capture: its first event and the first kernel are
# milliseconds to seconds apart. Test fixtures and copied folders pair files of different captures (the
# ascend-mstt sample: kernels of November 2023 beside a trace of January 2024); an hour apart is another one.
SAME_CAPTURE_US = 3600 * 10 ** 6
_TS = re.compile(rb'"ts"\s*:\s*"?\s*(\d+(?:\.\d+)?)')


def beside(csv_path: str) -> str | None:
    """The trace_view.json in the folder of a kernel_details.csv when it is of the same capture, else None."""
    path = os.path.join(os.path.dirname(csv_path), NAME)
    return path if os.path.isfile(path) and not other_capture(csv_path, path) else None


def other_capture(csv_path: str, trace_path: str) -> str | None:
    """Why the trace is of another capture than the CSV (their first times an hour or more apart), else None
    (also when either time cannot be read: the link then decides, ingest_ascend_host_link.sql)."""
    try:
        with open(trace_path, "rb") as f:
            m = _TS.search(f.read(1 << 16))
        with open(csv_path, newline="", encoding="utf-8-sig", errors="replace") as f:
            rows = csv.reader(f)
            header = next(rows)
            first = next(rows)
        start = float(first[header.index("Start Time(us)")].strip())
        ts = float(m.group(1)) if m else None
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    if ts is None or abs(ts - start) < SAME_CAPTURE_US:
        return None
    return f"another capture: its first event is {abs(ts - start) / 86400e6:,.1f} days from the first kernel's start"


def load(con, run_id: int, path: str, src=None) -> str | None:
    """The trace's events into trace_events as run `run_id` (outside the run's transaction, as a Chrome
    trace's parts are). The host side only helps: a trace that cannot be read (not JSON, past a limit of
    capped_read) is left out, its rows removed, and the CSV run lands without it; returns why (None when
    it loaded), which `finish` says in the run's note. `src`: the run's Source, whose files then no longer
    name the trace (the loaded-files line, runs.source_files)."""
    from tracedb.ingest import chrome_json
    _loaded[(id(con), run_id)] = (path, None, False)     # set afresh: a reused connection id never finds an older run's
    try:
        try:
            facts = chrome_json.load(con, run_id, path)
        except formats.ReadAgain:     # read safely once, here: asked, the CSV reader read the CSV and this
            # trace again the same way, without end (a value nested 200,000 deep: over 5 minutes)
            sql.run(con, "ingest_chrome_discard", {"run_id": run_id})
            facts = chrome_json.load(con, run_id, path, parts=1, safe=True)
        if (facts or {}).get("truncated"):
            _loaded[(id(con), run_id)] = (path, None, True)
    except (InputError, formats.ReadAgain) as e:
        sql.run(con, "ingest_chrome_discard", {"run_id": run_id})
        return _leave_out(con, run_id, path, src, str(e) if isinstance(e, InputError) else
                          f"{path}: its events could not be read")
    return None


def finish(con, run_id: int, src=None) -> str | None:
    """Inside the run's transaction: the trace's tracks and task kinds, then each CSV kernel linked to its
    launch and the trace's device tasks dropped. Returns the run's note when the host side was left out:
    at `load`, or here, when it linked fewer than half the kernels (ingest_ascend_host_link.sql then keeps
    none of its events)."""
    path, why, cut = _loaded.pop((id(con), run_id), (src.host_trace if src is not None else NAME, None, False))
    if why is not None:
        return why
    from tracedb.ingest import chrome_json
    chrome_json.finish(con, [run_id])
    sql.run(con, "ingest_ascend_host_link", {"run_id": run_id})
    linked, kernels = sql.run(con, "ingest_ascend_host_linked", {"r": run_id}).fetchone()
    # the host side of a crashed or partly copied capture ends early: too early a cut leaves too few kernels
    # linked to keep it (in the AlexNet sample a cut at 97 % of the bytes links none), and the cut is the cause
    cut = f"{path} is cut short (loaded to its last complete event)" if cut else None
    if kernels and not linked:
        return _leave_out(con, run_id, path, src, f"{cut} and what is left links fewer than half of the "
                          f"{kernels:,} kernels to their launch" if cut else f"{path}: its device tasks launch "
                          f"fewer than half of the {kernels:,} kernels (by name and start time): not the host side "
                          "of these kernels", keep=False)
    return cut and f"host side: {cut}: {linked:,} of {kernels:,} kernels linked to their launch"


# The host trace `load` read for a run, why it was left out (None: it loaded) and whether it was cut short at its
# end (chrome_json.load's `truncated`), for `finish`, by (connection, run id).
_loaded: dict[tuple[int, int], tuple[str, str | None, bool]] = {}


def _leave_out(con, run_id: int, path: str, src, why: str, keep: bool = True) -> str:
    note = f"host side left out, the kernels kept: {why}"
    if keep:
        _loaded[(id(con), run_id)] = (path, note, False)
    if src is not None:
        src.files = [f for f in src.files if f != path]
    return note
