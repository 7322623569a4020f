"""Which kernel anchors the passes of a phase when none is given: the proposal of an anchor from the attention
kernels that repeat a steady number of times per pass (their candidate sets and statistics: candidates.py),
the module tree deciding where it frames them (propose_anchor), with the notes saying what was guessed."""
import re

from tracedb import sql
from tracedb.engine.segmentation.categories import categorize
from tracedb.engine.segmentation.candidates import candidate_sets, candidate_stats
from tracedb.engine.segmentation.module_tree import has_layer_evidence, module_blocks, module_candidates, with_unframed
from tracedb.engine.segmentation.phases import BACKWARD
from tracedb.errors import NoAnchor


def propose_anchor(con, prof, run_ids, opt, cfg, phase="forward") -> tuple[str, list[str], bool, dict[str, int]]:
    """No anchor given: per run, the attention anchor whose count per pass is the most steady (equal to
    the layer count when one is known), passes found exactly as a report finds them. Candidates are each
    attention kernel name and each family of variants that differ only in digits (vLLM runs
    `kernel_unified_attention_2d` or `_3d` per layer): a family counts when its members take turns, not
    when they run side by side in one layer. Forward kernels are preferred when the trace also holds
    backward ones. Returns an exact-name pattern, notes saying what was chosen and why, whether the
    chosen candidates' pass split stands for the runs' own (TEMP _chosen: candidate_passes.sql), and the
    kind of step of the chosen names that have one (name -> kind: a change of kind is a pass break); refuses
    when no candidate repeats steadily."""
    want = (opt.layers or cfg.get("layers") or prof.layers)
    bpl = opt.blocks_per_layer or prof.blocks_per_layer
    names, notes = [], []
    # every run at once: one categorization of the runs' distinct names and one pass split of every run's
    # candidates (a job of 128 ranks took 9.8 s with statements per run, 128 times over)
    run_names = dict(sql.run(con, "run_names", {"run_ids": list(run_ids)}).fetchall())
    triples = sql.run(con, "anchors_stream_names", {"run_ids": list(run_ids)}).fetchall()
    pairs = sorted({(n, o) for _, n, o in triples}, key=lambda t: (t[0], t[1] or ""))
    category = dict(zip(pairs, categorize(con, prof, pairs)))
    # grouped in one pass over the triples: a scan of every triple per run took 1.3 s at 1,024 ranks
    attention = {rid: set() for rid in run_ids}
    for r, n, o in triples:
        if category[(n, o)] == "attention":
            attention[r].add(n)
    attention = {rid: sorted(found) for rid, found in attention.items()}
    sets = candidate_sets(con, attention)
    all_stats = candidate_stats(con, sets, want * bpl if want else None, opt.pass_gap, phase)
    # a run none of whose attention kernels repeats steadily (a name the category rules do not know, e.g.
    # SGLang's Triton decode attention _fwd_kernel_stage1): the kernels that repeat as often as most
    # repeating kernels do are candidates too, named as a guess, in runs that record LLM serving steps (a
    # trace of transformer layers whatever its kernels are called; a CNN repeats its convolutions too, but has
    # no layers to find, and its reports answer over the whole run instead)
    marked = dict(sql.run(con, "anchors_marked_runs", {"run_ids": list(run_ids)}).fetchall())
    served = {rid for rid, serving in marked.items() if serving}
    # an attention kernel that runs once in each marked step says one layer, more than kernels that repeat
    # twice a step (a one-layer MoE model's two expert GEMMs and two norms) say two
    guessed = {rid: _repeating_sets(con, rid) for rid in run_ids if rid in served
               and not any(_steady(s, all_stats[rid], None, bpl) or _one_layer(s, all_stats[rid], attention[rid], bpl)
                           for s in all_stats.get(rid, []))}
    guessed = {rid: g for rid, g in guessed.items() if g}
    if guessed:
        sets = {rid: sets.get(rid, []) + guessed.get(rid, []) for rid in run_ids}
        all_stats = candidate_stats(con, sets, want * bpl if want else None, opt.pass_gap, phase)
    # kernels that take turns pass by pass (a prefill kernel and a decode kernel of one model) are one anchor,
    # and a change from one kind to the other is a pass break: such sets are split again with those breaks,
    # so that a prefill step's long layers and a decode step's short ones never share a pass
    kinds: dict[str, int] = {}      # name -> its kind of step, numbered across the runs
    grown: dict[int, list[list[str]]] = {}
    for rid, stats in all_stats.items():
        groups, grown[rid] = _kind_sets(stats)
        for names_of_kind in groups:
            kinds.update(dict.fromkeys(names_of_kind, len(set(kinds.values()))))
    kind_names = sorted(kinds)
    if kind_names:
        sets = {rid: sets.get(rid, []) + [p for p in grown.get(rid, []) if p not in sets.get(rid, [])]
                for rid in run_ids}
        all_stats = candidate_stats(con, sets, want * bpl if want else None, opt.pass_gap, phase, kinds)
    framed_runs = all_stats and has_layer_evidence(con, run_ids)
    if framed_runs and bpl == 1:
        # the module tree's own anchor: the attention names of which each call of the model's blocks launched
        # exactly one (a hybrid model's linear and full attention, prefill and decode kernels alike)
        own = module_candidates(con, attention)
        added = {rid: [c for c in with_unframed(names, side, sets.get(rid, [])) if c not in sets.get(rid, [])]
                 for rid, (names, side, _) in own.items()}
        if added:
            sets = {rid: sets.get(rid, []) + added.get(rid, []) for rid in run_ids}
            all_stats = candidate_stats(con, sets, want * bpl if want else None, opt.pass_gap, phase, kinds)
            # a union holds as many anchors a pass as the module tree's blocks, or it joined another stack's
            # kernels (a diffusion transformer's replayed blocks to its text encoder's layers)
            for rid, (names, _, layers) in own.items():
                unions = [c for c in added.get(rid, []) if c != names]
                all_stats[rid] = [s for s in all_stats.get(rid, []) if s["names"] not in unions
                                  or s["per_pass"] == layers]
    short = _short_names(con, sorted({n for names in sets.values() for s in names for n in s}))
    blocks = module_blocks(con) if framed_runs else {}
    chosen: dict[int, dict] = {}
    for rid in run_ids:
        run, stats = run_names[rid], all_stats.get(rid, [])
        good = [s for s in stats if _steady(s, stats, want, bpl)]
        one_layer = not good and rid in marked and want in (None, 1)
        if one_layer:
            # a marked step (a serving step, ProfilerStep#N) holds one forward pass: when nothing repeats inside
            # the steps, an attention kernel that runs once in each is the one layer's (a model of one layer, or
            # one layer kept for a study)
            good = [s for s in stats if _one_layer(s, stats, attention[rid], bpl)]
        good, module_notes = _by_module_tree(stats, good, blocks, want, bpl, phase)
        forward = [s for s in good if (phase == "backward") == any(BACKWARD.search(n) for n in s["names"])]
        skipped = sorted({n for s in good for n in s["names"]} - {n for s in forward for n in s["names"]})
        good = forward or good
        if rid in served:
            # a serving step is one forward pass: a candidate that splits a marked step at a gap (an attention
            # kernel and its KV-cache write side by side, two full-attention layers of a hybrid model apart)
            # comes after those that leave every step whole
            good.sort(key=lambda s: s["gap_breaks"] > 0)
        if one_layer and len(good) > 1:
            # the one with most device time: the attention itself rather than the KV-cache write beside it
            ns = dict(sql.run(con, "anchors_name_time", {"run_id": rid, "names": [s["names"][0] for s in good]})
                      .fetchall())
            good.sort(key=lambda s: -(ns.get(s["names"][0]) or 0))
        if not good:
            # the attention candidates first: the guesses only add to them
            listed = sorted(stats, key=lambda s: not all(n in attention[rid] for n in s["names"]))
            seen = "; ".join(f"{' | '.join(s['names'])} ({s['per_pass']}/pass in {s['steady']} of {s['passes']} passes)"
                             for s in listed[:3])
            raise NoAnchor(f"run '{run}': no anchor given and no attention kernel repeats a steady number of "
                           f"times per pass{f' equal to {want} layers' if want else ''}"
                           f"{'; candidates: ' + seen if seen else ''}; {repeating(con, rid)}. Give --anchor REGEX")
        best = good[0]
        if rid in guessed and not all(n in attention[rid] for n in best["names"]):
            # among guesses alike, the one with most device time (attention outweighs a norm or a copy)
            order = {tuple(c): i for i, c in enumerate(guessed[rid])}
            best = min((g for g in good if g["steady"] == best["steady"] and g["passes"] == best["passes"]),
                       key=lambda g: order.get(tuple(g["names"]), len(order)))
        module_note = module_notes.get(best["cand"], "")
        names += best["names"]
        chosen[rid] = best
        what = (f"{len(best['names'])} variants of one attention kernel, one per layer" if len(best["names"]) > 1
                else "an attention kernel")
        if len({kinds[n] for n in best["names"] if n in kinds}) >= 2:
            what = (f"{len(best['names'])} attention kernels of steps of two kinds that take turns pass by pass "
                    "(never inside each other's passes, as many layers each: one model's prefill and decode, "
                    "say); a change from one kind to the other ends a pass")
        if not all(n in attention[rid] for n in best["names"]):
            what = ("a guess: no attention kernel repeats steadily, and this kernel repeats as often as most "
                    "kernels that repeat (one per layer); check it, or give --anchor")
        if one_layer:
            what = ("one layer: no attention kernel repeats inside a marked step (a serving step or ProfilerStep#N), "
                    "and this one runs once in each")
        shown = " | ".join(short.get(n) or n for n in best["names"])
        whole = " | ".join(best["names"])
        notes.append(f"run '{run}': anchor chosen: {shown} — {what}, seen {best['per_pass']} "
                     f"times in {best['steady']} of {best['passes']} passes"
                     f"{'' if want or module_note.startswith('layers from') else '; pass --layers to check'}"
                     + (f"; {'backward' if phase == 'forward' else 'forward'} kernels not considered: "
                        f"{', '.join(short.get(n) or n for n in skipped)}" if forward and skipped else "")
                     + (f"; full name: {whole}" if whole != shown else "")
                     + (f"; {module_note}" if module_note else ""))
    pattern = "^(" + "|".join(re.escape(n) for n in dict.fromkeys(names)) + ")$"
    return pattern, notes, _keep_chosen(con, chosen, triples), {n: g for n, g in kinds.items() if n in names}


