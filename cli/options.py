"""Options several commands share, declared once: run selection (--run, --tag) and the segmentation options
(--profile, --anchor, --layers, ...). `segmentation_options` adds the latter to a command, so `tracedb report
layers`, `report compare`, `segment` and the others cannot drift apart.

Every option value is checked here, while the command line is parsed, before any store is opened or any
report computed: the checks below are the options' click callbacks. A refused value ends the call with
one line naming the option, the value and what is valid (`--layers 0: out of range; expected an integer
from 1 to 100000`), exit 2. What each value must be is written once, in engine/reports/values.py, which
registry.check_options runs for Python callers too."""
import functools
import inspect
import os
import re
from typing import Annotated, List, Optional

import typer

from tracedb.engine.reports import declared, values
from tracedb.engine.segmentation.words import PassSpec
from tracedb.errors import UsageError, refusal
from tracedb.ingest.run_source import MAX_NAME
from tracedb.shown import CONTROL

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
    raise OptionError(refusal(flag(param), value, why, wanted), param=param)


def _each(check):
    """A callback that applies `check(param, value)` to the value, or to each value of a repeatable option;
    a value not given (None) is not checked."""
    def callback(param: typer.CallbackParam, value):
        for v in (value if isinstance(value, (list, tuple)) else [value]):
            if v is not None:
                check(param, v)
        return value
    return callback


def _checked(check):
    """A callback running `check(value)` (engine/reports/values.py) on the value or each of its values."""
    def each(param, v):
        problem = check(v)
        if problem:
            refuse(param, v, *problem)
    return _each(each)


def integer(lo: int, hi: int):
    return _checked(values.integer(lo, hi))


def number(lo: float, hi: float, lo_open: bool = False):
    return _checked(values.number(lo, hi, lo_open))


def non_empty(what: str):
    return _checked(values.non_empty(what))


profile_file = _checked(values.CHECKS["profile"])


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


def pass_spec(param: typer.CallbackParam, value):
    """--pass parsed here, once, into the PassSpec the engine takes (engine/segmentation/words.py)."""
    if value is None:
        return None
    try:
        return PassSpec.parse(value)
    except UsageError as e:
        raise OptionError(str(e), param=param) from None


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


# the value checks a declared report option names (Option.check); --pass's also parses it
CHECKS = {**{name: _checked(check) for name, check in values.CHECKS.items()}, "pass": pass_spec}
PassOpt = annotated(declared.PASS)

# the segmentation options (engine/reports/shared_options.py SEGMENTATION): (keyword, typer type, default)
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
