"""Small commands: profiles, demo, migrate."""
from typing import Annotated

import typer

from tracedb.cli.common import DbOpt, one_line_errors

profiles_app = typer.Typer(help="Model profiles: anchor kernel, layers, categories.", no_args_is_help=True)


@profiles_app.command("list")
@one_line_errors
def profiles_list():
    """Built-in profiles with their anchor and layer count."""
    from tracedb.engine import profiles
    for name in profiles.builtin_names():
        p = profiles.load(name)
        typer.echo(f"{name:<12} anchor={p.anchor or '(--anchor)'} layers={p.layers or '-'} "
                   f"blocks/layer={p.blocks_per_layer}  {p.description}")


@profiles_app.command("show")
@one_line_errors
def profiles_show(name: Annotated[str, typer.Argument(help="Profile name or .toml path.")]):
    """A profile with every category rule, in match order."""
    import json

    from tracedb.engine import profiles
    typer.echo(json.dumps(profiles.as_dict(profiles.load(name)), indent=2))


@one_line_errors
def demo(db: Annotated[str, typer.Option("--db", help="Store for the demo (replaced).")] = "tracedb-demo.duckdb"):
    """Ingest the bundled Qwen3-like decode and prefill samples and print their pass and layer reports."""
    from tracedb.engine.demo import run_demo
    for block in run_demo(db):
        typer.echo(block)


@one_line_errors
def migrate(db: DbOpt = None):
    """Bring a store written by an older tracedb to this version's schema."""
    from tracedb.engine.store import SCHEMA_VERSION, open_store
    open_store(db, migrate=True).close()
    typer.echo(f"store is at schema v{SCHEMA_VERSION}")