def _by_module_tree(stats, good, blocks, want, bpl, phase) -> tuple[list, dict[int, str]]:
    """The module tree decides among one run's candidates (stats; good: those the counts accept) where it
    frames them: a candidate launched inside N instances of a block class holds N x bpl anchors a pass, or
    it is not the layer anchor (36 TransformerBlock instances: the sliding-window kernel alone, 18 a pass,
    is half the layers; sliding and full together, 36, are the layers). --layers, when given, decides
    instead. Returns the candidates kept, in their order, and per framed candidate a note naming the
    evidence, or the disagreement when no candidate holds one anchor per instance."""
    framed = [s for s in stats if s["cand"] in blocks and s["steady"] * 2 >= s["passes"]
              and (phase == "backward") == any(BACKWARD.search(n) for n in s["names"])]
    said = lambda m: f"{m['instances']} {m['block']} instances ({m['first']} ... {m['last']})"  # noqa: E731
    if want:
        return good, {s["cand"]: f"the module tree names {said(blocks[s['cand']])} around these anchors; --layers "
                                 f"{want} decides" for s in framed if blocks[s["cand"]]["instances"] != want}
    if not framed:
        return good, {}
    agree = [s for s in framed if s["per_pass"] == blocks[s["cand"]]["instances"] * bpl]
    if not agree:
        return good, {s["cand"]: (f"the module tree names {said(blocks[s['cand']])} around these anchors, and no "
                                  f"attention candidate repeats {blocks[s['cand']]['instances'] * bpl} times a "
                                  "pass: the layers follow the anchor; give --layers or --anchor to decide")
                      for s in framed}
    keep = {id(s) for s in good if s not in framed} | {id(s) for s in agree}
    dropped = sorted({f"{s['per_pass']}/pass" for s in framed if s not in agree and s in good})
    return [s for s in stats if id(s) in keep], {
        s["cand"]: (f"layers from the module tree: {said(blocks[s['cand']])} launch these anchors"
                    + (f" (candidates of {', '.join(dropped)} disagree with it and were set aside)" if dropped else ""))
        for s in agree}


