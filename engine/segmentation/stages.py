"""Stages inside each layer (attention, ffn; an MoE layer's router, dispatch, experts, combine, shared) and
each layer's kind (dense or moe, full, sliding or linear attention), after a layer assignment: TEMP _stages
and _layer_kinds (sql/segment/layer_stages.sql), with a note saying what decided them."""
from tracedb import sql


def assign_stages(con, b):
    """_stages and _layer_kinds over _assigned (forward or backward passes: a backward layer runs its MLP
    gradients before its attention gradients); adds a note per run naming its layer kinds and how the stages
    were decided."""
    backward = b.phase == "backward"
    if backward and b.stored:
        # a kept segmentation restored: the backward norm gradients (assign's) were not found in this session
        sql.run(con, "backward_norm_grads", {"run_ids": b.run_ids})
    sql.run(con, "layer_stages_backward" if backward else "layer_stages")
    sql.run(con, "layer_stage_fill")
    sql.run(con, "layer_kinds")
    kinds = sql.run(con, "stages_kinds").fetchall()
    per_run: dict[int, list[str]] = {}
    for rid, kind, n in kinds:
        per_run.setdefault(rid, []).append(f"{kind} {n:,}")
    for rid, listed in per_run.items():
        b.notes.append(f"run '{b.run_names[rid]}': layer kinds (layers over the selected passes): {', '.join(listed)}; "
                       + ("stages by the order of each layer's kernels and their categories (the anchor opens "
                          "attention, the first norm after it the second half, MoE kernels split that into router, "
                          "dispatch, experts, combine and shared; the next layer's norm, QKV projection and rope "
                          "are attention)" if not backward else
                          "backward stages by the order of each layer's gradients (MLP or MoE gradients up to the "
                          "last norm gradient before the attention gradient, attention from there on)")
                       + "; attention kinds by the anchor's name ('variant N' where alternating anchors' "
                       "names do not say which is sliding)")
