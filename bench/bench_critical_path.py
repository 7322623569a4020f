#!/usr/bin/env python3
"""`tracedb report critical-path` on one rank's Kineto trace, beside HTA's critical_path_analysis on the same
file, measured side by side in the same run.

Prints figures and asserts nothing. Every measured step is a fresh process tree (bench/bench_ingest.run:
wall time, peak RSS of the whole tree). HTA (HolisticTraceAnalysis, MIT) is not a dependency of tracedb:
give a Python that has it with --hta-python (HTA 0.5.0 needs pandas < 3), or the HTA rows are left out.

    python bench/bench_critical_path.py [--mb 30,300] [--repeat 2] [--hta-python PY] [--cache-dir DIR]

Per size N MB:
  0. generate (once, cached) a Kineto trace of a DeepSeek-V3-like decode (bench/gen_kineto_trace.py --mb N
     --compact), with one ProfilerStep#0 annotation over the whole of it (HTA analyses an annotation's
     instance; tracedb's window is then the same);
  a. tracedb ingest of the file into a new store, then `tracedb report critical-path --step 0 --by category`
     (each one process, start-up included);
  b. the same report in one process that imports tracedb, opens the store and runs it through the Python API
     (tracedb.report(...).text("csv")): its own timings of the import, the open and the report, so that the
     analysis alone is set beside HTA's analysis alone (neither counts its start-up or its load);
  c. HTA: one process that imports hta, loads the trace (TraceAnalysis) and runs
     critical_path_analysis(rank=0, annotation="ProfilerStep", instance_id=0); its own timings of the load
     and of the analysis are printed beside the wall time.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from bench_ingest import print_machine, remove_db, report_failure, run  # noqa: E402

GENERATOR = os.path.join(HERE, "gen_kineto_trace.py")
HTA_DRIVER = """
import logging, sys, time
logging.disable(logging.WARNING)
t0 = time.perf_counter()
from hta.trace_analysis import TraceAnalysis
t1 = time.perf_counter()
analyzer = TraceAnalysis(trace_dir=sys.argv[1])
t2 = time.perf_counter()
graph, ok = analyzer.critical_path_analysis(rank=0, annotation="ProfilerStep", instance_id=0)
t3 = time.perf_counter()
print(f"ok={ok} import_s={t1 - t0:.2f} load_s={t2 - t1:.2f} critical_path_s={t3 - t2:.2f}")
"""

TRACEDB_DRIVER = """
import sys, time
t0 = time.perf_counter()
import tracedb
t1 = time.perf_counter()
con = tracedb.connect(sys.argv[1], read_only=True)
t2 = time.perf_counter()
out = tracedb.report(con, "critical-path", step=0, by="category").text("csv")
t3 = time.perf_counter()
print(f"import_s={t1 - t0:.2f} open_s={t2 - t1:.2f} critical_path_s={t3 - t2:.2f} rows={out.count(chr(10)) - 1}")
"""


def trace(cache_dir, size_mb):
    """A folder holding one rank's trace of `size_mb` MB with a ProfilerStep#0 over all of it (made once)."""
    folder = os.path.join(cache_dir, f"cp_{size_mb}mb")
    path = os.path.join(folder, "rank0.json")
    if os.path.exists(path):
        return folder
    os.makedirs(folder, exist_ok=True)
    raw = os.path.join(folder, "raw.json")
    subprocess.run([sys.executable, GENERATOR, raw, "--mb", str(size_mb), "--compact"], check=True,
                   stdout=subprocess.DEVNULL)
    with open(raw, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    xs = [e for e in events if e.get("ph") == "X" and "ts" in e]
    lo, hi = min(e["ts"] for e in xs), max(e["ts"] + e.get("dur", 0) for e in xs)
    host = next(e for e in xs if e.get("cat") == "cpu_op")
    events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": host["pid"],
                   "tid": host["tid"], "ts": lo - 1, "dur": round(hi - lo + 2, 3), "args": {}})
    with open(path + ".part", "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(path + ".part", path)
    os.remove(raw)
    for extra in (raw + ".truth.json",):
        if os.path.exists(extra):
            os.remove(extra)
    return folder


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", default="30,300", help="trace sizes in MB, comma-separated")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--hta-python", help="a Python with HolisticTraceAnalysis installed")
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "tracedb-bench"))
    args = ap.parse_args()
    tdb = print_machine()
    os.makedirs(args.cache_dir, exist_ok=True)
    for size in (int(s) for s in args.mb.split(",")):
        folder = trace(args.cache_dir, size)
        path = os.path.join(folder, "rank0.json")
        print(f"== {size} MB trace ({os.path.getsize(path) / 1e6:.1f} MB, {path})")
        work = tempfile.mkdtemp(prefix="bench-cp-")
        db = os.path.join(work, "s.duckdb")
        for r in range(args.repeat):
            remove_db(db)
            m = run(tdb + ["ingest", path, "--db", db, "--name", "rank0"], work)
            if m.rc:
                report_failure("tracedb ingest", m)
                break
            rep = run(tdb + ["report", "critical-path", "--db", db, "--step", "0", "--by", "category",
                             "--format", "csv"], work)
            if rep.rc:
                report_failure("tracedb report critical-path", rep)
                break
            print(f"  round {r + 1}: tracedb ingest {m.wall:.2f} s (peak {m.peak / 1e6:.0f} MB), "
                  f"report critical-path {rep.wall:.2f} s (peak {rep.peak / 1e6:.0f} MB): "
                  f"{m.wall + rep.wall:.2f} s in all")
            drivers = [("tracedb in one process", [sys.executable, "-c", TRACEDB_DRIVER, db])]
            if args.hta_python:
                drivers.append(("HTA", [args.hta_python, "-c", HTA_DRIVER, folder]))
            for label, cmd in drivers:
                d = run(cmd, work)
                if d.rc:
                    report_failure(label, d)
                else:
                    print(f"  round {r + 1}: {label} {d.wall:.2f} s (peak {d.peak / 1e6:.0f} MB): "
                          f"{d.stdout.strip().splitlines()[-1]}")
        if not args.hta_python:
            print("  HTA: not measured (no --hta-python)")


if __name__ == "__main__":
    main()