def _steady(s, stats, want, bpl, least=2) -> bool:
    """Whether a candidate (one run's stats `s` among `stats`) anchors layers: no other candidate's kernels fill its
    pass breaks, and it takes turns pass by pass with no other (anchor_candidate_split.sql: the two together are the
    anchor, a pair that needs no tight gaps); its count per pass is steady in at least half its passes, at least
    `least`, and --layers x blocks when given. `least` 1 is for a model of one layer, where marked steps delimit the
    passes: the layer's other kernels then fill every break between anchors and its KV-cache write takes turns with
    its attention, so neither check applies. A set of names holds at least as many anchors per pass as each member
    and no more passes than they have together, and its names do not run side by side in each layer (side_by_side:
    a backward attention kernel and its dQ post-processing would read every layer as two); kernels that take turns
    layer by layer (sliding-window and full attention) or pass by pass (prefill and decode) pass."""
    alone = {c["names"][0]: c for c in stats if len(c["names"]) == 1}
    apart = len(s["names"]) == 2 and s["names"][1] in alone.get(s["names"][0], {}).get("apart", ())
    # one anchor a pass (least 1, where marked steps delimit the passes): the layer's other kernels fill every
    # break between anchors, and its KV-cache write takes turns with its attention pass by pass
    return ((least == 1 or not s.get("split_by") and not s.get("apart")) and s["steady"] * 2 >= s["passes"]
            and s["per_pass"] >= least
            and (not want or s["per_pass"] == want * bpl)
            and (len(s["names"]) == 1 or apart or s["tight"] and not s["side_by_side"]
                 and all(s["per_pass"] >= alone[n]["per_pass"] for n in s["names"] if n in alone)
                 and s["passes"] <= sum(alone[n]["passes"] for n in s["names"] if n in alone)))


