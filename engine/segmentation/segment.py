"""Run the SQL segmentation stages for options bound to the runs (binding.py).

Every stage is a file in sql/ creating TEMP tables in the session (the store itself is never written):
segment_anchors -> segment_passes -> segment_windows -> segment_assign. This module prepares a segmentation
(bind, then find the passes, with notes on the split: pass_notes.py) per phase; the passes picked and their
layers assigned are assignment.py's. A segmentation `tracedb segment` or the ingest kept in the store
(snapshots) is restored instead of computed when the runs, options, profile and code are the same."""
import contextvars
import json
from dataclasses import fields, replace

import duckdb

from tracedb import sql
from tracedb.engine.segmentation import snapshots
from tracedb.engine.segmentation import profiles
from tracedb.engine.segmentation.candidates import anchor_breaks
from tracedb.engine.segmentation.assignment import assign, select_passes
from tracedb.engine.segmentation.binding import PHASES, _SESSION_FIELDS, Bound, Options, bind
from tracedb.engine.segmentation.pass_notes import split_notes
from tracedb.engine.segmentation.phases import phase_of_anchor
from tracedb.engine.segmentation.categories import load_rules
from tracedb.engine.segmentation.words import ALL_PASSES
from tracedb.engine.store.connect import session
from tracedb.errors import NoAnchor

# Set when a report's segmentation was restored from the store: the report's parameters then say
# `segmentation: kept` (registry.build_report), the same rows as computed afresh
RESTORED = contextvars.ContextVar("tracedb_restored", default=False)

# From this many runs a report that segments them says that `tracedb segment` would keep the segmentation (an
# ingest keeps it up to at_ingest.AUTO_MAX_KERNELS):
# segmenting 128 ranks costs a report 0.75-0.8 s of its 1.4-1.6 s, restoring a kept one ~0.1 s.
HINT_RUNS = 16


def prepare(con, opt: Options, rule=None, first: bool = False, reuse: bool = True) -> Bound:
    """Stages 0-3 for `opt`: bind, then find_passes; or, with `reuse`, the segmentation `tracedb segment`
    kept for the same runs, options, profile and code, restored (its parameters say so). `rule` (Bound.rule or
    Bound.phase_rule) adds its note after the binding's notes, or `first`."""
    b = _restored(con, opt) if reuse else None
    if b is None:
        b = bind(con, opt)
        b.bind_notes = len(b.notes)
        find_passes(con, b)
        if reuse and len(b.run_ids) >= HINT_RUNS:
            b.notes.append(f"{len(b.run_ids)} runs segmented for this report: `tracedb segment` with the same runs "
                           "and segmentation options keeps the segmentation in the store, and the next reports "
                           "restore it instead")
    if rule is not None:
        b.notes.insert(0 if first else b.bind_notes, rule(b))
    return b


def _restored(con, opt: Options, say: bool = True) -> Bound | None:
    """The segmentation `tracedb segment` or the ingest kept for `opt`, restored once proved against the store
    (snapshots.prove), and marked RESTORED for the report's parameters (unless not `say`); None when none is
    kept. One that fails its proof (rows changed since it was kept, forged or damaged tables) is set aside:
    computed afresh here, with a note saying why."""
    restoring = []
    try:
        kept = snapshots.prove(con, opt, {f.name for f in fields(Bound)} - set(_SESSION_FIELDS))
        if kept is None:
            return None
        b = Bound.from_state(kept.state, profiles.load(opt.profile or "generic"))
        restoring = kept.tables
        snapshots.restore_tables(con, kept.snap_id, kept.tables)
    except duckdb.InterruptException:
        raise            # Ctrl-C: the command stops, as anywhere else
    except snapshots.SetAside as e:
        why = str(e)
    except (duckdb.Error, KeyError, TypeError, ValueError) as e:
        why = f"it could not be read ({type(e).__name__})"
        snapshots.drop_restored(con, restoring)
    else:
        sql.run(con, "segment_stream", {"phase": b.phase})
        if say:     # the report's parameters say so (registry.build_report), not a note: after an ingest it is the rule
            RESTORED.set(True)
        return b
    b = prepare(con, opt, reuse=False)
    # said by `tracedb segment` too (say=False): one it has just kept and cannot restore is worth knowing
    b.notes.append(f"kept segmentation set aside: {why}; segmented afresh (`tracedb segment` keeps it again)")
    return b


def keep(con, opt: Options) -> Bound:
    """Segment `opt` in a session of its own, exactly as a report's fresh session would, keep its session
    tables in the store with the digests of its runs' rows, and restore them in `con` (without the parameter
    a report gets). `con` is a writable connection, which no other process shares: the tables are restored as
    they were saved, without the proof a report makes before it trusts them (0.1-0.2 s an 8-rank job)."""
    cur = session(con)
    try:
        b = prepare(cur, opt, reuse=False)
        assign(cur, b, select_passes(cur, b, ALL_PASSES))
        # found by the phase as given, by the phase bound, and without one when that binds the same phase
        phases = {opt.phase, b.phase}
        if phase_of_anchor(cur, opt.anchor or b.profile.anchor, b.training) == b.phase:
            phases.add(None)
        state = b.state()
        snap_id, tables = snapshots.save(cur, sorted(snapshots.keys(con, opt, phases)), b.run_ids, state,
                                         snapshots.digests(con, opt))
    finally:
        cur.close()
    kept = Bound.from_state(json.loads(json.dumps(state)), b.profile)   # as a report restores it
    snapshots.restore_tables(con, snap_id, tables)
    sql.run(con, "segment_stream", {"phase": kept.phase})
    return kept


def each_phase(con, opt: Options, first: bool = False, kept: bool = False):
    """`opt` prepared once per phase to segment, with the phase rule's note (assign is the caller's): the
    phase --phase or a given anchor names, else forward and, when the runs hold backward work, backward.
    `kept`: each phase's segmentation is kept in the store for reports (tracedb segment)."""
    b = None
    for phase in ([opt.phase] if opt.phase or opt.anchor else PHASES):
        if phase == "backward" and not opt.phase and (not b.training or not sql.run(
                con, "segment_has_backward").fetchone()[0]):
            return    # no backward pass to find: a capture of forward and optimizer work (inference steps)
        phased = replace(opt, phase=phase)
        b = keep(con, phased) if kept else prepare(con, phased)
        b.notes.insert(0 if first else b.bind_notes, b.phase_rule())
        yield b


def find_passes(con, b: Bound):
    """Stages 1-3: anchors, passes, windows for every pass of the bound runs. Raises when a run has no
    anchor, naming its most frequent kernels so the user can pick one."""
    p = b.params()
    if b.proposed:      # the proposal's split of the chosen candidates is the runs' own
        sql.run(con, "candidate_passes")
        b.proposed = None      # once: a later find_passes on these Bound options computes afresh
    else:
        sql.run(con, "segment_anchors", p)
        found = dict(sql.run(con, "segment_anchor_counts").fetchall())
        for rid in b.run_ids:
            if not found.get(rid):
                top = con.execute(sql.load("top_names"), {"run_id": rid}).fetchall()
                raise NoAnchor(f"run '{b.run_names[rid]}': no kernel name or op type matches anchor {b.anchor!r}; "
                               f"most frequent: {', '.join(f'{n} ({c})' for n, c in top)}")
        anchor_breaks(con, b.phase, b.kinds)
        sql.run(con, "segment_passes", p)
    sql.run(con, "segment_steps")
    sql.run(con, "segment_windows", p)
    b.notes += split_notes(con, b)
    load_rules(con, b.profile)
