"""Several ranks of one job: clocks aligned on the collectives (align.py) and the reports that compare ranks
(ranks.py), match their collectives (collectives.py) and charge waiting to the late rank (blame.py).

May import: segmentation, rendering, store, tracedb.sql, the ground modules."""
