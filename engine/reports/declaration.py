"""The shape of a report's declaration (each report module of engine/reports/catalog/ ends with one): its
options with their defaults, which `--pass` values it takes, the SQL files it reads, its chart layouts, its
build function and its examples; its output columns come from its SQL file's header (header_columns), where
they are stated once. The command line, the Python API, `--help`, docs/reports.md, the chart selection and the
golden tests are derived from it. Plain data: no DuckDB, no typer, so `tracedb --help` stays fast."""
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

# What a report does with `--pass mean`
MEAN_REFUSED = "refused"        # it shows single passes: a pass number, all, steady or auto
MEAN_AVERAGED = "averaged"      # the mean of the steady passes
MEAN_STEADY = "steady"          # the steady passes, taken as they are

# Which run selection and segmentation options a report takes
SEGMENTED = "segmented"         # --run, --tag and the segmentation options (--profile, --anchor, ...)
PROFILED = "profiled"           # --run, --tag and --profile
RUNS = "runs"                   # --run and --tag


@dataclass(frozen=True)
class Option:
    """One option of a report: `key` is its Python keyword (and typer parameter), `flags` its command-line
    names, `engine` the keyword of registry.build_report it becomes (the key when empty). `check` names the
    command line's value check (cli/options.py CHECKS); `choices` are checked as such."""
    key: str
    flags: tuple[str, ...]
    type: Any
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    check: str = ""
    engine: str = ""

    @property
    def target(self) -> str:
        return self.engine or self.key

    @property
    def repeatable(self) -> bool:
        return "List" in str(self.type)


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    help: str


@dataclass(frozen=True)
class Chart:
    """A chart layout drawn when the rows have the `needs` columns: `layout(result)` gives the Vega-Lite spec
    (built of the pieces of engine/rendering/vega_lite.py; charts.spec adds the data)."""
    needs: frozenset
    layout: Callable


@dataclass(frozen=True)
class Examples:
    """The option sets a report's goldens and tests run (build_report keywords), over the test store `store`
    names (tests/example_stores.py builds each and gives its default selection; a relative path is from the
    repository's root): `cases` maps a golden file's name (golden/) to (format, options); `checks` are option
    sets the tests run without a golden of their own (each query file's header is held to what they produce).
    The first case is the one the command line and the Python API are compared on."""
    store: str
    cases: dict
    checks: tuple = ()


@dataclass(frozen=True)
class Report:
    """One report: `sql` lists the query files whose rows it prints (the first one's header states `columns`,
    the default layout's), `charts` its layouts, the first match winning (variants before the default).
    `build(con, fmt, selection, **options)` makes its rows: `selection` the run selection and segmentation
    keywords (binding.Options), `options` its declared ones by engine keyword, parsed and checked. `place`
    orders the reports in `--help` and the docs."""
    name: str
    help: str
    selection: str
    options: tuple[Option, ...]
    mean: str | None
    sql: tuple[str, ...]
    charts: tuple[Chart, ...] = field(default=())
    build: Callable | None = field(default=None, compare=False)
    place: int = 0
    examples: Examples | None = field(default=None, compare=False, hash=False)

    @cached_property
    def columns(self) -> tuple[Column, ...]:
        """The default layout's columns, as the header of its query file states them (read when asked: the
        command line's start-up reads no SQL)."""
        return header_columns(self.sql[0])

    def option(self, key: str) -> Option | None:
        return next((o for o in self.options if o.key == key), None)

    def defaults(self) -> dict:
        """build_report's keywords with the declared defaults."""
        return {o.target: o.default for o in self.options}


_HEADER_COLUMN = re.compile(r"^--   (\S+) ([A-Z][A-Z0-9_]*(?:\([0-9, ]*\))?): (.+)$")


def header_columns(file: str) -> tuple[Column, ...]:
    """The columns of the rows query file `file` prints, as its header states them (one place for a column's
    name, type and meaning: the SQL that makes it): the `-- Output: rows...` section's lines
    `--   name TYPE: what it is`, each continued on the lines indented further."""
    from tracedb import sql     # the query files only: no DuckDB
    out, listing = [], False
    for line in sql.load(file).splitlines():
        if not line.startswith("--"):
            break
        if line.startswith("-- Output:"):
            if out:
                break               # the rows' section has ended at another output
            listing = line[len("-- Output:"):].strip().startswith("rows")
        elif listing and line.startswith("--     ") and out:
            name, kind, said = out[-1]
            out[-1] = (name, kind, f"{said} {line[2:].strip()}")
        elif listing and line.startswith("--   "):
            m = _HEADER_COLUMN.match(line)
            if m:
                out.append(m.groups())
        elif listing and out:
            break                   # free text after the list
    if not out:
        raise ValueError(f"{file}.sql: no `-- Output: rows` columns in its header")
    return tuple(Column(*c) for c in out)


def charts(*pairs) -> tuple[Chart, ...]:
    """(needed columns as a space-separated string, layout function) pairs."""
    return tuple(Chart(frozenset(needs.split()), layout) for needs, layout in pairs)
