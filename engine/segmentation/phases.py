"""Which kernels are which phase of a training step: the evidence for each kernel's phase (find_phases:
annotations, autograd frames, names, the work around it; sql/segment/kernel_phases.sql), the phase a given
anchor asks for (phase_of_anchor), and the names of each phase's work (backward, optimizer, gradient norm, a
forward's embedding and sampling, pipeline sends and receives)."""
import re

from tracedb import sql
from tracedb.engine.segmentation.categories import load_rules

# Kernel names of the backward pass (training traces hold both directions). cuDNN's winograd convolutions
# say "grad" in every direction (winogradForwardData4x4: 60 forward kernels of a ResNet-50 trace); their
# gradient ones still say it again (winogradWgradData).
BACKWARD = re.compile(r"(?i)((?<!wino)grad|bwd|backward)")
# Kernel names of the optimizer step: PyTorch's fused and foreach Adam/AdamW/SGD (multi_tensor_apply, also
# its grad-norm and scaling kernels), Apex/TransformerEngine FusedAdam, Ascend's ApplyAdamW and friends.
OPTIMIZER = re.compile(r"(?i)(adam|multi_tensor_apply|optimizer|sgd_|_sgd|lamb_|apply_?momentum|ApplyAdamW|ApplyAdam)")
# Names that are optimizer work only inside a training step: PyTorch's foreach kernels (multi_tensor_apply)
# also run in serving, e.g. SGLang's input preparation launches one per decode step (a UnaryOpFunctor<long>).
# Alone they never make a run training; a run with backward evidence or a named optimizer still gets them
# as its optimizer work.
WEAK_OPTIMIZER = re.compile(r"(?i)^(?!.*(adam|optimizer|sgd|lamb|momentum)).*multi_tensor_apply")
# The gradient norm and its clipping are the first part of optimizer.step() (Megatron's get_grad_norm_fp32 and
# clip_grad_norm: one vector norm per gradient, Ascend aclnnLinalgVectorNorm_LpNormV2, apex/TE
# multi_tensor_l2norm, then a scale). Weak optimizer names, read before the backward ones, since clip_grad and
# grad_norm contain 'grad': a norm of activations in a forward pass is no optimizer work outside training.
GRAD_NORM = re.compile(r"(?i)(LpNorm|LinalgVectorNorm|l2_?norm|clip_?grad|grad_?norm)")
# The ends of a forward pass: its embedding lookup (Ascend aclnnEmbedding_GatherV2, CUDA embedding kernels)
# and its sampling (ArgMax, sampler kernels), as Ascend's msmodeling NPU Forward Inspector splits forwards.
# Between two anchors they end a pass, unless they run between most anchors (a per-layer arg-max). Rotary
# position embeddings run in every layer and end nothing.
FORWARD_BOUNDARY = re.compile(r"(?i)^(?!.*(rotary|rope|position|pos_emb)).*(embedding|embed_tokens|argmax|sampler"
                              r"|sampling)")
# Pipeline-parallel send/receive between stages: HCCL batchSendRecv/send/receive, NCCL SendRecv kernels.
PIPELINE_P2P = re.compile(r"(?i)(batchSendRecv|^hcom_send|^hcom_receive|SendRecv|ncclDevKernel_Send|ncclDevKernel_Recv|"
                          r"ncclKernel_Send|ncclKernel_Recv)")


def find_phases(con, prof, run_ids, names) -> tuple[set[int], list[str]]:
    """_phase (kernel_phases.sql): the phase of every kernel of the training runs among `run_ids`. Returns
    those runs and a note per run saying how much device time each phase holds and what decided it. Also
    _p2p_names, the runs' pipeline send/receive names (anchor_breaks.sql)."""
    load_rules(con, prof)
    sql.run(con, "categories_kernel_names", {"run_ids": run_ids})
    sql.run(con, "categories")
    # what the names say, in Python once per distinct name: a pattern bound as a parameter is compiled by
    # DuckDB again for every row it is matched against (~1.7 ms each for these)
    kernel_names = [n for (n,) in sql.run(con, "phases_names").fetchall()]
    # an embedding lookup or a sampler is forward work by name: the next micro-batch's embedding follows the
    # last backward kernels with no idle gap and no autograd frame (Megatron 1F1B on Ascend: 3-9 kernels of
    # every later forward read as backward by order alone)
    said = [(n, "optimizer" if GRAD_NORM.search(n) else "backward" if BACKWARD.search(n) else "optimizer"
             if OPTIMIZER.search(n) else "forward" if FORWARD_BOUNDARY.search(n) else None,
             "weight" if re.search(r"(?i)wgrad", n) else "input" if re.search(r"(?i)dgrad", n) else None)
            for n in kernel_names]
    said = [t for t in said if t[1] or t[2]]
    sql.run(con, "phases_name_phase",
            {"names": [t[0] for t in said] or [""], "phases": [t[1] for t in said] or [None],
             "grads": [t[2] for t in said] or [None],
             "weak": [t[1] == "optimizer" and bool(WEAK_OPTIMIZER.search(t[0]) or GRAD_NORM.search(t[0]))
                      for t in said] or [False]})
    sql.run(con, "phases_special_names", {"p2p_names": [n for n in kernel_names if PIPELINE_P2P.search(n)],
                                          "boundary_names": [n for n in kernel_names if FORWARD_BOUNDARY.search(n)]})
    params = {"run_ids": run_ids}
    if not sql.run(con, "phase_evidence", params).fetchone()[0]:
        # an inference trace: no kernel is backward or optimizer work, which kernel_phases.sql would find only
        # after reading every kernel; over no run it makes the empty _phase at once
        params["run_ids"] = []
    sql.run(con, "kernel_phases", params)
    rows = sql.run(con, "phases_summary").fetchall()
    training = sorted({r[0] for r in rows})
    notes = []
    ms = lambda ns: f"{ns / 1e6:,.3f} ms"   # noqa: E731  (notes only)
    for rid in training:
        mine = [r for r in rows if r[0] == rid]
        per_phase = {}
        for _, ph, _, n, ns in mine:
            k, t = per_phase.get(ph, (0, 0))
            per_phase[ph] = (k + n, t + ns)
        per_ev = {}
        for _, _, ev, _, ns in mine:
            per_ev[ev] = per_ev.get(ev, 0) + ns
        notes.append(f"run '{names[rid]}': a training trace: "
                     + ", ".join(f"{ph} {per_phase[ph][0]:,} kernels ({ms(per_phase[ph][1])})"
                                 for ph in ("forward", "backward", "optimizer") if ph in per_phase)
                     + "; each kernel's phase decided by "
                     + ", ".join(f"{ev} {ms(per_ev[ev])}" for ev in ("annotation", "autograd", "name", "order")
                                 if ev in per_ev)
                     + " (annotation: (F)/(B)/(W) or forward/backward ranges around the launch; autograd: the "
                       "autograd engine's frames; name: Grad, Bwd, backward, Adam, forward attention, embedding, "
                       "sampling; order: the phase of the work around it)")
    return set(training), notes


def phase_of_anchor(con, anchor: str | None, training: set[int]) -> str:
    """Forward, unless the given anchor matches only backward kernels of the training runs (an anchor on
    FlashAttentionScoreGrad asks for backward passes)."""
    if not anchor or not training:
        return "forward"
    # the pattern once per distinct name (materialized: pushed below the DISTINCT it would run per kernel)
    got = dict(sql.run(con, "phases_anchor", {"anchor": anchor, "run_ids": sorted(training)}).fetchall())
    return "backward" if got.get("backward") and not got.get("forward") else "forward"
