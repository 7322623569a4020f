"""`tracedb export perfetto`: one run as a Chrome JSON trace for Perfetto, with pass and layer tracks."""
from typing import Annotated

import typer

from tracedb.cli.common import DbOpt, OutOpt, check_not_the_store, one_line, one_line_errors
from tracedb.cli.options import PassOpt, RunOpt, TagOpt, segmentation_options

RangesOpt = Annotated[bool, typer.Option(
    "--ranges", help="Only the pass and layer tracks (no device activity), to open beside the original trace.")]


@one_line_errors
@segmentation_options
def perfetto(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
             pass_: PassOpt = "all", ranges: RangesOpt = False, output: OutOpt = None, seg=None):
    """One run's device activity and host events with a pass track and a layer track (slices equal to report
    layers with the same options) and per-layer counters, in the run's original time base; gzip when -o ends
    in .gz, JSON on stdout without -o."""
    from tracedb.engine.exports import perfetto as export
    from tracedb.engine.store.connect import open_store
    check_not_the_store(output, db)
    con = open_store(db, read_only=True, confined=True)
    try:
        done = export.export(con, output, runs=run or [], tags=tag or [], pass_spec=pass_, ranges=ranges, **seg)
    finally:
        con.close()
    for note in done.notes:
        typer.echo(f"note: {one_line(note)}", err=True)
    if output:
        what = (f"{done.passes} pass{'es' if done.passes != 1 else ''}, {done.layers} layer slices, "
                f"{done.path_segments:,} critical-path segments"
                + ("" if ranges else f", {done.device_events:,} device activities, {done.host_events:,} host events"))
        typer.echo(f"wrote {one_line(output)}: run '{one_line(done.run)}', {what}", err=True)
