"""`tracedb report ...`: run selection (--run NAME|GLOB, --tag) and segmentation options shared by every report."""
from typing import Annotated, List, Optional

import typer

from tracedb.cli.common import DbOpt, OutOpt, check_format, emit, one_line_errors

app = typer.Typer(help="Reports over one or more runs, segmented into passes and layers by anchor kernels.",
                  no_args_is_help=True)

RunOpt = Annotated[Optional[List[str]], typer.Option(
    "--run", "-r", help="Run name or GLOB ('dsv3-*': DuckDB GLOB, case-sensitive; an existing name is taken "
                        "literally); repeat for several runs. May be omitted with --tag.", show_default=False)]
TagOpt = Annotated[Optional[List[str]], typer.Option(
    "--tag", "-t", help="Only runs tagged KEY=VALUE (or having KEY); repeatable, all must match.",
    show_default=False)]
ProfileOpt = Annotated[Optional[str], typer.Option("--profile", "-p", help="Built-in profile name or a .toml path (default: generic).")]
AnchorOpt = Annotated[Optional[str], typer.Option("--anchor", "-a", help="RE2 pattern for the anchor kernel (name or op type); overrides the profile's.")]
LayersOpt = Annotated[Optional[int], typer.Option("--layers", "-l", help="Layers per pass: passes by anchor count (else by gaps).")]
BplOpt = Annotated[Optional[int], typer.Option("--blocks-per-layer", help="Anchors per layer (default: profile's, 1).")]
OffsetOpt = Annotated[Optional[int], typer.Option("--layer-offset", help="Move every layer boundary this many kernels before its anchor.")]
WindowOpt = Annotated[str, typer.Option("--window", "-w", help="full (default): every kernel of a pass in its prologue or a layer; strict: first to last anchor (the last layer ends at its anchor).")]
PassOpt = Annotated[str, typer.Option("--pass", help="A pass number, all, steady, auto (the steady pass, else the last full one), or mean (layers, compare: the mean of the steady passes).")]
GapOpt = Annotated[Optional[float], typer.Option("--pass-gap", help="Split passes where the anchor gap exceeds G x the median gap (default: at gaps >= 2x every gap inside a pass, found per run).", show_default=False)]
ConfigOpt = Annotated[Optional[str], typer.Option("--config", help="Model config.json: num_hidden_layers, layer types.")]
AbsOpt = Annotated[bool, typer.Option("--absolute", help="Absolute times instead of relative to the run's first kernel.")]
FmtOpt = Annotated[str, typer.Option("--format", "-f", help="table, md, csv or json (kernels: also compute-flow).")]
ModulePathOpt = Annotated[bool, typer.Option("--module-path", help="Modules by instance path (Model_0/Layer_5/Attention_5/Linear_37) instead of their layer-free role.")]


def _run(name, db, fmt, output, run, tag, **kw):
    from tracedb.engine import render, reports
    from tracedb.engine.store import open_store
    con = open_store(db, read_only=True)
    try:
        res = reports.build_report(con, name, fmt=fmt, runs=run or [], tags=tag or [], **kw)
    finally:
        con.close()
    if fmt == "csv":   # CSV carries data only: notes (fallback anchor, misaligned passes) go to stderr
        for note in res.notes:
            typer.echo(f"note: {note}", err=True)
    emit(render.render(res, fmt, width=None if output else render.terminal_width()), output)


@app.command()
@one_line_errors
def passes(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
           profile: ProfileOpt = None, anchor: AnchorOpt = None, layers: LayersOpt = None,
           blocks_per_layer: BplOpt = None, layer_offset: OffsetOpt = None, window: WindowOpt = "full",
           pass_gap: GapOpt = None, config: ConfigOpt = None, absolute: AbsOpt = False,
           format: FmtOpt = "table", output: OutOpt = None):
    """Forward passes: anchors, kernels, time, average and first layer, cold-start / steady-state / partial."""
    _run("passes", db, check_format(format), output, run, tag, profile=profile, anchor=anchor, layers=layers,
         blocks_per_layer=blocks_per_layer, layer_offset=layer_offset, window=window, pass_gap=pass_gap,
         config=config, absolute=absolute)


@app.command()
@one_line_errors
def layers(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
           profile: ProfileOpt = None, anchor: AnchorOpt = None, layers: LayersOpt = None,
           blocks_per_layer: BplOpt = None, layer_offset: OffsetOpt = None, window: WindowOpt = "full",
           pass_: PassOpt = "all", pass_gap: GapOpt = None, config: ConfigOpt = None, absolute: AbsOpt = False,
           clusters: Annotated[bool, typer.Option("--clusters", help="Per layer type statistics (needs --config with layer types).")] = False,
           format: FmtOpt = "table", output: OutOpt = None):
    """Per layer: kernels, sum and wall time, time per category, communication count."""
    _run("layers", db, check_format(format), output, run, tag, profile=profile, anchor=anchor, layers=layers,
         blocks_per_layer=blocks_per_layer, layer_offset=layer_offset, window=window, pass_spec=pass_,
         pass_gap=pass_gap, config=config, absolute=absolute, clusters=clusters)


