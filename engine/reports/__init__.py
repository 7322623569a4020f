"""The reports: one module each in catalog/ (its declaration, build function, chart layouts and examples, found
by discovery), the entry point that fills in defaults, checks the options and calls a report's build
(registry.py), and the computations larger reports share or need room for (compare.py, launches.py,
roofline.py, pipeline.py, critical_path.py and what_if.py over replay.py, layered.py for the layer reports).

May import: jobs, segmentation, rendering, store, tracedb.sql, the ground modules."""
