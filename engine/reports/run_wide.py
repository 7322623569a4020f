"""Answer `report kernels` and `report timeline` over whole runs when no anchor splits them into passes and
layers: every kernel of each run, categorised by the profile's rules, with a note saying why and which
kernels could anchor."""
from tracedb import sql
from tracedb.engine.rendering import render as rnd
from tracedb.engine.segmentation import binding
from tracedb.engine.segmentation.categories import categorize_kernels
from tracedb.errors import NoAnchor


def build(con, name: str, fmt: str, why: NoAnchor, seg_opts: dict, top: int | None, absolute: bool) -> rnd.Result:
    """The report over every kernel of the selected runs (pass and layer empty)."""
    b = binding.bind_runs(con, seg_opts.get("runs") or [], seg_opts.get("tags") or [], seg_opts.get("profile"))
    categorize_kernels(con, b)
    sql.run(con, "run_wide", {"run_ids": b.run_ids})
    b.notes.append(f"{str(why).removesuffix('.')}; without one: every kernel of the whole run, no passes or layers")
    meta = {"pass": "whole run"}
    if name == "timeline":
        return rnd.fetch_file(con, fmt, "report_timeline", {"run_ids": b.run_ids, "layers": [],
                                                             "absolute": bool(absolute)}, name, b, meta,
                              "run time ranges (s from the trace's first event, as Perfetto shows them)",
                              display={"pass": "(run)", "layer": ""})
    params = {"run_ids": b.run_ids, "layer": None, "top": top or 0, "rest": True}
    res = rnd.fetch_file(con, fmt, "report_kernels", params, name, b, meta, "hot kernels of the whole run")
    return rnd.for_people(res) if fmt in ("table", "md") else res
