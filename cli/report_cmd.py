"""`tracedb report ...`: one command per report; each takes the run selection and (except cores) the
segmentation options of cli/options.py, and its own options."""
from typing import Annotated, List, Optional

import typer

from tracedb.cli.common import DbOpt, OutOpt, check_format, check_not_the_store, emit, fail, one_line, one_line_errors
from tracedb.cli.options import NoAlignOpt
from tracedb.cli.options import ProfileOpt
from tracedb.cli.options import (MAX_KERNELS, MAX_WINDOW_US, AbsOpt, ModulePathOpt, PassOpt, RunOpt, TagOpt, choice,
                                 integer, layer_number, layer_or_mean, non_empty, number, segmentation_options)

app = typer.Typer(help="Reports over one or more runs, segmented into passes and layers by anchor kernels.",
                  no_args_is_help=True)

FmtOpt = Annotated[str, typer.Option("--format", "-f", help="table, md, csv, json or html (a page with a chart; kernels: also compute-flow).")]
OpenOpt = Annotated[bool, typer.Option("--open", help="Show the HTML page in the default browser (implies --format html; without -o it is written to a temporary file, whose path is printed).")]


def _format(fmt: str, show: bool) -> str:
    """The checked --format; --open means the HTML page. HTML needs the `html` extra: said before any work."""
    from tracedb.engine.rendering import render
    if show and fmt == "table":
        fmt = "html"
    check_format(fmt, render.FORMATS)
    if show and fmt != "html":
        fail(f"--open shows the HTML page; --format {fmt} cannot be opened (use --format html or leave --format out)", 2)
    if fmt == "html":
        from tracedb.engine.rendering import html as html_report
        html_report.vl_convert()
    return fmt


def _run(name, db, fmt, output, run, tag, show=False, **kw):
    from tracedb.engine.rendering import render
    from tracedb.engine.reports import registry as reports
    from tracedb.engine.store.connect import open_store
    check_not_the_store(output, db)
    con = open_store(db, read_only=True)
    try:
        res = reports.build_report(con, name, fmt=fmt, runs=run or [], tags=tag or [], **kw)
    finally:
        con.close()
    if fmt == "csv":   # CSV carries data only: notes (fallback anchor, misaligned passes) go to stderr
        for note in res.notes:
            typer.echo(f"note: {note}", err=True)
    text = render.render(res, fmt, width=None if output else render.terminal_width())
    if show and not output:
        _show(name, text)
        return
    emit(text, output)
    from tracedb.engine.rendering.output import is_stream
    if show and not is_stream(output):
        _open(output)


def _show(name, text):
    """--open without -o: the page goes to a temporary file, whose path is printed (on stdout), then opened."""
    import os
    import tempfile

    from tracedb.engine.rendering.output import write_output
    fd, path = tempfile.mkstemp(prefix=f"tracedb-{name}-", suffix=".html")
    os.close(fd)
    write_output(text, path)
    typer.echo(path)
    _open(path)


def _open(path):
    """Open the page in the default browser, unless there is no display to show it on (then the printed
    path is all): a Linux or BSD session without DISPLAY or WAYLAND_DISPLAY, where Python's webbrowser would
    fall back to a text browser in the terminal."""
    import os
    import pathlib
    import sys
    import webbrowser
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return
    if not webbrowser.open(pathlib.Path(path).resolve().as_uri()):
        typer.echo(f"note: no browser could be started; open {one_line(path)}", err=True)


