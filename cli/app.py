"""The `tracedb` command: one typer app composed from one module per command group.

Each command parses options, calls one engine function and prints; engine modules are imported
inside the commands so `tracedb --help` and small reports start fast (DuckDB alone is ~0.2 s)."""
import typer

from tracedb import __version__
from tracedb.cli import (check_cmd, demo_cmd, ingest_cmd, migrate_cmd, profiles_cmd, report_cmd, runs_cmd, segment_cmd,
                         sql_cmd)

app = typer.Typer(name="tracedb", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="SQL-backed analysis of LLM kernel traces: ingest profiler output once, then ask per "
                       "pass, layer and kernel questions of a DuckDB store.")
app.command()(ingest_cmd.ingest)
app.add_typer(report_cmd.app, name="report")
app.command()(segment_cmd.segment)
app.command()(sql_cmd.sql)
app.command()(check_cmd.check)
app.add_typer(runs_cmd.app, name="runs")
app.add_typer(profiles_cmd.profiles_app, name="profiles")
app.command()(demo_cmd.demo)
app.command()(migrate_cmd.migrate)


def _version(value: bool):
    if value:
        typer.echo(f"tracedb {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                               help="Print the version and exit.")):
    pass


def main():
    app()
