"""The floating-point operations and bytes of each kernel, from the trace's own shapes and dtypes, computed
once per run at ingest (view kernel_work; formulas in docs/roofline.md and the SQL files named below).

Kernels of Ascend CSVs and exports carry their shapes (ingest_work_npu.sql): their work is stored once per
distinct tuple of shapes, op type and core (kernel_work_tuples). Kernels of PyTorch-profiler traces take the
shapes of the op that launched them (ingest_work_ops.sql), stored per kernel (kernel_work_rows). A kernel
without a formula or without shapes has no row: its FLOPs and bytes are NULL, never guessed.
"""
from tracedb import sql


def fill(con, run_ids=None):
    """kernel_work rows of the runs `run_ids` (every run without any when None: a store just migrated)."""
    if run_ids is None:
        ids = [r[0] for r in sql.run(con, "ingest_work_pending").fetchall()]
    else:
        ids = list(run_ids)
    if not ids:
        return
    for rid, npu, ops in sql.run(con, "ingest_work_which", {"run_ids": ids}).fetchall():
        if npu:
            sql.run(con, "ingest_work_npu", {"run_id": rid})
        if ops:
            sql.run(con, "ingest_work_ops", {"run_id": rid})
