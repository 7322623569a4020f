"""tracedb: an SQL-backed analytical engine for LLM kernel traces.

(`tracedb.ingest` is the subpackage of file formats, hence `ingest_trace` for the API call.)

The public Python API (each imported lazily, so `import tracedb` stays cheap for the CLI):

    con = tracedb.connect("runs.duckdb")            # open or create a store
    tracedb.ingest_trace(con, "prof/rank_0_ascend_pt", name="qwen3-decode", tags={"hw": "910B"})
    r = tracedb.report(con, "layers", run="qwen3-decode", profile="qwen3-npu", pass_="steady")
    r.arrow(), r.df(), r.notes, print(r), r.text("csv")
"""
from tracedb.version import __version__  # noqa: F401

from tracedb.errors import TracedbError, UsageError, InputError, StoreError  # noqa: F401  (no heavy imports)


def connect(path=None, read_only=False):
    """A store file (created when missing), or a Parquet dataset folder (`DIR/`), which opens read-only."""
    from tracedb.engine.store.dataset import is_dataset_path
    from tracedb.engine.store.connect import open_store, resolve_path
    return open_store(path, read_only=read_only or is_dataset_path(resolve_path(path)))


def ingest_trace(con, path, **kw):
    from tracedb.engine.loading.single import ingest_path
    return ingest_path(con, path, **kw)


def report(con, name, **options):
    """Report `name` over a store (a connection or a path): a tracedb.engine.api.Report with str() (the
    terminal table), .text(fmt), .arrow(), .df() and .notes; options named as on the command line (run=,
    tag=, anchor=, layers=, pass_=, window=, ...)."""
    from tracedb.engine.api import report as run_report
    return run_report(con, name, **options)
