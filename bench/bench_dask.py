#!/usr/bin/env python3
"""A job ingested on a Dask cluster into a Parquet dataset, and its job reports read from the dataset's files,
beside a one-machine folder ingest into a store, for 1, 2 and 4 workers of a LocalCluster.

Prints figures and asserts nothing, except that it says whether each report over the dataset is the store's,
byte for byte. Every tracedb step is a fresh process tree (bench/bench_ingest.run: wall time, peak RSS of the
tree; the cluster's workers are not in that tree, so their own peak is asked of them after the ingest).
Needs the `dask` extra (distributed).

    python bench/bench_dask.py [--ranks 32,128] [--workers 1,2,4] [--cache-dir DIR]

Per rank count N (the job of bench/bench_job.py: Llama-70B-like decode, TP groups of 8, 32 layers, 4 passes,
0.8 MB a rank):
  a. `tracedb ingest JOB --db S --name job`: the one-machine folder ingest (its own worker processes);
  b. the job reports on S (ranks, collectives, breakdown, blame, `--tag job=job --format csv`);
  c. per worker count W: a new LocalCluster of W single-threaded worker processes (its start is not timed),
     `tracedb ingest JOB --to D --name job --scheduler ADDRESS`, the workers' peak RSS, the dataset's bytes
     per rank, then each job report with `--db D/`, compared with b's output.
"""
import argparse
import filecmp
import os
import resource
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from bench_ingest import mb, print_machine, report_failure, run  # noqa: E402
from bench_job import REPORTS, job  # noqa: E402


def _peak_rss() -> int:
    """This process's peak RSS in bytes (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def tree_bytes(folder) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs)


def reports(tdb, db, workdir, tag) -> dict:
    """Each job report on `db`: name -> (Measured, path of its csv output)."""
    out = {}
    for rep in REPORTS:
        path = os.path.join(workdir, f"{rep}_{tag}.csv")
        m = run(tdb + ["report", rep, "--db", db, "--tag", "job=job", "--format", "csv", "-o", path], workdir)
        if m.rc:
            report_failure(f"{rep} on {tag}", m)
        out[rep] = (m, path)
    return out


def same(m, path, base_m, base_path) -> bool:
    """Both reports ran and wrote the same bytes."""
    return m.rc == 0 and base_m.rc == 0 and filecmp.cmp(path, base_path, shallow=False)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", default="32,128", help="rank counts, comma-separated")
    ap.add_argument("--workers", default="1,2,4", help="worker counts of the LocalCluster, comma-separated")
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "tracedb-bench"))
    args = ap.parse_args(argv)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("distributed is not installed: pip install 'tracedb[dask]'", file=sys.stderr)
        return 2
    tdb = print_machine()
    os.makedirs(args.cache_dir, exist_ok=True)
    for n in [int(x) for x in args.ranks.split(",") if x.strip()]:
        folder = job(args.cache_dir, n)
        total = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder) if f.endswith(".json"))
        print(f"\n== {n} ranks, {mb(total):.0f} MB ({mb(total) / n:.1f} MB a rank)")
        with tempfile.TemporaryDirectory(dir=args.cache_dir) as tmp:
            db = os.path.join(tmp, "job.duckdb")
            m = run(tdb + ["ingest", folder, "--db", db, "--name", "job", "--no-segment"], tmp)
            if m.rc:
                report_failure("ingest into a store", m)
                continue
            print(f"  store: ingest {m.wall:6.2f} s, peak {mb(m.peak):5.0f} MB, {mb(os.path.getsize(db)):.0f} MB")
            base = reports(tdb, db, tmp, "store")
            print("    reports: " + ", ".join(f"{r} {x.wall:.2f} s" for r, (x, _) in base.items()))
            for w in [int(x) for x in args.workers.split(",") if x.strip()]:
                out = os.path.join(tmp, f"ds{w}")
                with LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None) \
                        as cluster, Client(cluster) as client:
                    m = run(tdb + ["ingest", folder, "--to", out, "--name", "job", "--scheduler",
                                   cluster.scheduler_address], tmp)
                    worker_peak = max(client.run(_peak_rss).values()) if m.rc == 0 else 0
                if m.rc:
                    report_failure(f"ingest on {w} workers", m)
                    continue
                size = tree_bytes(out)
                print(f"  {w} worker{'s' if w > 1 else ' '}: ingest {m.wall:6.2f} s ({m.wall / n * 1000:4.0f} ms a "
                      f"rank), client peak {mb(m.peak):4.0f} MB, worker peak {mb(worker_peak):4.0f} MB, dataset "
                      f"{mb(size):.0f} MB ({size / n / 1024:.0f} KB a rank)")
                got = reports(tdb, out + os.sep, tmp, f"ds{w}")
                print("    reports on the dataset: " + ", ".join(
                    f"{r} {x.wall:.2f} s ({'= store' if same(x, p, *base[r]) else 'DIFFERS'})"
                    for r, (x, p) in got.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
