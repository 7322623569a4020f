"""`report critical-path`: the chain of work that set a window's end time, and what each stretch of it was.

The nodes and each node's binding predecessor (of the things it waited for, the one released last) are
SQL (sql/report/critical_path_nodes.sql). The walk back from the window's last node follows one pointer
per step, here in Python over the pointer columns (Arrow lists): a recursive CTE would rebuild its join at
every step of the walk. Each step of the walk gives the node's own stretch
and the gap before it, so the segments tile the window exactly; critical_path_segments.sql splits a host
gap into the host's own work and its idle time and ties each segment to its pass, layer and step."""
from dataclasses import dataclass

from tracedb import sql
from tracedb.engine.rendering import render as rnd
from tracedb.engine.reports import path_ranks
from tracedb.engine.reports.replay import GAP, Graph, columns
from tracedb.engine.segmentation import assignment, attribution, binding, categories, stages, units
from tracedb.engine.segmentation.words import ALL_PASSES, PassSpec
from tracedb.errors import NoAnchor, UsageError

# the category of a node's own stretch, by its kind
OWN = {"kernel": "device_compute", "comm": "device_comm", "memcpy": "device_memcpy", "memset": "device_memcpy",
       "launch": "host_op", "sync": "sync_wait"}
DEFINITIONS = (
    "critical path: from the window's last activity back along each one's binding predecessor, the candidate "
    "released last (for a kernel: the kernel before it on its stream, its launch call, or the work its stream "
    "waited for; for a launch or synchronising call: the call before it on its thread, or for a sync the device "
    "work it waited for; with --job, for a collective's end: the member that arrived last); "
    "device_compute, device_comm, device_memcpy, host_op (launch calls and the host's own ops between them), "
    "sync_wait: the work on the path; launch_latency (launch call end to kernel start), device_gap (idle "
    "after the kernel before it on its stream; sync_wait where an Ascend EVENT_WAIT held it), host_gap (the "
    "host thread in no op), comm_wait (a job's rank on its own: its collective before the last other member "
    "arrived): the gaps; the segments "
    "tile the window, so the categories add up to its wall time")


@dataclass
class Window:
    run_id: int
    step: int | None
    start_ns: int
    end_ns: int
    last: int       # the node the walk starts from


def annotation_window(annotation: str | None, instance: int | None, step: int | None) -> tuple | None:
    """The window of --annotation NAME [--instance N] as (NAME, N), or None; refused with --step or with
    --instance alone (an instance below 0 is refused with the options' values, registry.check_options)."""
    if annotation is None:
        if instance is not None:
            raise UsageError("--instance: give --annotation NAME too")
        return None
    if step is not None:
        raise UsageError("--annotation and --step: give one window")
    if not str(annotation).strip():
        raise UsageError("--annotation: expected the name of a host annotation")
    return str(annotation), int(instance or 0)


def build(con, fmt, by, step, seg_opts, job: bool = False, pass_spec: PassSpec = ALL_PASSES, layer=None,
          mark: tuple | None = None) -> rnd.Result:
    unit = _unit(pass_spec, layer, step)
    if unit is not None and mark is not None:
        raise UsageError("--pass and --annotation: give one window")
    b, meta = _bind(con, seg_opts, segmented=by in ("segment", "layer", "stage") or unit is not None)
    if unit is not None and not b.anchor:
        raise UsageError("--pass: the run has no passes (no anchor); the window can be the whole trace or --step")
    graph(con, b, job, peers=True)
    _stages_and_modules(con, b, by)
    windows = _windows(con, b, step, job, unit, mark)
    _coverage_notes(con, b)
    _keep_walk(con, [walk(con, w) for w in windows])
    sql.run(con, "critical_path_segments")
    meta.update(by=by, path_window=_window_name(step, unit, mark))
    if job:
        meta["path"] = f"one across the {len(b.run_ids)} runs"
    b.notes.append(DEFINITIONS)
    title = f"critical path of {_window_name(step, unit, mark)}" + ("" if by == "segment" else f", by {by}")
    if by == "slack":
        _keep_slack(con, b, windows, job)
    file = {"segment": "report_critical_path", "slack": "report_critical_path_slack"}.get(by, "report_critical_path_by")
    res = rnd.fetch_file(con, fmt, file, {"run_ids": b.run_ids, "by": by, "job": JOB_LABEL.format(len(b.run_ids))},
                         "critical-path", b, meta, title)
    if fmt not in rnd.READING:
        return res
    # a table for people: short names told apart, and the layer columns only where they say something
    res = rnd.for_people(res, short="key" if by not in ("segment", "slack") else "kernel")
    empty = [c for c in ("pass", "layer", "unit", "stage", "module", "rank", "step") if c in res.columns
             and all(r[res.columns.index(c)] is None for r in res.rows)]
    return rnd.drop_columns(res, empty)


