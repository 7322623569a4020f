"""What every command shares: the --db and output options, and turning every way a call can end into
at most one `error: ...` line on stderr with its exit code.

Exit codes: 0 done, 1 the run failed (bad input, a store that cannot be used, an internal error), 2 a
wrong call (usage), 130 interrupted (128 + SIGINT, as a shell reports a Ctrl-C), 143 terminated (SIGTERM)."""
import functools
import os
import signal
import sys
from typing import Annotated, Optional

import typer

from tracedb.cli.options import checked_output, non_empty
from tracedb.errors import TracedbError
from tracedb.errors import UsageError as TracedbUsage
from tracedb.shown import printable

try:   # typer >= 0.20 carries its own copy of click; older typer uses the click package
    from typer._click import exceptions as click_exceptions
except ImportError:   # pragma: no cover - depends on the installed typer
    from click import exceptions as click_exceptions

DbOpt = Annotated[Optional[str], typer.Option(
    "--db", help="Store file (default: $TRACEDB_DB, else ./tracedb.duckdb), or a Parquet dataset folder, DIR/ "
                 "(read-only).", show_default=False, callback=non_empty("a store file path"))]
FormatOpt = Annotated[str, typer.Option(
    "--format", "-f", help="table (terminal), md, csv, json, or spreadsheet (CSV whose text cells never start "
                           "a formula).")]
OutOpt = Annotated[Optional[str], typer.Option(
    "--output", "-o", help="Write to this file instead of stdout (its folder must exist and be writable; checked "
                           "before the command runs).", callback=checked_output)]

INTERRUPTED = 130          # 128 + SIGINT (2)
TERMINATED = 143           # 128 + SIGTERM (15)


class Terminated(KeyboardInterrupt):
    """SIGTERM (a job scheduler's stop, `kill`), raised in the main thread so that the command unwinds
    as on Ctrl-C: its transaction rolled back, its side store removed. A running DuckDB query is not
    cut short (DuckDB itself handles only SIGINT): the exception comes when the query returns."""


# Set once SIGTERM arrives: the exit code is then 143 whatever exception the unwinding ends with (a DuckDB
# query interrupted on the way out, a worker thread's KeyboardInterrupt re-raised in the main thread).
SIGTERM_SEEN: list = []


def stop_on_sigterm():
    SIGTERM_SEEN.clear()      # a command run in-process (tests, the API) starts with none

    def handler(signum, frame):
        SIGTERM_SEEN.append(signum)
        raise Terminated()
    signal.signal(signal.SIGTERM, handler)


def die_quietly_on_signals():
    """Once the command has ended (its work done or given up, its lines printed), Ctrl-C or SIGTERM end the
    process at once: the interpreter's shutdown, which joins the threads the command used, would otherwise
    print a KeyboardInterrupt traceback ("Exception ignored in threading._shutdown") when the signal comes
    then (a Ctrl-C 0.9 s into a 0.55 s ingest did). What the command printed is flushed first, so that a
    run in the store has its line out (stdout to a pipe is buffered until the interpreter ends)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:           # `| head` has gone: the exit's own flush goes nowhere too
            if stream is sys.stdout:
                quiet_stdout()
        except (OSError, ValueError):     # a closed stream: nothing more can be said
            pass
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


DEBUG_VAR = "TRACEDB_DEBUG"


def one_line(message: str) -> str:
    """`message` on one line, nothing in it obeyed by the terminal (tracedb/shown.py: a newline as \\n)."""
    return printable(message)


# An error line longer than this is cut in its middle: its start names the input and its end says what was
# expected, while a value quoted whole between them (a 1 MB pattern, a list of 10,000 names) would make the
# line a megabyte. The longest line tracedb words itself is ~600 characters, paths included.
LINE_MAX = 2000


def short_line(message: str) -> str:
    """`message` on one line (one_line), cut in the middle past LINE_MAX characters, saying how much was cut."""
    line = one_line(message)
    if len(line) <= LINE_MAX:
        return line
    head, tail = LINE_MAX * 2 // 3, LINE_MAX // 3
    return f"{line[:head]} … ({len(line) - head - tail:,} characters cut) … {line[-tail:]}"


def say_error(message: str):
    """The one `error:` line every failure prints (stderr may be closed: then nothing is printed); in a
    terminal it wraps at its width, mangled names demangled and long names cut in the middle."""
    from tracedb.engine.rendering.render import terminal_width
    width = terminal_width(sys.stderr)
    if width:
        from tracedb.engine.rendering.names import wrapped
        typer.echo(wrapped("error: ", short_line(message), width), err=True)
        return
    typer.echo(f"error: {short_line(message)}", err=True)


def fail(message: str, code: int = 1):
    say_error(message)
    raise typer.Exit(code)


def _first_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return lines[0] if lines else ""


def _is_duckdb(e: BaseException) -> bool:
    return type(e).__module__.split(".")[0] in ("duckdb", "_duckdb")


# What DuckDB's Python module raises (a plain RuntimeError, checked with DuckDB 2.0) when SIGINT arrives
# while a query runs: it handles the signal itself and interrupts the query.
QUERY_INTERRUPTED = "Query interrupted"


def interrupted(e: BaseException) -> bool:
    """Ctrl-C: Python's KeyboardInterrupt, or DuckDB's interrupt of a running query (its InterruptException,
    or the RuntimeError its Python module raises), or an SQLite query a foreign export's reader stopped on the
    signal (ingest/sqlite_file.py), or click's Abort (Ctrl-C or end of input at a prompt)."""
    return (isinstance(e, (KeyboardInterrupt, typer.Abort))
            or (_is_duckdb(e) and type(e).__name__ == "InterruptException")
            or (type(e) is RuntimeError and str(e) == QUERY_INTERRUPTED)
            or (type(e).__name__ == "OperationalError" and type(e).__module__ == "sqlite3" and str(e) == "interrupted"))


