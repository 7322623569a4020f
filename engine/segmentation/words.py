"""The values the segmentation's options take, written once: the command line's choices
(engine/reports/shared_options.py), the checks of a bound call (binding.py) and the kept segmentations'
keys (snapshots.py) read them here. Imports nothing, so that the command line's start-up does not pay for
the segmentation."""

# --window: full, every kernel of a pass in its prologue or a layer; strict, first to last anchor
WINDOWS = ("full", "strict")
# --phase: the phases a training trace's passes are segmented in (report roofline also takes "all")
PHASES = ("forward", "backward")
