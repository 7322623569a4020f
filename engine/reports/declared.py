"""The reports, as their modules of engine/reports/catalog/ declare them (found there by discovery): each one's
options and their defaults, what it does with `--pass mean`, the SQL files it reads, its chart layouts, its
build function and its examples (the shape: engine/reports/declaration.py); its output columns are stated once,
in the header of its first SQL file, and read from there. The `tracedb report` commands, tracedb.report
(engine/api.py), build_report, the columns tables of docs/reports.md (docs/gen_reports.py), the chart of the
HTML page and the golden tests are derived from these declarations."""
from tracedb.engine.reports.catalog import discover
from tracedb.engine.reports.declaration import MEAN_AVERAGED, Report
from tracedb.engine.reports.shared_options import PASS, SEGMENTATION   # noqa: F401 (the CLI and API read them here)

REPORTS = discover()
BY_NAME = {r.name: r for r in REPORTS}
NAMES = tuple(BY_NAME)


def get(name: str) -> Report | None:
    return BY_NAME.get(name)


def averaging() -> list[str]:
    """The reports whose `--pass mean` is the mean of the steady passes."""
    return [r.name for r in REPORTS if r.mean == MEAN_AVERAGED]
