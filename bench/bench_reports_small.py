#!/usr/bin/env python3
"""Report latency on a small store: each report's whole command (a fresh process, start-up included), best of
N, after an ingest that keeps the segmentation (the default) and after `ingest --no-segment`, beside two floors
measured in the same run: `python -c "import duckdb"` and `tracedb sql "select 1"`.

Prints figures and asserts nothing.

    python bench/bench_reports_small.py TRACE [--repeat 5] [--ranks 8]

TRACE: one trace with layers (e.g. a PyTorch-profiler trace of a few MB); its reports are passes, layers,
kernels and roofline. The job: bench/gen_job.py --ranks N --tp 8 --layers 8 --passes 3 (made once in the
cache folder); its reports are blame, collectives, breakdown, ranks, and compare of its first two ranks.
Rounds interleave the two stores, so both see the same load.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from bench_ingest import print_machine, report_failure, run  # noqa: E402


def small_job(cache: str, ranks: int) -> str:
    folder = os.path.join(cache, f"small_job_{ranks}")
    if not os.path.exists(os.path.join(folder, "truth.json")):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_job.py"), folder, "--ranks", str(ranks), "--tp", "8",
                        "--layers", "8", "--passes", "3"], check=True, capture_output=True)
    return folder


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "tracedb-bench"))
    args = ap.parse_args()
    tdb = print_machine()
    os.makedirs(args.cache_dir, exist_ok=True)
    folder = small_job(args.cache_dir, args.ranks)
    work = tempfile.mkdtemp(prefix="bench-reports-small-")
    stores = {}
    for mode, extra in (("kept", []), ("not kept", ["--no-segment"])):
        one, job = os.path.join(work, f"one-{len(stores)}.duckdb"), os.path.join(work, f"job-{len(stores)}.duckdb")
        for what, cmd in (("ingest", tdb + ["ingest", args.trace, "--db", one, "--name", "one"] + extra),
                          ("job ingest", tdb + ["ingest", folder, "--db", job, "--name", "j"] + extra)):
            m = run(cmd, work)
            if m.rc:
                report_failure(f"{what} ({mode})", m)
                return
            print(f"  {what} ({mode}): {m.wall:.2f} s")
        stores[mode] = (one, job)
    commands = {"floor: import duckdb": lambda one, job: [sys.executable, "-c", "import duckdb"],
                'floor: sql "select 1"': lambda one, job: tdb + ["sql", "--db", one, "select 1"]}
    for rep in ("passes", "layers", "kernels", "roofline"):
        commands[rep] = lambda one, job, rep=rep: tdb + ["report", rep, "--db", one, "--run", "one", "--format", "csv"]
    for rep in ("blame", "collectives", "breakdown", "ranks"):
        commands[rep] = lambda one, job, rep=rep: tdb + ["report", rep, "--db", job, "--tag", "job=j", "--format",
                                                         "csv"]
    commands["compare"] = lambda one, job: tdb + ["report", "compare", "--db", job, "--run", "j-rank0", "--run",
                                                  "j-rank1", "--format", "csv"]
    best = {(name, mode): float("inf") for name in commands for mode in stores}
    for _ in range(args.repeat):
        for name, make in commands.items():
            for mode, (one, job) in stores.items():
                m = run(make(one, job), work)
                if m.rc:
                    report_failure(f"{name} ({mode})", m)
                    return
                best[(name, mode)] = min(best[(name, mode)], m.wall)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"== whole commands, best of {args.repeat} (load {load} at the end)")
    print(f"  {'command':<24}" + "".join(f"{mode:>12}" for mode in stores))
    for name in commands:
        print(f"  {name:<24}" + "".join(f"{best[(name, mode)]:>11.3f}s" for mode in stores))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
