"""The store worked on directly, outside the reports: run management (`tracedb runs`: list, remove, rename,
tag; runs.py) and ad-hoc SQL over the store (`tracedb sql`; adhoc.py).

May import: segmentation, rendering, store, tracedb.sql, the ground modules."""
