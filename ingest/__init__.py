"""File formats, and nothing about layers: what a path names (sources.py, sniff.py), the registry that tells
which reader reads a file (formats.py), and one reader per format that turns its files into the store's rows
(kernels_raw, trace_events and the tables beside them).

May import: tracedb.sql, the ground modules."""
