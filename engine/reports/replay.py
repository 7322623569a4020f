"""The dependency graph of a run as `report critical-path` reads it (its nodes and every node's candidates,
sql/report/critical_path_nodes.sql), replayed forward under edits (report what-if) and backward for each
node's slack.

A node starts when the candidate it waits for longest releases it, plus the gap it showed after its binding
candidate (a launch latency, an idle stream); each candidate releases it at its own end, less what it
released it before its end (a launch call that returned after its kernel began). A launch that did not
bind its kernel hides its latency: the run's median latency stands for it (at most the gap it had), so a
kernel queued behind its stream, whose stream then frees early, starts that long after its launch. A
synchronising call ends when the host reaches it plus its own time, or the work it waited for ends plus the
return it showed, whichever is later (a call the device did not hold: the run's median return). A node
with no candidate keeps its start. Durations are the measured ones, scaled by the edits; with no edit the
replay gives every measured time back. Slack runs the same relations backward: how much later a node
could end before the window's end moves."""
import warnings
from collections import defaultdict, deque

from tracedb import sql
from tracedb.errors import UsageError

# the category of the gap behind each edge (report critical-path's; a collective's last member binds only the
# collective's end, so no gap lies behind it)
GAP = {"stream": "device_gap", "launch": "launch_latency", "event": "sync_wait", "thread": "host_gap",
       "sync": "sync_wait", "collective": "comm_wait"}


