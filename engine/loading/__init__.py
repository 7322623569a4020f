"""Ingest orchestration: turning profiler output into runs of a store or dataset. The file formats themselves
are read by tracedb.ingest; this room decides what is one run, parses each trace into a side store
(staging.py) and merges it in one transaction: one trace (single.py), a folder of traces (folder.py), worker
processes (parallel.py), tasks that write a dataset's staging folder (staged.py) on a Dask cluster
(cluster.py), and the content hash of the sources (hashing.py).

May import: store, tracedb.ingest, tracedb.sql, the ground modules."""
