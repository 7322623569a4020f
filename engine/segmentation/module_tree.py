"""What the model's own structure says of the anchors: the block instance (decoder layer) and the call of it
that launched each candidate anchor kernel, from nn.Module frames or layer ranges (block_instances:
sql/segment/anchor_blocks.sql, anchor_layer_ranges.sql; anchor_breaks.sql reads them to start passes), the
anchor the block calls propose (module_candidates), the block class and instance count around each
candidate (module_blocks), and the layer count they give a given anchor (module_layers)."""
import re
from types import SimpleNamespace

from tracedb import sql
from tracedb.engine.segmentation import graph_capture

# A candidate is framed by a block class when at least 90 % of its kernels launched inside nn.Module frames
# are launched inside instances of it: an anchor kernel or two launched elsewhere (a warm-up call) does not
# take the module tree's word away. Kernels with no frame around them at all do not count: a capture that
# starts mid-pass misses the frames entered before it (10 of the 34 anchors of the Qwen1.5 H100 trace).
FRAMED_SHARE = 0.9


def _has_module_frames(con, run_ids) -> bool:
    """Whether some run was recorded with nn.Module frames, or is a graph replay paired with a capture that
    was (the module tree has something to say)."""
    return any(frames for frames, _ in _sources(con, run_ids).values())


def _sources(con, run_ids) -> dict[int, tuple[bool, bool]]:
    """run -> (nn.Module frames, layer ranges) it records (its paired capture's frames count), found once per
    run and session in TEMP _layer_sources: the anchor proposal asks again at every candidate split."""
    known = {r: (f, g) for r, f, g in sql.run(con, "module_tree_sources", {"run_ids": list(run_ids)}).fetchall()}
    new = [r for r in run_ids if r not in known]
    if new:
        framed = {r for (r,) in sql.run(con, "module_tree_framed_runs", {"run_ids": new}).fetchall()}
        # the pattern in Python, once per distinct name
        ranged = {r for r, n in sql.run(con, "module_tree_annotations", {"run_ids": new}).fetchall()
                  if LAYER_RANGE.search(n or "")}
        sql.run(con, "module_tree_sources_add",
                {"run_ids": new, "frames": [r in framed for r in new], "ranges": [r in ranged for r in new]})
        known.update({r: (r in framed, r in ranged) for r in new})
    return known


# A layer range: a user annotation (NVTX range, record_function) named after a layer and its number, as
# layerwise markers write them (model.layers.3, model.layers.3.self_attn, decoder.layers.3, layers.3,
# Layer 3, TransformerLayer_3, transformer.h.3, blocks.3); group 1 is the block class, group 2 the number.
# 'layer_norm' and 'h100' are none: the number must follow the word, and stand alone.
LAYER_RANGE = re.compile(r"(?i)^(.*?(?:^|[./_ :-])(?:[a-z0-9]*(?:layer|block)s?|h\.))[._ -]?(\d+)(?:$|[./_ :-])")


def _has_layer_ranges(con, run_ids) -> bool:
    """Whether some run names its layers with user annotations (LAYER_RANGE)."""
    return any(ranges for _, ranges in _sources(con, run_ids).values())


def has_layer_evidence(con, run_ids) -> bool:
    """Whether the module tree (nn.Module frames) or layer ranges have something to say of some run."""
    return _has_module_frames(con, run_ids) or _has_layer_ranges(con, run_ids)


def block_instances(con):
    """TEMP _kernel_blocks (anchor_blocks.sql) over every kernel of _anchors: the block instance and call of
    the model's own layers that launched it, where the runs were recorded with nn.Module frames (a graph
    replay takes the frames of its capture's launch calls). Only kernels not met before are attributed: the
    anchor proposal asks for every candidate's kernels three times."""
    runs = [r for (r,) in sql.run(con, "module_tree_kernel_blocks").fetchall()]
    if runs and _has_module_frames(con, runs):
        _module_instances(con, runs)
    if runs and _has_layer_ranges(con, runs):
        sql.run(con, "anchor_layer_ranges", {"pattern": LAYER_RANGE.pattern})


def _module_instances(con, runs):
    """block_instances from nn.Module frames, for the kernels of _anchors not attributed before."""
    sql.run(con, "attribute_scope_anchors")
    if not sql.run(con, "module_tree_attr_scope").fetchone()[0]:
        sql.run(con, "module_tree_drop_scope")
        return
    names = dict(sql.run(con, "run_names", {"run_ids": runs}).fetchall())
    # graph-replayed kernels take their capture's frames; the notes on the match come with the attribution
    graph_capture.match(con, SimpleNamespace(run_ids=runs, run_names=names, notes=[]))
    sql.run(con, "attribute_modules", {"run_ids": runs})
    sql.run(con, "anchor_blocks")
    sql.run(con, "attr_drop")


# The module tree proposes an anchor when at least this share of its block calls launched exactly one kernel
# of the names it picks (a warm-up call or a capture cut mid-layer leaves a few calls short).
CALLS_SHARE = 0.9


