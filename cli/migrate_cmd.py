"""`tracedb migrate`: bring an older store to this version's schema."""
import typer

from tracedb.cli.common import DbOpt, one_line_errors


@one_line_errors
def migrate(db: DbOpt = None):
    """Bring a store written by an older tracedb to this version's schema."""
    from tracedb.engine.store.connect import open_store
    from tracedb.engine.store.schema import SCHEMA_VERSION
    open_store(db, migrate=True).close()
    typer.echo(f"store is at schema v{SCHEMA_VERSION}")
