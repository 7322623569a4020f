"""A run written for another tool: a Chrome/Kineto JSON trace with passes and layers as tracks, for Perfetto
(perfetto.py).

May import: segmentation, rendering, store, tracedb.sql, the ground modules."""