@app.command()
@one_line_errors
@segmentation_options
def passes(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
           absolute: AbsOpt = False,
           format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """Forward passes: anchors, kernels, time, average and first layer, cold-start / steady-state / partial."""
    _run("passes", db, _format(format, open_), output, run, tag, show=open_, **seg, absolute=absolute)


@app.command()
@one_line_errors
@segmentation_options
def layers(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
           pass_: PassOpt = "all", absolute: AbsOpt = False,
           clusters: Annotated[bool, typer.Option("--clusters", help="Per layer type statistics (needs --config with layer types).")] = False,
           format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """Per layer: kernels, sum and wall time, time per category, communication count."""
    _run("layers", db, _format(format, open_), output, run, tag, show=open_, **seg, pass_spec=pass_,
         absolute=absolute, clusters=clusters)


@app.command()
@one_line_errors
@segmentation_options
def kernels(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
            pass_: PassOpt = "auto", absolute: AbsOpt = False,
            layer: Annotated[Optional[int], typer.Option("--layer", help="Only this layer (needed for the flow and --compare-layer).", callback=layer_number)] = None,
            compare_layer: Annotated[Optional[int], typer.Option("--compare-layer", help="Diff the kernel set of --layer against this layer.", callback=layer_number)] = None,
            flow: Annotated[bool, typer.Option("--flow", help="Every kernel of the layer with category, simplified name, ts and shapes.")] = False,
            top: Annotated[int, typer.Option("--top", help="Hot list length (0: all).", callback=integer(0, MAX_KERNELS))] = 20,
            order: Annotated[str, typer.Option("--order", help="Flow order: dur (hottest first) or time.", callback=choice("dur", "time"))] = "dur",
            format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """Hot kernels of a pass or layer; --format compute-flow (or --flow) for the layer's compute flow."""
    if format == "compute-flow":
        format, flow = "table", True
    _run("kernels", db, _format(format, open_), output, run, tag, show=open_, **seg, pass_spec=pass_,
         absolute=absolute, layer=layer, compare_layer=compare_layer,
         flow=flow, top=top, order=order)


@app.command()
@one_line_errors
@segmentation_options
def timeline(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
             pass_: PassOpt = "all", absolute: AbsOpt = False,
             layer: Annotated[Optional[List[int]], typer.Option("--layer", help="Only these layers (repeatable); passes always.", callback=layer_number)] = None,
             format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """Pass and layer time ranges in seconds from the trace start, to navigate in Perfetto."""
    _run("timeline", db, _format(format, open_), output, run, tag, show=open_, **seg, pass_spec=pass_,
         absolute=absolute, timeline_layers=layer or [])


@app.command()
@one_line_errors
@segmentation_options
def modules(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
            pass_: PassOpt = "all",
            by: Annotated[str, typer.Option("--by", help="kernel: a row per (layer, module, kernel); module: per module totals.", callback=choice("kernel", "module"))] = "kernel",
            module_path: ModulePathOpt = False,
            format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """Device time by the host module that launched it (GPU traces with host events); layers with an anchor."""
    _run("modules", db, _format(format, open_), output, run, tag, show=open_, **seg, pass_spec=pass_,
         by=by, module_path=module_path)


@app.command()
@one_line_errors
def cores(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
          match: Annotated[Optional[str], typer.Option("--match", "-m", help="RE2 on task names: only this kernel set (e.g. attention).", callback=non_empty("an RE2 pattern"))] = None,
          from_: Annotated[Optional[float], typer.Option("--from", help="Window start, µs after the run's first task.", callback=number(0, MAX_WINDOW_US))] = None,
          to: Annotated[Optional[float], typer.Option("--to", help="Window end, µs after the run's first task.", callback=number(0, MAX_WINDOW_US))] = None,
          per_core: Annotated[bool, typer.Option("--per-core", help="One row per core instead of per core class.")] = False,
          scheduler: Annotated[bool, typer.Option("--scheduler", help="Time per phase on each AICPU scheduler / orchestrator thread.")] = False,
          stack: Annotated[bool, typer.Option("--stack", help="With two runs: their per-class rows stacked, not side by side.")] = False,
          top_gaps: Annotated[int, typer.Option("--top-gaps", help="The N longest idle gaps per core class, with time ranges.", callback=integer(0, MAX_KERNELS))] = 0,
          format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False):
    """On-core busy time, idle time and bubbles (exposed vs hidden) of per-core NPU traces; two runs side by side."""
    _run("cores", db, _format(format, open_), output, run, tag, show=open_, match=match, from_us=from_, to_us=to, per_core=per_core,
         scheduler=scheduler, stack=stack, top_gaps=top_gaps)


@app.command()
@one_line_errors
@segmentation_options
def compare(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
            pass_: PassOpt = "all",
            by: Annotated[str, typer.Option("--by", help="layer, category, module (traces with host events), or kernel (aligned by category, module role and rank).", callback=choice("layer", "category", "module", "kernel"))] = "layer",
            layer: Annotated[Optional[str], typer.Option("--layer", help="Only this layer, or mean: per key the mean over the full layers.", callback=layer_or_mean)] = None,
            module_path: ModulePathOpt = False,
            format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """Two or more runs segmented alike, aligned by layer, category, module or kernel, with delta and ratio to the
    first (a simulated run after a measured one: simulated / measured, and M6 in the notes)."""
    _run("compare", db, _format(format, open_), output, run, tag, show=open_, **seg, pass_spec=pass_,
         by=by, layer=layer, module_path=module_path)


@app.command()
@one_line_errors
@segmentation_options
def breakdown(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
              by: Annotated[str, typer.Option("--by", help="run, step (Ascend Step Id; Kineto ProfilerStep#N), pass or layer (these two segment like report layers; --profile sets what is communication for all).", callback=choice("run", "step", "pass", "layer"))] = "run",
              pass_: PassOpt = "all",
              format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """Where device time goes: span, computing, communication, overlapped, not-overlapped communication and free
    time per run, step, pass or layer (the Ascend profiler's step_trace_time.csv columns)."""
    _run("breakdown", db, _format(format, open_), output, run, tag, show=open_, **seg, pass_spec=pass_, by=by)


@app.command()
@one_line_errors
@segmentation_options
def launches(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
             by: Annotated[str, typer.Option("--by", help="kernel: a row per kernel name (per pass and layer with an anchor); run, step, pass or layer: a row per unit, its idle time adding up to report breakdown's free_us.", callback=choice("kernel", "run", "step", "pass", "layer"))] = "kernel",
             pass_: PassOpt = "all",
             format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """Host-side cost of device work (GPU traces with host events): launch calls, launch-to-start delay, and idle time
    host-bound (before the next kernel's launch call) or not, per kernel name, run, step, pass or layer."""
    _run("launches", db, _format(format, open_), output, run, tag, show=open_, **seg, pass_spec=pass_, by=by)


@app.command()
@one_line_errors
@segmentation_options
def ranks(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
          pass_: PassOpt = "all",
          per_rank: Annotated[bool, typer.Option("--per-rank", help="One row per (pass, layer, rank): its compute, communication, wait and late arrival.")] = False,
          stragglers: Annotated[bool, typer.Option("--stragglers", help="The vote across passes: per layer and overall, which rank was the straggler how often.")] = False,
          no_align: NoAlignOpt = False,
          format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """The ranks of a job compared per layer (each run segmented alike): spread of the compute time, the slowest
    rank and its skew, the last arrival at the layer's collectives; --stragglers names the slow rank and layers."""
    _run("ranks", db, _format(format, open_), output, run, tag, show=open_, **seg, pass_spec=pass_,
         per_rank=per_rank, stragglers=stragglers, no_align=no_align)


@app.command()
@one_line_errors
@segmentation_options
def blame(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
          pass_: PassOpt = "all",
          by: Annotated[str, typer.Option("--by", help="kernel: a row per late rank, pass, layer and cause; layer: waited time per layer and late rank.",
                                         callback=choice("kernel", "layer"))] = "kernel",
          no_align: NoAlignOpt = False,
          format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False, seg=None):
    """Who made the others wait: at every collective of a job (ranks segmented alike, clocks aligned on the
    collectives), the others' waiting for the last rank, charged to its kernels that ran longer than on the
    others, or to its host's launch delay; see docs/jobs.md."""
    _run("blame", db, _format(format, open_), output, run, tag, show=open_, **seg, pass_spec=pass_, by=by,
         no_align=no_align)


@app.command()
@one_line_errors
def collectives(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None, profile: ProfileOpt = None,
                per_rank: Annotated[bool, typer.Option("--per-rank", help="One row per collective and rank: its start, duration and wait for the last rank.")] = False,
                no_align: NoAlignOpt = False,
                format: FmtOpt = "table", output: OutOpt = None, open_: OpenOpt = False):
    """Collectives of a job's ranks matched across each process group: arrival skew, transfer time, bytes and
    nccl-tests bandwidths, in clocks aligned on the collectives (--no-align: raw); see docs/jobs.md."""
    _run("collectives", db, _format(format, open_), output, run, tag, show=open_, profile=profile, per_rank=per_rank,
         no_align=no_align)
