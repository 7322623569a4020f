"""What the tests share besides fixtures: the `tracedb` command run in this process (`cli`) or as the
installed console script (`cli_subprocess`), the real-trace folder, and a CSV writer.

`cli` runs the click command the console script runs (tracedb.cli.app:main calls `app()`, which builds it
from the typer app and calls its main), inside typer's CliRunner isolation: no interpreter start and no
imports per call. Each call starts from the state a new process would have: its own environment (`env=`
replaces it, as subprocess.run does), working folder, stdout and stderr kept apart, and no early hash
thread or store connection left behind for the next call.
What only a real process shows (signals, a second process holding the store, a terminal, a pipe closed
early, the console script itself) goes through `cli_subprocess`."""
import contextlib
import functools
import os
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GOLDEN = os.path.join(ROOT, "golden")

# The real traces are not part of the repository: the real-trace folder is $TRACEDB_TEST_DATA when set,
# else the default below, beside the checkout.
REAL_DATA_VAR = "TRACEDB_TEST_DATA"


def real_data_dir() -> str:
    return os.path.abspath(os.environ.get(REAL_DATA_VAR) or os.path.join(ROOT, "..", "shared", "data"))


def real_trace(*parts) -> str:
    """Path of a real trace in the real-trace folder ($TRACEDB_TEST_DATA); skips the test when it is absent."""
    folder = real_data_dir()
    if not os.path.isdir(folder):
        pytest.skip(f"real-trace folder {folder} not found (set ${REAL_DATA_VAR} to the folder of real traces)")
    path = os.path.join(folder, *parts)
    if not os.path.exists(path):
        pytest.skip(f"real trace not available: {path} (real-trace folder: ${REAL_DATA_VAR} or {folder})")
    return path


def slow_beyond(cases, keep, one_arg=False):
    """Parameters for pytest.mark.parametrize: the cases whose position (an int) or value is in `keep` run in
    the default tier, every other one is marked `slow` (the full matrix runs with `pytest -m slow`).
    A tuple case is the values of several arguments unless `one_arg` (one argument whose value is a tuple)."""
    param_set = type(pytest.param(None))
    out = []
    for i, case in enumerate(cases):
        if isinstance(case, param_set):
            values, marks, id_ = case.values, tuple(case.marks), case.id
        else:
            values, marks, id_ = (case if isinstance(case, tuple) and not one_arg else (case,)), (), None
        if i in keep or (isinstance(case, str) and case in keep):
            out.append(case)
        else:
            out.append(pytest.param(*values, marks=(*marks, pytest.mark.slow), id=id_))
    return out


def needs_html():
    """Skip, saying why, when the `html` extra (vl-convert-python) is not installed: --format html needs it."""
    pytest.importorskip("vl_convert", reason="--format html needs the html extra: pip install 'tracedb[html]'")


def assert_one_line_error(r, message: str = "", code: int = 2):
    """A refused call: exit `code`, one `error:` line on stderr holding `message`, nothing on stdout."""
    assert r.returncode == code, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], r.stderr
    assert r.stdout == ""


def interval_union(intervals) -> int:
    """Total length of a union of half-open intervals, by sorting: the plain definition the breakdown and
    launches reports are checked against."""
    total, cur = 0, None
    for s, e in sorted(intervals):
        if cur is None or s > cur[1]:
            total += cur[1] - cur[0] if cur else 0
            cur = [s, e]
        else:
            cur[1] = max(cur[1], e)
    return total + (cur[1] - cur[0] if cur else 0)


def breakdown_figures(acts) -> tuple:
    """(span, computing, communication, overlapped, comm not overlapped, free) in µs (Decimal) of one unit's
    activities, (start_ns, end_ns, is_communication) each, by plain interval unions."""
    from decimal import Decimal
    comp = interval_union([(s, e) for s, e, c in acts if not c])
    comm = interval_union([(s, e) for s, e, c in acts if c])
    busy = interval_union([(s, e) for s, e, _ in acts])
    span = max(e for _, e, _ in acts) - min(s for s, _, _ in acts)
    ov = comp + comm - busy
    return tuple(Decimal(v) / 1000 for v in (span, comp, comm, ov, comm - ov, span - busy))


def store_snapshot(db):
    """Every runs and kernels_raw row of the store at `db`: what a failed command must leave as it was."""
    import tracedb
    con = tracedb.connect(db, read_only=True)
    try:
        return (con.execute("SELECT * FROM runs ORDER BY run_id").fetchall(),
                con.execute("SELECT * FROM kernels_raw ORDER BY run_id, seq").fetchall())
    finally:
        con.close()


def store_of(folder, runs: dict) -> str:
    """A store file in `folder` holding one run per entry of `runs` (run name -> trace path), ingested in order."""
    import tracedb
    db = os.path.join(str(folder), "store.duckdb")
    con = tracedb.connect(db)
    try:
        for name, path in runs.items():
            tracedb.ingest_trace(con, path, name=name)
    finally:
        con.close()
    return db