# the run column of a --job path's --by rows: its segments lie on several runs
JOB_LABEL = "(job of {} runs)"
JOB_PATH = 0     # the path id of a --job path (a run's own path has its run id, from 1)
WALK_COLUMNS = (("path", "int64"), ("step", "int64"), ("pos", "int64"), ("node", "int64"), ("start_ns", "int64"),
                ("end_ns", "int64"), ("category", "string"), ("window_start_ns", "int64"))


def graph(con, b, job: bool = False, peers: bool = False):
    """_cp_nodes with each node's binding predecessor, and _cp_cands, of the bound runs. `job`: the runs'
    clocks aligned on their collectives (engine/jobs/align.py) and each collective's end bound to the last
    other member to arrive, so that one path can cross them. `peers` (a run's own path): _cp_peers, when each
    collective of a job's rank had its other members in (else empty)."""
    categories.categorize_kernels(con, b)
    sql.run(con, "critical_path_nodes", {"run_ids": b.run_ids})
    offsets = path_ranks.job_offsets(con, b) if job else {}
    sql.run(con, "critical_path_offsets")
    if offsets:
        con.executemany(sql.load("critical_path_offsets_add"),
                        [{"run_id": r, "off_ns": off} for r, off in sorted(offsets.items())])
    if job:
        sql.run(con, "critical_path_collectives")
    sql.run(con, "critical_path_bind")
    sql.run(con, "critical_path_tables")
    if not job and peers:
        path_ranks.peer_arrivals(con, b)


def _stages_and_modules(con, b, by: str):
    """TEMP _cp_stages (each layer kernel's stage, as report layers --by stage finds it: over the categories its
    launching modules give) and _cp_modules (each kernel's launching module, as report modules names it) for
    the rows that show them: the path's segments, --by stage, --by module. Attributing a trace's kernels to
    modules joins every launch with its thread's frames, so the other --by keys skip it."""
    staged = by in ("segment", "stage") and b.anchor and sql.run(con, "assigned_count").fetchone()[0]
    if not staged and by not in ("segment", "module"):
        return
    attribution.attribute(con, b, note=by == "module")
    if staged:
        attribution.categorize_by_module(con, b, attributed=True)
        stages.assign_stages(con, b)
        sql.run(con, "critical_path_stages_keep")
    if by in ("segment", "module"):
        sql.run(con, "critical_path_modules_keep")
    sql.run(con, "attr_drop")


def _keep_walk(con, walked: list):
    """The walked paths (Walked, one per window) as TEMP _cp_walk, through Arrow: a column each, position 0 the
    window's first segment."""
    import pyarrow as pa
    parts = {name: [] for name, _ in WALK_COLUMNS}
    for wk in walked:
        n = len(wk.nodes)
        parts["path"].append([wk.path] * n)
        parts["step"].append([wk.step] * n)
        parts["pos"].append(range(n - 1, -1, -1))
        parts["node"].append(wk.nodes)
        parts["start_ns"].append(wk.starts)
        parts["end_ns"].append(wk.ends)
        parts["category"].append(wk.categories)
        parts["window_start_ns"].append([wk.window_start_ns] * n)
    walk = pa.table({name: pa.chunked_array([pa.array(c, type=getattr(pa, t)()) for c in parts[name]],
                                            type=getattr(pa, t)())
                     for name, t in WALK_COLUMNS})
    con.register("_cp_walk_rows", walk)
    try:
        sql.run(con, "critical_path_walk")
    finally:
        con.unregister("_cp_walk_rows")


def _keep_slack(con, b, windows, job: bool = False):
    """TEMP _cp_slack (run_id, node, slack_ns): each window's device activities and their slack (replay.Graph);
    with `job`, over the job's graph (a collective ends when its last member has arrived), on the job's
    clock."""
    import pyarrow as pa
    runs, nodes, slacks = [], [], []
    for w in windows:
        if job:
            g, members = Graph.job_window(con, b.run_ids)
        else:
            g = Graph.load(con, w.run_id, b.run_names[w.run_id])
            members = g.members(con, w.run_id)
        slack = g.slack(members, w.end_ns)
        for i in members:
            if g.kinds[i - g.first] not in ("launch", "sync", "arrival"):
                runs.append(g.run_of[i - g.first])
                nodes.append(i)
                slacks.append(slack[i - g.first])
    rows = pa.table({"run_id": pa.array(runs, pa.int32()), "node": pa.array(nodes, pa.int64()),
                     "slack_ns": pa.array(slacks, pa.int64())})
    con.register("_cp_slack_rows", rows)
    try:
        sql.run(con, "critical_path_slack")
    finally:
        con.unregister("_cp_slack_rows")


