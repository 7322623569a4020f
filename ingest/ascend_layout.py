"""Where an Ascend profiler writes its output, told from names alone: whether a folder is one profiler
output (a torch_npu `*_ascend_pt` folder, its ASCEND_PROFILER_OUTPUT, an msprof output with op_summary
files), and its op_summary slices in order. Free of heavy imports: the ingest command asks it before it
imports DuckDB and pyarrow (ingest/ascend_folder.py reads what it finds)."""
import glob
import os
import re

OUTPUT_DIRS = ("ASCEND_PROFILER_OUTPUT", "mindstudio_profiler_output")


def op_summary_files(root: str) -> list[str]:
    """msprof's op_summary CSVs under `root`, in slice order (unsliced files first)."""
    root = glob.escape(root)     # a folder named like `run[1]` is a name, not a pattern
    pats = [os.path.join(root, "PROF_*", "mindstudio_profiler_output", "op_summary_*.csv"),
            os.path.join(root, "mindstudio_profiler_output", "op_summary_*.csv"),
            os.path.join(root, "op_summary_*.csv")]
    files = sorted({f for p in pats for f in glob.glob(p)})

    def slice_key(f):  # op_summary_slice_{i}_{ts}.csv: numeric slice order, unsliced files first
        m = re.search(r"op_summary_slice_(\d+)_", os.path.basename(f))
        return (os.path.dirname(f), int(m.group(1)) if m else -1, f)
    return sorted(files, key=slice_key)


def is_profiler_output(path: str) -> bool:
    """A torch_npu `*_ascend_pt` folder, its ASCEND_PROFILER_OUTPUT, or an msprof output (op_summary files)."""
    base = os.path.basename(os.path.abspath(path))
    return (base.endswith("_ascend_pt") or base in OUTPUT_DIRS
            or os.path.isdir(os.path.join(path, "ASCEND_PROFILER_OUTPUT"))
            or os.path.lexists(os.path.join(path, "kernel_details.csv")) or bool(op_summary_files(path)))
