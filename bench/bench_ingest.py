#!/usr/bin/env python3
"""Ingest benchmark: tracedb against the Python loop users run today, on a generated kernel_details.csv.

Prints figures and asserts nothing. Every measured step is a fresh subprocess; for each one it prints the
wall time and the peak RSS of its whole process tree (the larger of: the sum of RSS over the process and
its descendants sampled from /proc every 50 ms, and `/usr/bin/time -f %M` when that exists).

    python bench/bench_ingest.py [--rows 2000000] [--model qwen3-decode] [--repeat 2] [--cache-dir DIR]

Steps:
  0. generate (once, cached under a name that includes the generator's hash) a --rows row Ascend
     kernel_details.csv with PMU columns and double-logged hcom rows, with bench/gen_kernel_details.py,
     into --cache-dir (default $TMPDIR/tracedb-bench);
  a. baseline: csv.DictReader over the file, every `Start Time(us)` turned into integer ns exactly
     (split on '.', no float), rows counted;
  b. `tracedb ingest FILE --db TMP.duckdb --name bench --no-segment` (the loading: MB/s, and baseline/ingest ratio);
     a and b are repeated --repeat times, interleaved, then median and min are printed;
  c. `tracedb report layers --db .. --run bench --anchor FusedInferAttentionScore --layers L --pass 3
     --format csv`;
  d. the same with `--pass all` (output lines counted).
"""
import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(HERE, "gen_kernel_details.py")
PAGE = os.sysconf("SC_PAGE_SIZE")
GNU_TIME = "/usr/bin/time"

BASELINE = r"""
import csv, sys
n = 0
total = 0
with open(sys.argv[1], newline='') as f:
    for row in csv.DictReader(f):
        whole, frac = row['Start Time(us)'].strip().split('.')
        total += int(whole) * 1000 + int((frac + '000')[:3])
        n += 1
print(n, 'rows; sum of start ns', total)
"""


# --------------------------------------------------------------------------- measuring

def _children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so cut after the last ')'
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    return kids


def tree_rss(root: int) -> int:
    """Resident bytes of `root` and all its descendants, now."""
    kids = _children_map()
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
        todo.extend(kids.get(pid, ()))
    return total


class Measured:
    def __init__(self, rc, wall, peak, stdout, stderr):
        self.rc, self.wall, self.peak, self.stdout, self.stderr = rc, wall, peak, stdout, stderr


