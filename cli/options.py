"""Options several commands share, declared once: run selection (--run, --tag) and the segmentation options
(--profile, --anchor, --layers, ...). `segmentation_options` adds the latter to a command, so `tracedb report
layers`, `report compare`, `segment` and the others cannot drift apart.

Every option value is checked here, while the command line is parsed, before any store is opened or any
report computed: the checks below are the options' click callbacks. A refused value ends the call with
one line naming the option, the value and what is valid (`--layers 0: out of range; expected an integer
from 1 to 100000`), exit 2. The upper bounds are generous, far beyond real models (the deepest LLMs have
~130 layers, profiles use 1 or 2 blocks per layer), only there to refuse a typo that would make a
query meaningless or overflow a BIGINT."""
import functools
import inspect
import math
import os
import re
from typing import Annotated, List, Optional

import typer

from tracedb.engine.reports import declared
from tracedb.errors import parse_limit, quoted
from tracedb.ingest.run_source import MAX_NAME
from tracedb.shown import CONTROL

MAX_LAYERS = 100_000          # --layers, and a layer number is below it
MAX_BLOCKS_PER_LAYER = 1_000  # anchors per layer
MAX_KERNELS = 1_000_000       # --layer-offset (kernels) and --top (hot list length)
MAX_PASSES = 10_000_000       # a pass number is below it (a 10k-token decode has 10k passes)
MAX_PASS_GAP = 1e6            # --pass-gap factor
MAX_WINDOW_US = 1e12          # --from / --to: 11.6 days after the first task, far inside a BIGINT of ns


class OptionError(typer.BadParameter):
    """A refused option value, worded in full by its check (click would prefix "Invalid value for ...")."""

    def format_message(self) -> str:
        return self.message


def flag(param) -> str:
    """How the help names the option: `-o/--output`, `--layers`, or an argument's metavar (NAME)."""
    if getattr(param, "param_type_name", "") == "argument":
        return param.human_readable_name
    return "/".join(sorted(param.opts, key=len))


def refuse(param, value, why: str, wanted: str):
    said = quoted(value) if isinstance(value, str) else str(value)     # a long text cut to 200 characters
    raise OptionError(f"{flag(param)} {said}: {why}; expected {wanted}", param=param)


def _each(check):
    """A callback that applies `check(param, value)` to the value, or to each value of a repeatable option;
    a value not given (None) is not checked."""
    def callback(param: typer.CallbackParam, value):
        for v in (value if isinstance(value, (list, tuple)) else [value]):
            if v is not None:
                check(param, v)
        return value
    return callback


def integer(lo: int, hi: int):
    """An integer option from lo to hi (inclusive)."""
    def check(param, v):
        if not lo <= v <= hi:
            refuse(param, v, "out of range", f"an integer from {lo} to {hi}")
    return _each(check)


def number(lo: float, hi: float, lo_open: bool = False):
    """A finite number from lo (excluded when lo_open) to hi."""
    def check(param, v):
        low_ok = v > lo if lo_open else v >= lo
        if not math.isfinite(v) or not low_ok or v > hi:
            refuse(param, v, "not a finite number in range" if not math.isfinite(v) else "out of range",
                   f"a number {'>' if lo_open else '>='} {lo:g} and <= {hi:g}")
    return _each(check)


def non_empty(what: str):
    """A text option that must say something: an empty name, path or pattern is always a mistake (an
    empty --db would silently mean the default store)."""
    def check(param, v):
        if not v:
            refuse(param, v, "empty", what)
    return _each(check)


def parser_problem(path: str, kind: str) -> str | None:
    """What stops Python's own reader parsing the TOML or JSON file at `path` (kind "toml" or "json"), beyond
    its syntax: text that is not UTF-8 (TOML), nesting deeper than the reader's recursion allows, an integer of
    more than 4,300 digits. None when it parses, cannot be opened, or is not valid TOML or JSON: the profile
    and config readers word those themselves, naming the line."""
    import json
    import tomllib
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    try:
        if kind == "toml":
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
                return f"byte offset {e.start}: not UTF-8 text"
            tomllib.loads(text)
        else:
            json.loads(data)
    except (RecursionError, ValueError) as e:
        return parse_limit(e)
    return None


def _text_file(kind: str, what: str, wanted: str):
    """A --profile or --config value: not empty and, when it names a file (a .toml profile, a config.json),
    a file that Python's reader can parse within its limits, checked now, before any store is opened."""
    def check(param, v):
        if not v:
            refuse(param, v, "empty", what)
        if kind == "json" or v.endswith(".toml") or os.sep in v:
            problem = parser_problem(v, kind)
            if problem:
                refuse(param, v, problem, wanted)
    return _each(check)


PROFILE_FILE = ("a profile name or a .toml path",
                "a model profile TOML: anchor, layers, [[category]] tables of name and pattern (a few levels deep)")
profile_file = _text_file("toml", *PROFILE_FILE)


def _run_name(param, v):
    """A run name a table, a file name and a shell can show: not empty, no control character (a newline
    would split every table row and error line that names the run), no edge blanks, at most 200 characters."""
    if not v or v != v.strip():
        refuse(param, v, "empty or with leading/trailing blanks", "a run name such as h100-decode")
    if CONTROL.search(v):
        refuse(param, v, "holds a control character", "a run name without newlines, tabs or escapes")
    if len(v) > MAX_NAME:
        refuse(param, v[:40] + "...", f"{len(v)} characters", f"at most {MAX_NAME}")


