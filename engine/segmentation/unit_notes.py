"""Notes on where the device time of a segmentation sits: coverage (how much of each run lies in named
units: prologue, layers, epilogue, optimizer), passes that are mostly idle, and units that one
communication op dominates. Each reads the assignment of the passes (segment_assign.sql's _assigned)."""
from tracedb import sql

IDLE_SHARE = 0.5   # a pass whose wall is over half idle gets a note
COMM_SHARE = 0.5   # a unit of which one communication op holds over half the device time gets a note


def _ms(ns) -> str:
    return f"{ns / 1e6:,.3f} ms"


def unit_times(con, b) -> dict[int, dict]:
    """Per run of `b`, the device time (ns) of the assigned passes' prologue, layers and epilogue, the run's
    total, its optimizer kernels and its kernels of the other phase (segment_units.sql)."""
    cols = ("total", "prologue", "layers", "epilogue", "optimizer", "other_phase")
    return {r[0]: dict(zip(cols, r[1:])) for r in
            sql.run(con, "segment_units", {"run_ids": b.run_ids, "phase": b.phase}).fetchall()}


def coverage_notes(b, per_phase: dict[str, dict[int, dict]]) -> list[str]:
    """One line per run: its device time in the units of each phase segmented (`per_phase`: phase -> run ->
    unit_times), the optimizer, the other phase when it was not segmented, and what is left outside any unit."""
    notes = []
    for rid in b.run_ids:
        seen = {ph: t[rid] for ph, t in per_phase.items() if rid in t}
        if not seen:
            continue
        any_t = next(iter(seen.values()))
        total, optimizer = any_t["total"], any_t["optimizer"]
        parts, named = [], optimizer
        for ph, t in seen.items():
            inside = t["prologue"] + t["layers"] + t["epilogue"]
            named += inside
            parts.append(f"{ph} passes {_ms(inside)} (prologue {_ms(t['prologue'])}, layers {_ms(t['layers'])}, "
                         f"epilogue {_ms(t['epilogue'])})")
        if optimizer:
            parts.append(f"optimizer {_ms(optimizer)}")
        if len(seen) == 1 and any_t["other_phase"]:
            other = "backward" if "forward" in seen else "forward"
            named += any_t["other_phase"]
            parts.append(f"{other} kernels {_ms(any_t['other_phase'])} (their passes: --phase {other})")
        outside = total - named
        share = 100.0 * named / total if total else 100.0
        notes.append(f"run '{b.run_names[rid]}': coverage {share:.1f} % of {_ms(total)} of device time in named units: "
                     + "; ".join(parts) + f"; outside any unit {_ms(outside)}")
    return notes


def idle_notes(con, b) -> list[str]:
    """Passes whose wall is mostly idle, and where the largest idle gap sits (segment_idle.sql)."""
    out = []
    for rid, p, wall, idle, gap, unit, layer in sql.run(con, "segment_idle", {"share": IDLE_SHARE}).fetchall():
        where = f"layer {layer}" if unit == "layer" else f"the {unit}"
        out.append(f"run '{b.run_names[rid]}' {b.phase} pass {p} is mostly idle: {_ms(idle)} of its {_ms(wall)} wall "
                   f"({100.0 * idle / wall:.0f} %) has no kernel running; the largest gap, {_ms(gap)}, ends in {where}")
    return out


def comm_notes(con, b) -> list[str]:
    """Units that one communication op dominates (segment_comm_units.sql), one note per run: the first few."""
    rows = sql.run(con, "segment_comm_units", {"share": COMM_SHARE}).fetchall()
    out = []
    for rid in b.run_ids:
        mine = [r for r in rows if r[0] == rid]
        if not mine:
            continue
        shown = "; ".join(f"{b.phase} pass {p} {'layer ' + str(layer) if unit == 'layer' else unit}: {name} "
                          f"{_ms(op)} of {_ms(unit_ns)}" for _, p, unit, layer, name, op, unit_ns in mine[:3])
        out.append(f"run '{b.run_names[rid]}': one communication op holds most of {len(mine)} unit"
                   f"{'s' if len(mine) > 1 else ''} (a pipeline send/receive waiting for another stage, or a "
                   f"collective waiting for a late rank): {shown}" + ("; ..." if len(mine) > 3 else ""))
    return out


def stage_notes(con, b) -> list[str]:
    """Which model layers a pipeline stage's passes hold, when the run's stage is known (pipeline_stage.sql:
    its process groups, else its send/receive order and the job's stage count); the split is assumed even, and
    the note says so. A run whose pipeline stage cannot be told gets a note saying why."""
    out = []
    for rid, stage, stages, ranks, desc, per_pass, source, why in sql.run(con, "pipeline_stage",
                                                                         {"run_ids": b.run_ids}).fetchall():
        if stage is None:
            out.append(f"run '{b.run_names[rid]}': pipeline send/receive kernels, but its pipeline stage is unknown: "
                       f"{why}")
            continue
        if not per_pass:
            continue
        layers = per_pass // b.blocks_per_layer
        first = stage * layers
        whence = (f"process group {desc}, ranks {', '.join(map(str, ranks))}" if source == "process-group"
                  else why)
        out.append(f"run '{b.run_names[rid]}': pipeline stage {stage} of {stages} ({whence}): its passes of {layers} "
                   f"layers are model layers {first}-{first + layers - 1} of {layers * stages} if the stages hold "
                   "equal shares (the trace does not say how the model was split)")
    return out


def step_kind_notes(con, b) -> list[str]:
    """Runs whose passes' step_kind comes from the attention kernels' names, with no serving step annotation
    (segment_steps.sql): a guess the note names."""
    rows = sql.run(con, "unit_notes_step_kinds").fetchall()
    return [f"run '{b.run_names[rid]}': no serving step annotation; the step_kind of {n} pass{'es' if n > 1 else ''} "
            f"({', '.join(kinds)}) is read from the attention kernels' names (BatchPrefill / BatchDecode, prefill / "
            "decode, vLLM's unified_attention_3d for decode batches), and tokens and requests are unknown"
            for rid, n, kinds in rows]
