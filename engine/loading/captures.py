"""Graph captures paired with their replays at ingest (docs/segmentation.md, "Graph replays and their capture").

A CUDA/HIP graph replay launches all of a graph's kernels from one graph launch call, so its kernels have no
launching module or op of their own. The graph capture trace of the same process recorded the launch calls
that built the graph, inside the frames that made them. A capture is ingested as a run of its own, read so
that its launch calls keep the name of the kernel they launch (ingest/chrome_json/schema.CAPTURE_ARGS), and
linked to its replay by tags: the replay gets `capture=K`, the capture `capture_of=K` (K: the replay's run
name), and the capture loses the `job` tag of a folder ingest, so that it counts as no rank of the job.
Reports then match each graph replay to its captured graph (sql/segment/graph_capture_match.sql).

`tracedb ingest REPLAY --capture CAPTURE` names the pair. A folder ingest pairs what it finds: a trace under a
`capture_traces/` folder or named like a capture is read as one, and after the runs land, each run that is a
capture by its content (sql/store/graph_capture_roles.sql) is paired with the graph replays of its folder
(for a `capture_traces/` folder, of the folder that holds it), of its rank when both sides have one."""
import os
from dataclasses import dataclass

from tracedb import sql

CAPTURE_FOLDER = "capture_traces"     # TraceLens's layout: a replay's capture traces in this sub-folder
# A capture's launch calls mostly run no kernel: 421 of vLLM FULL's 428, 361 of piecewise's 460, 1,567 of the
# FLUX.1 capture's 3,114 (which runs the model eagerly too). A trace whose kernels the profiler dropped in part
# has a few such calls; one in ten is far above that and far below any capture seen.
NOT_RUN_SHARE = 10


def looks_like_capture(root: str, path: str) -> bool:
    """Whether a trace of a folder ingest is read as a graph capture (its launch calls keep kernel names): it lies
    in a `capture_traces` folder, or its file name says capture. Read so by mistake, a trace only keeps those
    names; whether it is paired as a capture is its content's say (`pair_landed`)."""
    folders = os.path.dirname(os.path.abspath(path)).split(os.sep)
    return CAPTURE_FOLDER in folders or "capture" in os.path.basename(path).lower()


@dataclass
class Landed:
    """A run an ingest landed (or found already stored): its plan entry's path and flag, its name in the store."""
    path: str
    run: str
    capture: bool


def pair_given(con, replay: str, captures: list[str]) -> list[str]:
    """`tracedb ingest REPLAY --capture CAPTURE`: link the runs named (in the store open on `con`), and say how
    the replay's graphs matched."""
    ids = _ids(con, [replay, *captures])
    _link(con, _key(con, replay, [ids[c] for c in captures]), [ids[replay]], [ids[c] for c in captures])
    return _lines(con, [(ids[replay], [ids[c] for c in captures])])


def pair_landed(con, landed: list[Landed]) -> list[str]:
    """After a folder ingest: the captures among the landed runs (in the store open on `con`) paired with the
    graph replays beside them; one line per replay paired."""
    if len(landed) < 2:
        return []
    ids = _ids(con, [x.run for x in landed])
    if not sql.run(con, "graph_capture_runs", {"run_ids": sorted(set(ids.values()))}).fetchall():
        return []
    roles = {r[0]: r[1:] for r in sql.run(con, "graph_capture_roles",
                                          {"run_ids": sorted(set(ids.values()))}).fetchall()}
    ranks = dict(sql.run(con, "run_ranks", {"run_ids": list(ids.values())}).fetchall())
    caps = [x for x in landed if _is_capture(roles.get(ids[x.run]), x.capture)]
    cap_runs = {x.run for x in caps}
    replays = [x for x in landed if x.run not in cap_runs and (roles.get(ids[x.run]) or (0,) * 5)[4] > 0]
    out = []
    for reps, cs in _groups(caps, replays, {x.run: ranks.get(ids[x.run]) for x in landed}):
        _link(con, _key(con, reps[0], [ids[c] for c in cs]), [ids[r] for r in reps], [ids[c] for c in cs])
        out += _lines(con, [(ids[r], [ids[c] for c in cs]) for r in reps])
    return out


def _is_capture(role, flagged: bool) -> bool:
    """A run is a capture by its content: capture calls, and launch calls that ran no kernel, one in
    NOT_RUN_SHARE or more (`flagged`: read as a capture; its content still decides)."""
    if role is None:
        return False
    capture_calls, launches, not_run, _, _ = role
    return capture_calls > 0 and not_run > 0 and not_run * NOT_RUN_SHARE >= launches


