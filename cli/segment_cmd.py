"""`tracedb segment`: store the pass, layer, category and module of every kernel of some runs (view kernel_layers)."""
import typer

from tracedb.cli.common import DbOpt, one_line, one_line_errors, store_write_failed, writable_store
from tracedb.cli.options import RunOpt, TagOpt, segmentation_options


@one_line_errors
@segmentation_options
def segment(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None, seg=None):
    """Store each kernel's pass, layer, block, category and module for the runs (one segmentation per run;
    again replaces it): then `select layer, category, sum(dur_ns) from kernel_layers where run = 'R' and
    pass = 0 group by all` in tracedb sql or the duckdb CLI equals `tracedb report layers` for that pass.
    Reports on the same runs with the same options then reuse it instead of segmenting again."""
    from tracedb.engine.rendering.run_notes import merged
    from tracedb.engine.segmentation import binding
    from tracedb.engine.segmentation.persist import segment_runs
    from tracedb.engine.store.connect import open_store
    path = writable_store(db)
    con = open_store(path)
    try:
        rows, notes = segment_runs(con, binding.Options(runs=run or [], tags=tag or [], **seg))
    except Exception as e:       # a commit that fails (the disk): one line naming the store
        failed = store_write_failed(path, e)
        if failed is None:
            raise
        raise failed from None
    finally:
        con.close()
    for note in merged(notes):      # a job's ranks say the same things: once, over the runs, as reports do
        typer.echo(f"note: {one_line(note)}", err=True)
    typer.echo(f"note: kept for the reports: those on these {len(rows)} run{'s' if len(rows) != 1 else ''} with the "
               "same segmentation options restore it instead of segmenting again", err=True)
    for name, passes, kernels in rows:
        typer.echo(f"segmented run '{name}': {passes} pass{'es' if passes != 1 else ''}, {kernels:,} kernels "
                   "in a pass (view kernel_layers)")