def run(cmd, workdir) -> Measured:
    """Run cmd as a fresh process tree; wall seconds, peak tree RSS (bytes), stdout/stderr as files' text."""
    out_path = os.path.join(workdir, "stdout.txt")
    err_path = os.path.join(workdir, "stderr.txt")
    time_path = os.path.join(workdir, "time.txt")
    full = ([GNU_TIME, "-f", "%M", "-o", time_path] + cmd) if os.access(GNU_TIME, os.X_OK) else cmd
    if os.path.exists(time_path):
        os.remove(time_path)
    peak = [0]
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(full, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], tree_rss(proc.pid))
                done.wait(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        rc = proc.wait()
        wall = time.perf_counter() - t0
        done.set()
        sampler.join()
    try:
        with open(time_path) as f:
            kb = [ln.strip() for ln in f if ln.strip().isdigit()]
        if kb:
            peak[0] = max(peak[0], int(kb[-1]) * 1024)
    except OSError:
        pass
    with open(out_path, errors="replace") as f:
        stdout = f.read()
    with open(err_path, errors="replace") as f:
        stderr = f.read()
    return Measured(rc, wall, peak[0], stdout, stderr)


# --------------------------------------------------------------------------- helpers

def mb(nbytes):
    return nbytes / 1e6


def last_line(text):
    """Last meaningful line (progress bars redraw with carriage returns)."""
    lines = [ln.split("\r")[-1].strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    return lines[-1] if lines else ""


def tracedb_cmd():
    exe = os.path.join(os.path.dirname(sys.executable), "tracedb")
    if os.path.exists(exe):
        return [exe]
    on_path = shutil.which("tracedb")
    if on_path:
        return [on_path]
    return [sys.executable, "-c", "import sys; from tracedb.cli.app import main; sys.exit(main())"]


def machine():
    try:
        ncpu = len(os.sched_getaffinity(0))
    except AttributeError:
        ncpu = os.cpu_count()
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            for ln in f:
                if ln.startswith("MemTotal:"):
                    mem = f"{int(ln.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    try:
        ver = subprocess.run([sys.executable, "-c", "import duckdb; print(duckdb.__version__)"],
                             capture_output=True, text=True, timeout=60).stdout.strip() or "not importable"
    except (OSError, subprocess.SubprocessError):
        ver = "?"
    return ncpu, mem, ver


def print_machine():
    """Print the machine and the tracedb command the benchmark runs; returns that command."""
    ncpu, mem, duckdb_ver = machine()
    print("== machine")
    print(f"  nproc {ncpu} (os.cpu_count {os.cpu_count()}), MemTotal {mem}, python {sys.version.split()[0]} "
          f"({sys.executable}), duckdb {duckdb_ver}")
    tdb = tracedb_cmd()
    print(f"  tracedb: {' '.join(tdb[:1]) if len(tdb) == 1 else 'python -c tracedb.cli.app.main'}")
    return tdb


def remove_db(db):
    """A store and its WAL, so each repeat ingests into a new file."""
    for f in (db, db + ".wal"):
        if os.path.exists(f):
            os.remove(f)


def report_failure(what, m):
    print(f"  {what}: exit code {m.rc}")
    for ln in (m.stderr.strip().splitlines() or m.stdout.strip().splitlines())[-5:]:
        print(f"    {ln.split(chr(13))[-1][:200]}")


def stats(label, values, fmt):
    if values:
        print(f"  {label:<28} median {fmt(statistics.median(values))}   min {fmt(min(values))}   "
              f"({len(values)} runs)")


# --------------------------------------------------------------------------- main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000, help="rows of the generated file (default 2000000)")
    ap.add_argument("--model", default="qwen3-decode", choices=("qwen3-decode", "qwen3-prefill", "dsv3-decode"))
    ap.add_argument("--layers", type=int, help="layers per pass (default: 28 qwen3, 61 dsv3)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=2, help="baseline + ingest repetitions, interleaved (default 2)")
    ap.add_argument("--no-pmu", action="store_true",
                    help="generate without the 25 PMU columns (Level1-like rows, ~230 bytes each)")
    ap.add_argument("--file", help="benchmark this kernel_details.csv instead of generating one")
    ap.add_argument("--cache-dir", default=os.path.join(os.environ.get("TMPDIR") or tempfile.gettempdir(),
                                                        "tracedb-bench"))
    a = ap.parse_args(argv)
    layers = a.layers or (61 if a.model.startswith("dsv3") else 28)
    os.makedirs(a.cache_dir, exist_ok=True)
    with open(GENERATOR, "rb") as f:     # a changed generator makes a new cached file, never a stale hit
        gen_id = hashlib.sha1(f.read()).hexdigest()[:8]
    pmu = "nopmu" if a.no_pmu else "pmu"
    trace = a.file or os.path.join(
        a.cache_dir, f"kernel_details_{a.model}_{a.rows}rows_L{layers}_s{a.seed}_{pmu}_g{gen_id}.csv")

    tdb = print_machine()

    if not os.path.exists(trace):
        print(f"== generating {trace}")
        tmp = trace + ".part"
        t0 = time.perf_counter()
        gen = subprocess.run([sys.executable, GENERATOR, tmp, "--model", a.model, "--rows", str(a.rows),
                              "--layers", str(layers), "--seed", str(a.seed), "--no-pmu" if a.no_pmu else "--pmu",
                              "--double-hcom"],
                             capture_output=True, text=True)
        if gen.returncode != 0:
            print(f"  generator failed (exit {gen.returncode}): {gen.stderr.strip()[-500:]}")
            return 1
        os.replace(tmp, trace)
        print(f"  {gen.stderr.strip()}  [{time.perf_counter() - t0:.1f} s wall]")
    size = os.path.getsize(trace)
    print("== file")
    print(f"  {trace}")
    print(f"  {size:,} bytes ({mb(size):.1f} MB), {a.rows:,} rows requested, model {a.model}, {layers} layers/pass")

    work = tempfile.mkdtemp(prefix="run-", dir=a.cache_dir)
    db = os.path.join(work, "bench.duckdb")
    try:
        t0 = time.perf_counter()
        with open(trace, "rb") as f:
            while f.read(1 << 24):
                pass
        print(f"  read once to warm the page cache: {time.perf_counter() - t0:.2f} s")

        base_walls, base_rss, ing_walls, ing_rss, ratios = [], [], [], [], []
        for i in range(1, a.repeat + 1):
            print(f"== repeat {i}/{a.repeat}")
            m = run([sys.executable, "-c", BASELINE, trace], work)
            if m.rc == 0:
                base_walls.append(m.wall)
                base_rss.append(m.peak)
                print(f"  (a) baseline csv.DictReader + exact ns: {m.wall:7.2f} s  peak RSS {mb(m.peak):7.1f} MB  "
                      f"{mb(size) / m.wall:6.1f} MB/s  -> {last_line(m.stdout)}")
            else:
                report_failure("(a) baseline", m)
            remove_db(db)
            m = run(tdb + ["ingest", trace, "--db", db, "--name", "bench", "--no-segment"], work)
            if m.rc == 0:
                ing_walls.append(m.wall)
                ing_rss.append(m.peak)
                ratio = base_walls[-1] / m.wall if base_walls and len(base_walls) == i else None
                if ratio:
                    ratios.append(ratio)
                print(f"  (b) tracedb ingest:                     {m.wall:7.2f} s  peak RSS {mb(m.peak):7.1f} MB  "
                      f"{mb(size) / m.wall:6.1f} MB/s" + (f"  baseline/ingest {ratio:.2f}x" if ratio else ""))
                print(f"      -> {last_line(m.stdout) or last_line(m.stderr)}")
            else:
                report_failure("(b) tracedb ingest", m)

        print("== summary of the repeats")
        stats("(a) baseline wall", base_walls, lambda v: f"{v:7.2f} s")
        stats("(a) baseline peak RSS", base_rss, lambda v: f"{mb(v):7.1f} MB")
        stats("(b) ingest wall", ing_walls, lambda v: f"{v:7.2f} s")
        stats("(b) ingest MB/s", [mb(size) / w for w in ing_walls], lambda v: f"{v:7.1f}  ")
        stats("(b) ingest peak RSS", ing_rss, lambda v: f"{mb(v):7.1f} MB")
        stats("baseline/ingest (per repeat)", ratios, lambda v: f"{v:7.2f}x ")
        if base_walls and ing_walls:
            print(f"  baseline/ingest of medians: {statistics.median(base_walls) / statistics.median(ing_walls):.2f}x,"
                  f" of mins: {min(base_walls) / min(ing_walls):.2f}x")

        if not os.path.exists(db):
            print("== reports skipped: no store was ingested")
            return 0
        print(f"== reports (store {mb(os.path.getsize(db)):.1f} MB)")
        for label, spec in (("(c) report layers --pass 3", "3"), ("(d) report layers --pass all", "all")):
            m = run(tdb + ["report", "layers", "--db", db, "--run", "bench", "--anchor", "FusedInferAttentionScore",
                           "--layers", str(layers), "--pass", spec, "--format", "csv"], work)
            if m.rc == 0:
                lines = sum(1 for ln in m.stdout.splitlines() if ln.strip())
                print(f"  {label:<30} {m.wall:7.2f} s  peak RSS {mb(m.peak):7.1f} MB  {lines:,} output lines")
            else:
                report_failure(label, m)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
