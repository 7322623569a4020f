"""Options several commands share, declared once: run selection (--run, --tag) and the segmentation options
(--profile, --anchor, --layers, ...). `segmentation_options` adds the latter to a command, so `tracedb report
layers`, `report compare`, `segment` and the others cannot drift apart."""
import functools
import inspect
from typing import Annotated, List, Optional

import typer

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
GapOpt = Annotated[Optional[float], typer.Option("--pass-gap", help="Split passes where the anchor gap exceeds G x the median gap (default: at gaps >= 2x every gap inside a pass, found per run).", show_default=False)]
ConfigOpt = Annotated[Optional[str], typer.Option("--config", help="Model config.json: num_hidden_layers, layer types.")]
PassOpt = Annotated[str, typer.Option("--pass", help="A pass number, all, steady, auto (the steady pass, else the last full one), or mean (layers, compare: the mean of the steady passes).")]
AbsOpt = Annotated[bool, typer.Option("--absolute", help="Absolute times instead of relative to the run's first kernel.")]
ModulePathOpt = Annotated[bool, typer.Option("--module-path", help="Modules by instance path (Model_0/Layer_5/Attention_5/Linear_37) instead of their layer-free role.")]

# The segmentation options, in help order, with their defaults: the keywords of segment.Options.
SEGMENTATION = (("profile", ProfileOpt, None), ("anchor", AnchorOpt, None), ("layers", LayersOpt, None),
                ("blocks_per_layer", BplOpt, None), ("layer_offset", OffsetOpt, None), ("window", WindowOpt, "full"),
                ("pass_gap", GapOpt, None), ("config", ConfigOpt, None))


def segmentation_options(fn):
    """Give command `fn` the segmentation options: they appear in its signature (what typer reads) after its
    own leading options, and reach it as one dict `seg` (keyword -> value)."""
    sig = inspect.signature(fn)
    own = [p for name, p in sig.parameters.items() if name != "seg"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann)
             for name, ann, default in SEGMENTATION]
    # run, tag and db first, then the segmentation options, then the command's own (help follows this order)
    head = [p for p in own if p.name in ("run", "tag", "db")]
    rest = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own if p.name not in ("run", "tag", "db")]
    head = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in head]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        seg = {name: kwargs.pop(name, default) for name, _, default in SEGMENTATION}
        return fn(*args, seg=seg, **kwargs)

    wrapper.__signature__ = sig.replace(parameters=head + added + rest)
    wrapper.__annotations__ = {**{n: a for n, a, _ in SEGMENTATION},
                               **{k: v for k, v in fn.__annotations__.items() if k != "seg"}}
    return wrapper
