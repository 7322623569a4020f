"""Which traces of a folder ingest are ranks of one job (the run tag `job`; docs/jobs.md, "Ingesting a job").

A folder may hold the ranks of a job, several jobs, or captures that have nothing to do with each other (an H100
trace beside an Ascend export beside an Nsight Systems file). Only runs whose metadata agree are one job:

- a **rank** states its rank or its world size (Ascend profiler_info / profiler_metadata.json, Kineto's
  distributedInfo, a `rankN` in its path) and a world size other than 1 (a world of one rank is one process,
  whatever tools call it). A trace that states neither (most nsys, rocprof and single-GPU Kineto files) and a
  graph capture are no rank: a run of its own, with no tag;
- two ranks are of one job when they state the same world size (or both none) and either record the same job
  id (Ascend profiler_metadata.json: a job id or master address the job put there) or were captured at the
  same time: their capture windows overlap (within WINDOW_SLACK_NS), on an epoch clock. Ranks that record
  different job ids, or whose windows are apart, are not. A window that cannot be compared (no epoch clock, no
  event) separates nothing;
- a rank joins the first job (in path order) whose every member it agrees with; a job of one rank is a job only
  when its world size says there are others (a single rank of a job of 8 is still that job's rank);
- two runs may claim one rank of a job (two copies of rank 0, two exports of one capture): both stay in the
  job, the ingest names them, and the cross-rank reports match neither with the other ranks
  (sql/report/collectives_match.sql).

The facts are read before any parsing and cheaply (`job_facts.trace_facts`: a file's head, an Ascend folder's small JSON
side files, never the events). A window is known then only for an Ascend folder (profiler_info's collection
window); for every other trace it is its first to last event, known once the run is in the store. So a store
ingest decides its jobs after the runs landed (`settle`: every tag in one transaction), while a dataset ingest
(`--to`, whose runs are written with their tags) decides from what is known before parsing (`at_plan`)."""
import dataclasses
import os
from collections import Counter
from dataclasses import dataclass

from tracedb import sql
from tracedb.engine.loading.job_facts import Facts

EPOCH_CLOCKS = ("unix-epoch", "unix-epoch-local")     # runs.clock_domain values whose windows compare across hosts
SHOWN = 8        # runs or ranks a line names before "and N more"
# Windows closer than this count as overlapping: the ranks' clocks are their own hosts' (docs/jobs.md, "Clock
# alignment": microseconds to milliseconds apart under NTP, more on a host that lost it), so the windows of one
# capture may seem to miss each other by that much, while separate captures lie minutes to days apart (the
# shared data's unrelated Ascend exports of one model: 27 minutes).
WINDOW_SLACK_NS = 1_000_000_000


# ------------------------------------------------------------------------------------------------ grouping
@dataclass
class Member:
    """A run of a folder ingest, as job grouping sees it."""
    name: str                        # its run name
    path: str                        # its trace
    facts: Facts                     # rank and world size as the run has them (the store's, once it is in)
    window: tuple[int, int] | None   # its capture window on an epoch clock, when known
    capture: bool = False            # a graph capture: no rank of any job


@dataclass
class Grouping:
    jobs: list                       # lists of Members, in the order of their first member
    alone: list                      # (Member, why) of the runs that are in no job


def why_alone(m: Member) -> str | None:
    """Why a run is no rank of any job, or None when it may be one."""
    if m.capture:
        return "graph capture"
    if m.facts.rank is None and m.facts.world_size is None:
        return "with no rank or world size"
    if m.facts.world_size == 1:
        return "of world size 1"
    return None


