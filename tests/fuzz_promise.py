"""The promise every fuzz case checks, and the two ways a case runs (helper module, not a test file).

The promise (docs/commands.md, "Common behaviour"), for every call:
- the exit code is 0, 1 or 2;
- on failure (1 or 2) stderr is exactly one line, starting `error:`; for an input error (exit 1 of an
  ingest) that line names the input file (its basename at least);
- no `Traceback` in stdout or stderr;
- a failed command leaves the store as it was: the same `runs` rows (run_id, name, content_hash), the same
  row counts and sum(dur_ns) per run, and a store file no larger than before;
- bounded time (CASE_TIMEOUT_S per call; a hang is a failure) and, for subprocess calls, bounded memory
  (RLIMIT_AS of MEMORY_LIMIT_BYTES).
An ingest that exits 0 must hold its new run consistently (runs row, kernels > 0, the other runs as they
were), and `report passes` / `report kernels` on it must keep the promise too.

A broken promise fails the test with an assertion message that starts `FUZZ[<class>]` (one of
FAILURE_CLASSES), gives the case id and the command line, and the first lines of the output. With
$TRACEDB_FUZZ_LOG set to a file, each broken promise is also appended there as one JSON line, so a long
run (`pytest -m fuzz`) can be summarised by failure class afterwards."""
import contextlib
import json
import os
import resource
import shlex
import signal
import subprocess
from dataclasses import dataclass, field

import duckdb

from helpers import cli, tracedb_exe

# Every fuzz input is a few kB to a few MB: a healthy call ends in well under 2 s on the 2-core CI machine
# (an ingest of a 1,707-kernel Kineto trace takes 0.7 s there), so 20 s only ever trips on a hang.
CASE_TIMEOUT_S = 20
# The largest input a case writes is a gzip stream inflating to 64 MB; a correct ingest of it needs a few
# hundred MB. 2 GB of address space leaves room for DuckDB's and pyarrow's reservations (checked: a real
# 1,707-kernel trace ingests under this limit) and stops a runaway allocation long before the machine swaps.
MEMORY_LIMIT_BYTES = 2 << 30
FAILURE_CLASSES = ("traceback", "multi-line error", "wrong exit code", "store changed", "hang", "file not named",
                   "inconsistent run")
LOG_VAR = "TRACEDB_FUZZ_LOG"


class CaseTimeout(BaseException):
    """An in-process call that ran past CASE_TIMEOUT_S (a BaseException, so no `except Exception` in the
    command swallows it)."""


@dataclass
class Outcome:
    """What one call of `tracedb` gave: the same fields as helpers.CliResult, plus whether it hung."""
    args: list
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    hung: bool = False


@dataclass
class StoreState:
    """What a failed command must not change (compared whole) and the file size (compared <=)."""
    runs: list = field(default_factory=list)          # (run_id, name, content_hash)
    counts: list = field(default_factory=list)        # (run_id, kernels_raw rows, kernels rows, sum(dur_ns))
    events: list = field(default_factory=list)        # (run_id, trace_events rows)
    kernels: list = field(default_factory=list)       # (run_id, kernels view rows, sum(dur_ns)): every format
    size: int = 0                                     # store file + write-ahead log, bytes
    error: str | None = None                          # the store could not be read at all

    def same_rows(self, other) -> bool:
        return (self.runs, self.counts, self.events, self.kernels, self.error) == (
            other.runs, other.counts, other.events, other.kernels, other.error)


