"""`report what-if`: the window's time if some work took less time or some waits went away: the edits parsed
here, the dependency graph `report critical-path` reads replayed with them (engine/reports/replay.py, whose
docstring gives the model; checked against the schedule simulator in tests/test_what_if.py)."""
from collections import defaultdict
from dataclasses import replace

from tracedb import sql
from tracedb.engine.reports import critical_path, path_ranks
from tracedb.engine.reports.replay import Graph
from tracedb.engine.rendering import render as rnd
from tracedb.errors import UsageError
from tracedb.patterns import check_regex

GAPS = ("launch_latency", "device_gap", "sync_wait")
# the parameters of what_if_rows_add.sql, in the order of a row
WI_COLUMNS = ("run_id", "step", "edit", "measured_ns", "predicted_ns", "pos")
DEFINITIONS = (
    "replay: each activity starts when the candidate it waits for longest releases it (report critical-path's "
    "candidates: the activity before it on its stream, its launch call, the work its stream waits for; a host "
    "call: the call before it on its thread), plus the gap it showed; durations are the measured ones scaled "
    "by the edits; with no edit the replay gives every measured time back; the window keeps its start")

JOB_DEFINITIONS = (
    "--job: the ranks replayed as one graph on the job's clock; a collective matched across them ends on every "
    "member when the last member has arrived plus the time it took after that, so a rank that arrives earlier "
    "moves the others' ends; the window is the job's, first start to last end over every rank")


def parse_edits(kernel=(), category=(), no_gap=(), overlap_comm=False, roofline=None, balance_ranks=False,
                job=False, layer=()) -> list[tuple]:
    """The edits as (label, what, pattern or name, factor): --kernel RE2=PCT, --category NAME=PCT, --layer L=PCT
    (time at PCT % of the measured), --no-gap CATEGORY, --overlap-comm (communication at 0 %), --roofline PCT
    (every kernel of known work at PCT % of its roofline, where that is faster), --balance-ranks (with --job:
    each rank's compute at most the median rank's)."""
    if balance_ranks and not job:
        raise UsageError("--balance-ranks: balances a job's ranks; add --job (the runs of one job, e.g. --tag "
                         "job=NAME)")
    edits = []
    for flag, items, what in (("--kernel", kernel, "kernel"), ("--category", category, "category"),
                              ("--layer", layer, "layer")):
        for item in items or ():
            name, sep, pct = str(item).rpartition("=")
            try:
                factor = float(pct) / 100
            except ValueError:
                factor = -1
            if not sep or not name or not 0 <= factor <= 10 or what == "layer" and not name.isdigit():
                raise UsageError(f"{flag} {item!r}: expected {dict(kernel='REGEX', layer='L').get(what, 'CATEGORY')}"
                                 "=PCT, PCT the time as a % of the measured (0-1000)"
                                 + ("; L a layer number (report layers)" if what == "layer" else ""))
            edits.append((f"{what} {name} at {pct} %", what, name, factor))
    for gap in no_gap or ():
        if gap not in GAPS:
            raise UsageError(f"--no-gap {gap!r}: expected one of {', '.join(GAPS)}")
        edits.append((f"no {gap}", "gap", gap, 0.0))
    if overlap_comm:
        edits.append(("communication overlapped", "category", "communication", 0.0))
    if roofline is not None:
        if not 0 < roofline <= 100:
            raise UsageError(f"--roofline {roofline:g}: expected a % of the roofline, above 0 and at most 100")
        edits.append((f"kernels at {roofline:g} % of their roofline", "roofline", "", roofline / 100))
    if balance_ranks:
        edits.append(("ranks balanced to the median", "balance", "", 1.0))
    if not edits:
        raise UsageError("give an edit: --kernel REGEX=PCT, --category NAME=PCT, --layer L=PCT, --no-gap CATEGORY, "
                         "--overlap-comm, --roofline PCT or (with --job) --balance-ranks")
    return edits


