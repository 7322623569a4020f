"""The store and datasets: open, create and check a tracedb store (connect.py), a Parquet dataset folder opened
as a read-only store (dataset.py) and runs written as one (parquet.py).

May import: tracedb.sql, tracedb.ingest (name tables and leftovers), the ground modules (errors, version)."""