def quiet_stdout():
    """`tracedb ... | head`: the reader has gone. Later writes, and the interpreter's flush at exit, go to
    /dev/null instead of raising BrokenPipeError again (which would print a traceback at exit)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):   # stdout is not a real file (a test's capture): nothing to redirect
        pass


def expected(e: BaseException) -> bool:
    """An error tracedb knows how to word for a user; anything else is an internal error, whose traceback
    TRACEDB_DEBUG=1 shows."""
    return isinstance(e, (TracedbError, OSError, MemoryError)) or interrupted(e) or _is_duckdb(e)


def describe(e: BaseException) -> tuple[str | None, int]:
    """The error line (None: say nothing) and the exit code for an exception that ended a command."""
    if isinstance(e, Terminated) or SIGTERM_SEEN:    # whatever the unwinding ended with
        return "terminated (SIGTERM)", TERMINATED
    if isinstance(e, TracedbError):
        return str(e), e.exit_code
    if interrupted(e):
        return "interrupted", INTERRUPTED
    if isinstance(e, BrokenPipeError):
        quiet_stdout()
        return None, 0
    if isinstance(e, OSError):   # disk full, permission denied, ...: the file and the system's reason
        reason = e.strerror or _first_line(e) or type(e).__name__
        return (f"{e.filename}: {reason}" if e.filename is not None else reason), 1
    if isinstance(e, MemoryError):
        return "out of memory (MemoryError); try a smaller selection of runs or passes", 1
    if _is_duckdb(e):   # e.g. DuckDB's own I/O or out-of-memory errors: its first line says what it was
        return f"{type(e).__name__}: {_first_line(e)}", 1
    first = _first_line(e)
    return (f"internal error: {type(e).__name__}{': ' + first if first else ''} "
            f"(set {DEBUG_VAR}=1 for the traceback)"), 1


def exit_code_of(e: BaseException) -> int:
    """Print the error line for `e` and return its exit code; with TRACEDB_DEBUG set, an internal error
    is raised again so that its traceback shows."""
    if os.environ.get(DEBUG_VAR) and not expected(e) and not isinstance(e, BrokenPipeError):
        raise e
    message, code = describe(e)
    if message is not None:
        say_error(message)
    return code


# Left to the root command (cli/app.py): they carry their own exit code, or are usage errors that it
# words with the command's --help.
PASS_THROUGH = (typer.Exit, click_exceptions.ClickException)


def one_line_errors(fn):
    """A command's errors as one `error:` line and an exit code (2: usage, 1: failed run, 130: Ctrl-C),
    never a traceback (TRACEDB_DEBUG=1 shows it for an internal error)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except PASS_THROUGH:
            raise
        except (Exception, KeyboardInterrupt) as e:
            raise typer.Exit(exit_code_of(e)) from e
    return wrapper


def check_not_the_store(output: str | None, db: str | None):
    """-o naming the store (or its write-ahead log) would replace the store with a report: refused before
    the command runs, like every other unusable -o."""
    if not output:
        return
    from tracedb.engine.store.connect import resolve_path
    store = os.path.realpath(resolve_path(db))
    out = os.path.realpath(output)
    if out in (store, store + ".wal"):
        raise TracedbUsage(f"-o/--output {one_line(output)!r}: that is the store ({store}); expected another file")


def writable_store(db: str | None) -> str:
    """The path of the store a command is about to write (segment, runs tag/rm), refused now when DuckDB
    could not write it: it keeps its log (`<store>.wal`) beside the store file, so in a folder it cannot write
    to (a read-only mount, a shared folder) the store opens and the first commit fails, as a TransactionException
    that names no file (`cannot rollback - no transaction is active`). Checked by creating and removing a
    temporary file there, as -o is (tracedb/atomic.py)."""
    from tracedb import atomic
    from tracedb.engine.store.connect import resolve_path
    from tracedb.engine.store.dataset import is_dataset_path
    from tracedb.errors import StoreError
    path = resolve_path(db)
    if is_dataset_path(path) or not os.path.isfile(path):    # open_store says what a folder or no store is
        return path
    folder = os.path.dirname(os.path.abspath(path))
    try:
        atomic.probe(path + ".wal")
    except OSError as e:
        raise StoreError(f"{path}: cannot write the store: its folder {folder} is not writable "
                         f"({e.strerror or e}); DuckDB keeps its log {os.path.basename(path)}.wal there. Reports, "
                         "runs and sql still read the store") from None
    return path


def store_write_failed(path: str, e: BaseException):
    """A DuckDB error while a command wrote the store at `path` (a commit the disk refused), as a StoreError
    naming the store; None when `e` is no such error (an interrupt, a bug: left as it is)."""
    import duckdb
    from tracedb.errors import StoreError
    if interrupted(e) or not isinstance(e, (duckdb.TransactionException, duckdb.IOException)):
        return None
    return StoreError(f"{path}: cannot write the store ({_first_line(e)}); the store is as it was")


def emit(text: str | None, output: str | None):
    from tracedb.engine.rendering.output import write_output
    rest = write_output(text or "", output)
    if rest is not None:
        sys.stdout.write(rest)
    elif output:
        typer.echo(f"wrote {one_line(output)}", err=True)


def check_format(fmt: str, allowed=("table", "md", "csv", "json", "spreadsheet")) -> str:
    if fmt not in allowed:
        fail(f"--format {fmt!r}: expected one of {', '.join(allowed)}", 2)
    return fmt