def _one_layer(s, stats, attention, bpl) -> bool:
    """Whether a candidate anchors a model of one layer in a run whose steps are marked: one attention name, once
    in each pass, its passes split by the marks alone (a pass split at a gap is no step's)."""
    return (len(s["names"]) == 1 and s["names"][0] in attention and s["per_pass"] == 1 and not s["gap_breaks"]
            and _steady(s, stats, None, bpl, least=1))


# Kernels that run once per layer repeat as often as one another: the count most repeating names share is
# the layers (x passes). Of the names with that count, the three with most device time are candidates.
GUESSED_CANDIDATES = 3


def _repeating_sets(con, rid) -> list[list[str]]:
    """One run's guessed candidates (one name each): the kernels of its stream whose count is the count that
    most names repeated two times or more share (ties: the larger count), by device time."""
    counted = sql.run(con, "anchors_repeating", {"run_id": rid}).fetchall()
    if not counted:
        return []
    shared: dict[int, int] = {}
    for _, n, _ in counted:
        shared[n] = shared.get(n, 0) + 1
    mode = max(shared, key=lambda n: (shared[n], n))
    if shared[mode] < 2:
        return []     # no two kernels repeat alike: nothing says what a layer is
    top = sorted((c for c in counted if c[1] == mode), key=lambda c: (-c[2], c[0]))[:GUESSED_CANDIDATES]
    return [[name] for name, _, _ in top]


