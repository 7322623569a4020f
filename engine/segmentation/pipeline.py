"""Pipeline stages: which stage of a pipeline-parallel job each run is (sql/segment/pipeline_stage.sql), kept as
TEMP _pp_stage for the SQL that numbers layers in the model (model_layers.sql) and compares ranks only with
the ranks of their own stage (report ranks, report blame)."""
from tracedb import sql


def stage_table(con, run_ids: list[int]) -> dict[int, tuple[int, int]]:
    """TEMP _pp_stage(run_id, pp_stage, pp_stages) for the runs of `run_ids` that are stages of a pipeline of
    two or more; returns {run_id: (stage, stages)}. Reads _passes (a segmentation's passes) when it exists."""
    # a report that found no passes (a trace with no layers) has not made what pipeline_stage.sql reads
    sql.run(con, "pipeline_defaults")
    rows = sql.run(con, "pipeline_stage", {"run_ids": list(run_ids)}).fetchall()
    got = {r[0]: (r[1], r[2]) for r in rows if r[1] is not None}
    sql.run(con, "pipeline_pp_stage", {"run_ids": list(got), "stages": [v[0] for v in got.values()],
                                       "stage_counts": [v[1] for v in got.values()]})
    return got


def model_layers(con, run_layers: dict[int, int]) -> dict[int, tuple[int, bool]]:
    """TEMP _seg_model (model_layers.sql) over _pp_stage and `run_layers` ({run_id: layers of its passes});
    returns {run_id: (model layer of its layer 0, whether an earlier stage's count was assumed)}."""
    sql.run(con, "pipeline_run_layers", {"run_ids": list(run_layers), "layers": list(run_layers.values())})
    sql.run(con, "model_layers")
    return {r: (base, assumed) for r, _, base, assumed in sql.run(con, "pipeline_seg_model").fetchall()}
