"""`tracedb export perfetto`: one run as a Chrome / Kineto JSON trace that Perfetto opens, with its passes and
layers drawn as tracks above the device activity, in the run's original time base.

The layer slices are `report layers` with the same options, one per (pass, layer): a slice starts at the
layer's first kernel and lasts its wall time, and its args hold the report's sum, wall and per-category µs.
Every time is written as exact decimal µs from integer ns (1234567 ns -> 1234.567), never through a float:
absolute Ascend µs carry 19 digits, a double 15-16. The device activities are the counted rows of the
`kernels` view, written so that `tracedb ingest` of the file gives the run's kernel count and time back
(sql/export/perfetto_device.sql); the annotation slices are host events to it (category `tracedb`)."""
import contextlib
import gzip
import io
import json
import sys
from dataclasses import dataclass, field

from tracedb import atomic, sql
from tracedb.engine.segmentation import attribution
from tracedb.engine.segmentation import assignment, binding, segment
from tracedb.engine.segmentation import selection
from tracedb.engine.segmentation import units
from tracedb.engine.segmentation.words import PassSpec
from tracedb.engine.store.connect import resolve_runs
from tracedb.errors import NoAnchor, UsageError

CATEGORY = "tracedb"        # the annotation events' cat: never a device category, so re-ingest keeps them host-side
PROCESS = "tracedb"
# Thread ids of the annotation tracks inside the annotation process; overlapping slices of one kind go on
# further threads (lanes), since Perfetto nests slices of one thread and would mis-nest a partial overlap.
PASS_TID, LAYER_TID, COUNTER_TID, PATH_TID, LANE_STRIDE = 1, 2, 3, 4, 10
CHUNK = 100_000             # events per slice of seq: ~40 MB of JSON text at a time, whatever the run's size


@dataclass
class Exported:
    """What an export wrote, for the command's summary line."""
    run: str
    device_events: int = 0
    host_events: int = 0
    passes: int = 0
    layers: int = 0
    path_segments: int = 0
    notes: list[str] = field(default_factory=list)


def us(ns: int) -> str:
    """Exact decimal µs of integer ns: 1234567 -> '1234.567', -5 -> '-0.005'."""
    sign, ns = ("-", -ns) if ns < 0 else ("", ns)
    return f"{sign}{ns // 1000}.{ns % 1000:03d}"


def export(con, path: str | None, runs=(), tags=(), pass_spec="all", ranges: bool = False,
           **seg_opts) -> Exported:
    """Write run `runs`/`tags` (exactly one run) to `path` (gzip when it ends in .gz; None: plain JSON on
    stdout). `ranges`: only the annotation tracks. The segmentation options are report layers'."""
    spec = PassSpec.parse(pass_spec)
    if spec.word == "mean":
        raise UsageError("--pass mean: the export draws single passes; give a pass number, all, steady or auto")
    ids = resolve_runs(con, list(runs), list(tags))
    if len(ids) != 1:
        names = [n for (n,) in sql.run(con, "perfetto_run_names", {"run_ids": ids}).fetchall()]
        raise UsageError(f"export perfetto writes one run; the selection matches {len(ids)}: {', '.join(names[:5])}"
                         f"{', ...' if len(names) > 5 else ''} (give one --run)")
    rid = ids[0]
    name = sql.run(con, "run_name", {"run_id": rid}).fetchone()[0]
    facts = dict(zip(("base_ns", "has_base", "top_pid", "first_start_ns", "trace_start_ns", "rank", "world_size",
                      "device_name", "device_id"), sql.run(con, "perfetto_run", {"run_id": rid}).fetchone()))
    out = Exported(run=name)
    annotation_pid, hccl_pid = facts["top_pid"] + 2, facts["top_pid"] + 1
    try:
        annotations, counters, params = _annotations(con, facts, annotation_pid, spec, out, name, seg_opts)
    except NoAnchor as e:
        if ranges:
            raise
        # no layers to draw: the device timeline alone is still worth having (a CSV run never had one)
        out.notes.append(f"no passes or layers drawn: {e}")
        assignment.assign_none(con)
        annotations, counters, params = [], None, {}
    head = _header(facts, name, params, ranges)
    with _opened(path) as f:
        f.write(head)
        first = True
        for ev in annotations:
            f.write(("" if first else ",\n") + ev)
            first = False
        while counters is not None and (rows := counters.fetchmany(CHUNK)):
            f.write(("" if first else ",\n") + ",\n".join(ev for _, ev in rows))
            first = False
        # after the counters: their cursor is read before the next query
        for ev in _critical_path(con, name, annotation_pid, facts["base_ns"], seg_opts.get("profile"), out,
                                 named=bool(annotations)):
            f.write(("" if first else ",\n") + ev)
            first = False
        if not ranges:
            p = {"run_id": rid, "base_ns": facts["base_ns"], "hccl_pid": hccl_pid}
            sql.run(con, "perfetto_device")
            for (ev,) in sql.run(con, "perfetto_tracks", p).fetchall():
                f.write(("" if first else ",\n") + ev)
                first = False
            for source, lo, hi in sql.run(con, "perfetto_chunks", {"run_id": rid, "size": CHUNK}).fetchall():
                file, attr = ("perfetto_device_events", "device_events") if source == "device" else \
                    ("perfetto_host", "host_events")
                rows = sql.run(con, file, {**p, "lo": lo, "hi": hi}).fetchall()
                f.write(("" if first else ",\n") + ",\n".join(r[0] for r in rows))
                first = False
                setattr(out, attr, getattr(out, attr) + len(rows))
        f.write("\n]}\n")
    return out