def group(members: list[Member]) -> Grouping:
    """The jobs of a folder's runs (see the module's docstring). Deterministic: path order decides."""
    jobs: list[_Job] = []
    alone = []
    for m in members:
        why = why_alone(m)
        if why:
            alone.append((m, why))
            continue
        home = next((j for j in jobs if j.agrees(m)), None)
        if home is None:
            home = _Job()
            jobs.append(home)
        home.add(m)
    kept = []
    for j in (job.members for job in jobs):
        if len(j) > 1 and (j[0].facts.world_size is not None or len({m.facts.rank for m in j}) > 1):
            kept.append(j)
        elif len(j) == 1 and (j[0].facts.world_size or 0) > 1:
            kept.append(j)          # the one rank here of a job of several
        else:
            others = any(o.facts.world_size is None and o not in j for k in jobs for o in k.members)
            why = ("copies of one rank with no world size" if len(j) > 1 else
                   "with a rank but no world size, captured apart from the others" if others else
                   "with a rank but no world size, and no other rank")
            alone += [(m, why) for m in j]
    order = {id(m): i for i, m in enumerate(members)}
    alone.sort(key=lambda x: order[id(x[0])])
    return Grouping(kept, alone)


class _Job:
    """A job being formed: its members, and what a new rank must agree with, kept so that the check is one
    comparison per job, not one per member (a job of 1,024 ranks). Two ranks agree (see _agree) when they give
    one world size, and then one job id when both record one, else windows within WINDOW_SLACK_NS of each other
    where both are known. Over all members that is: the members' job ids are the rank's own, if it has one; and
    its window reaches back to the latest start and forward to the earliest end of every member it must be
    compared with by window: all of them, for a rank without a job id, else those without one."""

    def __init__(self):
        self.members: list[Member] = []
        self.ids: set = set()
        self.all = (None, None)       # (latest start, earliest end) over the members' known windows
        self.no_id = (None, None)     # the same over those without a job id

    def agrees(self, m: Member) -> bool:
        if m.facts.world_size != self.members[0].facts.world_size:
            return False
        if m.facts.job_id is not None and self.ids - {m.facts.job_id}:
            return False
        latest, earliest = self.all if m.facts.job_id is None else self.no_id
        if m.window is None or latest is None:
            return True
        return latest <= m.window[1] + WINDOW_SLACK_NS and m.window[0] <= earliest + WINDOW_SLACK_NS

    def add(self, m: Member):
        self.members.append(m)
        if m.facts.job_id is not None:
            self.ids.add(m.facts.job_id)
        if m.window is not None:
            self.all = _narrowed(self.all, m.window)
            if m.facts.job_id is None:
                self.no_id = _narrowed(self.no_id, m.window)


def _narrowed(bounds, window):
    latest, earliest = bounds
    return (window[0] if latest is None else max(latest, window[0]),
            window[1] if earliest is None else min(earliest, window[1]))


def _agree(a: Member, b: Member) -> bool:
    """Two ranks that may be of one job: one world size (or none), then one job id if both record one, else
    capture windows within WINDOW_SLACK_NS of each other where both are known (_Job checks a whole job at once)."""
    if a.facts.world_size != b.facts.world_size:
        return False
    if a.facts.job_id is not None and b.facts.job_id is not None:
        return a.facts.job_id == b.facts.job_id
    if a.window is None or b.window is None:
        return True
    return a.window[0] <= b.window[1] + WINDOW_SLACK_NS and b.window[0] <= a.window[1] + WINDOW_SLACK_NS


def claims(job: list[Member]) -> dict[int, list[Member]]:
    """The ranks of a job that two or more of its runs claim, with those runs."""
    by: dict = {}
    for m in job:
        if m.facts.rank is not None:
            by.setdefault(m.facts.rank, []).append(m)
    return {r: ms for r, ms in sorted(by.items()) if len(ms) > 1}


def job_names(jobs: list[list[Member]], prefix: str, root: str) -> list[str]:
    """One job in the folder: `prefix`. Several: `<prefix>-<folder>`, the deepest sub-folder that holds all the
    job's traces, else the one that holds most of them, numbered when that is the folder itself or taken."""
    if len(jobs) == 1:
        return [prefix]
    names: list[str] = []
    base = os.path.abspath(root)
    for i, job in enumerate(jobs):
        dirs = [os.path.dirname(os.path.abspath(m.path)) for m in job]
        common = os.path.commonpath(dirs)
        if common == base:
            common = Counter(dirs).most_common(1)[0][0]       # ties: the first in path order
        sub = os.path.relpath(common, base)
        label = "-".join(sub.split(os.sep)) if sub != os.curdir else f"job{i + 1}"
        names.append(f"{prefix}-{label}" if f"{prefix}-{label}" not in names else f"{prefix}-{label}-{i + 1}")
    return names


