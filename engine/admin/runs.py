"""Run management (`tracedb runs`): list, remove, rename, tag. Each change is one transaction: a wrong
argument anywhere (a pattern matching nothing, a name taken) leaves the store as it was."""
import re
from contextlib import contextmanager

from tracedb import sql
from tracedb.engine.rendering import render as rnd
from tracedb.engine.segmentation import binding, segment
from tracedb.engine.segmentation import snapshots
from tracedb.engine.store.connect import parse_tags, resolve_runs, unknown_run
from tracedb.errors import NoAnchor, UsageError


@contextmanager
def transaction(con):
    con.execute("BEGIN")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def listing(con, runs=(), tags=(), fmt="table", passes=False, **seg_opts) -> rnd.Result:
    """The runs (all, or those selected by names/GLOBs and tags) with provenance, sizes and, with
    `passes`, their pass count: passes found as `report passes` would with the same options."""
    ids = resolve_runs(con, runs, tags) if runs or tags else \
        [r[0] for r in sql.run(con, "run_ids").fetchall()]
    counts, notes = pass_counts(con, ids, **seg_opts) if passes else (stored_pass_counts(con, ids), [])
    if not passes and counts:
        notes.append("passes: the forward passes of each run's stored segmentation (kept by the ingest or "
                     "`tracedb segment`); --passes finds them for every run")
    sql.run(con, "runs_passes_temp", {"r": list(counts), "n": list(counts.values())})
    query = sql.file_statements("list_runs")[-1].rstrip(";")
    return rnd.fetch(con, query, {"run_ids": ids}, "runs", fmt=fmt, title="runs", notes=notes)


def stored_pass_counts(con, ids) -> dict[int, int]:
    """Forward passes per run that `tracedb segment` has stored (kernel_segments); runs never segmented have none."""
    return dict(sql.run(con, "runs_stored_passes", {"i": list(ids)}).fetchall())


def pass_counts(con, ids, **seg_opts) -> tuple[dict[int, int], list[str]]:
    """Passes per run, each run segmented on its own (its own proposed anchor without --anchor). A run
    that cannot be segmented (no anchor found) gets no count and a note saying why."""
    counts, notes = {}, []
    for rid in ids:
        try:
            b = segment.prepare(con, binding.Options(runs=[_name(con, rid)], **seg_opts))
        except NoAnchor as e:
            first = re.split(r"; |\. ", str(e), maxsplit=1)[0]     # the reason, without the candidate list
            notes.append(f"no pass count: {first}; give --anchor or --profile")
            continue
        counts[rid] = sql.run(con, "runs_pass_count").fetchone()[0]
        notes += b.notes
    return counts, notes


def remove(con, patterns) -> list[tuple[str, int]]:
    """Remove the runs named or matched, with every row keyed by them: (name, kernel rows) removed. Runs to
    remove are always named: the one run of a store is no default here."""
    if not patterns:
        raise UsageError("name the runs to remove (RUN|GLOB)")
    with transaction(con):
        ids = resolve_runs(con, patterns)
        gone = sql.run(con, "runs_removed", {"i": ids}).fetchall()
        sql.run(con, "delete_run", {"run_ids": ids})
        snapshots.forget(con, ids)
    return gone


def rename(con, old: str, new: str):
    """Rename run `old` (an exact name, never a pattern) to `new`, which must be free."""
    with transaction(con):
        rid = _exact(con, old)
        if not new.strip():
            raise UsageError("the new run name is empty")
        if sql.run(con, "runs_name_taken", {"n": new}).fetchone():
            raise UsageError(f"run '{new}' already exists; remove it first (`tracedb runs rm '{new}'`) or pick "
                             "another name")
        sql.run(con, "runs_rename", {"n": new, "r": rid})
        snapshots.forget(con, [rid])     # its notes name it: kept under the old name, never matched again


def tag(con, patterns, set_tags, untag=()) -> list[tuple[str, dict]]:
    """Set `set_tags` (KEY=VALUE strings or a dict; a key's old value is replaced) and drop the keys
    `untag` on the runs named or matched: (name, tags after) per run."""
    set_tags = parse_tags(set_tags)
    untag = list(dict.fromkeys(untag or []))
    if not set_tags and not untag:
        raise UsageError("nothing to do: give KEY=VALUE tags to set and/or --untag KEY")
    both = sorted(set(set_tags) & set(untag))
    if both:
        raise UsageError(f"tag {both[0]!r} is both set and removed; give one or the other")
    if not patterns:
        raise UsageError("name the runs to tag (RUN|GLOB)")
    with transaction(con):
        ids = resolve_runs(con, patterns)
        sql.run(con, "tag_runs", {"run_ids": ids, "drop": untag, "keys": list(set_tags),
                                  "values": list(set_tags.values())})
        return sql.run(con, "runs_tags_of", {"i": ids}).fetchall()


def _exact(con, name: str) -> int:
    row = sql.run(con, "runs_exact", {"n": name}).fetchone()
    if row is None:
        raise unknown_run(con, name)
    return row[0]


def _name(con, rid: int) -> str:
    return sql.run(con, "run_name", {"run_id": rid}).fetchone()[0]