_SCHEDULER = re.compile(r"(?:(?:tcp|tls|ucx|ws|wss)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})")


def _scheduler_address(param, v):
    """--scheduler: a Dask scheduler's address, [tcp|tls|ucx|ws|wss://]HOST:PORT, checked before any work."""
    m = _SCHEDULER.fullmatch(v or "")
    if not m or not 1 <= int(m.group(2)) <= 65535:
        refuse(param, v, "not a scheduler address", "[tcp://]HOST:PORT, e.g. tcp://10.0.0.1:8786")


scheduler_address = _each(_scheduler_address)


def choice(*allowed: str):
    def check(param, v):
        if v not in allowed:
            refuse(param, v, "unknown", "one of " + ", ".join(allowed))
    return _each(check)


def _pass_spec(param, v):
    """--pass as assignment.select_passes reads it (stripped, any case): a pass number or a keyword."""
    spec = v.strip().lower()
    if spec in ("all", "steady", "auto", "mean"):
        return
    if not (spec.isascii() and spec.isdigit()):
        refuse(param, v, "unknown", "a pass number, all, steady, auto or mean")
    if int(spec) >= MAX_PASSES:
        refuse(param, v, "out of range", f"a pass number from 0 to {MAX_PASSES - 1}")


def _layer_or_mean(param, v):
    """compare --layer: a layer number, or mean."""
    spec = v.strip().lower()
    if spec == "mean":
        return
    if not (spec.isascii() and spec.isdigit()) or int(spec) >= MAX_LAYERS:
        refuse(param, v, "not a layer", f"a layer number from 0 to {MAX_LAYERS - 1}, or mean")


def output_problem(path: str) -> str | None:
    """What would stop a report being written to `path`, or None. The check creates and removes a
    temporary file where the report's is created (tracedb/atomic.py), so whatever would stop that
    write (a missing or read-only folder, a name too long, no permission) stops the call now instead."""
    from tracedb import atomic
    from tracedb.engine.rendering.output import is_stream
    if not path:
        return "empty"
    if os.path.isdir(path):
        return "is a folder"
    if is_stream(path):   # /dev/stdout, a named pipe: written in place, never replaced
        return None if os.access(path, os.W_OK) else "not writable"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"folder {folder} {'is not a folder' if os.path.exists(folder) else 'does not exist'}"
    try:
        atomic.probe(path)
    except OSError as e:
        return f"cannot write there ({e.strerror})"
    return None


def checked_output(param: typer.CallbackParam, value):
    """-o PATH, checked before the command computes anything: a file path (new, or a file to replace)
    in an existing, writable folder."""
    problem = None if value is None else output_problem(value)
    if problem:
        refuse(param, value, problem, "a file path in an existing, writable folder")
    return value


pass_spec = _each(_pass_spec)
layer_or_mean = _each(_layer_or_mean)
layer_number = integer(0, MAX_LAYERS - 1)
run_name = _each(_run_name)

RunOpt = Annotated[Optional[List[str]], typer.Option(
    "--run", "-r", help="Run name or GLOB ('dsv3-*': DuckDB GLOB, case-sensitive; an existing name is taken "
                        "literally); repeat for several runs. May be omitted with --tag.", show_default=False,
    callback=non_empty("a run name or GLOB"))]
TagOpt = Annotated[Optional[List[str]], typer.Option(
    "--tag", "-t", help="Only runs tagged KEY=VALUE (or having KEY); repeatable, all must match.",
    show_default=False, callback=non_empty("KEY=VALUE or KEY"))]
def annotated(opt):
    """The typer parameter type of a declared report option (engine/reports/declaration.py): its flags, help and
    value check (its choices, or the check it names in CHECKS)."""
    callback = choice(*opt.choices) if opt.choices else CHECKS[opt.check] if opt.check else None
    return Annotated[opt.type, typer.Option(*opt.flags, help=opt.help, callback=callback)]


# the value checks a declared report option names (Option.check)
CHECKS = {"pass": pass_spec, "layer": layer_number, "layer_or_mean": layer_or_mean,
          "count": integer(0, MAX_KERNELS), "us": number(0, MAX_WINDOW_US), "pattern": non_empty("an RE2 pattern"),
          "profile": profile_file,
          "anchor": non_empty("an RE2 pattern matching the anchor kernel"), "layers": integer(1, MAX_LAYERS),
          "blocks": integer(1, MAX_BLOCKS_PER_LAYER), "gap": number(0, MAX_PASS_GAP, lo_open=True),
          "config": _text_file("json", "a config.json path",
                               "a model's config.json (num_hidden_layers, layer types; a few levels deep)"),
          # a device's peak: above 0, at most 1e6 TFLOP/s (an exaFLOP/s) and 1e4 TB/s, far beyond any chip
          "peak_tflops": number(0, 1e6, lo_open=True), "peak_tbs": number(0, 1e4, lo_open=True)}
PassOpt = annotated(declared.PASS)

# the segmentation options (engine/reports/declared.py SEGMENTATION): (keyword, typer type, default)
_SEG = {o.key: annotated(o) for o in declared.SEGMENTATION}
SEGMENTATION = tuple((o.key, _SEG[o.key], o.default) for o in declared.SEGMENTATION)
ProfileOpt, AnchorOpt, LayersOpt = _SEG["profile"], _SEG["anchor"], _SEG["layers"]
BplOpt, GapOpt = _SEG["blocks_per_layer"], _SEG["pass_gap"]


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
