"""An Ascend profiler folder as one run: which of its files hold the kernels, and the job facts beside them.

The kernels come from kernel_details.csv, else the op_summary slices msprof wrote, else the SQLite export
torch_npu writes with export_type=Db; the job facts from profiler_info, profiler_metadata.json and the
communication analyses."""
import glob
import os

from tracedb.errors import InputError
from tracedb.ingest import (ascend_comm, ascend_csv, ascend_db, ascend_host, ascend_info, ascend_step_trace, sniff,
                            sqlite_export)
from tracedb.ingest.ascend_layout import op_summary_files
from tracedb.ingest.run_source import Source, rank_from_path



def resolve(path: str) -> Source:
    """*_ascend_pt/ -> ASCEND_PROFILER_OUTPUT/kernel_details.csv, else the op_summary CSVs msprof wrote
    (every slice, in slice order), else the SQLite export, else ASCEND_PROFILER_OUTPUT/trace_view.json;
    ASCEND_PROFILER_OUTPUT/ or mindstudio_profiler_output/ directly too."""
    root = path.rstrip(os.sep) or os.sep
    _check_listable(root)
    out_dir = os.path.join(root, "ASCEND_PROFILER_OUTPUT")
    if os.path.isdir(out_dir):
        _check_listable(out_dir)
    for cand in (os.path.join(out_dir, "kernel_details.csv"), os.path.join(root, "kernel_details.csv")):
        if os.path.lexists(cand):      # not isfile: a named pipe there is refused by name, not passed over
            src = _from_csv_files(path, [cand])
            src.host_trace = ascend_host.beside(cand)     # the host side, when the folder has it
            break
    else:
        slices = op_summary_files(root)
        comm = ascend_comm.files_in(out_dir if os.path.isdir(out_dir) else root)
        db = _sqlite_exports(root) if not slices else []
        if not slices and not db and comm:   # a rank whose kernels were not exported: its communication analyses
            src = Source(path=path, format=ascend_comm.FORMAT, files=[], rank=rank_from_path(path))
        elif not slices:
            view = os.path.join(out_dir, "trace_view.json")
            if not db and os.path.isfile(view):
                src = _from_trace_view(path, view)   # the timeline alone (no kernel_details.csv exported)
            elif not db:
                raise InputError(f"{path}: no kernel_details.csv or trace_view.json under ASCEND_PROFILER_OUTPUT/ "
                                 "and no op_summary_*.csv under PROF_*/mindstudio_profiler_output/; expected an "
                                 "Ascend profiler output folder (*_ascend_pt)")
            else:
                src = _from_sqlite_export(path, root, db)   # torch_npu with export_type=Db alone writes no CSV
        else:
            src = _from_csv_files(path, slices)
    pt_root = os.path.dirname(root) if os.path.basename(root) == "ASCEND_PROFILER_OUTPUT" else root
    info = ascend_info.profiler_info(pt_root)
    if info:
        src.metadata["profiler_info"] = info
        src.rank = info.get("rank_id", src.rank)
    _job_facts(src, pt_root, os.path.join(pt_root, "ASCEND_PROFILER_OUTPUT"))
    return src


def _from_trace_view(path: str, view: str) -> Source:
    """A folder whose only kernel list is ASCEND_PROFILER_OUTPUT/trace_view.json (a capture that exported the
    timeline alone): the run reads that file as any trace_view.json, its rank from the folder's name."""
    from tracedb.ingest import formats
    r = formats.identify(view)
    fields = {"format": r.name, "files": [view], **(r.source(view) if r.source else {})}
    return Source(path=path, reader=r.name, rank=rank_from_path(path), device_kind=r.device_kind,
                  clock_domain=r.clock_domain, **fields)


def _job_facts(src: Source, pt_root: str, out_dir: str):
    """A rank of a job: its parallel groups and world size (profiler_metadata.json) and its communication
    analyses (read after the kernels, hashed with them)."""
    meta = ascend_comm.metadata(pt_root)
    if meta.get("groups") is not None:
        src.groups = meta["groups"]
    src.world_size = meta.get("world_size")
    if meta.get("distributed_args"):
        src.metadata["distributed_args"] = meta["distributed_args"]
    if src.rank is None:
        src.rank = meta.get("rank")
    # step_trace_time.csv rides with the communication analyses: read after the kernels, hashed with them; it
    # alone does not make a folder a rank (resolve: a folder without kernels needs communication*.json)
    src.comm_files = ascend_comm.files_in(out_dir) + ascend_step_trace.files_in(out_dir) \
        if os.path.isdir(out_dir) else []
    if src.headers or src.format == ascend_comm.FORMAT:   # CSV runs: hashed with the kernels (a SQLite export's
        src.files = src.files + ([src.host_trace] if src.host_trace else []) + src.comm_files   # own file list)


def _check_listable(folder: str):
    """A folder whose entries cannot be read would look empty to glob and isfile: say so instead."""
    if not os.access(folder, os.R_OK | os.X_OK):
        raise InputError(f"{folder}: cannot read the folder: permission denied; expected a readable profiler "
                         "output folder")


def _from_sqlite_export(path: str, root: str, found: list[str]) -> Source:
    """The SQLite export of a profiler folder: torch_npu's ascend_pytorch_profiler_N.db (it adds the framework
    side: steps, rank) before msprof's msprof_N.db of the same capture; two of one kind are refused."""
    torch_npu = [f for f in found if os.path.basename(f).startswith("ascend_pytorch_profiler")]
    pick = torch_npu or found
    if len(pick) > 1:
        shown = ", ".join(os.path.relpath(f, root) for f in pick)
        raise InputError(f"{path}: holds {len(pick)} SQLite exports ({shown}); "
                         "expected one per profiler folder: ingest each file on its own")
    sniff.check_regular(pick[0])
    ascend_db.check_tables(pick[0], sqlite_export.tables(pick[0]))
    return Source(path=path, format=ascend_db.FORMAT, files=[pick[0]], rank=rank_from_path(path),
                  device_kind=ascend_db.DEVICE_KIND, clock_domain=ascend_db.CLOCK_DOMAIN)


def _sqlite_exports(root: str) -> list[str]:
    """ascend_pytorch_profiler[_N].db / msprof_<ts>.db files of a profiler folder (torch_npu export_type=Db)."""
    subs = ("", "ASCEND_PROFILER_OUTPUT", os.path.join("PROF_*", "mindstudio_profiler_output"))
    pats = [os.path.join(glob.escape(root), sub, name) for sub in subs
            for name in ("ascend_pytorch_profiler*.db", "msprof_*.db")]
    return sorted(f for p in pats for f in glob.glob(p))


def _from_csv_files(path: str, files: list[str]) -> Source:
    return Source(path=path, reader=ascend_csv.READER.name, rank=rank_from_path(path), **ascend_csv.source(files))


