#!/usr/bin/env python3
"""A small job end to end: `tracedb ingest` of an 8-rank folder, then `report blame` and `report collectives`,
beside AMD TraceLens's multi-rank collective report of the same files, measured side by side in the same run.

Prints figures and asserts nothing. Every measured step is a fresh process tree (bench/bench_ingest.run: wall
time, peak RSS of the whole tree). TraceLens (AMD-AGI/TraceLens, MIT) is not a dependency of tracedb: give the
path of its `TraceLens_generate_multi_rank_collective_report_pytorch` with --tracelens, or its rows are left
out. The two do not answer the same questions: TraceLens matches the collectives across ranks (skew, bandwidth,
stragglers); tracedb also segments every rank into passes and layers and attributes each wait to the kernels
that caused it (blame). What is compared is what a user waits for before reading either answer.

    python bench/bench_small_job.py [--ranks 8] [--repeat 2] [--tracelens BIN] [--cache-dir DIR]

The job: bench/gen_job.py OUT --ranks N --tp 8 --layers 32 --passes 4 --c10d-seq (0.75 MB a rank), made once
(bench_job.job, the same cache).
Per round, in this order: TraceLens (--trace_pattern DIR/rank*.pt.trace.json --world_size N
--output_csvs_dir a new folder); tracedb ingest into a new store, report blame --tag job=job --format csv,
report collectives --tag job=job --format csv.
"""
import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from bench_ingest import print_machine, remove_db, report_failure, run  # noqa: E402
from bench_job import job  # noqa: E402

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--tracelens", help="TraceLens's TraceLens_generate_multi_rank_collective_report_pytorch")
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "tracedb-bench"))
    args = ap.parse_args()
    tdb = print_machine()
    os.makedirs(args.cache_dir, exist_ok=True)
    folder = job(args.cache_dir, args.ranks)
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
    print(f"== {args.ranks} ranks, {size / 1e6:.1f} MB ({folder})")
    work = tempfile.mkdtemp(prefix="bench-small-job-")
    db = os.path.join(work, "s.duckdb")
    for r in range(args.repeat):
        with open("/proc/loadavg") as f:
            load = f.read().split()[0]
        if args.tracelens:
            out = os.path.join(work, "tracelens")
            shutil.rmtree(out, ignore_errors=True)
            t = run([args.tracelens, "--trace_pattern", os.path.join(folder, "rank*.pt.trace.json"),
                     "--world_size", str(args.ranks), "--output_csvs_dir", out], work)
            if t.rc:
                report_failure("TraceLens", t)
            else:
                print(f"  round {r + 1} (load {load}): TraceLens {t.wall:.2f} s (peak {t.peak / 1e6:.0f} MB)")
        remove_db(db)
        steps = [("ingest", tdb + ["ingest", folder, "--db", db, "--name", "job"])] + [
            (rep, tdb + ["report", rep, "--db", db, "--tag", "job=job", "--format", "csv"])
            for rep in ("blame", "collectives")]
        walls = []
        for what, cmd in steps:
            m = run(cmd, work)
            if m.rc:
                report_failure(f"tracedb {what}", m)
                break
            walls.append((what, m.wall, m.peak))
        else:
            print(f"  round {r + 1} (load {load}): tracedb {sum(w for _, w, _ in walls):.2f} s: "
                  + ", ".join(f"{what} {w:.2f} s ({p / 1e6:.0f} MB)" for what, w, p in walls))
    if not args.tracelens:
        print("  TraceLens: not measured (no --tracelens)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
