"""The `tracedb` command: one typer app composed from one module per command group.

Each command parses options, calls one engine function and prints; engine modules are imported
inside the commands so `tracedb --help` and small reports start fast (importing DuckDB alone takes 0.08-0.11 s on
a 2-core machine)."""
import copy
import sys

import typer
from typer.core import TyperGroup

from tracedb.version import __version__
from tracedb.cli.common import click_exceptions, die_quietly_on_signals, exit_code_of, say_error, stop_on_sigterm
from tracedb.cli import (advise_cmd, check_cmd, demo_cmd, export_cmd, ingest_cmd, migrate_cmd, profiles_cmd, report_cmd,
                         runs_cmd, segment_cmd, sql_cmd)


class OneLineErrors(TyperGroup):
    """The root command: whatever ends a call, stderr gets at most one `error:` line. Click's usage errors
    (unknown option or command, `--layers abc`, a missing argument) would print typer's boxed panel of five
    lines; they are worded here as `error: <what> (see `tracedb report layers --help`)`, exit 2. A call with
    no command prints the help on stdout and one error line."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False,
                              **extra)
        except click_exceptions.NoArgsIsHelpError as e:
            typer.echo(e.ctx.get_help())
            say_error(f"missing command; see `{e.ctx.command_path} --help`")
            rv = 2
        except click_exceptions.UsageError as e:
            hint = f" (see `{e.ctx.command_path} --help`)" if e.ctx is not None else ""
            say_error(e.format_message().strip() + hint)
            rv = e.exit_code
        except click_exceptions.ClickException as e:
            say_error(e.format_message().strip())
            rv = e.exit_code
        except (Exception, KeyboardInterrupt) as e:   # raised while options were parsed (a callback)
            rv = exit_code_of(e)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(name="tracedb", cls=OneLineErrors, no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False,
                  help="SQL-backed analysis of LLM kernel traces: ingest profiler output once, then ask per "
                       "pass, layer and kernel questions of a DuckDB store.")
app.command()(ingest_cmd.ingest)
app.add_typer(report_cmd.app, name="report")
app.command()(segment_cmd.segment)
app.command()(sql_cmd.sql)
app.command()(check_cmd.check)
app.command()(advise_cmd.advise)
app.add_typer(runs_cmd.app, name="runs")
app.add_typer(export_cmd.app, name="export")
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


def _command_name(info) -> str:
    """The name a registered command is called by (typer's own rule: the function's name, `_` as `-`)."""
    return info.name or info.callback.__name__.lower().replace("_", "-")


def _only(group: typer.Typer, args: list[str]) -> typer.Typer:
    """`group` with only the command (or the sub-group, narrowed alike) that `args` names, when it names one:
    typer turns every registered command into a click command on each call, ~50 ms for the ~30 commands
    here, for the one that runs. Anything else (help, an unknown name, an option first) gets the whole group,
    so listings and errors are the same."""
    name = args[0] if args else None
    commands = [c for c in group.registered_commands if _command_name(c) == name]
    groups = [g for g in group.registered_groups if g.name == name]
    if len(commands) + len(groups) != 1:
        return group
    narrowed = copy.copy(group)
    narrowed.registered_commands = commands
    narrowed.registered_groups = [copy.copy(g) for g in groups]
    for g in narrowed.registered_groups:
        g.typer_instance = _only(g.typer_instance, args[1:])
    return narrowed


def main():
    stop_on_sigterm()
    try:
        _only(app, sys.argv[1:])()
    finally:
        die_quietly_on_signals()