def _bind(con, seg_opts, segmented: bool):
    """The runs, segmented when the rows show pass and layer (`segmented`) and they can be, else bound alone
    (with a note when segmenting failed). Segmenting a 1.2 M-event trace takes 1.9 of the report's 6 s."""
    opt = binding.Options(**seg_opts)
    why = None
    if segmented:
        try:
            return units.segmented(con, opt, ALL_PASSES, assignment.select_passes)
        except NoAnchor as e:
            why = f"no layers: {e}"
    b = binding.bind_runs(con, opt.runs, opt.tags, opt.profile)
    assignment.assign_none(con)
    meta = {"runs": ", ".join(b.run_names[r] for r in b.run_ids), "profile": b.profile.name}
    if why:
        b.notes.append(why)
    return b, meta


def _unit(pass_spec, layer, step):
    """(pass, layer) of a --pass window, or None: --pass takes a pass number (all: no pass window)."""
    if pass_spec.word == "all":
        if layer is not None:
            raise UsageError("--layer: give the pass too (--pass N --layer L)")
        return None
    if pass_spec.number is None:
        raise UsageError(f"--pass {pass_spec}: report critical-path takes a pass number (its window), or all")
    if step is not None:
        raise UsageError("--pass and --step: give one window")
    return pass_spec.number, layer


def _window_name(step, unit, mark=None) -> str:
    if unit is not None:
        return f"pass {unit[0]}" + (f" layer {unit[1]}" if unit[1] is not None else "")
    if mark is not None:
        return f"annotation {mark[0]!r}" + (f" (instance {mark[1]})" if mark[1] else "")
    return f"step {step}" if step is not None else "the whole trace"


def _windows(con, b, step, job: bool = False, unit=None, mark=None) -> list[Window]:
    """Each run's window: its whole trace, or with `step` the step's ProfilerStep#N (or serving step)
    annotation from its start to the end of the last device activity launched inside it (with `mark`, (name,
    instance), that instance of the host annotation of that name alike), or with `unit` (pass, layer) that
    pass's (layer's) device activities. `job`: one window over every run's, on the job's clock (run_id
    None)."""
    p, lay = unit if unit is not None else (None, None)
    name, instance = mark if mark is not None else (None, None)
    params = {"run_ids": b.run_ids, "step": step, "pass": p, "layer": lay, "mark": name, "instance": instance}
    rows = sql.run(con, "critical_path_windows", {**params, "job": False}).fetchall()
    got = {r[0]: Window(*r) for r in rows}
    missing = [rid for rid in b.run_ids if rid not in got]
    what = f"no {_window_name(step, unit, mark)}" if step is not None or unit or mark else "no device activity"
    if missing and len(missing) == len(b.run_ids):
        raise UsageError("; ".join(f"run '{b.run_names[r]}': {what}" for r in missing)
                         + ("; `tracedb report breakdown --by step` lists the steps" if step is not None else "")
                         + ("; `tracedb report passes` lists the passes" if unit else "")
                         + ("; `tracedb sql` on host_events lists the annotations" if mark else ""))
    for rid in missing:
        b.notes.append(f"run '{b.run_names[rid]}' left out: {what}")
    b.run_ids = [rid for rid in b.run_ids if rid in got]
    if job:
        params["run_ids"] = b.run_ids
        return [Window(*sql.run(con, "critical_path_windows", {**params, "job": True}).fetchone())]
    return [got[rid] for rid in b.run_ids]


def step_windows(con, b, step, run_ids=None) -> list[Window]:
    """The windows of step `step` (None: the whole trace) of the bound runs (or `run_ids`) that have it, with
    no note and no error for those that do not."""
    rows = sql.run(con, "critical_path_windows", {"run_ids": run_ids or b.run_ids, "step": step, "pass": None,
                                                  "layer": None, "mark": None, "instance": None,
                                                  "job": False}).fetchall()
    return [Window(*r) for r in rows]