def _annotations(con, facts, pid, spec, out, name, seg_opts):
    """Segment the run as report layers does and return the annotation events (metadata first), a cursor
    over the counter events (at_ns, event), to be read before the next query, and the segmentation
    parameters. DuckDB writes the args and counters as text (sql/export/perfetto_slices.sql,
    perfetto_counters.sql); Python only puts overlapping slices on lanes: 105k layers take ~1 s."""
    b = segment.prepare(con, binding.Options(runs=[name], **seg_opts), rule=binding.Bound.rule)
    assignment.assign(con, b, selection.select_noted(con, b, spec))
    selection.flag_short_last_layer(con, b)
    attribution.categorize_by_module(con, b)
    out.notes += b.notes
    # communication overlapped by computing, per layer: report breakdown's own arithmetic
    sql.run(con, "breakdown_activity_layers", {"run_ids": b.run_ids, "by_layer": True})
    sql.run(con, "breakdown_union")
    sql.run(con, "perfetto_units")
    cats = list(b.profile.categories)
    rows = sql.run(con, "perfetto_slices", {"categories": cats, "first_ns": facts["first_start_ns"],
                                            "trace_start_ns": facts["trace_start_ns"]}).fetchall()
    base, events = facts["base_ns"], []
    lanes, pass_tid = {"pass": [], "layer": []}, PASS_TID
    for unit, p, layer, start, end, args in rows:
        if unit == "pass":
            label = f"pass {p}"
            tid = pass_tid = _lane(lanes["pass"], start, end, PASS_TID)
            out.passes += 1
        elif unit in ("prologue", "epilogue"):
            label, tid = unit, pass_tid   # inside its pass's slice, on the same thread
        else:
            kind = b.layer_types[layer] if b.layer_types and 0 <= layer < len(b.layer_types) else None
            label = f"layer {layer}" + (f" ({kind})" if kind else "")
            tid = _lane(lanes["layer"], start, end, LAYER_TID)
            out.layers += 1
        events.append(f'{{"ph":"X","cat":"{CATEGORY}","name":{json.dumps(label)},"pid":{pid},"tid":{tid},'
                      f'"ts":{us(start - base)},"dur":{us(end - start)},"args":{args}}}')
    counters = sql.run(con, "perfetto_counters", {"categories": cats, "pid": pid, "tid": COUNTER_TID,
                                                  "base_ns": base})
    meta = [_m("process_name", pid, 0, PROCESS), _m("process_sort_index", pid, 0, None, sort_index=-1)]
    for kind, first, title in (("pass", PASS_TID, "passes"), ("layer", LAYER_TID, "layers")):
        for i in range(max(1, len(lanes[kind]))):
            meta.append(_m("thread_name", pid, first + i * LANE_STRIDE, title if i == 0 else f"{title} (overlap {i})"))
    meta.append(_m("thread_name", pid, COUNTER_TID, "counters"))
    params = {**units.params(b, spec), "run": name}
    return meta + events, counters, params


