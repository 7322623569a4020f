"""`tracedb check`: render the reports a TOML file lists and compare each with its golden CSV.

    [[check]]
    report = "layers"
    args = ["--db", "runs.duckdb", "--run", "b200", "--anchor", "fmha", "--layers", "36"]
    golden = "golden/ci/b200-layers.csv"      # relative to the config file
    rel_tol = 0.05                            # a numeric cell fails only beyond BOTH tolerances
    abs_tol_us = 1.0                          # absolute tolerance of *_us columns (others: exact)
    keys = ["run", "pass", "layer"]           # optional: the columns that identify a row

Rows are matched by their key columns (default: the identifying columns the report has, such as run,
pass, layer, core_class, module, kernel); other text cells must match exactly."""
import csv
import io
import math
import os
import tomllib
from dataclasses import dataclass, field

from tracedb.errors import InputError, UsageError, cut, parse_limit, quoted

KEY_COLUMNS = ("run", "pass", "layer", "core_class", "core", "module", "kernel", "name", "op_type", "rank",
               "process", "thread", "phase", "layer_type")
_FIELDS = {"report", "args", "golden", "rel_tol", "abs_tol_us", "keys", "name"}


@dataclass
class Check:
    name: str
    report: str
    args: list[str]
    golden: str
    rel_tol: float = 0.0
    abs_tol_us: float = 0.0
    keys: list[str] | None = None
    where: str = ""          # the config file and entry, for errors (`check.toml: [[check]] #2`)


@dataclass
class Outcome:
    check: Check
    ok: bool
    rows: int = 0
    problems: list[str] = field(default_factory=list)


def load_config(path: str) -> list[Check]:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:   # its message names the line and column
        raise UsageError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: byte offset {e.start}: not UTF-8 text; expected a TOML file of [[check]] "
                         "tables") from None
    except (RecursionError, ValueError) as e:   # deeper than Python's reader goes, or a number of 4,300+ digits
        why = parse_limit(e)
        if why is None:
            raise
        raise UsageError(f"{path}: {why}; expected a TOML file of [[check]] tables") from None
    entries = data.get("check")
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"{path}: expected one or more [[check]] tables")
    base = os.path.dirname(os.path.abspath(path))
    out = []
    for i, e in enumerate(entries, 1):
        where = f"{path}: [[check]] #{i}"
        if not isinstance(e, dict):
            raise UsageError(f"{where}: expected a table of report, args, golden, ... (write it as [[check]])")
        unknown = set(e) - _FIELDS
        if unknown:
            raise UsageError(f"{where}: unknown keys {', '.join(sorted(unknown))}; known: {', '.join(sorted(_FIELDS))}")
        if not isinstance(e.get("report"), str) or not isinstance(e.get("golden"), str):
            raise UsageError(f"{where}: needs report = \"...\" and golden = \"...\"")
        args = e.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
            raise UsageError(f"{where}: args must be a list of command-line options")
        rel, absolute = _tolerance(where, e, "rel_tol"), _tolerance(where, e, "abs_tol_us")
        keys = e.get("keys")
        if keys is not None and not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
            raise UsageError(f"{where}: keys must be a list of column names")
        if not isinstance(e.get("name", ""), str):
            raise UsageError(f"{where}: name must be a text")
        golden = e["golden"] if os.path.isabs(e["golden"]) else os.path.join(base, e["golden"])
        out.append(Check(name=e.get("name") or f"{e['report']} -> {e['golden']}", report=e["report"],
                         args=_paths_from(base, [str(a) for a in args]), golden=golden, rel_tol=rel,
                         abs_tol_us=absolute,
                         keys=e.get("keys"), where=where))
    return out


def _tolerance(where: str, e: dict, key: str) -> float:
    """A tolerance: a finite number of 0 or more (a NaN would pass every cell, a negative one fail all; an
    integer beyond a float's range, 10**400, is no tolerance either)."""
    v = e.get(key, 0.0)
    try:
        number = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    except OverflowError:
        number = None
    if number is None or not math.isfinite(number) or number < 0:
        raise UsageError(f"{where}: {key} is {cut(repr(v), 40)}; expected a finite number of 0 or more")
    return number


PATH_OPTIONS = ("--db", "--config")   # and --profile/-p when it names a .toml file


def _paths_from(base: str, args: list[str]) -> list[str]:
    """Relative file paths in a check's args resolved against the config file's folder, as its golden
    is, so a gate gives the same answer from any working directory."""
    out = list(args)
    for i, a in enumerate(out[:-1]):
        value = out[i + 1]
        is_path = a in PATH_OPTIONS or (a in ("--profile", "-p") and value.endswith(".toml"))
        if is_path and not os.path.isabs(value):
            out[i + 1] = os.path.join(base, value)
    return out


