"""The reports: the registry that binds options, runs the stages and renders (registry.py), the reports of
their own module (compare.py, launches.py), `tracedb runs` (runs.py), `tracedb sql` (adhoc.py) and
`tracedb check` (check.py).

May import: jobs, segmentation, rendering, store, tracedb.sql, the ground modules."""
