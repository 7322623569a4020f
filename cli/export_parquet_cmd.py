"""`tracedb export parquet`: the store's runs as a Hive-partitioned Parquet dataset (docs/datasets.md)."""
from typing import Annotated

import typer

from tracedb.cli.common import DbOpt, one_line_errors
from tracedb.cli.options import RunOpt, TagOpt, non_empty


@one_line_errors
def parquet(
    folder: Annotated[str, typer.Argument(metavar="DIR", help="A new (or empty) folder for the dataset.",
                                          callback=non_empty("a folder"))],
    db: DbOpt = None,
    run: RunOpt = None,
    tag: TagOpt = None,
):
    """Write the store's runs (all, or those --run/--tag select) as a Parquet dataset, partitioned by run; \
read it back with --db DIR/."""
    from tracedb.engine.store.parquet import export_parquet
    res = export_parquet(db, folder, runs=run or [], tags=tag or [])
    typer.echo(res.summary(), err=True)
