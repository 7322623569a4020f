"""`tracedb export …`: a store's data in other tools' formats (one module per format)."""
import typer

from tracedb.cli import export_parquet_cmd, export_perfetto_cmd

app = typer.Typer(no_args_is_help=True, help="Write a store's runs in another tool's format.")
app.command("perfetto")(export_perfetto_cmd.perfetto)
app.command("parquet")(export_parquet_cmd.parquet)
