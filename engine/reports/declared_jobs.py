"""The reports across a job's ranks, each declared once (engine/reports/declared.py lists them all): ranks,
collectives, blame and pipeline."""
from dataclasses import replace
from typing import Optional

from tracedb.engine.reports.declaration import (MEAN_REFUSED, MEAN_STEADY, PROFILED, SEGMENTED,
                                                Option, Report, charts)
from tracedb.engine.reports.shared_options import (ABSOLUTE, NO_ALIGN, PASS, _by, _flag)

RANKS = Report(
    "ranks", "The ranks of a job compared per layer (each run segmented alike): spread of the compute time, the "
    "slowest rank and its skew, the last arrival at the layer's collectives; --stragglers names the slow rank and "
    "layers. In a pipeline job a layer is compared only with the same model layer on the ranks of its stage.",
    SEGMENTED, (PASS,
                _flag("per_rank", "One row per (pass, layer, rank): its compute, communication, wait and late "
                      "arrival."),
                _flag("stragglers", "The vote across passes: per layer and overall, which rank was the straggler how "
                      "often."), NO_ALIGN),
    MEAN_REFUSED, ("report_ranks", "report_ranks_per_rank", "report_ranks_stragglers"),
    charts(("slowest_count rank", "stragglers"), ("compute_us wait_us rank", "ranks_per_rank"),
           ("min_compute_us skew", "ranks")))

COLLECTIVES = Report(
    "collectives", "Collectives of a job's ranks matched across each process group: arrival skew, transfer time, "
    "bytes and nccl-tests bandwidths, in clocks aligned on the collectives (--no-align: raw); see docs/jobs.md.",
    PROFILED, (_flag("per_rank", "One row per collective and rank: its start, duration and wait for the last rank."),
               NO_ALIGN),
    None, ("collectives_report", "collectives_per_rank"),
    charts(("wait_us rank", "collectives_per_rank"), ("arrival_skew_us transfer_us", "collectives")))

BLAME = Report(
    "blame", "Who made the others wait: at every collective of a job (ranks segmented alike, clocks aligned on the "
    "collectives), the others' waiting for the last rank, charged to its kernels that ran longer than on the "
    "others, or to its host's launch delay; see docs/jobs.md.",
    SEGMENTED, (PASS, _by("kernel", ("kernel", "layer"), "kernel: a row per late rank, pass, layer and cause; layer: "
                          "waited time per layer and late rank."), NO_ALIGN,
                Option("top", ("--top",), Optional[int], None, "Rows kept, most waited first; the others are summed "
                       "in one '(N more)' row (0: all; default: 30 in the terminal and Markdown, all in CSV and JSON).",
                       check="count")),
    MEAN_STEADY, ("blame",))

PIPELINE = Report(
    "pipeline", "A pipeline-parallel job's micro-batches per stage and rank (forward and backward passes): start, end, "
    "busy time and the bubble before each, and each stage's bubble against 1F1B's ideal (p-1)/(m+p-1), as "
    "msprof-analyze's pp chart; see docs/reports.md.",
    SEGMENTED, (replace(ABSOLUTE, help="Absolute times (the reference rank's clock) instead of from the runs' "
                        "earliest step start."), NO_ALIGN), None, ("pipeline_report",),
    charts(("pp_stage start_us end_us unit", "pipeline")))
