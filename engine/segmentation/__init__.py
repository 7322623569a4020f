"""Passes, layers and units from anchor kernels: model profiles (profiles.py, profiles/*.toml), binding options
to runs (binding.py), running the sql/segment stages (segment.py) with notes on the pass split (pass_notes.py),
assigning layers and picking passes (assignment.py), which passes a report covers (selection.py), the units
reports divide a run into (units.py), notes on coverage (unit_notes.py), the host side of device time
(attribution.py) and the stored segmentation of `tracedb segment` (persist.py).

May import: store, tracedb.sql, the ground modules."""
