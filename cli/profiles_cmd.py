"""`tracedb profiles list|show`: the built-in model profiles and what a profile holds."""
from typing import Annotated

import typer

from tracedb.cli.common import one_line_errors
from tracedb.cli.options import profile_file

profiles_app = typer.Typer(help="Model profiles: anchor kernel, layers, categories.", no_args_is_help=True)


@profiles_app.command("list")
@one_line_errors
def profiles_list():
    """Built-in profiles with their anchor and layer count."""
    from tracedb.engine.segmentation import profiles
    for name in profiles.builtin_names():
        p = profiles.load(name)
        typer.echo(f"{name:<12} anchor={p.anchor or '(--anchor)'} layers={p.layers or '-'} "
                   f"blocks/layer={p.blocks_per_layer}  {p.description}")


@profiles_app.command("show")
@one_line_errors
def profiles_show(name: Annotated[str, typer.Argument(help="Profile name or .toml path.",
                                                     callback=profile_file)]):
    """A profile with every category rule, in match order."""
    import json

    from tracedb.engine.segmentation import profiles
    typer.echo(json.dumps(profiles.as_dict(profiles.load(name)), indent=2))
