"""The store and datasets: open and create a tracedb store (connect.py), check its catalog (catalog.py) and its
schema version, migrating it where asked (schema.py), a Parquet dataset folder opened as a read-only store
(dataset.py) and runs written as one (parquet.py).

May import: tracedb.sql, tracedb.ingest (name tables and leftovers), the ground modules (errors, version)."""
