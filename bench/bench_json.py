#!/usr/bin/env python3
"""JSON ingest benchmark: tracedb against the json.load script users run today, on generated Kineto traces.

Prints figures and asserts nothing. Measures like bench/bench_ingest.py (whose helpers it imports):
every measured step is a fresh subprocess, timed wall-clock, with the peak RSS of its whole process tree
(the larger of the /proc samples every 50 ms and `/usr/bin/time -f %M`); repeats are interleaved and
summarised by median and min, with the page cache warm.

    python bench/bench_json.py [--mb 1000] [--layouts pretty,compact,gzip] [--repeat 1] [--seed 1]
                               [--cache-dir DIR]

Steps, per layout:
  0. generate (once, cached in --cache-dir, default $TMPDIR/tracedb-bench, under a name that holds the
     size, seed, layout and a hash of bench/gen_kineto_trace.py) a DeepSeek-V3-like decode trace of
     --mb MB of JSON: `pretty` = Kineto's own layout, `compact` = one-line JSON, `gzip` = the compact
     trace gzipped (level 6); with it the generator's truth file (kernel count, exact total ns);
  a. baseline: `json.load` of the file (gzip.open for .gz), keep the events with cat == "kernel",
     print their count and total dur;
  b. `tracedb ingest FILE --db TMP --name K --no-segment` (the loading);
     (gzip only) `zcat FILE > /dev/null`, the floor of any reader of that file;
     a, b (and zcat) are repeated --repeat times, interleaved;
  c. once: `tracedb report layers --db TMP --run K --anchor flash_fwd_mla_combine --layers 61 --pass 3
     --format csv`;
  check: `tracedb sql --db TMP --format csv "select count(*), sum(dur_ns) from kernels"` against the
     truth file: MATCH or MISMATCH with both values.
"""
import argparse
import csv
import hashlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from bench_ingest import last_line, mb, print_machine, remove_db, report_failure, run, stats  # noqa: E402

GENERATOR = os.path.join(HERE, "gen_kineto_trace.py")
LAYOUTS = ("pretty", "compact", "gzip")
ANCHOR = "flash_fwd_mla_combine"
LAYERS = 61
CHECK_SQL = "select count(*), sum(dur_ns) from kernels"

BASELINE = r"""
import gzip, json, sys
path = sys.argv[1]
with (gzip.open(path, 'rb') if path.endswith('.gz') else open(path, 'rb')) as f:
    trace = json.load(f)
kernels = [e for e in trace['traceEvents'] if e.get('cat') == 'kernel']
print(len(kernels), 'kernels; total dur', sum(e['dur'] for e in kernels), 'us')
"""


def trace_path(cache_dir, size_mb, seed, layout, gen_id):
    ext = ".json.gz" if layout == "gzip" else ".json"
    return os.path.join(cache_dir, f"kineto_dsv3_{size_mb:g}mb_s{seed}_{layout}_g{gen_id}{ext}")


def ensure_trace(path, size_mb, seed, layout):
    """Generate the trace (and its truth file) unless both are cached; return the truth dict or None."""
    truth_path = path + ".truth.json"
    if not (os.path.exists(path) and os.path.exists(truth_path)):
        flags = {"pretty": [], "compact": ["--compact"], "gzip": ["--compact", "--gzip"]}[layout]
        print(f"== generating {os.path.basename(path)}")
        t0 = time.perf_counter()
        gen = subprocess.run([sys.executable, GENERATOR, path, "--mb", f"{size_mb:g}", "--seed", str(seed)] + flags,
                             capture_output=True, text=True)
        if gen.returncode != 0:
            print(f"  generator failed (exit {gen.returncode}): {gen.stderr.strip()[-500:]}")
            return None
        print(f"  {gen.stderr.strip()}  [{time.perf_counter() - t0:.1f} s wall]")
    with open(truth_path) as f:
        return json.load(f)


def warm(path):
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass
    return time.perf_counter() - t0