def csv_args(check: Check) -> list[str]:
    """The check's report command line, asking for CSV (any --format of its own removed)."""
    args = list(check.args)
    if "--format" in args or "-f" in args:
        i = args.index("--format") if "--format" in args else args.index("-f")
        del args[i:i + 2]
    return [check.report, *args, "--format", "csv"]


def _rows(text: str, where: str) -> tuple[list[str], list[dict]]:
    """The header and rows of a CSV text. A cell may be as long as the text (a report shows a kernel's full
    name, up to megabytes): the csv module's own limit, 128 KiB, is raised to it for the parse."""
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.reader(io.StringIO(text))
    try:
        cols = next(reader, [])
        # as csv.DictReader reads them: blank lines skipped; a short row's missing cells empty here
        return cols, [dict(zip(cols, r + [""] * (len(cols) - len(r)))) for r in reader if r]
    except csv.Error as e:
        raise InputError(f"{where}: line {reader.line_num}: not valid CSV ({e}); expected the CSV a report "
                         "writes (--format csv)") from None


def _check_keys(check: Check, cols: list[str]):
    """The check's keys are columns of its report (a typo, `pas` for `pass`, is named, not a KeyError)."""
    missing = [k for k in check.keys or [] if k not in cols]
    if missing:
        raise UsageError(f"{check.where or check.name}: keys: no column {', '.join(map(repr, missing))} in the "
                         f"{check.report} report; its columns: {', '.join(cols)}")


def compare(check: Check, golden_text: str, new_text: str) -> Outcome:
    old_cols, old = _rows(golden_text, check.golden)
    new_cols, new = _rows(new_text, f"check '{check.name}': the report")
    _check_keys(check, new_cols)       # here too: compare is also called on its own
    outcome = Outcome(check, True, rows=len(new))
    if old_cols != new_cols:
        outcome.ok = False
        outcome.problems.append(f"columns changed: golden {old_cols}, now {new_cols}")
        return outcome
    keys = check.keys or [c for c in new_cols if c in KEY_COLUMNS] or None
    index = (lambda rows: {tuple(r[k] for k in keys): r for r in rows}) if keys else \
        (lambda rows: {(str(i),): r for i, r in enumerate(rows)})
    before, after = index(old), index(new)
    label = (lambda key: ", ".join(f"{k} {v or '-'}" for k, v in zip(keys, key))) if keys else \
        (lambda key: f"row {key[0]}")
    for key in before.keys() - after.keys():
        outcome.problems.append(f"{label(key)}: row missing")
    for key in after.keys() - before.keys():
        outcome.problems.append(f"{label(key)}: new row")
    for key in [k for k in before if k in after]:
        for col in new_cols:
            if keys and col in keys:
                continue
            was, now = before[key][col], after[key][col]
            problem = _cell(col, was, now, check)
            if problem:
                outcome.problems.append(f"{label(key)}, {col}: {problem}")
    outcome.ok = not outcome.problems
    return outcome


def _cell(col: str, was: str, now: str, check: Check) -> str | None:
    if was == now:
        return None
    try:
        a, b = float(was), float(now)
    except ValueError:        # text cells: each shown cut to 200 characters (a kernel's full name may be MBs)
        return f"{quoted(was)} -> {quoted(now)}"
    diff = abs(b - a)
    abs_tol = check.abs_tol_us if col.endswith("_us") else 0.0
    if diff <= abs_tol or diff <= check.rel_tol * abs(a):
        return None
    change = f"{(b - a) / a * 100:+.1f}%" if a else "new"
    return f"{was} -> {now} ({change})"


def run_checks(path: str, render, update: bool = False) -> list[Outcome]:
    """Each check of the config at `path`: `render(check)` gives its report as CSV text (the CLI runs the
    report command line, csv_args, so a check parses options exactly as `tracedb report` does)."""
    outcomes = []
    for check in load_config(path):
        text = render(check)
        _check_keys(check, next(csv.reader(io.StringIO(text[:text.find("\n") + 1])), []))   # the header
        if update:
            os.makedirs(os.path.dirname(check.golden) or ".", exist_ok=True)
            with open(check.golden, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            outcomes.append(Outcome(check, True, rows=max(text.count("\n") - 1, 0), problems=["updated"]))
            continue
        if not os.path.exists(check.golden):
            outcomes.append(Outcome(check, False, problems=[f"no golden file {check.golden}; create it with "
                                                            f"`tracedb check --config {path} --update`"]))
            continue
        try:
            with open(check.golden, encoding="utf-8", newline="") as f:
                golden = f.read()
        except UnicodeDecodeError as e:
            raise InputError(f"{check.golden}: byte offset {e.start}: not UTF-8 text; expected the CSV a report "
                             f"writes (rewrite it with `tracedb check --config {path} --update`)") from None
        outcomes.append(compare(check, golden, text))
    return outcomes
