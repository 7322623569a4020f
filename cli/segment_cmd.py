"""`tracedb segment`: store the pass, layer, category and module of every kernel of some runs (view kernel_layers)."""
import typer

from tracedb.cli.common import DbOpt, one_line_errors
from tracedb.cli.report_cmd import (AnchorOpt, BplOpt, ConfigOpt, GapOpt, LayersOpt, OffsetOpt, ProfileOpt, RunOpt,
                                    TagOpt, WindowOpt)


@one_line_errors
def segment(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
            profile: ProfileOpt = None, anchor: AnchorOpt = None, layers: LayersOpt = None,
            blocks_per_layer: BplOpt = None, layer_offset: OffsetOpt = None, window: WindowOpt = "full",
            pass_gap: GapOpt = None, config: ConfigOpt = None):
    """Store each kernel's pass, layer, block, category and module for the runs (one segmentation per run;
    again replaces it): then `select layer, category, sum(dur_ns) from kernel_layers where run = 'R' and
    pass = 0 group by all` in tracedb sql or the duckdb CLI equals `tracedb report layers` for that pass."""
    from tracedb.engine import segment as seg
    from tracedb.engine.segment_store import segment_runs
    from tracedb.engine.store import open_store
    con = open_store(db)
    try:
        rows, notes = segment_runs(con, seg.Options(
            runs=run or [], tags=tag or [], profile=profile, anchor=anchor, layers=layers,
            blocks_per_layer=blocks_per_layer, layer_offset=layer_offset, window=window, pass_gap=pass_gap,
            config=config))
    finally:
        con.close()
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    for name, passes, kernels in rows:
        typer.echo(f"segmented run '{name}': {passes} pass{'es' if passes != 1 else ''}, {kernels:,} kernels "
                   "in a pass (view kernel_layers)")