def write_csv(path, header, rows, bom=False):
    """Write a kernel_details-like CSV from lists of cells (cells written verbatim: quote them yourself)."""
    text = ",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)
    with open(path, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        f.write(text)
    return str(path)


@dataclass
class CliResult:
    """What a test reads of one `tracedb` call, the same fields as subprocess.CompletedProcess."""
    args: list
    returncode: int
    stdout: str
    stderr: str


def _failed(args, returncode, stderr):
    return AssertionError(f"tracedb {' '.join(args)} exited {returncode}:\n{stderr}")


def cli(*args, check=True, env=None, cwd=None) -> CliResult:
    """Run `tracedb ARGS` in this process; `env` is the whole environment of the call, `cwd` its folder.
    With check=True a non-zero exit fails the test with the command's stderr."""
    from typer.testing import CliRunner
    argv = [str(a) for a in args]
    with _fresh_process_state(env, cwd), CliRunner().isolation() as (out, err, _):
        raised = None
        try:
            _tracedb_command().main(args=argv, prog_name="tracedb")   # standalone: ends in SystemExit
            code = 0
        except SystemExit as e:
            raised, code = e, e.code
        except Exception as e:
            # an exception the command let through: the interpreter prints its traceback and exits 1
            raised, code = e, 1
            traceback.print_exception(e, file=sys.stderr)
        if not isinstance(code, int):
            # sys.exit("message") or sys.exit(None), as the interpreter treats them
            if code is not None:
                print(code, file=sys.stderr)
            code = 0 if code is None else 1
        sys.stdout.flush()
        sys.stderr.flush()
        stdout, stderr = _text(out), _text(err)
        _release_frames(raised)
        del raised
    if check and code != 0:
        raise _failed(argv, code, stderr)
    return CliResult(argv, code, stdout, stderr)


@functools.cache
def _tracedb_command():
    """The click command of the `tracedb` app, built once as the console script builds it once per
    process (typer.main.get_command; building it takes ~20 ms)."""
    import typer

    from tracedb.cli.app import app
    return typer.main.get_command(app)


def _text(stream) -> str:
    """A captured stream as text, as subprocess.run(text=True) gives it (universal newlines)."""
    return stream.getvalue().decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def _release_frames(exc):
    """Drop the locals of the frames a command's exception chain holds (a reference cycle through the
    runner's frame keeps them until a garbage collection): a store connection still open in them is
    closed now, as at the end of a process, before the test opens the file again."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__


@contextlib.contextmanager
def _fresh_process_state(env, cwd):
    """Environment and working folder for one call, restored afterwards, and no hash thread started by
    one ingest (tracedb.engine.loading.hashing.start_early) left for the next."""
    from tracedb.engine.loading import hashing
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    hashing._early.clear()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        hashing._early.clear()
        os.chdir(saved_cwd)
        if dict(os.environ) != saved_env:
            os.environ.clear()
            os.environ.update(saved_env)


def tracedb_exe() -> str:
    """The installed `tracedb` console script (beside this interpreter, else on PATH)."""
    exe = os.path.join(os.path.dirname(sys.executable), "tracedb")
    exe = exe if os.path.exists(exe) else shutil.which("tracedb")
    assert exe, "the tracedb console script is not installed"
    return exe


def cli_subprocess(*args, check=True, env=None, cwd=None) -> subprocess.CompletedProcess:
    """Run the installed `tracedb` console script as its own process; returns CompletedProcess (text)."""
    argv = [str(a) for a in args]
    p = subprocess.run([tracedb_exe(), *argv], capture_output=True, text=True, env=env, cwd=cwd)
    if check and p.returncode != 0:
        raise _failed(argv, p.returncode, p.stderr)
    return p


def copy_store(src: str, dst: str) -> str:
    """Copy a closed store file (and its write-ahead log, if one was left): a test's own copy of a store
    that a module-scoped fixture built once."""
    shutil.copyfile(src, dst)
    if os.path.exists(src + ".wal"):
        shutil.copyfile(src + ".wal", dst + ".wal")
    return dst


def check_golden(case: str, got: str, update: bool, what: str = "report"):
    """Compare `got` with golden/<case> whole; with `update` (pytest --update-golden) rewrite the file."""
    import difflib
    import pytest
    path = os.path.join(GOLDEN, case)
    if update:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(got)
        return
    assert os.path.exists(path), f"missing golden file {path}: run pytest --update-golden and review it"
    with open(path, encoding="utf-8", newline="") as f:
        want = f.read()
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), f"golden/{case}", "now"))
        pytest.fail(f"{what} differs from golden/{case}:\n{diff}")


def in_pty(args, cols, cwd=None):
    """tracedb run in a pseudo-terminal `cols` wide (in folder `cwd`): its output lines (escape sequences
    removed)."""
    import fcntl
    import pty
    import re
    import select
    import struct
    import termios
    pid, fd = pty.fork()
    if pid == 0:   # pragma: no cover - the child
        os.environ["COLUMNS"] = str(cols)
        if cwd is not None:
            os.chdir(cwd)
        os.execv(tracedb_exe(), ["tracedb", *args])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    out = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.decode("utf-8", "replace"))
    return [line.rstrip("\r") for line in text.split("\n")]


RUN = ["--run", "names-*"]
PLAIN = ["--run", "plain"]


def run_lines(stdout: str) -> list[str]:
    """The run lines of an ingest's stdout, to their first colon (the files loaded and not, indented, left
    out)."""
    return [line.split(":")[0] for line in stdout.splitlines() if not line.startswith("  ")]
