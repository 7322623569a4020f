"""The Chrome trace format's entry in the reader registry (ingest/formats.py): how a Chrome / Kineto JSON
file (plain or gzip, Ascend trace_view.json included) is recognised, read and finished."""
from tracedb.ingest import formats
from tracedb.ingest.chrome_json.finishing import check_device_activity, without_device_activity
from tracedb.ingest.chrome_json.sniff import head_facts

# A Chrome trace names "traceEvents" (or its first event's "ph") well before this: a folder search reads
# this much of a `.json` to tell a trace from a config or profiler_info JSON.
FOLDER_SNIFF = 1 << 20
EXPECTED = "a trace (a Chrome trace JSON object or event array)"


def _recognise(probe) -> bool:
    """Any JSON object or array (plain or gzip) that no reader asked before claimed; a `.json` that is empty
    or holds no object or array is refused."""
    if probe.kind in ("gzip", "json"):
        return True
    return formats.refuse_json_text(probe, EXPECTED)


def _found(probe) -> bool:
    """In a folder: a trace object naming "traceEvents", or an event array, in its first MB (config and
    profiler_info JSON do neither)."""
    probe.check_json_named()
    head = probe.head(FOLDER_SNIFF)
    return (head[:1] == b"{" and b'"traceEvents"' in head) or (head[:1] == b"[" and b'"ph"' in head)


def _read(con, run_id: int, src, options) -> dict:
    from tracedb.ingest import chrome_json      # the package's `load`, as callers (and tests) see it
    return chrome_json.load(con, run_id, src.files[0], parts=options["parts"], safe=options["safe"],
                core_rules=options["core_rules"], capture=options.get("capture", False))


def _read_many(con, items) -> dict:
    """A folder ingest's batch of plain traces, those of one part by one INSERT (together.py)."""
    from tracedb.ingest.chrome_json.together import load_together
    return load_together(con, [(run_id, src.files[0]) for run_id, src in items])


def _finish(con, run_id: int, src, core_rules) -> str | None:
    """The run finished; returns the note of the per-core events it could not place, if any."""
    from tracedb.ingest import chrome_json
    notes = chrome_json.finish(con, [run_id], core_rules)
    check_device_activity(con, run_id, src.path)
    return notes.get(run_id)


def _finish_many(con, run_ids: list[int], core_rules) -> tuple[list[int], dict[int, str]]:
    """The runs of a folder ingest's batch finished at once; returns those without device activity (the
    caller then finishes one by one, and each such run is refused naming its file) and the notes of the
    runs with per-core events not placed."""
    from tracedb.ingest import chrome_json
    notes = chrome_json.finish(con, run_ids, core_rules)
    return without_device_activity(con, run_ids), notes


READER = formats.Reader(
    # the run's format, device kind and clock come from the trace itself (loader's run facts)
    name="chrome-json", order=20, recognise=_recognise, found=_found, suffixes=(".json", ".json.gz"),
    recognised="any other JSON object or array, plain or gzip (met in a folder: one naming `traceEvents`, or "
    "an array of events with `ph`, in its first MB)",
    read=_read, read_many=_read_many, finish=_finish, finish_many=_finish_many, head_facts=head_facts,
    device_kind="npu", clock_domain="unix-epoch-local",
    sql=("ingest_chrome_part", "ingest_chrome_check", "ingest_chrome_discard", "ingest_chrome_tracks",
         "ingest_chrome_tasks", "ingest_chrome_cores", "ingest_chrome_devices", "ingest_chrome_unplaced",
         "ingest_chrome_finish", "ingest_chrome_no_device", "ingest_chrome_thread_names"),
    docs=(formats.Doc("PyTorch profiler (Kineto) / Chrome trace JSON, `.json` or `.json.gz`, NVIDIA and AMD",
                      "`chrome-trace`", "`trace_events`"),
          formats.Doc("Ascend `trace_view.json`", "`ascend-trace-view`", "`trace_events`"),
          formats.Doc("Per-core NPU traces (runtime swimlanes, TraCR)", "`chrome-trace`",
                      "`trace_events` (kind `task`)")))