@app.command()
@one_line_errors
def kernels(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
            profile: ProfileOpt = None, anchor: AnchorOpt = None, layers: LayersOpt = None,
            blocks_per_layer: BplOpt = None, layer_offset: OffsetOpt = None, window: WindowOpt = "full",
            pass_: PassOpt = "auto", pass_gap: GapOpt = None, config: ConfigOpt = None, absolute: AbsOpt = False,
            layer: Annotated[Optional[int], typer.Option("--layer", help="Only this layer (needed for the flow and --compare-layer).")] = None,
            compare_layer: Annotated[Optional[int], typer.Option("--compare-layer", help="Diff the kernel set of --layer against this layer.")] = None,
            flow: Annotated[bool, typer.Option("--flow", help="Every kernel of the layer with category, simplified name, ts and shapes.")] = False,
            top: Annotated[int, typer.Option("--top", help="Hot list length (0: all).")] = 20,
            order: Annotated[str, typer.Option("--order", help="Flow order: dur (hottest first) or time.")] = "dur",
            format: FmtOpt = "table", output: OutOpt = None):
    """Hot kernels of a pass or layer; --format compute-flow (or --flow) for the layer's compute flow."""
    if format == "compute-flow":
        format, flow = "table", True
    _run("kernels", db, check_format(format), output, run, tag, profile=profile, anchor=anchor, layers=layers,
         blocks_per_layer=blocks_per_layer, layer_offset=layer_offset, window=window, pass_spec=pass_,
         pass_gap=pass_gap, config=config, absolute=absolute, layer=layer, compare_layer=compare_layer,
         flow=flow, top=top, order=order)


@app.command()
@one_line_errors
def timeline(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
             profile: ProfileOpt = None, anchor: AnchorOpt = None, layers: LayersOpt = None,
             blocks_per_layer: BplOpt = None, layer_offset: OffsetOpt = None, window: WindowOpt = "full",
             pass_: PassOpt = "all", pass_gap: GapOpt = None, config: ConfigOpt = None, absolute: AbsOpt = False,
             layer: Annotated[Optional[List[int]], typer.Option("--layer", help="Only these layers (repeatable); passes always.")] = None,
             format: FmtOpt = "table", output: OutOpt = None):
    """Pass and layer time ranges in seconds from the trace start, to navigate in Perfetto."""
    _run("timeline", db, check_format(format), output, run, tag, profile=profile, anchor=anchor, layers=layers,
         blocks_per_layer=blocks_per_layer, layer_offset=layer_offset, window=window, pass_spec=pass_,
         pass_gap=pass_gap, config=config, absolute=absolute, timeline_layers=layer or [])


@app.command()
@one_line_errors
def modules(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
            profile: ProfileOpt = None, anchor: AnchorOpt = None, layers: LayersOpt = None,
            blocks_per_layer: BplOpt = None, layer_offset: OffsetOpt = None, window: WindowOpt = "full",
            pass_: PassOpt = "all", pass_gap: GapOpt = None, config: ConfigOpt = None,
            by: Annotated[str, typer.Option("--by", help="kernel: a row per (layer, module, kernel); module: per module totals.")] = "kernel",
            module_path: ModulePathOpt = False,
            format: FmtOpt = "table", output: OutOpt = None):
    """Device time by the host module that launched it (GPU traces with host events); layers with an anchor."""
    _run("modules", db, check_format(format), output, run, tag, profile=profile, anchor=anchor, layers=layers,
         blocks_per_layer=blocks_per_layer, layer_offset=layer_offset, window=window, pass_spec=pass_,
         pass_gap=pass_gap, config=config, by=by, module_path=module_path)


@app.command()
@one_line_errors
def cores(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
          match: Annotated[Optional[str], typer.Option("--match", "-m", help="RE2 on task names: only this kernel set (e.g. attention).")] = None,
          from_: Annotated[Optional[float], typer.Option("--from", help="Window start, µs after the run's first task.")] = None,
          to: Annotated[Optional[float], typer.Option("--to", help="Window end, µs after the run's first task.")] = None,
          per_core: Annotated[bool, typer.Option("--per-core", help="One row per core instead of per core class.")] = False,
          scheduler: Annotated[bool, typer.Option("--scheduler", help="Time per phase on each AICPU scheduler / orchestrator thread.")] = False,
          stack: Annotated[bool, typer.Option("--stack", help="With two runs: their per-class rows stacked, not side by side.")] = False,
          top_gaps: Annotated[int, typer.Option("--top-gaps", help="The N longest idle gaps per core class, with time ranges.")] = 0,
          format: FmtOpt = "table", output: OutOpt = None):
    """On-core busy time, idle time and bubbles (exposed vs hidden) of per-core NPU traces; two runs side by side."""
    _run("cores", db, check_format(format), output, run, tag, match=match, from_us=from_, to_us=to, per_core=per_core,
         scheduler=scheduler, stack=stack, top_gaps=top_gaps)


@app.command()
@one_line_errors
def compare(run: RunOpt = None, tag: TagOpt = None, db: DbOpt = None,
            profile: ProfileOpt = None, anchor: AnchorOpt = None, layers: LayersOpt = None,
            blocks_per_layer: BplOpt = None, layer_offset: OffsetOpt = None, window: WindowOpt = "full",
            pass_: PassOpt = "all", pass_gap: GapOpt = None, config: ConfigOpt = None,
            by: Annotated[str, typer.Option("--by", help="layer, category, module (traces with host events), or kernel (aligned by category, module role and rank).")] = "layer",
            layer: Annotated[Optional[str], typer.Option("--layer", help="Only this layer, or mean: per key the mean over the full layers.")] = None,
            module_path: ModulePathOpt = False,
            format: FmtOpt = "table", output: OutOpt = None):
    """Two or more runs segmented alike, aligned by layer, category, module or kernel, with delta and ratio to the
    first (a simulated run after a measured one: simulated / measured, and M6 in the notes)."""
    _run("compare", db, check_format(format), output, run, tag, profile=profile, anchor=anchor, layers=layers,
         blocks_per_layer=blocks_per_layer, layer_offset=layer_offset, window=window, pass_spec=pass_,
         pass_gap=pass_gap, config=config, by=by, layer=layer, module_path=module_path)
