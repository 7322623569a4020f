"""`tracedb advise`: findings an expert would write first about a trace, ranked by the step time at stake, from
what the reports already compute (report breakdown, blame, roofline): rules.py holds the rules and their
thresholds, advise.py runs them (sql/advise/*.sql) and renders the findings (docs/advise.md).

May import: reports, jobs, segmentation, rendering, store, tracedb.sql, the ground modules."""
