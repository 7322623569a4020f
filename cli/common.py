"""What every command shares: the --db option, output options, and turning errors into one line."""
import functools
import os
import sys
from typing import Annotated, Optional

import typer

from tracedb.errors import TracedbError

DbOpt = Annotated[Optional[str], typer.Option("--db", help="Store file (default: $TRACEDB_DB, else ./tracedb.duckdb).",
                                              show_default=False)]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="table (terminal), md, csv or json.")]
OutOpt = Annotated[Optional[str], typer.Option("--output", "-o", help="Write to this file instead of stdout.")]


def fail(message: str, code: int = 1):
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def one_line_errors(fn):
    """Typed errors become `error: <one line>` with their exit code (2: usage, 1: failed run); an
    unexpected DuckDB error still prints one line, never a traceback (TRACEDB_DEBUG=1 shows it)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TracedbError as e:
            fail(str(e), e.exit_code)
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except BrokenPipeError:
            # `tracedb ... | head`: the reader has gone; stop quietly (no traceback at interpreter exit)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(0)
        except Exception as e:
            if os.environ.get("TRACEDB_DEBUG"):
                raise
            if type(e).__module__.split(".")[0] in ("duckdb", "_duckdb"):
                fail(f"{type(e).__name__}: {str(e).strip().splitlines()[0]}")
            raise
    return wrapper


def emit(text: str | None, output: str | None):
    from tracedb.engine.reports import write_output
    rest = write_output(text or "", output)
    if rest is not None:
        sys.stdout.write(rest)
    elif output:
        typer.echo(f"wrote {output}", err=True)


def check_format(fmt: str, allowed=("table", "md", "csv", "json")) -> str:
    if fmt not in allowed:
        fail(f"--format {fmt!r}: expected one of {', '.join(allowed)}", 2)
    return fmt