# ---------------------------------------------------------------------------------------------- store
def store_state(path: str) -> StoreState:
    """The store's runs and per-run row counts, read with a read-only connection closed again at once (an
    in-process command opening the same file must not meet a connection of this process)."""
    size = sum(os.path.getsize(p) for p in (path, path + ".wal") if os.path.isfile(p))
    if not os.path.exists(path):
        return StoreState(size=size, error="missing")
    try:
        con = duckdb.connect(path, read_only=True, config={"autoload_known_extensions": False,
                                                           "autoinstall_known_extensions": False})
    except duckdb.Error as e:
        return StoreState(size=size, error=f"cannot open: {str(e).splitlines()[0]}")
    try:
        runs = con.execute("SELECT run_id, name, content_hash FROM runs ORDER BY run_id").fetchall()
        counts = con.execute(
            "SELECT run_id, count(*), count(*) FILTER (WHERE dup IS NULL), sum(dur_ns) FILTER (WHERE dup IS NULL) "
            "FROM kernels_raw GROUP BY run_id ORDER BY run_id").fetchall()
        events = con.execute("SELECT run_id, count(*) FROM trace_events GROUP BY run_id ORDER BY run_id").fetchall()
        kernels = con.execute("SELECT run_id, count(*), sum(dur_ns) FROM kernels GROUP BY run_id "
                              "ORDER BY run_id").fetchall()
    except duckdb.Error as e:
        return StoreState(size=size, error=f"cannot read: {str(e).splitlines()[0]}")
    finally:
        con.close()
    return StoreState(runs=runs, counts=counts, events=events, kernels=kernels, size=size)


# ---------------------------------------------------------------------------------------------- running
@contextlib.contextmanager
def _alarm(seconds):
    """CaseTimeout in this (main) thread after `seconds`: bounds a call that loops in Python code."""
    def on_alarm(signum, frame):
        raise CaseTimeout()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_inprocess(*args, env=None, cwd=None) -> Outcome:
    """`tracedb ARGS` through helpers.cli (no interpreter start: ~0.2 s a call less), bounded in time."""
    argv = [str(a) for a in args]
    try:
        with _alarm(CASE_TIMEOUT_S):
            r = cli(*argv, check=False, env=env, cwd=cwd)
    except CaseTimeout:
        return Outcome(argv, None, hung=True)
    return Outcome(argv, r.returncode, r.stdout, r.stderr)


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def subprocess_env(home: str) -> dict:
    """The environment of a subprocess case: this one without TRACEDB_DEBUG (which shows tracebacks on
    purpose), HOME in the test's folder (so a DuckDB extension download would leave ~/.duckdb there, and
    the test can see it), and a 5 s lock wait instead of 60 s."""
    env = {k: v for k, v in os.environ.items() if k not in ("TRACEDB_DEBUG", "TRACEDB_DB")}
    env.update(HOME=home, TRACEDB_WAIT="5", PYTHONDONTWRITEBYTECODE="1")
    return env


