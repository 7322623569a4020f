"""The engine: everything between the command line (tracedb.cli) and the file readers (tracedb.ingest) and
query files (tracedb.sql). Each room is a sub-package; a room imports only the rooms listed before it here
(tests/test_layering.py checks it, lazy imports included):

    store         the DuckDB store file and Parquet datasets: open, create, migrate, resolve runs, write Parquet
    loading       ingest orchestration: one trace, a folder of traces, worker processes, a Dask cluster
    rendering     query rows to text: terminal table, Markdown, CSV, JSON, HTML page and chart; output files
    segmentation  passes, layers, units and module attribution from anchor kernels; `tracedb segment`
    jobs          several ranks of one job: clock alignment, ranks, collectives, blame
    reports       the report registry and the reports of one or more runs; `runs`, `sql`, `check`
    exports       a run written for another tool (Perfetto)

`api.py` (the Python API behind `tracedb.report`) and `demo.py` sit above every room. A new reader is a module
of tracedb.ingest; a new report is a module of `reports` (or `jobs` when it spans ranks)."""
