"""The engine: everything between the command line (tracedb.cli) and the file readers (tracedb.ingest) and
query files (tracedb.sql). Each room is a sub-package; a room imports only rooms listed before it here, those
the "May import:" line of its __init__ names (tests/test_layering.py checks it, lazy imports included):

    store         the DuckDB store file and Parquet datasets: open, create, migrate, resolve runs, write Parquet
    loading       ingest orchestration: one trace, a folder of traces, worker processes, a Dask cluster
    rendering     query rows to text: terminal table, Markdown, CSV, JSON, HTML page and chart; output files
    gate          the golden-output gate of CI: reports compared with golden CSV files; `tracedb check`
    segmentation  passes, layers, units and module attribution from anchor kernels; `tracedb segment`
    jobs          several ranks of one job: clock alignment, ranks, collectives, blame
    admin         the store worked on directly: run management and ad-hoc SQL; `tracedb runs`, `tracedb sql`
    reports       the reports, one module each in reports/catalog/, and the registry that runs them
    exports       a run written for another tool (Perfetto)
    advise        findings ranked by the step time at stake, from the reports' own queries; `tracedb advise`

`api.py` (the Python API behind `tracedb.report`) and `demo.py` sit above every room. A new reader is a module
of tracedb.ingest; a new report is a module of `reports/catalog` with its SQL and its goldens."""