def run_subprocess(*args, env=None, cwd=None, stdin=subprocess.DEVNULL) -> Outcome:
    """The installed console script in its own process and session, under the memory limit; killed with
    its whole process group after CASE_TIMEOUT_S (a FIFO opened for reading blocks in open())."""
    argv = [str(a) for a in args]
    p = subprocess.Popen([tracedb_exe(), *argv], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, cwd=cwd, preexec_fn=_limit_memory, start_new_session=True)
    try:
        out, err = p.communicate(timeout=CASE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return Outcome(argv, None, _text(out), _text(err), hung=True)
    return Outcome(argv, p.returncode, _text(out), _text(err))


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


# ---------------------------------------------------------------------------------------------- checking
def name_forms(basename: str) -> set[str]:
    """How an error line may spell a file name: as is, or escaped (repr, JSON) when it holds a newline or
    other control character."""
    return {basename, repr(basename)[1:-1], json.dumps(basename)[1:-1], json.dumps(basename, ensure_ascii=False)[1:-1],
            basename.encode("unicode_escape").decode("ascii")}


def promise_violations(out: Outcome, *, names=(), before: StoreState | None = None,
                       after: StoreState | None = None, input_error_names=True) -> list[tuple[str, str]]:
    """(failure class, detail) for every broken part of the promise by one call. names: basenames of which
    an exit-1 error line must contain one (empty: no such check); before/after: the store around the call
    (compared only when the call failed)."""
    found = []
    if out.hung:
        return [("hang", f"no exit within {CASE_TIMEOUT_S} s")]
    if "Traceback" in out.stdout or "Traceback" in out.stderr:
        found.append(("traceback", "a Python traceback was printed"))
    if out.returncode not in (0, 1, 2):
        found.append(("wrong exit code", f"exit {out.returncode}; expected 0, 1 or 2"))
    if out.returncode != 0:
        lines = out.stderr.splitlines()
        if len(lines) != 1 or not lines[0].startswith("error:"):
            found.append(("multi-line error", f"stderr has {len(lines)} lines, expected one `error:` line"))
        elif names and out.returncode == 1 and input_error_names:
            forms = set().union(*(name_forms(n) for n in names))
            if not any(f in lines[0] for f in forms):
                found.append(("file not named", f"the error line names none of {sorted(names)}"))
        if before is not None and after is not None:
            if not before.same_rows(after):
                found.append(("store changed", _store_diff(before, after)))
            elif after.size > before.size:
                found.append(("store changed", f"store file grew from {before.size} to {after.size} bytes"))
    return found


def _store_diff(before: StoreState, after: StoreState) -> str:
    for what in ("error", "runs", "counts", "events"):
        a, b = getattr(before, what), getattr(after, what)
        if a != b:
            return f"{what}: {a!r:.200} -> {b!r:.200}"
    return "unchanged"


def describe(case_id: str, out: Outcome, violations, cwd=None) -> str:
    """The assertion message of a broken promise: class, case id, a command line that reproduces it (run
    from `cwd` when given), and the first 3 lines of stderr and of stdout."""
    cmd = "tracedb " + " ".join(shlex.quote(a) for a in out.args)
    head = [f"FUZZ[{cls}] {case_id}: {detail}" for cls, detail in violations]
    err, std = out.stderr.splitlines()[:3], out.stdout.splitlines()[:3]
    return "\n".join(head + [f"  repro: {cmd}" + (f"   (in {cwd})" if cwd else ""), f"  exit: {out.returncode}",
                             *(f"  stderr| {line[:300]}" for line in err),
                             *(f"  stdout| {line[:300]}" for line in std)])


def log_violations(case_id: str, out: Outcome, violations):
    path = os.environ.get(LOG_VAR)
    if not path or not violations:
        return
    with open(path, "a", encoding="utf-8") as f:
        for cls, detail in violations:
            f.write(json.dumps({"case": case_id, "class": cls, "detail": detail, "args": out.args,
                                "exit": out.returncode, "stderr": out.stderr.splitlines()[:3],
                                "stdout": out.stdout.splitlines()[:3]}) + "\n")


def assert_promise(case_id: str, out: Outcome, **kw):
    violations = promise_violations(out, **kw)
    log_violations(case_id, out, violations)
    assert not violations, describe(case_id, out, violations)


# ---------------------------------------------------------------------------------------------- ingest
def new_run_names(before: StoreState, after: StoreState) -> list[str]:
    old = {r[0] for r in before.runs}
    return [r[1] for r in after.runs if r[0] not in old]


def landed_run_violations(before: StoreState, after: StoreState, out: Outcome) -> list[tuple[str, str]]:
    """An ingest that exited 0: either it skipped identical content (store as it was) or it added runs,
    each with counted kernels, and left the runs already there as they were."""
    if after.error:
        return [("inconsistent run", f"the store cannot be read after a successful ingest: {after.error}")]
    old_ids = {r[0] for r in before.runs}
    kept = ([r for r in after.runs if r[0] in old_ids], [c for c in after.counts if c[0] in old_ids],
            [e for e in after.events if e[0] in old_ids])
    if kept != (before.runs, before.counts, before.events):
        return [("store changed", "an ingest without --replace changed runs that were already in the store")]
    new = [r for r in after.runs if r[0] not in old_ids]
    if not new:
        if "skipped" in out.stdout:
            return []
        return [("inconsistent run", "exit 0, no new run in the store and no `skipped` line")]
    counted = {k[0]: k[1] for k in after.kernels}   # the kernels view: Chrome traces keep theirs in trace_events
    empty = [r[1] for r in new if not counted.get(r[0])]
    if empty:
        return [("inconsistent run", f"exit 0 but run(s) {empty} have no counted kernels")]
    return []
