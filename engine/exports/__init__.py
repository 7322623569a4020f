"""A run written for another tool: a Chrome/Kineto JSON trace with passes, layers and the critical path as
tracks, for Perfetto (perfetto.py).

May import: reports, segmentation, rendering, store, tracedb.sql, the ground modules."""
