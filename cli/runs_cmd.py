"""`tracedb runs`: list the runs (no subcommand), or `rm`, `rename`, `tag` them."""
from typing import Annotated, List, Optional

import typer

from tracedb.cli.common import (DbOpt, FormatOpt, OutOpt, check_format, check_not_the_store, emit, one_line,
                                one_line_errors)
from tracedb.cli.options import AnchorOpt, BplOpt, GapOpt, LayersOpt, ProfileOpt, RunOpt, TagOpt, run_name
from tracedb.errors import UsageError

app = typer.Typer(invoke_without_command=True,
                  help="List the runs of the store (no subcommand), or remove, rename and tag them.")

PatternsArg = Annotated[List[str], typer.Argument(metavar="RUN|GLOB", help="Run names or GLOBs ('dsv3-*').",
                                                  show_default=False)]


def _store(ctx: typer.Context, db: str | None):
    """A subcommand's store: its own --db, else the one given before it (`tracedb runs --db X rm …`)."""
    from tracedb.cli.common import writable_store
    from tracedb.engine.store.connect import open_store
    return open_store(writable_store(db or (ctx.obj or {}).get("db")))


@app.callback()
@one_line_errors
def runs(ctx: typer.Context, db: DbOpt = None, format: FormatOpt = "table", output: OutOpt = None,
         run: RunOpt = None, tag: TagOpt = None,
         passes: Annotated[bool, typer.Option("--passes", help="Count each run's passes (as `report passes` "
                                                               "finds them; seconds on big runs).")] = False,
         wide: Annotated[bool, typer.Option("--wide", help="In a terminal, print the table whole (no column "
                                                           "left out, no name shortened).")] = False,
         profile: ProfileOpt = None, anchor: AnchorOpt = None, layers: LayersOpt = None,
         blocks_per_layer: BplOpt = None, pass_gap: GapOpt = None):
    """List runs: format, rank, device, source size, kernel rows, tags, span; --passes adds pass counts."""
    if ctx.invoked_subcommand:
        # `tracedb runs --tag x rm '*'` must not read as "remove the runs tagged x": refuse, never ignore
        given = [o for o, v in (("--format", format != "table"), ("--output", output), ("--run", run), ("--tag", tag),
                                ("--passes", passes), ("--wide", wide), ("--profile", profile), ("--anchor", anchor),
                                ("--layers", layers), ("--blocks-per-layer", blocks_per_layer),
                                ("--pass-gap", pass_gap is not None)) if v]
        if given:
            raise UsageError(f"{', '.join(given)}: options of the listing (`tracedb runs`), not of "
                             f"`tracedb runs {ctx.invoked_subcommand}`")
        ctx.obj = {"db": db}
        return
    from tracedb.engine.rendering import render
    from tracedb.engine.admin.runs import listing
    from tracedb.engine.store.connect import open_store
    check_format(format)
    check_not_the_store(output, db)
    con = open_store(db, read_only=True, confined=True)
    try:
        res = listing(con, run or [], tag or [], fmt=format, passes=passes, profile=profile, anchor=anchor,
                      layers=layers, blocks_per_layer=blocks_per_layer, pass_gap=pass_gap)
    finally:
        con.close()
    if format in ("csv", "spreadsheet"):
        for note in res.notes:
            typer.echo(f"note: {one_line(note)}", err=True)
    emit(render.render(res, format, width=None if output or wide else render.terminal_width()), output)


@app.command("rm")
@one_line_errors
def rm(ctx: typer.Context, patterns: PatternsArg, db: DbOpt = None):
    """Remove runs and all their rows, in one transaction; a name or GLOB matching nothing removes nothing."""
    from tracedb.engine.admin.runs import remove
    con = _store(ctx, db)
    try:
        for name, rows in remove(con, patterns):
            typer.echo(f"removed run '{name}' ({rows or 0:,} kernel rows)")
    finally:
        con.close()


@app.command("rename")
@one_line_errors
def rename(ctx: typer.Context, old: Annotated[str, typer.Argument(help="Current run name (exact).")],
           new: Annotated[str, typer.Argument(help="New name; must not be taken.", callback=run_name)],
           db: DbOpt = None):
    """Rename a run; refuses a new name already in the store."""
    from tracedb.engine.admin import runs as mgmt
    con = _store(ctx, db)
    try:
        mgmt.rename(con, old, new)
    finally:
        con.close()
    typer.echo(f"renamed run '{old}' to '{new}'")


@app.command("tag")
@one_line_errors
def tag(ctx: typer.Context,
        args: Annotated[List[str], typer.Argument(metavar="RUN|GLOB... KEY=VALUE...", show_default=False,
                                                  help="Runs, then the tags to set (the first argument with "
                                                       "'=' starts the tags).")],
        untag: Annotated[Optional[List[str]], typer.Option("--untag", "-u", help="Remove this tag key; repeatable.",
                                                           show_default=False)] = None,
        db: DbOpt = None):
    """Set tags (KEY=VALUE, replacing a key's value) and remove tags (--untag KEY) on runs, in one transaction."""
    from tracedb.engine.admin import runs as mgmt
    first = next((i for i, a in enumerate(args) if "=" in a), len(args))
    patterns, tags = args[:first], args[first:]
    stray = [t for t in tags if "=" not in t]
    if not patterns or stray:
        raise UsageError(f"{'runs must come before the tags' if stray else 'no run named'}: "
                         "tracedb runs tag RUN|GLOB... KEY=VALUE... [--untag KEY]")
    con = _store(ctx, db)
    try:
        changed = mgmt.tag(con, patterns, tags, untag or [])
    finally:
        con.close()
    for name, tags_after in changed:
        shown = ", ".join(f"{k}={v}" for k, v in (tags_after or {}).items()) or "(none)"
        typer.echo(f"run '{name}': tags {shown}")
