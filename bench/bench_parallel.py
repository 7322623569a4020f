#!/usr/bin/env python3
"""Folder ingest with several worker processes (`tracedb ingest DIR --jobs N`) against its two baselines,
measured side by side in the same run: one `tracedb ingest FILE` process per trace, one after another
(what a script over the files does), and the same folder with `--jobs 1` (one after another in one
process).

Prints figures and asserts nothing. Every measured step is a fresh process tree (bench/bench_ingest.run:
wall time, peak RSS of the whole tree, sampled every 50 ms); the three ways are interleaved, in a
rotated order each round, and each ratio is taken within one round, so that load from other processes
on the machine weighs on all three alike. The load average before each round is printed beside it.

    python bench/bench_parallel.py [--traces 2,8] [--mb 100] [--jobs N] [--repeat 2] [--cache-dir DIR]

Steps, per trace count n:
  0. generate (once, cached in --cache-dir, default $TMPDIR/tracedb-bench) n DeepSeek-V3-like Kineto
     traces of --mb MB each with bench/gen_kineto_trace.py, seeds 1..n (each its own content), in a
     folder of their own (the generator's truth files go beside the folder, not in it);
  a. files:   `tracedb ingest FILE_i --db A --name s<i>` for each file, one after another (every ingest
              here with --no-segment: the loading alone);
  b. serial:  `tracedb ingest DIR --db B --name p --jobs 1`;
  c. jobs N:  `tracedb ingest DIR --db C --name p --jobs N` (default N: the cores);
  check: kernels and total kernel ns of the three stores, which must be equal (MATCH).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from bench_ingest import mb, print_machine, remove_db, report_failure, run  # noqa: E402

GENERATOR = os.path.join(HERE, "gen_kineto_trace.py")
CHECK_SQL = "select count(*), sum(dur_ns) from kernels"


def traces(cache_dir, n, size_mb):
    """The folder of n generated traces of size_mb MB each (made once)."""
    folder = os.path.join(cache_dir, f"parallel_{n}x{size_mb}mb")
    truth = folder + ".truth"
    paths = [os.path.join(folder, f"rank{i}.json") for i in range(n)]
    if all(os.path.exists(p) for p in paths):
        return folder, paths
    os.makedirs(folder, exist_ok=True)
    os.makedirs(truth, exist_ok=True)
    for i, p in enumerate(paths):
        if not os.path.exists(p):
            subprocess.run([sys.executable, GENERATOR, p + ".part", "--mb", str(size_mb), "--seed", str(i + 1)],
                           check=True, stdout=subprocess.DEVNULL)
            shutil.move(p + ".part.truth.json", os.path.join(truth, os.path.basename(p) + ".truth.json"))
            os.replace(p + ".part", p)
    return folder, paths


def totals(tdb, db):
    p = subprocess.run(tdb + ["sql", "--db", db, "--format", "csv", CHECK_SQL], capture_output=True, text=True)
    return p.stdout.strip().splitlines()[-1] if p.returncode == 0 else f"error: {p.stderr.strip()}"


def warm(paths):
    """Read every trace once, so that the page cache holds them for all three ways alike."""
    for p in paths:
        with open(p, "rb") as f:
            while f.read(1 << 23):
                pass


def one_round(tdb, order, folder, paths, dbs, jobs, workdir):
    """Each way once, in `order`; {way: (wall s, peak tree RSS bytes) or None when it failed}."""
    out = {}
    for way in order:
        remove_db(dbs[way])
        if way == "files":
            walls, peak = 0.0, 0
            for i, p in enumerate(paths):
                m = run(tdb + ["ingest", p, "--db", dbs[way], "--name", f"s{i}", "--no-segment"], workdir)
                if m.rc != 0:
                    report_failure(f"files: {os.path.basename(p)}", m)
                    walls = None
                    break
                walls, peak = walls + m.wall, max(peak, m.peak)
            out[way] = None if walls is None else (walls, peak)
        else:
            n = "1" if way == "serial" else str(jobs)
            m = run(tdb + ["ingest", folder, "--db", dbs[way], "--name", "p", "--jobs", n, "--no-segment"], workdir)
            if m.rc != 0:
                report_failure(way, m)
            out[way] = None if m.rc != 0 else (m.wall, m.peak)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--traces", default="2,8", help="trace counts, comma-separated (default 2,8)")
    ap.add_argument("--mb", type=int, default=100, help="MB of JSON per trace (default 100)")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes of the parallel ingest (default: cores)")
    ap.add_argument("--repeat", type=int, default=2, help="rounds of the three ways (default 2)")
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "tracedb-bench"))
    args = ap.parse_args(argv)
    tdb = print_machine()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    os.makedirs(args.cache_dir, exist_ok=True)
    for n in [int(x) for x in args.traces.split(",") if x.strip()]:
        jobs = args.jobs or min(cores, n)
        folder, paths = traces(args.cache_dir, n, args.mb)
        total = sum(os.path.getsize(p) for p in paths)
        print(f"\n== {n} Kineto traces of {args.mb} MB ({mb(total):.0f} MB in all), --jobs {jobs}, {cores} cores")
        warm(paths)
        ways = ["files", "serial", "jobs"]
        walls = {w: [] for w in ways}
        with tempfile.TemporaryDirectory(dir=args.cache_dir) as tmp:
            dbs = {w: os.path.join(tmp, f"{w}.duckdb") for w in ways}
            for r in range(args.repeat):
                order = ways[r % 3:] + ways[:r % 3]
                load = " ".join(f"{x:.2f}" for x in os.getloadavg())
                got = one_round(tdb, order, folder, paths, dbs, jobs, tmp)
                if any(v is None for v in got.values()):
                    continue
                for w in ways:
                    walls[w].append(got[w][0])
                files, serial, par = (got[w][0] for w in ways)
                print(f"  round {r + 1} (load average before: {load}): "
                      f"files {files:6.2f} s, peak {mb(got['files'][1]):4.0f} MB | "
                      f"--jobs 1 {serial:6.2f} s, peak {mb(got['serial'][1]):4.0f} MB | "
                      f"--jobs {jobs} {par:6.2f} s, peak {mb(got['jobs'][1]):4.0f} MB | "
                      f"speedup {files / par:.2f}x vs files, {serial / par:.2f}x vs --jobs 1")
            checks = {w: totals(tdb, dbs[w]) for w in ways}
        if walls["jobs"]:
            med = {w: statistics.median(walls[w]) for w in ways}
            ratios_f = [f / p for f, p in zip(walls["files"], walls["jobs"])]
            ratios_s = [s / p for s, p in zip(walls["serial"], walls["jobs"])]
            print(f"  median: files {med['files']:.2f} s, --jobs 1 {med['serial']:.2f} s, --jobs {jobs} "
                  f"{med['jobs']:.2f} s ({mb(total) / med['jobs']:.0f} MB/s); speedup (median of rounds) "
                  f"{statistics.median(ratios_f):.2f}x vs files, {statistics.median(ratios_s):.2f}x vs --jobs 1")
        same = len(set(checks.values())) == 1
        print(f"  check (kernels, total ns): {'MATCH' if same else 'MISMATCH'} "
              + ", ".join(f"{w} {v}" for w, v in checks.items()))


if __name__ == "__main__":
    main()