# ------------------------------------------------------------------------------------------------ lines
def lines(folder: str, grouping: Grouping, names: list[str], given: str | None = None) -> list[str]:
    """What a folder ingest says of its jobs: one line per job, one per job with a rank two runs claim, and one
    for the runs in no job. `given`: the user's own --tag job=..., which every run has (no grouping said)."""
    out = []
    if given is None:
        for job, name in zip(grouping.jobs, names):
            ranks = sorted({m.facts.rank for m in job if m.facts.rank is not None})
            size = job[0].facts.world_size
            of = f" of {size}" if size else ""
            what = (f"rank {ranks[0]}{of}" if len(ranks) == 1 else f"ranks {_ranges(ranks)}{of}") if ranks else \
                f"world size {size}"
            lone = "; the only rank here" if len(job) == 1 else ""
            out.append(f"job '{name}': {len(job)} run{'s' if len(job) != 1 else ''}, {what}{lone}")
    for job, name in zip(grouping.jobs, names):
        dup = claims(job)
        if dup:
            said = [f"runs {_and([_run(m, folder) for m in ms])} {'both' if len(ms) == 2 else 'all'} claim "
                    f"rank {r}" for r, ms in dup.items()]
            shown = "; ".join(said[:SHOWN]) + (f"; and {len(said) - SHOWN} more ranks" if len(said) > SHOWN else "")
            out.append(f"{shown} of job '{name}': two runs of one rank are never matched with each other (report "
                       f"collectives, ranks and blame leave {'its' if len(dup) == 1 else 'their'} collectives out); "
                       "to keep one, untag the other: tracedb runs tag RUN --untag job")
    # graph captures are paired with their replays (captures.py says so): not counted as unrelated here
    whys = Counter(why for _, why in grouping.alone if why != "graph capture")
    k = sum(whys.values())
    if k and given is None and len(grouping.alone) + sum(map(len, grouping.jobs)) > 1:
        parts = ", ".join(f"{c} {w}" for w, c in whys.items())
        out.append(f"{k} trace{'s' if k != 1 else ''} of {folder} {'are' if k != 1 else 'is'} unrelated "
                   f"capture{'s' if k != 1 else ''} ({parts}): ingested as separate runs, no job tag")
    return [f"  {line}" for line in out]


def _run(m: Member, folder: str) -> str:
    """A run and its trace, for a line: its path below the folder tells two copies apart."""
    return f"'{m.name}' ({os.path.relpath(os.path.abspath(m.path), os.path.abspath(folder))})"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _ranges(ranks: list[int]) -> str:
    """0, 1, 3 -> '0, 1, 3'; 0..127 -> '0-127'."""
    out, i = [], 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        out.append(f"{ranks[i]}-{ranks[j]}" if j - i >= 2 else ", ".join(map(str, ranks[i:j + 1])))
        i = j + 1
    return ", ".join(out)


# ------------------------------------------------------------------------------------------------ deciding
def at_plan(planned: list) -> list:
    """A dataset ingest (`--to`): each planned run of a folder with the job it is a rank of (Planned.job), from
    what is known before parsing (rank, world size, job id; Ascend's windows): a dataset's run is written once,
    with its tags. Runs of a file of several devices share their facts and are no ranks (their rank is a device)."""
    out = list(planned)
    for scope in _scopes(out):
        members = [_planned_member(out[i]) for i in scope]
        g = group(members)
        names = job_names(g.jobs, out[scope[0]].prefix, out[scope[0]].folder)
        where = {id(m): name for job, name in zip(g.jobs, names) for m in job}
        for i, m in zip(scope, members):
            out[i] = dataclasses.replace(out[i], job=where.get(id(m)))
    return out


