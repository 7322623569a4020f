"""The candidate anchors of a phase and how each lies in the trace: the candidate sets of a run's attention
names (each name, families of variants, pairs that may take turns), each set's split into passes as a report
would split it, how steady its count per pass is, how single names lie against each other's passes, and
whether a set's names run side by side in each layer (candidate_stats); and the breaks the trace forces
between anchors (anchor_breaks). anchors.py chooses among them."""
import re

from tracedb import sql
from tracedb.engine.segmentation.module_tree import block_instances

# A pass break is an anchor gap at least 2x every gap inside a pass. On real traces a break after a whole
# pass (last FFN, lm_head, sampling, the next embedding) is 2.2-2.6x the largest gap inside a pass
# (Qwen1.5 H100 2.2x, MI300X 2.6x); single-pass traces show no jump above 1.03x. Back-to-back training
# micro-batches (Megatron on Ascend) are only 1.7x apart: they split once --layers gives the count.
PASS_BREAK_JUMP = 2.0

# Names of one set run side by side in a layer when one way from one name to the next holds at most this
# many kernels (the main backward attention kernel between its dot(dO, O) step and its dQ conversion) and
# another way more than twice as many plus this, or there is no other way (a model of one layer in one
# pass): a layer of even a decode step holds 10 kernels or more (projections, rope, KV-cache write,
# attention, norms, MLP), so names that take turns layer by layer never do.
SIDE_KERNELS = 2


def candidate_sets(con, attention: dict[int, list[str]]) -> dict[int, list[list[str]]]:
    """Per run (run_id -> its attention names): each attention name alone; each family of two or more names
    equal once digits are ignored, or once template and call arguments are (a sliding-window and a
    full-attention instance of one kernel differ in a `true`/`false` argument); and each pair of distinct
    names whose kernels take turns (gpt-oss and Gemma alternate sliding-window and full-attention layers,
    whatever their kernels are called). The passes decide: a pair that runs side by side in one layer is
    not tight and is dropped."""
    counts: dict = {}
    wanted = {"run_ids": [r for r, v in attention.items() for _ in v],
              "names": [n for v in attention.values() for n in v]}
    for rid, name, n in sql.run(con, "anchors_candidate_counts", wanted).fetchall():
        counts.setdefault(rid, {})[name] = n
    return {rid: sets_of(names, counts.get(rid, {})) for rid, names in attention.items()}


PAIR_RATIO = 7


def sets_of(attention: list[str], counts: dict[str, int]) -> list[list[str]]:
    """One run's candidate sets (candidate_sets), given its attention names and their kernel counts."""
    out = [[n] for n in attention]
    for key in (lambda n: re.sub(r"\d+", "#", n), lambda n: re.sub(r"[<(].*", "", n)):
        families: dict[str, list[str]] = {}
        for n in attention:
            families.setdefault(key(n), []).append(n)
        out += [f for f in families.values() if len(f) > 1 and f not in out]
    # the 12 most frequent names, pairs of counts at most 7:1 apart: a layer of each kind per pair of layers
    # (gpt-oss), or a full-attention layer every few linear or sliding ones (Qwen3-Next 3:1, Gemma 3 5:1)
    top = sorted(attention, key=lambda n: (-counts.get(n, 0), n))[:12]
    for i, a in enumerate(top):
        for c in top[i + 1:]:
            if counts.get(c, 0) * PAIR_RATIO >= counts.get(a, 0) and sorted([a, c]) not in out:
                out.append(sorted([a, c]))
    return out


def anchor_breaks(con, phase: str, kinds: dict[str, int] | None = None):
    """Forced breaks between anchors (anchor_breaks.sql): other phases' work, pipeline sends/receives, a
    forward's embedding and sampling kernels, and a change of the kind of step `kinds` gives the anchor names
    (prefill and decode anchors)."""
    kinds = kinds or {}
    block_instances(con)
    names = {t: [n for (n,) in sql.run(con, "anchors_break_names", names_table=sql.ident(t)).fetchall()]
             for t in ("_p2p_names", "_boundary_names")}
    sql.run(con, "anchor_breaks", {"phase": phase, "p2p_names": names["_p2p_names"],
                                   "boundary_names": names["_boundary_names"], "kind_names": list(kinds),
                                   "kind_groups": list(kinds.values())})


