"""The shape of a report's declaration (engine/reports/declared.py holds the declarations): its options with
their defaults, which `--pass` values it takes, the SQL files it reads, its output columns and its chart
layouts. The command line, the Python API, `--help`, docs/reports.md and the chart selection are derived
from it. Plain data: no DuckDB, no typer, so `tracedb --help` stays fast."""
import re
from dataclasses import dataclass, field
from typing import Any

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
    """A chart layout (a builder of engine/rendering/charts.py) drawn when the rows have the `needs` columns."""
    needs: frozenset
    layout: str


@dataclass(frozen=True)
class Report:
    """One report: `sql` lists the query files whose rows it prints (the first one gives `columns`, the
    default layout's), `charts` its layouts, the first match winning (variants before the default)."""
    name: str
    help: str
    selection: str
    options: tuple[Option, ...]
    mean: str | None
    sql: tuple[str, ...]
    columns: tuple[Column, ...]
    charts: tuple[Chart, ...] = field(default=())

    def option(self, key: str) -> Option | None:
        return next((o for o in self.options if o.key == key), None)

    def defaults(self) -> dict:
        """build_report's keywords with the declared defaults."""
        return {o.target: o.default for o in self.options}


_COLUMN = re.compile(r"^(\S+) ([A-Z][A-Z0-9_]*(?:\([0-9, ]*\))?): (.+)$")


def columns(text: str) -> tuple[Column, ...]:
    """Columns from lines `name TYPE: what it is`, as the SQL headers write them."""
    out = []
    for line in text.strip().splitlines():
        m = _COLUMN.match(line.strip())
        if not m:
            raise ValueError(f"column line {line!r}: expected `name TYPE: description`")
        out.append(Column(*m.groups()))
    return tuple(out)


def charts(*pairs) -> tuple[Chart, ...]:
    """(needed columns as a space-separated string, layout name) pairs."""
    return tuple(Chart(frozenset(needs.split()), layout) for needs, layout in pairs)
