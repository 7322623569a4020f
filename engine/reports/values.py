"""What each declared option's value must be (Option.check names one of CHECKS), written once for the command
line, which runs these as it parses (cli/options.py: a refused value is one line and exit 2), and for
registry.check_options, which runs them for tracedb.report and build_report before a store is opened.

A check returns None for a good value, else (what is wrong, what is expected): `--layers 0: out of range;
expected an integer from 1 to 100000`. The upper bounds are generous, far beyond real models (the deepest
LLMs have ~130 layers, profiles use 1 or 2 blocks per layer), only there to refuse a typo that would make a
query meaningless or overflow a BIGINT. Imports nothing heavy: the command line's start-up reads it."""
import math
import os

from tracedb.engine.segmentation.words import PassSpec
from tracedb.errors import parse_limit, refusal

MAX_LAYERS = 100_000          # --layers, and a layer number is below it
MAX_BLOCKS_PER_LAYER = 1_000  # anchors per layer
MAX_KERNELS = 1_000_000       # --layer-offset (kernels) and --top (hot list length)
MAX_PASS_GAP = 1e6            # --pass-gap factor
MAX_WINDOW_US = 1e12          # --from / --to: 11.6 days after the first task, far inside a BIGINT of ns


def integer(lo: int, hi: int):
    """An integer from lo to hi (inclusive)."""
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int):
            return "not an integer", f"an integer from {lo} to {hi}"
        if not lo <= v <= hi:
            return "out of range", f"an integer from {lo} to {hi}"
    return check


def number(lo: float, hi: float, lo_open: bool = False):
    """A finite number from lo (excluded when lo_open) to hi."""
    wanted = f"a number {'>' if lo_open else '>='} {lo:g} and <= {hi:g}"

    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return "not a number", wanted
        if not math.isfinite(v):
            return "not a finite number in range", wanted
        if not (v > lo if lo_open else v >= lo) or v > hi:
            return "out of range", wanted
    return check


def non_empty(what: str):
    """A text that must say something: an empty name, path or pattern is always a mistake (an empty --db
    would silently mean the default store)."""
    def check(v):
        if not v:
            return "empty", what
    return check


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


def text_file(kind: str, what: str, wanted: str):
    """A --profile or --config value: not empty and, when it names a file (a .toml profile, a config.json),
    a file that Python's reader can parse within its limits."""
    def check(v):
        if not v:
            return "empty", what
        if kind == "json" or v.endswith(".toml") or os.sep in v:
            problem = parser_problem(v, kind)
            if problem:
                return problem, wanted
    return check


PROFILE_FILE = ("a profile name or a .toml path",
                "a model profile TOML: anchor, layers, [[category]] tables of name and pattern (a few levels deep)")


def layer_or_mean(v):
    """compare --layer: a layer number, or mean."""
    spec = str(v).strip().lower()
    if spec != "mean" and (not (spec.isascii() and spec.isdigit()) or int(spec) >= MAX_LAYERS):
        return "not a layer", f"a layer number from 0 to {MAX_LAYERS - 1}, or mean"


CHECKS = {"pass": PassSpec.problem, "layer": integer(0, MAX_LAYERS - 1), "layer_or_mean": layer_or_mean,
          "count": integer(0, MAX_KERNELS), "us": number(0, MAX_WINDOW_US), "pattern": non_empty("an RE2 pattern"),
          "profile": text_file("toml", *PROFILE_FILE),
          "anchor": non_empty("an RE2 pattern matching the anchor kernel"), "layers": integer(1, MAX_LAYERS),
          "blocks": integer(1, MAX_BLOCKS_PER_LAYER), "gap": number(0, MAX_PASS_GAP, lo_open=True),
          "config": text_file("json", "a config.json path",
                              "a model's config.json (num_hidden_layers, layer types; a few levels deep)"),
          # a device's peak: above 0, at most 1e6 TFLOP/s (an exaFLOP/s) and 1e4 TB/s, far beyond any chip
          "peak_tflops": number(0, 1e6, lo_open=True), "peak_tbs": number(0, 1e4, lo_open=True)}


def refused(check: str, flag: str, value) -> str | None:
    """The line refusing `value` (or one of its values, for a repeatable option) by check `check`, or None."""
    for v in (value if isinstance(value, (list, tuple)) else [value]):
        if v is not None:
            problem = CHECKS[check](v)
            if problem:
                return refusal(flag, v, *problem)
    return None
