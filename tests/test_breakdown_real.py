"""`tracedb report breakdown` over the real traces ($TRACEDB_TEST_DATA; skipped when absent), checked against
what the profilers themselves wrote (Ascend's step_trace_time.csv, parsed here) and against a plain Python
interval union over the raw Kineto JSON, written here (not from tracedb's SQL)."""
import csv
import gzip
import io
import json
import os
import re
from decimal import Decimal

import pytest

from helpers import breakdown_figures, cli, real_trace

pytestmark = pytest.mark.real_data

QWEN3 = ("ascend-msinsight", "st_level2_qwen3_megatron", "rank_0_ascend_pt", "ASCEND_PROFILER_OUTPUT")
ALEXNET = ("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT")
MEGATRON_RANK0 = ("ascend-megatron-job", "rank_0_ascend_pt")
# step_trace_time.csv column -> breakdown column
PROFILER_COLUMNS = {"Computing": "computing_us", "Communication(Not Overlapped)": "comm_not_overlapped_us",
                    "Overlapped": "overlapped_us", "Communication": "communication_us", "Free": "free_us"}


def report(db, *args):
    text = cli("report", "breakdown", "--db", db, "--run", "R", "--format", "csv", *args).stdout
    return list(csv.DictReader(io.StringIO(text)))


def ingest(tmp_path, path):
    db = str(tmp_path / "r.duckdb")
    cli("ingest", path, "--db", db, "--name", "R")
    return db


def step_trace_time(path):
    """Rows of the profiler's step_trace_time.csv, by step."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        return {int(r["Step"]): r for r in csv.DictReader(f)}


def max_differences(ours, theirs):
    """Per column, |breakdown - profiler| in µs; and span against Computing + Not Overlapped + Free (the
    profiler's e2e time: its Stage adds the receive ops' Bubble back and is summed in floats)."""
    diff = {c: abs(Decimal(ours[b]) - Decimal(theirs[c])) for c, b in PROFILER_COLUMNS.items()}
    e2e = sum(Decimal(theirs[c]) for c in ("Computing", "Communication(Not Overlapped)", "Free"))
    diff["span"] = abs(Decimal(ours["span_us"]) - e2e)
    return diff


@pytest.mark.parametrize("where,tolerance", [
    # the profiler summed floats of the same µs values kernel_details.csv prints: equal to the printed 0.01 µs
    (QWEN3, Decimal("0.005")),
    # CANN 8.0 worked from unrounded task times; kernel_details.csv rounds them to 1 ns: within 0.03 µs
    (ALEXNET, Decimal("0.03")),
])
@pytest.mark.slow
def test_kernel_details_equal_the_profilers_step_trace_time(tmp_path, where, tolerance):
    db = ingest(tmp_path, real_trace(*where, "kernel_details.csv"))
    want = step_trace_time(real_trace(*where, "step_trace_time.csv"))
    for by in ("run", "step"):
        rows = report(db, "--by", by)
        assert len(rows) == len(want) == 1
        step = int(rows[0]["step"]) if by == "step" else next(iter(want))
        diff = max_differences(rows[0], want[step])
        assert max(diff.values()) <= tolerance, diff


def test_megatron_rank0_folder(tmp_path):
    """The whole profiler folder of rank 0 of the 4-rank Megatron job (ranks 1 and 3 have no kernel_details.csv
    in the source, only their step_trace_time.csv)."""
    folder = real_trace(*MEGATRON_RANK0)
    db = ingest(tmp_path, folder)
    want = step_trace_time(os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "step_trace_time.csv"))
    (row,) = report(db, "--by", "step")
    assert int(row["step"]) == 13
    diff = max_differences(row, want[13])
    assert max(diff.values()) <= Decimal("0.005"), diff
    # no collective of this stage overlaps compute: all communication is exposed
    assert row["overlapped_us"] == "0.000" and row["communication_us"] == "420174.260"


def test_trace_view_steps_equal_the_profilers_step_trace_time(tmp_path):
    """Ascend's trace_view.json: kernels are put in ProfilerStep#50 by the op their async_npu flow starts at."""
    db = ingest(tmp_path, real_trace(*ALEXNET, "trace_view.json"))
    want = step_trace_time(real_trace(*ALEXNET, "step_trace_time.csv"))
    (row,) = report(db, "--by", "step")
    assert int(row["step"]) == 50
    diff = max_differences(row, want[50])
    assert max(diff.values()) <= Decimal("0.03"), diff


# ------------------------------------------------------------------------------------------------ GPU traces
def kineto_reference(path, is_comm, by_step):
    """(step or None) -> (span, computing, communication, overlapped, comm_not_overlapped, free) in µs, from the
    raw JSON: kernels (cat kernel) only; a kernel's step is the ProfilerStep#N whose [ts, ts + dur) holds the
    runtime or driver call (cuda_runtime, cuda_driver: cuLaunchKernel) with its correlation id."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    ns = lambda us: int(Decimal(us) * 1000)   # noqa: E731  (ts and dur have at most 3 decimals)
    steps = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), int(m.group(1))) for e in events
             if e.get("ph") == "X" and e.get("cat") == "user_annotation"
             and (m := re.fullmatch(r"ProfilerStep#(\d+)", e.get("name", "")))]
    launches = {e["args"]["correlation"]: ns(e["ts"]) for e in events
                if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver")
                and "correlation" in e.get("args", {})}
    units = {}
    for e in events:
        if e.get("ph") != "X" or e.get("cat") != "kernel":
            continue
        unit = None
        if by_step:
            t = launches.get(e.get("args", {}).get("correlation"))
            unit = next((n for s, end, n in steps if t is not None and s <= t < end), "none")
            if unit == "none":
                continue
        s = ns(e["ts"])
        units.setdefault(unit, []).append((s, s + ns(e["dur"]), is_comm(e["name"])))
    return {unit: breakdown_figures(acts) for unit, acts in units.items()}


FIGURES = ["span_us", "computing_us", "communication_us", "overlapped_us", "comm_not_overlapped_us", "free_us"]


@pytest.mark.parametrize("parts,comm", [
    # HTA's multi-rank sample: NCCL AllReduce and Broadcast kernels on their own stream, three ProfilerSteps
    (("hta-multirank", "nccl_parser_config", "nccl_data.json.gz"), r"^ncclKernel_"),
    # DeepSeek's DualPipe training chunk: DeepEP dispatch/combine (namespace dpsk::ep::internode) and NCCL
    (("deepseek-profile-data", "train.json"), r"^ncclKernel_|::ep::internode::"),
])
@pytest.mark.slow
def test_gpu_communication_and_steps_match_the_raw_json(tmp_path, parts, comm):
    path = real_trace(*parts)
    db = ingest(tmp_path, path)
    is_comm = re.compile(comm).search
    for by in ("run", "step"):
        want = kineto_reference(path, is_comm, by == "step")
        got = {(int(r["step"]) if by == "step" else None): tuple(Decimal(r[c]) for c in FIGURES)
               for r in report(db, "--by", by)}
        assert got == want
        assert all(v[2] > 0 for v in want.values())     # communication recognised in every unit
