"""tracedb: an SQL-backed analytical engine for LLM kernel traces.

(`tracedb.ingest` is the subpackage of file formats, hence `ingest_trace` for the API call.)

The public Python API (each imported lazily, so `import tracedb` stays cheap for the CLI):

    con = tracedb.connect("runs.duckdb")            # open or create a store
    tracedb.ingest_trace(con, "prof/rank_0_ascend_pt", name="qwen3-decode", tags={"hw": "910B"})
    out = tracedb.report(con, "layers", runs=["qwen3-decode"], profile="qwen3-npu", fmt="csv")
"""
__version__ = "0.1.0"

from tracedb.errors import TracedbError, UsageError, InputError, StoreError  # noqa: F401  (no heavy imports)


def connect(path=None, read_only=False):
    from tracedb.engine.store import open_store
    return open_store(path, read_only=read_only)


def ingest_trace(con, path, **kw):
    from tracedb.engine.ingest import ingest_path
    return ingest_path(con, path, **kw)


def report(con, name, **kw):
    from tracedb.engine.reports import render_report
    return render_report(con, name, **kw)
