"""The golden-output gate of CI (`tracedb check`): the reports a TOML file lists, each compared with its golden
CSV within the tolerances it gives (check.py). The reports themselves are rendered by the caller.

May import: the ground modules."""
