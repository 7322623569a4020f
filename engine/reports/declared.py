"""Every report declared once (in declared_segmented.py, declared_device.py or declared_jobs.py, by family; this
module lists them): its options and their defaults, what it does with `--pass mean`, the SQL files it reads and
its chart layouts (the shape: engine/reports/declaration.py); its output columns are stated once, in the header
of its first SQL file, and read from there. The `tracedb report` commands, tracedb.report (engine/api.py),
build_report's defaults, the columns tables of docs/reports.md (docs/gen_reports.py) and the chart of the HTML
page are derived from these declarations."""
from tracedb.engine.reports.declaration import MEAN_AVERAGED, Report
from tracedb.engine.reports.declared_device import BREAKDOWN, CRITICAL_PATH, LAUNCHES, ROOFLINE, WHAT_IF
from tracedb.engine.reports.declared_jobs import BLAME, COLLECTIVES, PIPELINE, RANKS
from tracedb.engine.reports.declared_segmented import COMPARE, CORES, KERNELS, LAYERS, MODULES, PASSES, TIMELINE
from tracedb.engine.reports.shared_options import PASS, SEGMENTATION   # noqa: F401 (the CLI and API read them here)

REPORTS = (PASSES, LAYERS, KERNELS, TIMELINE, MODULES, CORES, COMPARE, BREAKDOWN, LAUNCHES, RANKS, BLAME, COLLECTIVES,
           PIPELINE, ROOFLINE, CRITICAL_PATH, WHAT_IF)
BY_NAME = {r.name: r for r in REPORTS}
NAMES = tuple(BY_NAME)


def get(name: str) -> Report | None:
    return BY_NAME.get(name)


def averaging() -> list[str]:
    """The reports whose `--pass mean` is the mean of the steady passes."""
    return [r.name for r in REPORTS if r.mean == MEAN_AVERAGED]
