"""`tracedb demo`: the bundled samples ingested and reported, the first thing a new user runs."""
from typing import Annotated

import typer

from tracedb.cli.common import one_line_errors
from tracedb.cli.options import non_empty


@one_line_errors
def demo(db: Annotated[str, typer.Option("--db", help="Store for the demo (replaced).",
                                         callback=non_empty("a store file path"))] = "tracedb-demo.duckdb"):
    """Ingest the bundled Qwen3-like decode and prefill samples and print their pass and layer reports."""
    from tracedb.engine.demo import run_demo
    for block in run_demo(db):
        typer.echo(block)
