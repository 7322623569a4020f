"""`tracedb report launches` over the real GPU traces ($TRACEDB_TEST_DATA; skipped when absent), against a plain
Python computation over the raw Kineto JSON written here (not from tracedb's SQL): launch calls linked by
args.correlation, launch-to-start delays with nearest-rank quantiles, and the gaps of the union of the kernels'
intervals, each split at the launch call of the kernel that ends it. The idle columns are also checked to add
up to report breakdown's free_us."""
import csv
import gzip
import io
import json
import re
from decimal import Decimal

import pytest

from helpers import cli, real_trace

pytestmark = pytest.mark.real_data

RUNTIME = ("cuda_runtime", "cuda_driver", "Runtime")      # Runtime: the legacy (tb-profiler era) category
KINDS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy", "gpu_memset": "memset",
         "Memset": "memset"}
TRACES = {
    # HF transformers Qwen1.5-0.5B, eager; the capture starts mid-pass without host events: 509 kernels unlaunched
    "h100": ("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
    "mi300": ("amd-tracelens", "mi300", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
    # SGLang Qwen3-8B prefill+decode on MI300X: hipLaunchKernel, hipExtModuleLaunchKernel, hipMemcpyAsync
    "sglang": ("amd-tracelens", "inference", "sglang_prefilldecode", "sglang_Qwen3-8B_prefilldecode.json.gz"),
    # vLLM full-graph decode: one hipGraphLaunch launches 421 kernels
    "vllm_full": ("amd-tracelens", "inference", "vllm_decode_full", "graph_execution.json.gz"),
    "vllm_piecewise": ("amd-tracelens", "inference", "vllm_prefilldecode_piecewise", "graph_execution.json.gz"),
    # HTA's NCCL sample: compute and NCCL streams, three ProfilerSteps
    "nccl": ("hta-multirank", "nccl_parser_config", "nccl_data.json.gz"),
    "sampled_rank0": ("hta-multirank", "trace_filter", "sampled_rank-0.json.gz"),
    # DeepSeek-V3 DualPipe training chunk: three streams, DeepEP and NCCL, cuLaunchKernel among the launches
    "deepseek_train": ("deepseek-profile-data", "train.json"),
    # a 2021 tb-profiler trace: legacy categories (Kernel, Runtime)
    "tb_legacy": ("torch-tb-profiler-sample", "worker0.1623143089861.pt.trace.json.gz"),
}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def ns(us) -> int:
    return int(Decimal(str(us)) * 1000)      # ts and dur have at most 3 decimals


def activities(events):
    """Device activities with their launch call: dicts of name, kind, s, e, and call (start, dur, corr) or None."""
    calls = {}
    for e in events:
        corr = (e.get("args") or {}).get("correlation")
        if e.get("ph") == "X" and e.get("cat") in RUNTIME and corr is not None:
            call = (ns(e["ts"]), ns(e.get("dur", 0)), corr)
            calls[corr] = min(calls.get(corr, call), call)
    out = []
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in KINDS:
            s = ns(e["ts"])
            out.append({"name": e["name"], "kind": KINDS[e["cat"]], "s": s, "e": s + ns(e.get("dur", 0)),
                        "call": calls.get((e.get("args") or {}).get("correlation"))})
    return out


def steps_of(events):
    return [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), int(m.group(1))) for e in events
            if e.get("ph") == "X" and e.get("cat") == "user_annotation"
            and (m := re.fullmatch(r"ProfilerStep#(\d+)", e.get("name", "")))]