class Graph:
    """One run's nodes and candidates, in a topological order of the candidate edges."""

    def __init__(self, first, starts, ends, kinds, names, categories, cands, run_label="the run"):
        self.run_label = run_label
        self.first, self.starts, self.ends = first, starts, ends
        self.kinds, self.names, self.categories, self.cands = kinds, names, categories, cands
        n = len(starts)
        succ, indeg = defaultdict(list), [0] * n
        for i, cs in enumerate(cands):
            for p, _, _ in cs:
                succ[p].append(i)
                indeg[i] += 1
        queue = deque(i for i in range(n) if indeg[i] == 0)
        order = []
        while queue:
            i = queue.popleft()
            order.append(i)
            for j in succ[i]:
                indeg[j] -= 1
                if indeg[j] == 0:
                    queue.append(j)
        if len(order) != n:   # a cycle: cannot come from times that go forward, but a trace may be odd
            raise UsageError(f"no replay: the dependency graph of {self.run_label} has a cycle (its times go "
                             "backward somewhere: a kernel before its own launch, a call that ends as it starts)")
        self.order = order
        self.run_of = [None] * n    # each node's run (report what-if --balance-ranks)
        self.ideal = {}     # node -> ideal ns at the device's peak (report what-if --roofline)
        self.matched = {}   # ('kernel', pattern) or ('layer', L) -> the ids of the nodes it matches (report what-if)
        self.balance = {}   # run -> the factor that brings its compute time to the median run's
        self.only_run = None   # a run: the edits change its nodes alone (a job's rank replayed with the others)
        returns = sorted(self.ends[i] - max(r for _, r, e in cs if e == "sync")
                         for i, cs in enumerate(cands) if kinds[i] == "sync"
                         and any(e == "sync" and r > starts[i] for _, r, e in cs))
        self.sync_return = returns[len(returns) // 2] if returns else 0
        # a launch's latency is seen only where the launch bound its kernel: the median of those stands for
        # the others' (a kernel queued behind its stream, whose stream then frees early, waits for it)
        latencies = sorted(starts[i] - max(r for _, r, e in cs if e == "launch") for i, cs in enumerate(cands)
                           if any(e == "launch" for _, _, e in cs)
                           and max(cs, key=lambda c: (c[1], -PREF[c[2]]))[2] == "launch")
        self.launch_latency = latencies[len(latencies) // 2] if latencies else 0

    @classmethod
    def load(cls, con, run_id, run_name):
        """Run `run_id`'s graph (sql/report/replay_nodes.sql)."""
        ids, kinds, names, starts, ends, cats = columns(con, "replay_nodes", {"run_id": run_id})
        first = ids[0] if ids else 0
        cands = [[] for _ in ids]
        for i, p, release, edge in sql.run(con, "replay_cands").fetchall():
            cands[i - first].append((p - first, release, edge))
        graph = cls(first, starts, ends, kinds, names, cats, cands, run_label=f"run '{run_name}'")
        graph.run_of = [run_id] * len(ids)
        return graph

    @classmethod
    def load_job(cls, con, run_ids, offsets: dict):
        """One graph over a job's runs (report what-if --job), every time on the job's clock (`offsets`: ns added
        to each run's, engine/jobs/align.py). A collective matched across the ranks (replay_collectives.sql)
        ends on each member when the last member has arrived plus the time it took after that (its transfer):
        each member's arrival becomes a node of its own, holding the member's candidates, and the member waits
        for every arrival of its instance. So a rank that arrives earlier after an edit moves every member's
        end, and the next latest member binds them, as the job would run."""
        parts = [(rid, columns(con, "replay_nodes", {"run_id": rid}),
                  sql.run(con, "replay_cands").fetchall()) for rid in run_ids]
        parts.sort(key=lambda x: x[1][0][0] if x[1][0] else 0)      # node ids run over the runs in order
        first = next((cols[0][0] for _, cols, _ in parts if cols[0]), 0)
        starts, ends, kinds, names, cats, run_of, raw = [], [], [], [], [], [], []
        for rid, (ids, k, n, st, en, c), cs in parts:
            off = offsets.get(rid, 0)
            starts += [x + off for x in st]
            ends += [x + off for x in en]
            kinds += k
            names += n
            cats += c
            run_of += [rid] * len(ids)
            raw += [(i, p, release + off, edge) for i, p, release, edge in cs]
        cands = [[] for _ in starts]
        for i, p, release, edge in raw:
            if edge != "collective":      # replaced by the arrivals below
                cands[i - first].append((p - first, release, edge))
        instances = defaultdict(list)
        for node, inst in sql.run(con, "replay_collectives").fetchall():
            if 0 <= node - first < len(starts):
                instances[inst].append(node - first)
        for members in instances.values():
            arrivals = []
            for i in members:
                a = len(starts)
                starts.append(starts[i])
                ends.append(starts[i])
                kinds.append("arrival")
                names.append(names[i])
                cats.append(None)
                run_of.append(run_of[i])
                cands.append(cands[i])
                arrivals.append((a, starts[i]))
            last = max(t for _, t in arrivals)
            for i in members:
                cands[i] = [(a, t, "collective") for a, t in arrivals]
                starts[i] = min(last, ends[i])      # its own time: after the last arrival
        graph = cls(first, starts, ends, kinds, names, cats, cands, run_label="the job")
        graph.run_of = run_of
        return graph

    @classmethod
    def job_window(cls, con, run_ids, run_id=None):
        """(graph, window nodes): the job graph over `run_ids` on the job's clock (_cp_offsets, report critical-path
        --job) and the ids of the window's nodes (_cp_members): every run's, or `run_id`'s alone."""
        offsets = dict(sql.run(con, "replay_offsets").fetchall())
        members = cls.members(con, run_id) if run_id is not None else \
            [i for (i,) in sql.run(con, "replay_members_all").fetchall()]
        return cls.load_job(con, run_ids, offsets), members

    def slack(self, members, window_end) -> list[int | None]:
        """Each node's slack (ns): how much later it could end before some node of `members` ends after
        `window_end`; None for a node nothing in the window waits for. The relations of replay() with no
        edit, backward: a node ending at most LF(i) needs each candidate p to end by LF(i) - its term."""
        inf = float("inf")
        latest = [inf] * len(self.starts)
        for i in members:
            latest[i - self.first] = window_end
        no_edit = [1.0] * len(self.starts)
        for i in reversed(self.order):
            if latest[i] == inf:
                continue
            for p, term in self._terms(i, no_edit, ())[1]:
                latest[p] = min(latest[p], latest[i] - term)
        return [None if lf == inf else lf - e for lf, e in zip(latest, self.ends)]

    @staticmethod
    def members(con, run_id) -> list[int]:
        """The ids of the window's nodes (_cp_members, critical_path_windows.sql)."""
        return [i for (i,) in sql.run(con, "replay_members", {"run_id": run_id}).fetchall()]

    def edits(self, chosen):
        """(duration factor per node, gap categories removed) of the edits `chosen`."""
        factor = [1.0] * len(self.starts)
        removed = set()
        for _, what, name, f in chosen:
            if what == "gap":
                removed.add(name)
                continue
            if what == "balance":    # each run's compute at the median run's: self.balance, by run
                for i, kind in enumerate(self.kinds):
                    if kind == "kernel" and self.categories[i] != "communication":
                        factor[i] *= self.balance.get(self.run_of[i], 1.0)
                continue
            if what == "roofline":   # at f of its roofline: its ideal time / f, where that is shorter
                for node, ideal_ns in self.ideal.items():
                    i = node - self.first
                    if 0 <= i < len(factor):
                        dur = self.ends[i] - self.starts[i]
                        if dur > 0:
                            factor[i] *= min(1.0, ideal_ns / f / dur)
                continue
            # --kernel (RE2, what_if_names.sql) and --layer (what_if_layer.sql): the nodes they match
            matched = self.matched.get((what, name), set()) if what in ("kernel", "layer") else None
            for i, kind in enumerate(self.kinds):
                if kind in ("launch", "sync", "arrival"):
                    continue
                hit = (i + self.first) in matched if matched is not None else self.categories[i] == name
                if hit:
                    factor[i] *= f
        if self.only_run is not None:     # the other runs' nodes as measured
            factor = [f if self.run_of[i] == self.only_run else 1.0 for i, f in enumerate(factor)]
        return factor, removed

    def _gap_removed(self, i, category, removed) -> bool:
        """A gap of `category` before node i is removed: by the edits, and with only_run on that run's nodes
        alone."""
        return category in removed and (self.only_run is None or self.run_of[i] == self.only_run)

    def replay(self, factor, removed) -> list[int]:
        """Every node's end after the edits (ns, integer)."""
        new_end = list(self.ends)
        for i in self.order:
            floor, terms = self._terms(i, factor, removed)
            new_end[i] = max([floor] + [new_end[p] + term for p, term in terms])
        return new_end

    def _terms(self, i, factor, removed):
        """Node i's end as max(floor, new end of p + term for each (p, term)): the relations of the module
        docstring, with the durations scaled by `factor` and the gaps of the categories `removed` at 0."""
        start, end, cs = self.starts[i], self.ends[i], self.cands[i]
        dur = round((end - start) * factor[i])
        if self.kinds[i] == "sync":
            return self._sync_terms(i, cs, removed)
        if not cs:
            return start + dur, []
        binding = max(cs, key=lambda c: (c[1], -PREF[c[2]]))
        terms = []
        for c in cs:
            p, release, edge = c
            if c is binding:
                gap = 0 if self._gap_removed(i, GAP[edge], removed) else start - release
            elif edge == "launch":   # a launch that did not bind: the run's usual latency, at most what it had
                gap = min(start - release, self.launch_latency)
            else:          # another candidate that did not bind: no gap of its own behind it (never past the start)
                gap = min(0, start - release)
            # it releases the node at its new end, less what it released before its end
            terms.append((p, release - self.ends[p] + gap + dur))
        return -1, terms

    def _sync_terms(self, i, cs, removed):
        """A synchronising call ends when its thread reaches it plus its own time, or the work it waited for
        ends plus the return it showed (when that work ended after the call began: it bound the call)."""
        start, end = self.starts[i], self.ends[i]
        device = [c for c in cs if c[2] == "sync"]
        bound = device and max(r for _, r, _ in device) > start
        # the return after the work ended: as shown; for a call the device did not hold, the run's usual
        # return (the median over the calls it held), at most the call's own time
        back = (end - max(r for _, r, _ in device)) if bound else min(end - start, self.sync_return)
        if self._gap_removed(i, "sync_wait", removed):
            back = 0
        own = back if bound else end - start
        terms = [(p, release - self.ends[p] + back) for p, release, _ in device]
        thread = [c for c in cs if c[2] == "thread"]
        if not thread:
            return start + own, terms
        p, release, _ = thread[0]
        return -1, terms + [(p, release - self.ends[p] + (start - release) + own)]


PREF = {"stream": 0, "thread": 0, "event": 1, "sync": 1, "collective": 1, "launch": 2}


def columns(con, file: str, params: dict) -> list[list]:
    """The rows of sql/<file>.sql as one list per column, through Arrow: 480,973 rows in 0.4 s where tuples took
    0.7 s (with another job on the other core). DuckDB warns that a cursor's Arrow result copies the rows
    once more than a relation's; measured on those rows, both take 0.22 s."""
    cur = sql.run(con, file, params)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Arrow output on a DB-API result")
        tab = cur.to_arrow_table() if hasattr(cur, "to_arrow_table") else cur.arrow()
    return [tab.column(i).to_pylist() for i in range(tab.num_columns)]
