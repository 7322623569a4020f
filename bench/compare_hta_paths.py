#!/usr/bin/env python3
"""`tracedb report critical-path` beside HTA's critical_path_analysis on HTA's own critical-path fixtures: which
GPU activities each path holds, and what share of it each kind of work takes.

Prints figures and asserts nothing. HTA (HolisticTraceAnalysis, MIT) is not a dependency of tracedb: give a
Python that has it with --hta-python (HTA 0.5.0 needs pandas < 3), and the folder of its fixtures, a checkout's
tests/data/critical_path, with --fixtures.

    python bench/compare_hta_paths.py --hta-python PY --fixtures HTA/tests/data/critical_path

Per fixture (the window HTA's own tests analyse; tracedb's --annotation names the instance exactly, where
HTA matches a substring):
  a. HTA's path as its graph gives it, and again with each host dependency edge (weight 0 in HTA: the time
     between two host ops) weighted by its time, as tracedb's window counts it (host_gap, host_op);
  b. tracedb ingest of the file and its critical path of the same window;
  c. the GPU activities (by correlation id) of HTA's path that are on tracedb's, by count and by time, and each
     path's shares: device work, launch latency, device gaps, the host.
"""
import argparse
import csv
import glob
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from bench_ingest import print_machine  # noqa: E402

ALEXNET = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
# fixture folder, HTA's (annotation, instance), tracedb's window options
CASES = (("alexnet", (ALEXNET, 1), ["--annotation", ALEXNET, "--instance", "1"]),
         ("simple_add", (ALEXNET, 1), ["--annotation", ALEXNET, "--instance", "1"]),
         ("cuda_event_sync", ("ProfilerStep", 0), ["--annotation", "ProfilerStep#100"]),
         ("cuda_event_sync_multi_stream", ("", None), []))
HTA_DRIVER = """
import json, logging, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
from hta.analyzers.critical_path_analysis import CPEdgeType
folder, annotation, instance = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
a = TraceAnalysis(trace_dir=folder)
g, ok = a.critical_path_analysis(rank=0, annotation=annotation, instance_id=instance)
df, sym = a.t.get_trace(0), a.t.symbol_table.get_sym_table()
def path():
    kinds, corrs = {}, set()
    for u, v in zip(g.critical_path_nodes, g.critical_path_nodes[1:]):
        e = g.edges[u, v]
        key = e["object"].type.value.replace("critical_path_", "")
        if key == "operator":
            key = "device" if int(df.loc[g.node_list[u].ev_idx]["stream"]) >= 0 else "host"
        kinds[key] = kinds.get(key, 0) + int(e["weight"])
    for ev in g.critical_path_events_set:
        r = df.loc[ev]
        if int(r["stream"]) >= 0 and int(r["correlation"]) >= 0:
            corrs.add(int(r["correlation"]))
    return {"kinds": kinds, "corrs": sorted(corrs)}
out = {"ok": bool(ok), "hta": path()}
for u, v, d in g.edges(data=True):
    if d["object"].type == CPEdgeType.DEPENDENCY and d["weight"] == 0:
        d["weight"] = max(0, int(g.node_list[v].ts - g.node_list[u].ts))
g.critical_path()
out["weighted"] = path()
print(json.dumps(out))
"""
# HTA's kinds of weight, as tracedb's categories group them
HTA_SHARES = {"device": ("device",), "launch": ("kernel_launch_delay",), "device gap": ("kernel_kernel_delay",),
              "host": ("host", "dependency", "sync_dependency")}
TDB_SHARES = {"device": ("device_compute", "device_comm", "device_memcpy"), "launch": ("launch_latency",),
              "device gap": ("device_gap",), "host": ("host_op", "host_gap", "sync_wait", "comm_wait")}


def shares(kinds: dict, groups: dict) -> dict:
    total = sum(kinds.values()) or 1
    return {g: 100.0 * sum(kinds.get(k, 0) for k in keys) / total for g, keys in groups.items()}


def _shares(kinds: dict, groups: dict) -> str:
    return ", ".join(f"{k} {v:.2f} %" for k, v in shares(kinds, groups).items())


