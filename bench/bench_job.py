#!/usr/bin/env python3
"""A job of many small rank traces: folder ingest and the job-wide reports, against `json.load` of the same
files, measured side by side in the same run, for growing rank counts.

Prints figures and asserts nothing. Every measured step is a fresh process tree (bench/bench_ingest.run: wall
time, peak RSS of the whole tree, sampled every 50 ms). Each round runs the baselines and the ingest back to
back, in a rotated order, so that load from other processes weighs on all alike; the load average before
each round is printed beside it.

    python bench/bench_job.py [--ranks 8,32,128,512] [--repeat 2] [--cache-dir DIR] [--keep-max 128]

Per rank count N:
  0. generate (once, cached in --cache-dir, default $TMPDIR/tracedb-bench) a Llama-70B-like decode job of N
     ranks with bench/gen_job.py: tensor-parallel groups of 8, 32 layers, 4 passes, ~2.6 MB per rank;
  a. json.load, each file dropped: one Python process that json.loads every rank file in turn (the
     throw-away script that looks at one rank at a time);
  b. json.load, all kept: the same, keeping every parsed file (the script that compares ranks; its memory
     grows with the job, so only up to --keep-max ranks);
  c. ingest: `tracedb ingest DIR --db S --name job --no-segment` into a new store (default --jobs: the cores):
     the loading alone (by default an ingest of up to 250,000 kernels then keeps the segmentation, which
     step e measures as `tracedb segment`);
  d. the job-wide reports on S, `--tag job=job`: ranks, collectives, breakdown, blame (each one process,
     start-up included), after a `tracedb sql --db S "SELECT 1"` that measures the start-up alone (interpreter,
     imports, opening the store);
  e. `tracedb segment --db S --tag job=job`, then the reports that segment (ranks, blame) again: they restore
     the segmentation it kept instead of computing it.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from bench_ingest import mb, print_machine, remove_db, report_failure, run  # noqa: E402

GENERATOR = os.path.join(HERE, "gen_job.py")
REPORTS = ("ranks", "collectives", "breakdown", "blame")
SEGMENTED = ("ranks", "blame")     # the job-wide reports that segment the ranks
LOAD = ("import json, os, sys\nkept = []\nfor f in sorted(os.listdir(sys.argv[1])):\n"
        "    if f.endswith('.json') and f != 'truth.json':\n"
        "        with open(os.path.join(sys.argv[1], f)) as fh:\n"
        "            doc = json.load(fh)\n"
        "        if sys.argv[2] == 'keep':\n            kept.append(doc)\n")


def job(cache_dir, ranks):
    """The folder of a generated job of `ranks` ranks (made once); its truth file goes beside it."""
    folder = os.path.join(cache_dir, f"job_{ranks}r")
    if not os.path.exists(folder + ".done"):
        tmp = folder + ".part"
        subprocess.run([sys.executable, GENERATOR, tmp, "--ranks", str(ranks), "--tp", "8", "--layers", "32",
                        "--passes", "4", "--c10d-seq"], check=True, stdout=subprocess.DEVNULL)
        os.replace(os.path.join(tmp, "truth.json"), folder + ".truth.json")
        os.rename(tmp, folder)
        open(folder + ".done", "w").close()
    return folder


def one_round(tdb, order, folder, db, workdir, keep):
    """Each way once, in `order`: {way: Measured}."""
    out = {}
    for way in order:
        if way == "ingest":
            remove_db(db)
            out[way] = run(tdb + ["ingest", folder, "--db", db, "--name", "job", "--no-segment"], workdir)
        elif way != "kept" or keep:
            out[way] = run([sys.executable, "-c", LOAD, folder, "keep" if way == "kept" else "drop"], workdir)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", default="8,32,128,512", help="rank counts, comma-separated")
    ap.add_argument("--repeat", type=int, default=2, help="rounds per rank count (default 2)")
    ap.add_argument("--keep-max", type=int, default=128, help="largest job the all-kept baseline loads")
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "tracedb-bench"))
    args = ap.parse_args(argv)
    tdb = print_machine()
    os.makedirs(args.cache_dir, exist_ok=True)
    for n in [int(x) for x in args.ranks.split(",") if x.strip()]:
        folder = job(args.cache_dir, n)
        files = [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json")]
        total = sum(os.path.getsize(f) for f in files)
        print(f"\n== {n} ranks, {mb(total):.0f} MB ({mb(total) / n:.1f} MB a rank)")
        with tempfile.TemporaryDirectory(dir=args.cache_dir) as tmp:
            db = os.path.join(tmp, "job.duckdb")
            ways = ["dropped", "kept", "ingest"]
            best: dict = {}
            for r in range(args.repeat):
                order = ways[r % 3:] + ways[:r % 3]
                load = " ".join(f"{x:.2f}" for x in os.getloadavg())
                got = one_round(tdb, order, folder, db, tmp, n <= args.keep_max)
                if any(m.rc for m in got.values()):
                    for w, m in got.items():
                        if m.rc:
                            report_failure(w, m)
                    continue
                ing, drop = got["ingest"], got["dropped"]
                kept = got.get("kept")
                print(f"  round {r + 1} (load average before: {load}): ingest {ing.wall:6.2f} s "
                      f"({mb(total) / ing.wall:5.0f} MB/s, {ing.wall / n * 1000:5.0f} ms a rank), peak "
                      f"{mb(ing.peak):4.0f} MB | json.load dropped {drop.wall:6.2f} s ({drop.wall / ing.wall:.2f}x "
                      f"the ingest)" + (f" | kept {kept.wall:6.2f} s ({kept.wall / ing.wall:.2f}x), peak "
                                        f"{mb(kept.peak):5.0f} MB" if kept else ""))
                for w, m in got.items():
                    if w not in best or m.wall < best[w].wall:
                        best[w] = m
            if "ingest" not in best:
                continue
            start = run(tdb + ["sql", "--db", db, "SELECT 1"], tmp)     # interpreter, imports, store open
            print("  reports: " + ", ".join([f"start-up {start.wall:.2f} s"] + reports(tdb, db, tmp, REPORTS)))
            seg = run(tdb + ["segment", "--db", db, "--tag", "job=job"], tmp)
            if seg.rc:
                report_failure("segment", seg)
            else:
                print(f"  after `tracedb segment` ({seg.wall:.2f} s, {mb(seg.peak):.0f} MB): "
                      + ", ".join(reports(tdb, db, tmp, SEGMENTED)))
            print(f"  best: ingest {best['ingest'].wall:.2f} s; json.load dropped {best['dropped'].wall:.2f} s"
                  + (f", kept {best['kept'].wall:.2f} s" if "kept" in best else ""))


def reports(tdb, db, tmp, names) -> list[str]:
    """Each report of `names` on the job, one process each: "name wall (peak)"."""
    out = []
    for rep in names:
        m = run(tdb + ["report", rep, "--db", db, "--tag", "job=job", "--format", "csv"], tmp)
        out.append(f"{rep} {m.wall:.2f} s ({mb(m.peak):.0f} MB)" if m.rc == 0 else f"{rep} failed")
        if m.rc:
            report_failure(rep, m)
    return out


if __name__ == "__main__":
    main()
