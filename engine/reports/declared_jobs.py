"""The reports across a job's ranks, each declared once (engine/reports/declared.py lists them all): ranks,
collectives, blame and pipeline."""
from dataclasses import replace
from typing import Optional

from tracedb.engine.reports.declaration import (MEAN_REFUSED, MEAN_STEADY, PROFILED, SEGMENTED,
                                                Option, Report, charts, columns)
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
    columns("""
    pp_stage INTEGER: the pipeline stage whose ranks are compared; NULL outside a pipeline (the terminal and \
Markdown tables drop the column then)
    pass BIGINT: the pass
    layer BIGINT: the layer; NULL: the prologue or the epilogue (unit)
    model_layer BIGINT: the layer's number in the model (its stage's first model layer + layer; the terminal and \
Markdown tables drop the column outside a pipeline, where it is the layer)
    ranks BIGINT: the ranks compared
    min_compute_us DECIMAL(23,3): the least compute time (union of the non-communication kernels)
    median_compute_us DECIMAL(23,3): the lower median compute time
    max_compute_us DECIMAL(23,3): the most compute time
    slowest_rank INTEGER: the rank with the most compute time; empty when every rank has the same
    skew DECIMAL(12,3): (max - median) / median
    straggler BOOLEAN: skew at or above the report's threshold (what --stragglers counts)
    collectives BIGINT: the layer's collectives matched across ranks
    last_arrival_rank INTEGER: the rank that arrived last at the collective of the widest arrival spread
    arrival_spread_us DECIMAL(23,3): that collective's latest - earliest aligned start
    unit VARCHAR: prologue | layer | epilogue
    """),
    charts(("slowest_count rank", "stragglers"), ("compute_us wait_us rank", "ranks_per_rank"),
           ("min_compute_us skew", "ranks")))

COLLECTIVES = Report(
    "collectives", "Collectives of a job's ranks matched across each process group: arrival skew, transfer time, "
    "bytes and nccl-tests bandwidths, in clocks aligned on the collectives (--no-align: raw); see docs/jobs.md.",
    PROFILED, (_flag("per_rank", "One row per collective and rank: its start, duration and wait for the last rank."),
               NO_ALIGN),
    None, ("collectives_report", "collectives_per_rank"),
    columns("""
    op VARCHAR: the collective (allreduce, allgather, ...; the first by name when members disagree)
    group VARCHAR: the process group (c10d pg_name, HCCL group id, or 'stream <id>')
    group_desc VARCHAR: its description (pg_desc, Ascend group name) when known
    seq BIGINT: 0-based order of the instance within its group in the profiled window
    c10d_seq BIGINT: c10d's own sequence number, when the trace has it
    ranks BIGINT: runs (ranks) that have this instance
    group_size BIGINT: ranks in the group (c10d Group size, else the run's group record)
    bytes BIGINT: message size (the larger of c10d's in and out nelems x dtype size); NULL unknown
    start_us DECIMAL(23,3): earliest aligned start, from the report's first collective
    arrival_skew_us DECIMAL(23,3): latest start - earliest start
    transfer_us DECIMAL(23,3): earliest end - latest start
    waiting_us DECIMAL(23,3): the members' time in it before the last arrival, summed \
(latest start - each member's start)
    last_rank INTEGER: the rank that arrived last
    algbw_gbps DECIMAL(18,3): bytes / transfer, GB/s (1e9 bytes)
    busbw_gbps DECIMAL(18,3): algbw x the op's factor
    mismatch VARCHAR: what members disagree on; NULL when they agree
    flag VARCHAR: why an instance whose members agree has no cross-rank figures; NULL when it has them
    prof_elapse_us DECIMAL(23,3): the Ascend profiler's Elapse Time, the largest over the members
    prof_wait_us DECIMAL(23,3): its Wait Time, the largest over the members
    prof_transit_us DECIMAL(23,3): its Transit Time, the largest over the members
    prof_sync_us DECIMAL(23,3): its Synchronization Time, the largest over the members
    """),
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
    MEAN_STEADY, ("blame",),
    columns("""
    run VARCHAR: the late rank's run ('(N more)' on the row past --top for --by layer)
    rank INTEGER: its rank
    pass BIGINT: the pass of the cause (--by kernel); NULL for --by layer (every pass)
    layer BIGINT: the layer of the cause (a host delay: of the collective); NULL: the prologue or epilogue (unit), \
or outside every pass
    kernel VARCHAR: the cause: a kernel's short name, '(host)', '(unexplained)' or '(no kernels)'; NULL for \
--by layer; '(N more)' on the row that sums the rows past --top (its rank, pass, layer and unit empty)
    name VARCHAR: the cause's kernel name: a row per kernel name, so kernels that share a short name are rows of \
their own (terminal and Markdown tables show kernel instead, told apart); NULL for the other causes and --by layer
    excess_us DECIMAL(38,3): the cause's excess, summed over the instances
    waited_us DECIMAL(23,3): the other members' waiting it is charged with, summed over the instances \
(to the ns: the shares of an instance are fractions of a ns)
    instances BIGINT: collective instances charged
    unit VARCHAR: prologue | layer | epilogue of the cause; NULL outside every pass
    """))

PIPELINE = Report(
    "pipeline", "A pipeline-parallel job's micro-batches per stage and rank (forward and backward passes): start, end, "
    "busy time and the bubble before each, and each stage's bubble against 1F1B's ideal (p-1)/(m+p-1), as "
    "msprof-analyze's pp chart; see docs/reports.md.",
    SEGMENTED, (replace(ABSOLUTE, help="Absolute times (the reference rank's clock) instead of from the runs' "
                        "earliest step start."), NO_ALIGN), None, ("pipeline_report",),
    columns("""
    run VARCHAR: the run's name
    rank INTEGER: its rank
    pp_stage INTEGER: its pipeline stage, from 0 (its pipeline process group, else its send/receive order); empty \
when unknown (the notes say why)
    stages INTEGER: the pipeline's stages; empty when unknown
    step BIGINT: the step (Step Id, ProfilerStep#N, the optimizer steps before it)
    microbatch BIGINT: the micro-batch: the pass's place among its step's passes of its phase, from 0; empty on a \
stage row
    phase VARCHAR: forward | backward; empty on a stage row
    pass BIGINT: the pass, numbered per phase as report passes numbers it; empty on a stage row
    start_us DECIMAL(23,3): its first compute kernel's start (a stage row: the step's first kernel on the rank), \
from the runs' earliest step start unless --absolute; aligned clocks
    end_us DECIMAL(23,3): its last compute kernel's end (a stage row: the end of its pipeline group's last pass)
    busy_us DECIMAL(23,3): the union of its compute kernels' intervals (a stage row: summed)
    bubble_us DECIMAL(23,3): the wait before it: its start minus the end of the rank's previous pass of the step, \
or minus the step's start (a stage row: summed, with the tail after the rank's last pass)
    p2p_us DECIMAL(23,3): the pipeline sends and receives in that wait (a stage row: summed)
    microbatches BIGINT: a stage row: m, the step's forward passes on the rank
    bubble_pct DECIMAL(6,2): a stage row: bubble / (its end - its start), %
    ideal_1f1b_pct DECIMAL(6,2): a stage row: a 1F1B schedule's bubble fraction (p-1)/(m+p-1), p the stages, %
    partial BOOLEAN: the pass holds another anchor count than the expected one (cut by the capture)
    unit VARCHAR: pass | stage
    """),
    charts(("pp_stage start_us end_us unit", "pipeline")))