def _kind_sets(stats) -> tuple[list[set], list[list[str]]]:
    """One run's kinds of steps, from its single-name candidates that take turns pass by pass (apart): the
    names of one kind are those that run inside each other's passes (a hybrid model's chunked linear
    attention and its full attention in prefill; its recurrent linear attention and paged attention in
    decode); a name that runs inside the passes of both kinds (full attention in either) has no kind.
    Returns the kinds (sets of names) and the candidate sets they make: each pair of names that take turns,
    alone, with a name of no kind that runs beside both, or with another such pair that runs beside it."""
    singles = {s["names"][0]: s for s in stats if len(s["names"]) == 1}

    def beside(x, y):
        # inside each other's passes, or in one marked step (passes of one anchor hold nothing)
        return (singles[x]["holds"].get(y, 0) > 0 or singles[y]["holds"].get(x, 0) > 0
                or singles[x]["steps"].get(y, 0) > 0)

    pairs = sorted({tuple(sorted([n, o])) for n, s in singles.items() for o in s["apart"] if o in singles})
    shared = {c for c in singles if any(beside(c, a) and beside(c, b) for a, b in pairs)}
    kind_of: dict[str, set] = {}
    for n in sorted({n for p in pairs for n in p} - shared):
        mine = {n} | {m for m in kind_of if beside(n, m)}
        merged = set().union(*(kind_of[m] for m in mine if m in kind_of), {n})
        for m in merged:
            kind_of[m] = merged
    kinds = list({id(k): k for k in kind_of.values()}.values())
    sets = []
    for a, b in pairs:
        if a in shared or b in shared:
            continue
        third = sorted({c for c in shared if beside(c, a) and beside(c, b)})
        # another pair beside this one, kind for kind: a hybrid model's full attention, whose kernel differs
        # between prefill and decode too
        others = [(c, d) for c, d in pairs if {c, d}.isdisjoint({a, b}) and {c, d}.isdisjoint(shared)
                  and (beside(a, c) and beside(b, d) or beside(a, d) and beside(b, c))]
        for cand in [sorted([a, b])] + [sorted([a, b, c]) for c in third] + [sorted([a, b, c, d]) for c, d in others]:
            if cand not in sets:
                sets.append(cand)
    return kinds, sets


def _keep_chosen(con, chosen: dict[int, dict], triples) -> bool:
    """TEMP _chosen (run -> its chosen candidate), when each run's anchors under the proposed pattern are
    exactly its chosen candidate's kernels: no run holds a name another run chose beside its own, and no op
    type equals a chosen name (the pattern matches op types too). Then the candidates' pass split is the
    runs' (candidate_passes.sql)."""
    every = {n for best in chosen.values() for n in best["names"]}
    for rid, name, op_type in triples:
        if rid in chosen and (name in every and name not in chosen[rid]["names"] or op_type in every):
            return False
    sql.run(con, "anchors_chosen", {"cands": [b["cand"] for b in chosen.values()], "run_ids": list(chosen)})
    return True


def _short_names(con, names: list[str]) -> dict[str, str]:
    """The stored short names (table kernel_names) of kernel names: name -> short name, where it has one."""
    return dict(sql.run(con, "short_names", {"names": list(names)}).fetchall())


def repeating(con, rid) -> str:
    """The kernels of a run that repeat most (those that could anchor its layers), with their counts, for an
    error that asks for --anchor."""
    top = [(n, c) for n, c in con.execute(sql.load("top_names"), {"run_id": rid}).fetchall() if c > 1]
    if not top:
        return "no kernel repeats"
    short = _short_names(con, [n for n, _ in top])
    return "kernels that repeat most (could anchor): " + ", ".join(f"{short.get(n) or n} ({c})" for n, c in top)


def pick_anchor(con, b, primary, fallback):
    """The profile's anchor, or its fallback when the primary matches nothing in these runs."""
    sql.run(con, "segment_anchors", {"run_ids": b.run_ids, "anchor": primary})
    if sql.run(con, "anchors_count").fetchone()[0]:
        return primary
    b.notes.append(f"no kernel matches {primary!r}; using the profile's fallback anchor {fallback!r}")
    return fallback