def _groups(caps: list[Landed], replays: list[Landed], ranks: dict) -> list[tuple[list[str], list[str]]]:
    """(replays, captures) that pair: each capture with the replays beside it (of its rank when both have one);
    replays that share a capture are one group, keyed by the first of them."""
    edges = []
    for c in caps:
        near = [r for r in replays if _beside(r.path, c.path)]
        same = [r for r in near if ranks.get(c.run) is not None and ranks.get(r.run) == ranks.get(c.run)]
        edges += [(r.run, c.run) for r in (same or near)]
    groups: list[tuple[list[str], list[str]]] = []
    for r, c in edges:
        hit = [g for g in groups if r in g[0] or c in g[1]]
        merged = (sorted({r, *[x for g in hit for x in g[0]]}, key=[x.run for x in replays].index),
                  sorted({c, *[x for g in hit for x in g[1]]}, key=[x.run for x in caps].index))
        groups = [g for g in groups if g not in hit] + [merged]
    return groups


def _beside(replay_path: str, capture_path: str) -> bool:
    """A replay's trace lies beside a capture: in the capture's folder, or in the folder that holds the capture's
    `capture_traces` folder."""
    rdir = os.path.dirname(os.path.abspath(replay_path))
    cdir = os.path.dirname(os.path.abspath(capture_path))
    parts = cdir.split(os.sep)
    if CAPTURE_FOLDER in parts:
        at = len(parts) - 1 - parts[::-1].index(CAPTURE_FOLDER)
        return rdir in (cdir, os.sep.join(parts[:at]) or os.sep)
    return rdir == cdir


def _ids(con, names: list[str]) -> dict[str, int]:
    return dict(sql.run(con, "captures_run_ids", {"n": names}).fetchall())


def _key(con, replay: str, caps: list[int]) -> str:
    """The pairing key: the captures' own when they are paired already, all with one key (a capture that serves
    several replays, paired one command after another), else the replay's run name."""
    keys = {k for (k,) in sql.run(con, "captures_keys", {"c": caps}).fetchall()}
    return keys.pop() if len(keys) == 1 and None not in keys else replay


def _link(con, key: str, replays: list[int], caps: list[int]):
    """The pairing tags, in one transaction: `capture=key` on the replays, `capture_of=key` on the captures,
    which leave the folder's job."""
    con.execute("BEGIN")
    try:
        sql.run(con, "tag_runs", {"run_ids": replays, "drop": [], "keys": ["capture"], "values": [key]})
        sql.run(con, "tag_runs", {"run_ids": caps, "drop": ["job", "capture"], "keys": ["capture_of"], "values": [key]})
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _lines(con, pairs: list[tuple[int, list[int]]]) -> list[str]:
    """One line per replay: which captures it is paired with, and how many of its graph replays and kernels
    matched a captured graph (graph_capture_match.sql)."""
    names = dict(sql.run(con, "captures_run_names").fetchall())
    sql.run(con, "graph_capture_match", {"run_ids": [r for r, _ in pairs]})
    try:
        stats = {r[0]: r[1:] for r in sql.run(con, "captures_replay_stats").fetchall()}
        roles = {r[0]: r[1:] for r in sql.run(con, "graph_capture_roles", {
            "run_ids": sorted({c for _, cs in pairs for c in cs})}).fetchall()}
    finally:
        sql.run(con, "captures_drop")
    out = []
    for replay, caps in pairs:
        what = "graph capture" if len(caps) == 1 else "graph captures"
        head = f"  {what} {', '.join(repr(names[c]) for c in caps)} paired with replay {names[replay]!r}: "
        graphs, matched, kernels, kernels_matched, aside = stats.get(replay, (0, 0, 0, 0, 0))
        captured = sum((roles.get(c) or (0, 0, 0, 0, 0))[2] for c in caps)
        if not graphs:
            out.append(head + "the replay holds no graph launch with kernels")
            continue
        if not captured:
            out.append(head + "the capture holds no captured launch call (every launch call ran its kernel): "
                       f"none of the {graphs:,} graph replays matched")
            continue
        line = (head + f"{matched:,} of {graphs:,} graph replays matched, {kernels_matched:,} of {kernels:,} kernels "
                "attributed to the ops and modules that captured them")
        if aside:
            line += (f"; the captured graph launched {aside:,} kernel{'s' if aside != 1 else ''} its replays do not "
                     "run (set aside)")
        if matched < graphs:
            line += f"; {graphs - matched:,} match no captured graph (report modules notes which)"
        named = sum((roles.get(c) or (0, 0, 0, 0, 0))[3] for c in caps)
        if named < captured:
            line += ("; the capture's launch calls name no kernel (CUDA's runtime writes none, or it was not ingested "
                     "with --capture): matched by kernel count and order only")
        out.append(line)
    return out