def run_segments(con, run: str, profile: str | None = None) -> list[tuple]:
    """The critical path of run `run`'s whole trace as (start_ns, end_ns, category, segment, kernel, api),
    in time order, for the Perfetto export's track (a job's rank: its collectives' comm_wait, as the report);
    each segment in the pass and layer of the caller's _assigned (its segmentation, or assignment.assign_none).
    Empty for a run with no device activity."""
    b = binding.bind_runs(con, [run], (), profile)
    graph(con, b, peers=True)
    try:
        windows = _windows(con, b, None)
    except UsageError:
        return []
    _keep_walk(con, [walk(con, w) for w in windows])
    sql.run(con, "critical_path_segments")
    return sql.run(con, "critical_path_run_segments").fetchall()


def _coverage_notes(con, b):
    """What the trace lacks to tie the device to the host, per run: no host calls at all (a device-only
    trace: the path is the device's own and its gaps say only that the device was idle), or device work
    with no launch call in the trace (work that ran before the host side of the capture began)."""
    for rid, host, device, unlaunched in sql.run(con, "critical_path_coverage", {"run_ids": b.run_ids}).fetchall():
        name = b.run_names[rid]
        if not host:
            b.notes.append(f"run '{name}': no host calls in the trace (device rows only): the path is the device's "
                           "own, and a device_gap on it says the device was idle, not why")
        elif unlaunched:
            b.notes.append(f"run '{name}': {unlaunched:,} of {device:,} device activities have no launch call in the "
                           "trace (started before its host side, or without a correlation id or flow): the path "
                           "follows their streams only")


@dataclass
class Walked:
    """One window's path as columns, segment by segment from the window's end back to its start (position
    n - 1 first): the node each segment belongs to, its start and end (the job's clock), its category."""
    path: int
    step: int | None
    window_start_ns: int
    nodes: list
    starts: list
    ends: list
    categories: list


def walk(con, w: Window, cache: dict | None = None) -> Walked:
    """The path of window `w`, times on the job's clock. Each node's own stretch runs from the later of its
    start and its predecessor's release to the time its successor was released at; the gap before it, from
    that release to its start. Columns rather than a tuple per segment: 480 k segments of a 1.24 M-event
    trace cost 0.5 s more as tuples, re-made once more for their positions."""
    # times on the job's clock (off_ns: 0 for a run's own path); `cache` keeps a run's columns for its next window
    if cache is None or w.run_id not in cache:
        cols = columns(con, "critical_path_columns", {"run_id": w.run_id})
        if cache is not None:
            cache[w.run_id] = cols
    else:
        cols = cache[w.run_id]
    ids, sides, kinds, starts, preds, releases, edges, peers = cols
    first = ids[0] if ids else 0     # ids are dense within a run, and over all of them
    out = Walked(JOB_PATH if w.run_id is None else w.run_id, w.step, w.start_ns, [], [], [], [])
    add_node, add_start, add_end, add_cat = out.nodes.append, out.starts.append, out.ends.append, \
        out.categories.append
    x, node, w_start = w.end_ns, w.last, w.start_ns
    seen = set()
    while node is not None and x > w_start:
        if node in seen:
            # back at a node with no time gone by: only times that go backward (a hostile or broken trace) make
            # such a loop; the rest of the window is the gap before this node
            add_node(node), add_start(w_start), add_end(x)
            add_cat("device_gap" if sides[node - first] == "device" else "host_gap")
            break
        seen.add(node)
        i = node - first
        start, pred, release, edge, peer = starts[i], preds[i], releases[i], edges[i], peers[i]
        if release is not None and release > x:
            release = x
        own_from = start if release is None or start > release else release
        own_from = min(max(own_from, w_start), x)
        if peer is not None and own_from < peer < x:
            # a collective of a job's rank moved data once its last peer was in; before, it waited for them
            add_node(node), add_start(peer), add_end(x), add_cat(OWN[kinds[i]])
            add_node(node), add_start(own_from), add_end(peer), add_cat("comm_wait")
        elif x > own_from:
            add_node(node), add_start(own_from), add_end(x), add_cat(OWN[kinds[i]])
        if pred is None or release <= w_start:
            # waited for nothing in the window: the time since the window began is the gap before it
            if own_from > w_start:
                add_node(node), add_start(w_start), add_end(own_from)
                add_cat(GAP[edge] if pred is not None else "device_gap" if sides[i] == "device" else "host_gap")
            break
        if own_from > release:
            add_node(node), add_start(release), add_end(own_from), add_cat(GAP[edge])
        x, node = release, pred
    return out
