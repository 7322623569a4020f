"""The reports: the registry that binds options, runs the stages and renders (registry.py) and the reports of
their own module (compare.py, launches.py, critical_path.py, what_if.py over replay.py).

May import: jobs, segmentation, rendering, store, tracedb.sql, the ground modules."""