def tdb_path(tdb, trace, opts, work):
    """tracedb's path of the window: the correlation ids of its device activities and its time per category."""
    import duckdb
    db = os.path.join(work, "s.duckdb")
    subprocess.run(tdb + ["ingest", trace, "--db", db, "--name", "t"], check=True, capture_output=True)
    rows = list(csv.DictReader(io.StringIO(subprocess.run(
        tdb + ["report", "critical-path", "--db", db, "--format", "csv", *opts],
        check=True, capture_output=True, text=True).stdout)))
    con = duckdb.connect(db, read_only=True)
    try:
        if opts:
            # the window starts where the annotation instance does (critical_path_windows.sql)
            start = con.execute("SELECT start_ns FROM host_events WHERE name = $n AND cat IS DISTINCT FROM "
                                "'gpu_user_annotation' ORDER BY start_ns, seq LIMIT 1 OFFSET $i",
                                {"n": opts[1], "i": int(opts[3]) if len(opts) > 3 else 0}).fetchone()[0]
        else:
            # the whole trace starts at its first launch, synchronising call or device activity
            start = con.execute("SELECT min(start_ns) FROM (SELECT start_ns FROM kernels UNION ALL "
                                "SELECT h.start_ns FROM host_events h JOIN kernels k USING (run_id, correlation_id) "
                                "UNION ALL SELECT start_ns FROM host_events WHERE name LIKE '%Synchronize%')"
                                ).fetchone()[0]
        by_start = {}
        for s, name, corr, dur in con.execute("SELECT start_ns, name, correlation_id, dur_ns FROM kernels").fetchall():
            by_start.setdefault(s, []).append((name, corr, dur))
        durs = {corr: dur for v in by_start.values() for _, corr, dur in v}
    finally:
        con.close()
    corrs, kinds = set(), {}
    for r in rows:
        kinds[r["category"]] = kinds.get(r["category"], 0) + float(r["dur_us"])
        if r["segment"] != "gap" and r["category"].startswith("device_"):
            t = start + round(float(r["start_us"]) * 1000)
            corrs |= {c for dt in (-1, 0, 1) for n, c, _ in by_start.get(t + dt, []) if n == r["name"]}
    return corrs, kinds, durs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hta-python", required=True, help="a Python with HolisticTraceAnalysis installed")
    ap.add_argument("--fixtures", required=True, help="HTA's tests/data/critical_path folder")
    args = ap.parse_args()
    tdb = print_machine()
    for name, (annotation, instance), opts in CASES:
        folder = os.path.join(args.fixtures, name)
        traces = sorted(glob.glob(os.path.join(folder, "*.json*")))
        if not traces:
            print(f"== {name}: no trace in {folder}")
            continue
        h = subprocess.run([args.hta_python, "-c", HTA_DRIVER, folder, annotation, json.dumps(instance)],
                           capture_output=True, text=True)
        if h.returncode:
            print(f"== {name}: HTA failed: {h.stderr.strip().splitlines()[-1:]}")
            continue
        hta = json.loads(h.stdout.strip().splitlines()[-1])
        with tempfile.TemporaryDirectory(prefix="bench-hta-") as work:
            ours, kinds, durs = tdb_path(tdb, traces[0], opts, work)
        window = " ".join(opts) or "whole trace"
        print(f"== {name} (HTA: annotation {annotation!r} instance {instance}; tracedb: {window})")
        for label, p in (("HTA's graph", hta["hta"]), ("host gaps weighted", hta["weighted"])):
            theirs = set(p["corrs"])
            on = theirs & ours
            by_time = 100.0 * sum(durs.get(c, 0) for c in on) / max(1, sum(durs.get(c, 0) for c in theirs))
            print(f"  {label:18s}: {len(theirs)} GPU activities, {len(on)} on tracedb's path ({by_time:.1f} % of "
                  f"their time); tracedb's path has {len(ours)}, {len(ours - theirs)} not on this one")
            print("    shares, HTA    : " + _shares(p["kinds"], HTA_SHARES))
        print("    shares, tracedb: " + _shares(kinds, TDB_SHARES))


if __name__ == "__main__":
    main()
