"""Notes of the pass split, per run: what the split followed (the break gaps found, or that none stands out;
step marks, graph replays, the module tree's block calls, a change of prefill/decode kernels, other work
between anchors), partial passes at either end of the capture, passes cut by count where the trace shows no
break, and the device time by what started its passes (sql/segment/pass_evidence.sql)."""
from tracedb import sql
from tracedb.engine.segmentation.candidates import PASS_BREAK_JUMP
from tracedb.engine.segmentation.binding import Bound

def split_notes(con, b: Bound) -> list[str]:
    """What the pass split followed, per run: the break gaps found (or that none stands out), fragments at
    either end of the capture, passes between two breaks that do not hold the expected count, and passes
    cut by count where the trace shows no break."""
    us = lambda ns: f"{ns / 1000:,.1f} us"   # noqa: E731  (notes only; reports print exact decimals)
    notes = []
    evidence = _pass_evidence(con)
    # every run's passes and groups in one query each (a job of 128 ranks: 2 statements, not 256)
    all_passes, all_groups = {}, {}
    for rid, *row in sql.run(con, "pass_notes_passes").fetchall():
        all_passes.setdefault(rid, []).append(tuple(row))
    for rid, *row in sql.run(con, "pass_notes_groups").fetchall():
        all_groups.setdefault(rid, []).append(tuple(row))
    for rid, rule, threshold, inside, breaks, forced, stepped, replayed, kinds, walks in sql.run(
            con, "pass_notes_split").fetchall():
        run = b.run_names.get(rid, rid)
        if rule == "gaps":
            head = (f"{breaks} pass break{'s' if breaks > 1 else ''} at anchor gaps >= {us(threshold)}"
                    + (f", {threshold / inside:.1f}x the largest gap inside a pass ({us(inside)})" if inside else ""))
        elif rule == "local":
            head = (f"{breaks} pass break{'s' if breaks > 1 else ''} at anchor gaps that stand out from the gaps "
                    f"beside them (>= {2 * PASS_BREAK_JUMP:g}x the smaller); no gap stands out over the whole run "
                    "(steps of different lengths, e.g. a prefill before decode steps)"
                    + (f"; the largest gap inside a pass is {us(inside)}" if inside else ""))
        elif rule == "none":
            other = "other " if forced or stepped or replayed or kinds or walks else ""
            head = (f"no {other}anchor gap stands out as a pass break"
                    + (f" (the largest inside is {us(inside)})" if inside else ""))
        else:
            head = f"{breaks} pass break{'s' if breaks != 1 else ''} at anchor gaps > {b.pass_gap:g}x the median"
        if forced:
            head = (f"{forced} pass break{'s' if forced > 1 else ''} where the trace puts one (work of another phase, "
                    f"a pipeline send/receive, or an embedding or sampling kernel, between two anchors); "
                    f"{'other breaks: ' if breaks else ''}" + head)
        if kinds:
            head = (f"{kinds} pass break{'s' if kinds > 1 else ''} where the anchor changes between kernels that take "
                    f"turns pass by pass; {'other breaks: ' if breaks or stepped or replayed else ''}" + head)
        if walks:
            head = (f"{walks} pass break{'s' if walks > 1 else ''} where the model's blocks are called again (a "
                    f"block not past the one before, in nn.Module frames or layer ranges); "
                    f"{'other breaks: ' if breaks or kinds or forced else ''}" + head)
        if replayed:
            head = (f"{replayed} pass break{'s' if replayed > 1 else ''} between CUDA/HIP graph replays that each "
                    f"hold whole passes; {'other breaks: ' if breaks or stepped else ''}" + head)
        if stepped:
            head = (f"{stepped} pass break{'s' if stepped > 1 else ''} at step boundaries (Step Id, ProfilerStep#N or "
                    f"serving step annotations); {'other breaks: ' if breaks else ''}" + head)
        passes, groups = all_passes.get(rid, []), all_groups.get(rid, [])
        extra, last = [], len(passes) - 1
        for p, anchors, expected, partial, _, base in passes:
            if not partial:
                continue
            bpl = b.blocks_per_layer
            where = (f"the capture starts mid-pass: its layers are numbered "
                     f"{base // bpl} to {(base + anchors - 1) // bpl}, "
                     f"and its kernels before the first anchor are the end of layer {(base - 1) // bpl}"
                     if p == 0 and base > 0 else
                     "the capture starts mid-pass" if p == 0 and last > 0 else
                     "the capture ends mid-pass" if p == last and last > 0 else
                     "a short pass between two breaks: --layers may be wrong or anchors missing" if last > 0 else
                     "the only pass")
            extra.append(f"pass {p} holds {anchors} of {expected} anchors ({where})")
        for grp, n, first, cut_min in groups:
            if n > 1 and b.per_pass and cut_min is not None and cut_min < threshold:
                extra.append(f"passes {first}-{first + n - 1} were cut every {b.per_pass} anchors, at the largest gaps "
                             f"the count allows (smallest gap at a cut {us(cut_min)}): no gap there stands out")
        said = evidence.get(rid)
        notes.append(f"run '{run}': {head}" + ("; " + "; ".join(extra) if extra else "")
                     + (f"; device time by what started its passes: {said}" if said else ""))
    return notes


# what started a pass (sql/segment/pass_evidence.sql), as the notes say it, strongest evidence first
STARTED_BY = {"step": "step marks", "replay": "whole-pass graph replays", "module": "the module tree's block calls",
              "kind": "a change of prefill/decode kernels", "work": "other work between anchors",
              "gap": "anchor gaps", "count": "the anchor count", "start": "the run's start"}


def _pass_evidence(con) -> dict[int, str]:
    """Per run whose passes some mark or gap started (not the run's start alone): each kind of evidence with
    its passes and the device time in their windows."""
    rows: dict[int, list] = {}
    for rid, ev, n, ns in sql.run(con, "pass_evidence").fetchall():
        rows.setdefault(rid, []).append((ev, n, ns))
    return {rid: ", ".join(f"{STARTED_BY[ev]} {n:,} pass{'es' if n != 1 else ''} ({ns / 1e6:,.3f} ms)"
                           for ev, n, ns in got)
            for rid, got in rows.items() if any(ev != "start" for ev, _, _ in got)}
