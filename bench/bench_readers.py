#!/usr/bin/env python3
"""How long readers are kept out of the store while another process ingests a big trace.

A reader process opens the store read-only in a loop (each open waits for a writer's lock, as every
tracedb command does) and runs `SELECT count(*) FROM runs`; the benchmark prints the longest time one
such read took while a `tracedb ingest` of a generated kernel_details.csv ran beside it, next to the
ingest's own wall time, which is how long readers were refused when an ingest held the store for its
whole parse (the baseline: the design before side stores).

Usage (from the repository root):
    python bench/bench_readers.py [--rows 1000000] [--cache-dir DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _tracedb():
    return os.path.join(os.path.dirname(sys.executable), "tracedb")


READER = """
import sys, time
from tracedb.engine.store.connect import open_store
db, stop = sys.argv[1], sys.argv[2]
import os
worst, reads = 0.0, 0
while not os.path.exists(stop):
    t = time.perf_counter()
    con = open_store(db, read_only=True)
    con.execute("SELECT count(*) FROM runs").fetchone()
    con.close()
    worst, reads = max(worst, time.perf_counter() - t), reads + 1
    time.sleep(0.02)
print(worst, reads)
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the generated CSV (default 1000000)")
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "tracedb-bench"))
    args = ap.parse_args(argv)
    os.makedirs(args.cache_dir, exist_ok=True)
    trace = os.path.join(args.cache_dir, f"readers_{args.rows}.csv")
    if not os.path.exists(trace):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_kernel_details.py"), trace, "--rows", str(args.rows)],
                       check=True)
    with tempfile.TemporaryDirectory(dir=args.cache_dir) as tmp:
        db, stop = os.path.join(tmp, "s.duckdb"), os.path.join(tmp, "stop")
        subprocess.run([_tracedb(), "demo", "--db", db], check=True, capture_output=True)
        reader = subprocess.Popen([sys.executable, "-c", READER, db, stop], stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
        t = time.perf_counter()
        subprocess.run([_tracedb(), "ingest", trace, "--db", db, "--name", "big"], check=True, capture_output=True)
        ingest_s = time.perf_counter() - t
        time.sleep(0.5)
        open(stop, "w").close()
        worst, reads = reader.communicate()[0].split()
    mb = os.path.getsize(trace) / 1e6
    print(f"kernel_details.csv {args.rows:,} rows, {mb:.0f} MB")
    print(f"  ingest wall time (readers refused throughout, before side stores): {ingest_s:6.2f} s")
    print(f"  longest read during the ingest (open + query):                      {float(worst):6.2f} s "
          f"({int(reads)} reads)")


if __name__ == "__main__":
    main()