def sql_check(tdb, db, truth, work):
    """Run the check query; print MATCH / MISMATCH with both values. Returns 'MATCH', 'MISMATCH' or 'ERROR'."""
    m = run(tdb + ["sql", "--db", db, "--format", "csv", CHECK_SQL], work)
    if m.rc != 0:
        report_failure("check: tracedb sql", m)
        return "ERROR"
    rows = [r for r in csv.reader(io.StringIO(m.stdout)) if r]
    try:
        count, total = int(rows[-1][0]), int(rows[-1][1])
    except (IndexError, ValueError):
        print(f"  check: cannot read the sql output: {m.stdout.strip()[:300]!r}")
        return "ERROR"
    want = (truth["kernels"], truth["kernel_dur_ns"])
    verdict = "MATCH" if (count, total) == want else "MISMATCH"
    print(f"  check ({m.wall:.2f} s): {verdict}  store: {count:,} kernels, {total:,} ns   "
          f"truth: {want[0]:,} kernels, {want[1]:,} ns"
          + ("" if verdict == "MATCH" else f"   (diff {count - want[0]:+,} kernels, {total - want[1]:+,} ns)"))
    return verdict


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=1000.0, help="JSON size of the generated traces in MB (default 1000)")
    ap.add_argument("--layouts", default=",".join(LAYOUTS),
                    help="comma-separated subset of pretty,compact,gzip (default: all three)")
    ap.add_argument("--repeat", type=int, default=1, help="baseline + ingest repetitions, interleaved (default 1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache-dir", default=os.path.join(os.environ.get("TMPDIR") or tempfile.gettempdir(),
                                                        "tracedb-bench"))
    a = ap.parse_args(argv)
    layouts = [s.strip() for s in a.layouts.split(",") if s.strip()]
    bad = [s for s in layouts if s not in LAYOUTS]
    if bad or not layouts:
        ap.error(f"unknown layout(s) {bad}; choose from {','.join(LAYOUTS)}")
    os.makedirs(a.cache_dir, exist_ok=True)
    with open(GENERATOR, "rb") as f:      # a changed generator makes new cached files, never a stale hit
        gen_id = hashlib.sha1(f.read()).hexdigest()[:8]

    tdb = print_machine()
    zcat = shutil.which("zcat")

    traces = {}
    for layout in layouts:
        path = trace_path(a.cache_dir, a.mb, a.seed, layout, gen_id)
        truth = ensure_trace(path, a.mb, a.seed, layout)
        if truth is not None:
            traces[layout] = (path, truth)
    print("== files")
    for layout, (path, truth) in traces.items():
        size = os.path.getsize(path)
        print(f"  {layout:<8} {path}")
        print(f"           {size:,} bytes ({mb(size):.1f} MB"
              + (f", {mb(truth['json_bytes']):.1f} MB of JSON" if layout == "gzip" else "")
              + f"), {truth['events']:,} events, {truth['kernels']:,} kernels, {truth['passes']} passes x "
              f"{truth['layers']} layers, kernel time {truth['kernel_dur_ns']:,} ns")

    summary = []
    work = tempfile.mkdtemp(prefix="run-", dir=a.cache_dir)
    db = os.path.join(work, "bench.duckdb")
    try:
        for layout, (path, truth) in traces.items():
            size = os.path.getsize(path)
            json_mb = mb(truth["json_bytes"])
            print(f"== {layout}: {os.path.basename(path)} ({mb(size):.1f} MB)")
            print(f"  read once to warm the page cache: {warm(path):.2f} s")
            base_walls, base_rss, ing_walls, ing_rss, ratios, zcat_walls = [], [], [], [], [], []
            for i in range(1, a.repeat + 1):
                print(f"  -- repeat {i}/{a.repeat}")
                m = run([sys.executable, "-c", BASELINE, path], work)
                base_ok = m.rc == 0
                if base_ok:
                    base_walls.append(m.wall)
                    base_rss.append(m.peak)
                    print(f"  (a) baseline json.load + cat=='kernel': {m.wall:7.2f} s  peak RSS {mb(m.peak):7.1f} MB  "
                          f"{mb(size) / m.wall:6.1f} MB/s  -> {last_line(m.stdout)}")
                else:
                    report_failure("(a) baseline", m)
                remove_db(db)
                m = run(tdb + ["ingest", path, "--db", db, "--name", "K", "--no-segment"], work)
                if m.rc == 0:
                    ing_walls.append(m.wall)
                    ing_rss.append(m.peak)
                    ratio = base_walls[-1] / m.wall if base_ok else None
                    if ratio:
                        ratios.append(ratio)
                    extra = f" ({json_mb / m.wall:.1f} MB/s of JSON)" if layout == "gzip" else ""
                    print(f"  (b) tracedb ingest:                     {m.wall:7.2f} s  peak RSS {mb(m.peak):7.1f} MB  "
                          f"{mb(size) / m.wall:6.1f} MB/s{extra}"
                          + (f"  baseline/ingest {ratio:.2f}x" if ratio else ""))
                    print(f"      -> {last_line(m.stdout) or last_line(m.stderr)}")
                else:
                    report_failure("(b) tracedb ingest", m)
                if layout == "gzip":
                    if zcat:
                        m = run(["sh", "-c", 'zcat "$1" > /dev/null', "sh", path], work)
                        if m.rc == 0:
                            zcat_walls.append(m.wall)
                            print(f"  floor: zcat > /dev/null:                {m.wall:7.2f} s  "
                                  f"peak RSS {mb(m.peak):7.1f} MB  {json_mb / m.wall:6.1f} MB/s of JSON")
                        else:
                            report_failure("floor: zcat", m)
                    else:
                        print("  floor: zcat not found")

            print(f"  -- summary of the repeats ({layout})")
            stats("(a) baseline wall", base_walls, lambda v: f"{v:7.2f} s")
            stats("(a) baseline peak RSS", base_rss, lambda v: f"{mb(v):7.1f} MB")
            stats("(b) ingest wall", ing_walls, lambda v: f"{v:7.2f} s")
            stats("(b) ingest MB/s (file)", [mb(size) / w for w in ing_walls], lambda v: f"{v:7.1f}  ")
            if layout == "gzip":
                stats("(b) ingest MB/s (JSON)", [json_mb / w for w in ing_walls], lambda v: f"{v:7.1f}  ")
                stats("zcat floor wall", zcat_walls, lambda v: f"{v:7.2f} s")
            stats("(b) ingest peak RSS", ing_rss, lambda v: f"{mb(v):7.1f} MB")
            stats("baseline/ingest (per repeat)", ratios, lambda v: f"{v:7.2f}x ")

            row = {"layout": layout, "file_mb": mb(size), "json_mb": json_mb,
                   "base": statistics.median(base_walls) if base_walls else None,
                   "base_rss": statistics.median(base_rss) if base_rss else None,
                   "ingest": statistics.median(ing_walls) if ing_walls else None,
                   "ingest_rss": statistics.median(ing_rss) if ing_rss else None,
                   "zcat": statistics.median(zcat_walls) if zcat_walls else None,
                   "report": None, "check": "-"}
            if os.path.exists(db) and ing_walls:
                print(f"  store: {mb(os.path.getsize(db)):.1f} MB")
                m = run(tdb + ["report", "layers", "--db", db, "--run", "K", "--anchor", ANCHOR, "--layers",
                               str(LAYERS), "--pass", "3", "--format", "csv"], work)
                if m.rc == 0:
                    lines = [ln for ln in m.stdout.splitlines() if ln.strip()]
                    row["report"] = m.wall
                    print(f"  (c) report layers --pass 3:             {m.wall:7.2f} s  peak RSS {mb(m.peak):7.1f} MB  "
                          f"{len(lines):,} output lines ({max(len(lines) - 1, 0)} layer rows)")
                    if len(lines) > 1:
                        print(f"      {lines[0][:160]}")
                        print(f"      {lines[1][:160]}")
                else:
                    report_failure("(c) report layers", m)
                row["check"] = sql_check(tdb, db, truth, work)
            else:
                print("  (c) report and check skipped: no store was ingested")
            summary.append(row)
            remove_db(db)

        print("== summary (medians)")
        print(f"  {'layout':<8} {'file MB':>8} {'JSON MB':>8} {'baseline s':>10} {'base RSS MB':>11} {'ingest s':>9} "
              f"{'MB/s':>7} {'ing RSS MB':>10} {'base/ingest':>11} {'report s':>8} {'zcat s':>7}  check")

        def f(v, spec):
            return format(v, spec) if v is not None else format("-", ">" + spec.split(".")[0])
        for r in summary:
            ratio = r["base"] / r["ingest"] if r["base"] and r["ingest"] else None
            print(f"  {r['layout']:<8} {r['file_mb']:8.1f} {r['json_mb']:8.1f} {f(r['base'], '10.2f')} "
                  f"{f(r['base_rss'] and mb(r['base_rss']), '11.1f')} {f(r['ingest'], '9.2f')} "
                  f"{f(r['ingest'] and r['file_mb'] / r['ingest'], '7.1f')} "
                  f"{f(r['ingest_rss'] and mb(r['ingest_rss']), '10.1f')} "
                  f"{(f(ratio, '10.2f') + 'x') if ratio else '-':>11} "
                  f"{f(r['report'], '8.2f')} {f(r['zcat'], '7.2f')}  {r['check']}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