def _critical_path(con, name, pid, base, profile, out, named: bool) -> list[str]:
    """The run's critical path over its whole trace (report critical-path) as a track of its own: a slice
    per segment, named by its category, its kernel or host call in the args. `named`: the process of the
    pass and layer tracks is named already (a run with no layers drawn has none)."""
    from tracedb.engine.reports import critical_path
    rows = critical_path.run_segments(con, name, profile)
    if not rows:
        return []
    events = [] if named else [_m("process_name", pid, 0, PROCESS),
                               _m("process_sort_index", pid, 0, None, sort_index=-1)]
    events.append(_m("thread_name", pid, PATH_TID, "critical path"))
    for start, end, category, kind, kernel, api in rows:
        args = json.dumps({k: v for k, v in (("segment", kind), ("kernel", kernel), ("api", api)) if v},
                          separators=(",", ":"))
        events.append(f'{{"ph":"X","cat":"{CATEGORY}","name":{json.dumps(category)},"pid":{pid},"tid":{PATH_TID},'
                      f'"ts":{us(start - base)},"dur":{us(end - start)},"args":{args}}}')
    out.path_segments = len(rows)
    return events


def _lane(lanes: list, start: int, end: int, base: int) -> int:
    """The first lane (thread) whose last slice ends by `start`; a new lane when none does."""
    for i, (last_end, _) in enumerate(lanes):
        if last_end <= start:
            lanes[i] = (end, lanes[i][1])
            return lanes[i][1]
    lanes.append((end, base + len(lanes) * LANE_STRIDE))
    return lanes[-1][1]


def _m(kind, pid, tid, label, sort_index=None) -> str:
    args = {"sort_index": sort_index} if sort_index is not None else {"name": label}
    return json.dumps({"ph": "M", "name": kind, "pid": pid, "tid": tid, "args": args}, separators=(",", ":"))


def _header(facts, name, params, ranges) -> str:
    """The top-level keys before the events: baseTimeNanoseconds first, so that a reader (tracedb ingest
    among them) can time events as they stream in."""
    head = {"baseTimeNanoseconds": facts["base_ns"]} if facts["has_base"] else {}
    head["displayTimeUnit"] = "ms"
    if not ranges and facts["device_name"]:
        head["deviceProperties"] = [{"id": facts["device_id"] or 0, "name": facts["device_name"]}]
    if not ranges and facts["rank"] is not None:
        head["distributedInfo"] = {"rank": facts["rank"],
                                   **({"world_size": facts["world_size"]} if facts["world_size"] else {})}
    head["otherData"] = {"tracedb": {"run": name, "content": "annotation tracks only" if ranges else
                                     "device activity, host events and annotation tracks", **params}}
    text = json.dumps(head, separators=(",", ":"), default=str)
    return text[:-1] + ',"traceEvents":[\n'


@contextlib.contextmanager
def _opened(path: str | None):
    """A text stream to write the trace to: stdout, or a temporary file beside `path` renamed over it once
    complete (tracedb/atomic.py: a partial file never replaces a good one); gzip when the name ends in .gz
    (mtime 0, so the same run gives the same bytes)."""
    if not path:
        yield sys.stdout
        return
    from tracedb.engine.rendering.output import is_stream, naming
    with naming(path):       # a failed write (a full disk) names the file
        if is_stream(path):
            with open(path, "wb") as raw, _text(raw, path) as f:
                yield f
            return
        with atomic.replaced(path, binary=True) as raw, _text(raw, path) as f:
            yield f


@contextlib.contextmanager
def _text(raw, path: str):
    """UTF-8 text over the binary stream `raw`, gzip'd when `path` ends in .gz."""
    if not path.endswith(".gz"):
        f = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        yield f
        f.flush()
        f.detach()     # `raw` stays open: its owner closes (and renames) it
        return
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as gz, \
            io.TextIOWrapper(gz, encoding="utf-8", newline="") as f:
        yield f
