"""The command line: a thin typer app (app.py) composed from one module per command group, each calling the
engine inside its function, plus the options and error handling several commands share.

May import: tracedb.engine (lazily, inside commands), the ground modules."""