def nearest_rank(values, pct):
    """The ceil(pct/100 x n)-th smallest value (at least the first)."""
    v = sorted(values)
    return v[max(1, -(-len(v) * pct // 100)) - 1] if v else None


def gaps(acts):
    """Per activity index: (gap, host_bound, other, unknown) of the gap it ends. The busy time is the union of the
    kernels' intervals (memcpy and memset are not busy); a gap is the stretch between two merged islands, ended
    by the activities starting where the next island starts; of those, the one whose launch call started first
    decides: host-bound up to that call's start, other after it; unknown when none of them has a launch call."""
    busy = sorted((a["s"], a["e"], i) for i, a in enumerate(acts) if a["kind"] == "kernel")
    out, end, k = {}, None, 0
    while k < len(busy):
        s = busy[k][0]
        starting = [i for s2, _, i in busy[k:] if s2 == s]
        if end is not None and s > end:
            launched = [i for i in starting if acts[i]["call"]]
            gap = s - end
            if launched:
                first = min(launched, key=lambda i: acts[i]["call"][0])
                hb = min(max(acts[first]["call"][0] - end, 0), gap)
                out[first] = (gap, hb, gap - hb, 0)
            else:
                out[starting[0]] = (gap, 0, 0, gap)
        while k < len(busy) and busy[k][0] == s:
            end = busy[k][1] if end is None else max(end, busy[k][1])
            k += 1
    return out


def unit_figures(acts):
    """The --by run columns of one unit (its kernels), µs as Decimal."""
    ks = [a for a in acts if a["kind"] == "kernel"]
    g = gaps(ks)
    launched = [a for a in ks if a["call"]]
    calls = {a["call"][2]: a["call"][1] for a in launched}
    delays = [a["s"] - a["call"][0] for a in launched]
    us = lambda v: None if v is None else Decimal(v) / 1000   # noqa: E731
    return {"kernels": len(ks), "launched": len(launched), "launch_calls": len(calls),
            "launch_us": us(sum(calls.values())), "delay_p50_us": us(nearest_rank(delays, 50)),
            "delay_p95_us": us(nearest_rank(delays, 95)), "delay_max_us": us(max(delays, default=None)),
            "span_us": us(max(a["e"] for a in ks) - min(a["s"] for a in ks)),
            "free_us": us(sum(v[0] for v in g.values())), "host_bound_idle_us": us(sum(v[1] for v in g.values())),
            "other_idle_us": us(sum(v[2] for v in g.values())), "unknown_idle_us": us(sum(v[3] for v in g.values())),
            "gaps": len(g), "host_bound_gaps": sum(1 for v in g.values() if v[1] > 0)}


def kernel_figures(acts):
    """The --by kernel columns per (name, kind), the gaps being the run's."""
    g = gaps(acts)
    rows = {}
    for i, a in enumerate(acts):
        rows.setdefault((a["name"], a["kind"]), []).append((a, g.get(i, (0, 0, 0, 0))))
    us = lambda v: None if v is None else Decimal(v) / 1000   # noqa: E731
    out = {}
    for key, items in rows.items():
        launched = [a for a, _ in items if a["call"]]
        calls = {a["call"][2]: a["call"][1] for a in launched}
        delays = [a["s"] - a["call"][0] for a in launched]
        out[key] = (len(items), len(launched), us(sum(a["e"] - a["s"] for a, _ in items)), len(calls),
                    us(sum(calls.values())), us(nearest_rank(delays, 50)), us(nearest_rank(delays, 95)),
                    us(max(delays, default=None)), us(sum(x[1] for _, x in items)), us(sum(x[2] for _, x in items)),
                    us(sum(x[3] for _, x in items)))
    return out


def report(db, *args):
    text = cli("report", "launches", "--db", db, "--run", "R", "--format", "csv", *args).stdout
    return list(csv.DictReader(io.StringIO(text)))


def typed(value, column):
    if value == "":
        return None
    return Decimal(value) if column.endswith("_us") else int(value)


UNIT = ["kernels", "launched", "launch_calls", "launch_us", "delay_p50_us", "delay_p95_us", "delay_max_us", "span_us",
        "free_us", "host_bound_idle_us", "other_idle_us", "unknown_idle_us", "gaps", "host_bound_gaps"]
PER_KERNEL = ["count", "launched", "sum_us", "launch_calls", "launch_us", "delay_p50_us", "delay_p95_us",
              "delay_max_us", "host_bound_idle_us", "other_idle_us", "unknown_idle_us"]


@pytest.mark.parametrize("trace", sorted(TRACES))
@pytest.mark.slow
def test_launches_match_the_raw_json(tmp_path, trace):
    path = real_trace(*TRACES[trace])
    db = str(tmp_path / "r.duckdb")
    cli("ingest", path, "--db", db, "--name", "R")
    acts = activities(load(path))
    (row,) = report(db, "--by", "run")
    want = unit_figures(acts)
    assert {c: typed(row[c], c) for c in UNIT} == want
    assert want["free_us"] > 0 and want["launched"] > 0
    # the idle columns add up to report breakdown's free_us
    (bd,) = csv.DictReader(io.StringIO(cli("report", "breakdown", "--db", db, "--run", "R", "-f", "csv").stdout))
    assert Decimal(bd["free_us"]) == want["free_us"] == \
        want["host_bound_idle_us"] + want["other_idle_us"] + want["unknown_idle_us"]
    got = {(r["name"], r["kind"]): tuple(typed(r[c], c) for c in PER_KERNEL) for r in report(db)}
    assert got == kernel_figures(acts)


def test_steps_of_the_nccl_sample(tmp_path):
    """Per ProfilerStep (a kernel is in the step its launch call starts in), each step's own gaps."""
    path = real_trace(*TRACES["nccl"])
    db = str(tmp_path / "r.duckdb")
    cli("ingest", path, "--db", db, "--name", "R")
    events = load(path)
    acts = [a for a in activities(events) if a["call"]]
    want = {}
    for start, end, n in steps_of(events):
        unit = [a for a in acts if start <= a["call"][0] < end]
        if any(a["kind"] == "kernel" for a in unit):
            want[n] = unit_figures(unit)
    got = {int(r["step"]): {c: typed(r[c], c) for c in UNIT} for r in report(db, "--by", "step")}
    assert got == want and len(want) == 3