def module_candidates(con, attention: dict[int, list[str]]) -> dict[int, tuple[list[str], list[str], int]]:
    """Per run (run_id -> its attention names): the anchor the module tree gives, when it gives one, the
    names its block calls launched beside it, and the block instances of its calls' classes (the layers a
    pass of it holds). Each
    attention name has the set of block calls that launched it (anchor_module_calls.sql); names launched by
    the very same calls run side by side in one layer (an attention kernel and its KV-cache write), and the
    one with most device time stands for them; a name launched by only some of another name's calls (a
    split-KV combine step) is set aside. What remains must launch exactly one kernel in at least 90 % of the
    calls, with no call shared by two names: then it is one anchor per layer, whatever the layers are (dense,
    sliding and full, linear and full, prefill and decode)."""
    # each run's rows, grouped in one pass (a scan of every run's rows per run took 21 s at 1,024 ranks)
    by_run: dict[int, list] = {}
    for row in sql.run(con, "anchor_module_calls", {"run_ids": list(attention)}).fetchall():
        by_run.setdefault(row[0], []).append(row[1:])
    out = {}
    for rid, names in attention.items():
        wanted = set(names)
        calls: dict[str, set] = {}
        count: dict[tuple, int] = {}
        time: dict[str, int] = {}
        every = set()
        instances = set()
        for cls, call, inst, name, n, ns in by_run.get(rid, ()):
            every.add((cls, call))
            instances.add((cls, inst))
            if name not in wanted:
                continue
            calls.setdefault(name, set()).add((cls, call))
            count[(name, cls, call)] = n
            time[name] = time.get(name, 0) + int(ns)
        if not calls or not every:
            continue
        groups: dict[frozenset, str] = {}
        for name in sorted(calls, key=lambda n: (-time[n], n)):
            groups.setdefault(frozenset(calls[name]), name)
        kept = [(c, n) for c, n in groups.items() if not any(c < other for other in groups)]
        if sum(len(c) for c, _ in kept) != len(set().union(*(c for c, _ in kept))):
            continue      # two names share a call: no one anchor per layer among them
        held = {call for c, _ in kept for call in c}
        once = sum(1 for c, n in kept for cls, call in c if count[(n, cls, call)] == 1)
        if len(held) >= CALLS_SHARE * len(every) and once >= CALLS_SHARE * len(held):
            out[rid] = (sorted(n for _, n in kept), sorted(calls.keys() - {n for _, n in kept}),
                        len({i for i in instances if any(i[0] == cls for c, _ in kept for cls, _ in c)}))
    return out


def with_unframed(names: list[str], side: list[str], sets: list[list[str]]) -> list[list[str]]:
    """The module tree's anchor `names`, alone and joined with each candidate set made only of names no
    block call launched and that are not `side` names (those beside an anchor in one layer): the kernels of
    steps recorded without frames (a CUDA/HIP graph replayed with no capture given: SGLang's decode steps
    after an eager prefill) are anchored by the candidate that fits them, and the passes decide which."""
    framed = set(names) | set(side)
    out = [names]
    for c in sets:
        if framed.isdisjoint(c):
            joined = sorted(set(names) | set(c))
            if joined not in out:
                out.append(joined)
    return out


def module_blocks(con) -> dict[int, dict]:
    """Anchor set (_anchors' run_id: a candidate index, or the run) -> what the module tree says of its
    kernels (anchor_modules.sql: the block class that launched them, its instance count). The caller has
    checked that some run has nn.Module frames (_has_module_frames)."""
    block_instances(con)
    rows = sql.run(con, "anchor_modules").fetchall()
    return {c: {"anchors": n, "framed": f, "block": b, "instances": i, "first": lo, "last": hi}
            for c, n, f, w, b, i, lo, hi in rows if f >= FRAMED_SHARE * w}


def module_layers(con, b) -> tuple[int | None, str]:
    """The layer count the module tree gives a given anchor (--anchor or the profile's, no --layers): when
    every run's anchor kernels are launched inside N instances of one repeated block class, and each run
    has a multiple of N x blocks-per-layer of them, N; with the note that says so. Else (None, "")."""
    if not has_layer_evidence(con, b.run_ids):
        return None, ""
    sql.run(con, "segment_anchors", {"run_ids": b.run_ids, "anchor": b.anchor})
    counts = dict(sql.run(con, "segment_anchor_counts").fetchall())
    blocks = module_blocks(con)     # keyed by the anchors' run_id: here the run
    found = {(m["block"], m["instances"], m["first"], m["last"]) for m in blocks.values()}
    if len(found) != 1 or set(blocks) != set(b.run_ids):
        return None, ""
    block, n, first, last = found.pop()
    if any(counts.get(r, 0) % (n * b.blocks_per_layer) for r in b.run_ids):
        return None, ""
    return n, (f"layers from the module tree: {n} {block} instances ({first} ... {last}) launch the anchors, so a "
               f"pass holds {n * b.blocks_per_layer} of them (--layers overrules)")