def build(con, fmt, step, edits, seg_opts, peak_tflops=None, peak_tbs=None, job: bool = False,
          mark: tuple | None = None) -> rnd.Result:
    layered = any(e[1] == "layer" for e in edits)
    b, meta = critical_path._bind(con, seg_opts, segmented=layered)
    if layered and not b.anchor:
        raise UsageError("--layer: the run has no layers (" + "; ".join(n for n in b.notes if n.startswith("no layers"))
                         + "); give --anchor")
    ranks = [] if job or len(b.run_ids) != 1 else path_ranks.job_runs(con, b.run_ids)
    only = b.run_ids[0] if len(ranks) >= 2 else None
    if only is not None:
        # a rank of a job whose other ranks the store holds: its collectives end when the others arrive, so it
        # is replayed with them, the edits on its own work alone
        names = dict(sql.run(con, "run_names", {"run_ids": ranks}).fetchall())
        critical_path.graph(con, replace(b, run_ids=ranks, run_names=names), job=True)
        b.notes.append(f"run '{b.run_names[only]}' is one of the {len(ranks)} ranks of its job in the store: replayed "
                       "with them, the edits on its own work alone, so that its collectives end when the others "
                       "arrive; the window is its own")
    else:
        critical_path.graph(con, b, job=job)
    windows = critical_path._windows(con, b, step, job=job, mark=mark)
    ideal = _ideal_times(con, b, peak_tflops, peak_tbs) if any(e[1] == "roofline" for e in edits) else {}
    for _, what, name, _ in edits:
        if what == "kernel":
            check_regex(con, name, "--kernel")
    rows = []
    for w in windows:
        if job or only is not None:
            graph, members = Graph.job_window(con, ranks if only is not None else b.run_ids, only)
            graph.only_run = only
            if any(e[1] == "balance" for e in edits):
                graph.balance = _balance(con, b, graph, members)
        else:
            graph = Graph.load(con, w.run_id, b.run_names[w.run_id])
            members = graph.members(con, w.run_id)
        graph.ideal = ideal
        graph.matched = {("kernel", name): {n for rid in ([w.run_id] if not job else b.run_ids) for (n,) in sql.run(
                             con, "what_if_names", {"run_id": rid, "pattern": name}).fetchall()}
                         for _, what, name, _ in edits if what == "kernel"}
        graph.matched.update({("layer", name): {n for (n,) in sql.run(con, "what_if_layer",
                                                                       {"layer": int(name)}).fetchall()}
                              for _, what, name, _ in edits if what == "layer"})
        measured = w.end_ns - w.start_ns
        sets = [[e] for e in edits] + ([edits] if len(edits) > 1 else [])
        for chosen in sets:
            end = graph.replay(*graph.edits(chosen))
            predicted = max(end[i - graph.first] for i in members) - w.start_ns
            label = chosen[0][0] if len(chosen) == 1 else "all of the above"
            rows.append((w.run_id, w.step, label, measured, predicted))
    sql.run(con, "what_if_rows")
    if rows:
        con.executemany(sql.load("what_if_rows_add"),
                        [dict(zip(WI_COLUMNS, r + (i,))) for i, r in enumerate(rows)])
    window = critical_path._window_name(step, None, mark)
    meta.update(path_window=window if step is not None or mark else "each run's whole trace",
                edits="; ".join(e[0] for e in edits))
    b.notes.append(DEFINITIONS)
    if job:
        b.notes.append(JOB_DEFINITIONS)
    return rnd.fetch_file(con, fmt, "report_what_if", {"run_ids": b.run_ids, "job": f"job ({len(b.run_ids)} runs)"},
                          "what-if", b, meta,
                          f"what if, {window}"
                          + (", the job's ranks replayed together" if job else ""))


def _balance(con, b, graph, members) -> dict:
    """{run: factor} that brings each rank's compute time in the window (its kernels but communication) to the
    median rank's where it is above it; a note gives the ranks it moves."""
    busy = defaultdict(int)
    for node in members:
        i = node - graph.first
        if graph.kinds[i] == "kernel" and graph.categories[i] != "communication":
            busy[graph.run_of[i]] += graph.ends[i] - graph.starts[i]
    if not busy:
        b.notes.append("--balance-ranks: no compute kernel in the window: the edit changes nothing")
        return {}
    times = sorted(busy.values())
    n = len(times)
    median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
    factors = {rid: min(1.0, median / t) for rid, t in busy.items() if t > 0}
    moved = sorted(((f, rid) for rid, f in factors.items() if f < 1.0))
    b.notes.append(f"--balance-ranks: the median rank computes {median / 1e3:,.3f} us in the window; "
                   + ("; ".join(f"run '{b.run_names[rid]}' {busy[rid] / 1e3:,.3f} us, its kernels at {100 * f:.1f} %"
                                 for f, rid in moved[:5]) + ("; ..." if len(moved) > 5 else "")
                      if moved else "no rank computes longer"))
    return factors


def _ideal_times(con, b, peak_tflops, peak_tbs) -> dict:
    """{node: ideal ns} of the kernels whose work and peaks are known (report roofline's, over every kernel of
    the runs); a note says how much of the device time that covers."""
    from tracedb.engine.reports import roofline
    sql.run(con, "run_wide", {"run_ids": b.run_ids})     # every kernel in one unit, as roofline --phase all
    roofline.load_kernels(con, b, peak_tflops, peak_tbs)
    ideal = dict(sql.run(con, "what_if_roofline").fetchall())
    if not ideal:
        b.notes.append("--roofline: no kernel of the runs has known work and a known peak (report roofline says "
                       "why): the edit changes nothing")
    return ideal
