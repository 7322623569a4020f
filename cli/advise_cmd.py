"""`tracedb advise`: the findings an expert would write first, ranked by the step time at stake."""
from typing import Annotated, Optional

import typer

from tracedb.cli.common import DbOpt, OutOpt, check_format, check_not_the_store, emit, fail, one_line, one_line_errors
from tracedb.cli.options import ProfileOpt, RunOpt, TagOpt
from tracedb.engine.advise.rules import RULES

FORMATS = ("table", "md", "csv", "json", "html")


@one_line_errors
def advise(
    db: DbOpt,
    run: RunOpt = None,
    tag: TagOpt = None,
    profile: ProfileOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, md, csv, json or html (the findings ranked, "
                                                             "a bar each of its time at stake).")] = "table",
    threshold: Annotated[Optional[list[str]], typer.Option(
        "--threshold", help="RULE.KEY=VALUE, repeatable: " + ", ".join(
            f"{rule}.{key} ({value:.15g})" for rule, keys in RULES.items() for key, value in keys.items())
        + ".")] = None,
    baseline: Annotated[Optional[list[str]], typer.Option(
        "--baseline", metavar="NAME|GLOB", help="The baseline run (repeatable; several: one per rank, matched by "
                                               "rank): rule regression compares each run's step time with it.")] = None,
    fail_on: Annotated[Optional[str], typer.Option(
        "--fail-on", help="Exit 1 when a finding of this severity or above exists: info, low, medium, high, "
                          "critical (a CI gate).")] = None,
    output: OutOpt = None,
):
    """Findings ranked by the step time at stake: idle gaps, exposed communication, a slow rank, kernels far
    from the roofline, a host-bound or launch-bound step, syncs inside steps, a slow link, small collectives,
    pipeline bubbles, pageable copies, fusible kernel sequences, MoE expert imbalance, a regression against
    --baseline; each with its evidence, the report that shows it and what to try (docs/advise.md)."""
    from tracedb.engine.advise import advise as engine
    from tracedb.engine.advise.rules import SEVERITIES, severity_at_least
    from tracedb.engine.rendering import render
    from tracedb.engine.store.connect import open_store
    check_format(fmt, FORMATS)
    if fail_on is not None and fail_on not in SEVERITIES:
        fail(f"--fail-on {fail_on!r}: expected one of {', '.join(SEVERITIES)}", 2)
    check_not_the_store(output, db)
    con = open_store(db, read_only=True, confined=True)
    try:
        advice = engine.build(con, fmt, runs=run or [], tags=tag or [], profile=profile, db=db, threshold=threshold,
                              baseline=baseline or [])
    finally:
        con.close()
    res = advice.result
    if fmt == "csv":
        for note in res.notes:
            typer.echo(f"note: {one_line(note)}", err=True)
    if not advice.severities and fmt in ("table", "md"):
        for note in res.notes:
            typer.echo(f"note: {one_line(note)}", err=True)
        emit("no finding\n", output)
        return
    if not advice.severities:
        typer.echo("no finding", err=True)
    emit(render.render(res, fmt, width=None if output else render.terminal_width()), output)
    if fail_on is not None and any(severity_at_least(s, fail_on) for s in advice.severities):
        raise typer.Exit(1)