def candidate_stats(con, cands: dict[int, list[list[str]]], per_pass, pass_gap, phase="forward",
                     kinds=None) -> dict[int, list]:
    """Per run, each candidate set's anchors split into passes by segment_passes.sql (a candidate's index,
    numbered across the runs, in place of the run id), best first: steadiest count per pass, then most
    anchors per pass, then name. Each single-name candidate says which other candidate fills its pass
    breaks (split_by) and with which it takes turns pass by pass (apart: names never inside each other's
    passes nor in one marked step, anchoring passes of as many layers: one model's prefill and decode kernels);
    holds and steps count, per other single name, its kernels inside this one's passes and the marked steps
    the two share. A set of names whose
    gaps are alike in time says whether its names run side by side in each layer (side_by_side)."""
    keys = [(rid, c) for rid, sets in cands.items() for c in sets]
    if not keys:
        return {}
    sql.run(con, "anchors_cand_names", {"cands": [i for i, (_, c) in enumerate(keys) for _ in c],
                                        "run_ids": [rid for rid, c in keys for _ in c],
                                        "names": [n for _, c in keys for n in c]})
    sql.run(con, "anchor_candidates")
    anchor_breaks(con, phase, kinds)
    sql.run(con, "segment_passes", {"per_pass": per_pass, "min_jump": PASS_BREAK_JUMP,
                                    "gap_factor": None if pass_gap is None else float(pass_gap)})
    overlap = sql.run(con, "anchor_candidate_split").fetchall()
    out: dict[int, list] = {}
    for c, occ, ps, per, st, tight, gap_breaks, edge in sql.run(con, "anchor_candidate_stats").fetchall():
        rid, names = keys[c]
        out.setdefault(rid, []).append({"names": names, "occurrences": occ, "passes": ps, "per_pass": per,
                                        "steady": st, "tight": tight, "cand": c, "split_by": None, "apart": [],
                                        "holds": {}, "steps": {}, "gap_breaks": gap_breaks, "edge_partial": edge,
                                        "side_by_side": False})
    by_cand = {s["cand"]: s for stats in out.values() for s in stats}
    sets = [c for c, s in by_cand.items() if len(s["names"]) > 1 and s["tight"]]
    if sets:
        for c, fewest, most, ways in sql.run(con, "anchor_candidate_sides", {"cands": sets}).fetchall():
            by_cand[c]["side_by_side"] = fewest <= SIDE_KERNELS and (ways == 1 or most > 2 * fewest + SIDE_KERNELS)
    inside = {(a, b): n for a, b, n, _, _ in overlap}
    for a, b, n, fills, steps in overlap:
        sa, sb = by_cand.get(a), by_cand.get(b)
        if sa is None or sb is None:
            continue
        sa["holds"][sb["names"][0]] = n
        sa["steps"][sb["names"][0]] = steps
        if n == 0 and fills and sa["split_by"] is None:
            sa["split_by"] = sb["names"]
        # names that run in one marked step do not take turns pass by pass, however short their passes (a pass
        # of one anchor holds nothing)
        if n == 0 and inside.get((b, a)) == 0 and sa["per_pass"] == sb["per_pass"] and not steps:
            sa["apart"].append(sb["names"][0])
    for stats in out.values():
        # a pass cut by the capture's start or end is no sign of an unsteady anchor: the candidate that also
        # anchors the fragment (a prefill's last layers before decode steps) is steady in every whole pass
        stats.sort(key=lambda s: (-s["steady"] / max(s["passes"] - s["edge_partial"], 1), -s["steady"], -s["per_pass"],
                                  -s["occurrences"], s["names"]))
    return out
