"""Reports: `build_report` is the entry point behind `tracedb report ...` and tracedb.report (engine/api.py),
`render_report` its text. Each report is a module of engine/reports/catalog/ that declares its options and
builds its rows; this module fills in the declared defaults, parses and checks the options once, and hands the
report its own options and the run selection apart."""
from dataclasses import fields

from tracedb.engine.reports import declared, values
from tracedb.engine.rendering import render as rnd
from tracedb.engine.reports.declaration import MEAN_REFUSED
from tracedb.engine.segmentation import binding, segment
from tracedb.engine.segmentation.words import PassSpec
from tracedb.errors import UsageError, quoted

# the run selection and segmentation keywords a report's build receives apart from its own options
SELECTION = frozenset(f.name for f in fields(binding.Options))
REPORTS = declared.NAMES
# The parameter a report gains when its segmentation was restored from the store (kept by the ingest or
# `tracedb segment`, proved against the store first): Markdown and JSON show it; the rows are the same
KEPT = "kept in the store, restored"


def render_report(con, name: str, fmt: str = "table", **opts) -> str:
    """Text of report `name` in format table, md, csv, json or html (options as build_report)."""
    if fmt not in rnd.FORMATS:
        raise UsageError(f"format {fmt!r}: expected one of {', '.join(rnd.FORMATS)}")
    return rnd.render(build_report(con, name, fmt=fmt, **opts), fmt)


def build_report(con, name: str, fmt: str = "table", **opts) -> rnd.Result:
    """The rows of report `name`: its declared options (engine keywords) where not given, then the run
    selection and segmentation options (binding.Options keywords: runs, tags, profile, ...); a keyword that is
    neither is a UsageError. The result carries the report's chart layouts."""
    decl = declared.get(name)
    if decl is None:
        raise UsageError(f"unknown report {name!r}; reports: {', '.join(REPORTS)}")
    opts = check_options(name, {**decl.defaults(), **opts})
    own = {o.target for o in decl.options}
    unknown = sorted(k for k in opts if k not in own and k not in SELECTION)
    if unknown:
        raise UsageError(f"report {name}: unknown option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; it "
                         f"takes {', '.join(sorted(own | SELECTION))}")
    restored = segment.RESTORED.set(False)
    try:
        res = decl.build(con, fmt, {k: v for k, v in opts.items() if k not in own},
                         **{k: v for k, v in opts.items() if k in own})
        if segment.RESTORED.get():
            res.params = {**res.params, "segmentation": KEPT}
    finally:
        segment.RESTORED.reset(restored)
    res.charts = decl.charts
    return res


def check_options(name: str, opts: dict) -> dict:
    """Report `name`'s options (engine keywords) parsed and checked where that needs no store, before one is
    opened: the command line and tracedb.report call it first, so a value the report refuses is said whatever
    the store (build_report checks again, for callers with a connection of their own). Returns `opts` with
    --pass as the PassSpec the reports take."""
    decl = declared.get(name)
    if decl is None:
        return opts
    if opts.get("pass_spec") is not None:
        opts = {**opts, "pass_spec": PassSpec.parse(opts["pass_spec"])}
        _check_pass(name, opts["pass_spec"])
    for o in decl.options + declared.SEGMENTATION:    # declared values (--by, --order, --window, ...), checked here
        value = opts.get(o.target)
        if o.choices and value is not None and value not in o.choices:
            raise UsageError(f"{o.flags[0]} {quoted(str(value))}: unknown; expected one of {', '.join(o.choices)}")
        # what the command line checks as it parses (--top, --layers, --peak-tflops, ...), for Python callers
        problem = values.refused(o.check, o.flags[0], value) if o.check else None
        if problem:
            raise UsageError(problem)
    return opts


def _check_pass(name: str, spec: PassSpec):
    if spec.word == "mean" and declared.get(name).mean == MEAN_REFUSED:
        averaging = declared.averaging()
        raise UsageError(f"--pass mean: report {name} shows single passes; give a pass number, all, steady or auto "
                         f"({' and '.join([', '.join(averaging[:-1]), averaging[-1]])} average the steady passes)")
