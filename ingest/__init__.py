"""File formats, and nothing about layers: what a path names (sources.py, sniff.py), and one reader per format
that turns its files into the store's rows (kernels_raw, trace_events and the tables beside them).

May import: tracedb.sql, the ground modules."""