def lines_at_plan(planned: list, landed: set, given: str | None) -> list[str]:
    """The lines of a dataset ingest's jobs (at_plan's, the same grouping again), over the runs that landed
    (`landed`: their names)."""
    out = []
    for scope in _scopes(planned):
        members = [_planned_member(planned[i]) for i in scope]
        if given is not None:       # the user's job: every run is of it; only two runs of one rank are said
            ranks = [m for m in members if m.name in landed and why_alone(m) is None]
            out += lines(planned[scope[0]].folder, Grouping([ranks], []), [given], given)
            continue
        g = group(members)
        names = job_names(g.jobs, planned[scope[0]].prefix, planned[scope[0]].folder)
        jobs = [([m for m in job if m.name in landed], name) for job, name in zip(g.jobs, names)]
        jobs = [(job, name) for job, name in jobs if job]
        alone = [(m, why) for m, why in g.alone if m.name in landed]
        if jobs or alone:
            out += lines(planned[scope[0]].folder, Grouping([j for j, _ in jobs], alone), [n for _, n in jobs], given)
    return out


def settle(con, kept: list, given: str | None) -> list[str]:
    """A store ingest: after its runs landed (`kept`: (Planned, IngestResult) of each run landed or skipped as
    stored already), tag the ranks of each job found in each folder with `job`, every tag in one transaction, and
    say what was decided. `given`: the user's --tag job=..., which wins (nothing is tagged; two runs of one rank
    are still named). A run skipped as stored already keeps the job it has."""
    todo, out = [], []
    for scope in _scopes([item for item, _ in kept]):
        items = [kept[i] for i in scope]
        names = list(dict.fromkeys(_stored_name(res) for _, res in items))   # one stored run for two copies
        rows = {r[0]: r for r in sql.run(con, "job_windows",
                                         {"names": names, "epoch_clocks": list(EPOCH_CLOCKS)}).fetchall()}
        members, ids = [], {}
        for item, res in items:
            name = _stored_name(res)
            row = rows.get(name)
            if row is None or name in ids or (res.status == "skipped" and row[4] is not None and given is None):
                continue
            ids[name] = row[1]
            members.append(_stored_member(item, row))
        if given is not None:
            g = Grouping([[m for m in members if why_alone(m) is None]], [])
            out += lines(items[0][0].folder, g, [given], given)
            continue
        g = group(members)
        jnames = job_names(g.jobs, items[0][0].prefix, items[0][0].folder)
        todo += [([ids[m.name] for m in job], name) for job, name in zip(g.jobs, jnames)]
        out += lines(items[0][0].folder, g, jnames)
    if todo:
        con.execute("BEGIN")
        try:
            for run_ids, name in todo:
                sql.run(con, "tag_runs", {"run_ids": run_ids, "drop": [], "keys": ["job"], "values": [name]})
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return out


def _scopes(planned: list) -> list[list[int]]:
    """Indexes of the planned runs of each folder ingest (several PATHs: one scope each), in plan order."""
    by: dict = {}
    for i, p in enumerate(planned):
        if p.folder is not None:
            by.setdefault(p.folder, []).append(i)
    return list(by.values())


def _planned_member(p) -> Member:
    facts = p.facts or Facts()
    if p.agent is not None and facts.world_size is None:
        facts = Facts()       # a device of a file of several: no rank of a job
    return Member(p.name, p.path, facts, facts.window, p.capture)


def _stored_member(item, row) -> Member:
    """A landed run: the rank and world size the store has (what the reports pair by) when its trace stated one
    before parsing (a rocprof or nsys file's rank is its device's index: no rank of a job), its window on an epoch
    clock, widened by the one its side files gave, and whether it is a graph capture."""
    _, _, rank, world_size, _, paired, epoch, first, last = row
    plan = item.facts or Facts()
    facts = plan if why_alone(Member("", "", plan, None)) else Facts(
        rank if rank is not None else plan.rank, world_size if world_size is not None else plan.world_size,
        plan.job_id, plan.window)
    window = (first, last) if epoch and first is not None and last is not None else None
    if plan.window is not None:
        window = plan.window if window is None else (min(window[0], plan.window[0]), max(window[1], plan.window[1]))
    # a graph capture by its content (paired, captures.py), not by its name: a rank read as one by mistake is a rank
    return Member(row[0], item.path, facts, window, bool(paired))


def _stored_name(res) -> str:
    return res.same_as if res.status == "skipped" else res.name
