"""The last steps of a Chrome trace's ingest, inside the run's final transaction: tracks, NPU tasks,
per-core tasks and the devices of simulators, derived from the events already inserted."""
from tracedb import sql

DEFAULT_CORE_RULES = [("(?i)^(AIC)([_ (]|$)", "AIC"), ("(?i)^(AIV)([_ (]|$)", "AIV")]


def finish(con, run_id: int, core_rules=()):
    """Inside the run's final transaction, before its runs row makes its rows visible: tracks from the
    metadata events, NPU task facts, per-core tasks told from host events by thread name (`core_rules`
    before the built-in AIC/AIV ones), then category-less events of device-named processes (simulators)."""
    sql.run(con, "ingest_chrome_tracks", {"run_id": run_id})
    sql.run(con, "ingest_chrome_tasks", {"run_id": run_id})
    rules = list(core_rules) + DEFAULT_CORE_RULES
    sql.run(con, "ingest_chrome_cores", {"run_id": run_id, "patterns": [p for p, _ in rules],
                                          "classes": [c for _, c in rules]})
    sql.run(con, "ingest_chrome_devices", {"run_id": run_id})
    sql.run(con, "ingest_chrome_finish")
