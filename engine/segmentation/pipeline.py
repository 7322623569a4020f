"""Pipeline stages: which stage of a pipeline-parallel job each run is (sql/segment/pipeline_stage.sql), kept as
TEMP _pp_stage for the SQL that numbers layers in the model (model_layers.sql) and compares ranks only with
the ranks of their own stage (report ranks, report blame)."""
from tracedb import sql


def stage_table(con, run_ids: list[int]) -> dict[int, tuple[int, int]]:
    """TEMP _pp_stage(run_id, pp_stage, pp_stages) for the runs of `run_ids` that are stages of a pipeline of
    two or more; returns {run_id: (stage, stages)}. Reads _passes (a segmentation's passes) when it exists."""
    # a report that found no passes (a trace with no layers) has not made what pipeline_stage.sql reads
    con.execute("CREATE TEMP TABLE IF NOT EXISTS _passes AS SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS expected "
                "LIMIT 0")
    con.execute("CREATE TEMP TABLE IF NOT EXISTS _phase AS SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS seq, "
                "NULL::VARCHAR AS phase, NULL::VARCHAR AS grad, NULL::VARCHAR AS evidence, NULL::BIGINT AS start_ns, "
                "NULL::BIGINT AS dur_ns LIMIT 0")
    con.execute("CREATE TEMP TABLE IF NOT EXISTS _p2p_names AS SELECT NULL::VARCHAR AS name LIMIT 0")
    rows = sql.run(con, "pipeline_stage", {"run_ids": list(run_ids)}).fetchall()
    got = {r[0]: (r[1], r[2]) for r in rows if r[1] is not None}
    con.execute("CREATE OR REPLACE TEMP TABLE _pp_stage AS SELECT unnest($r)::INTEGER AS run_id, "
                "unnest($s)::INTEGER AS pp_stage, unnest($n)::INTEGER AS pp_stages",
                {"r": list(got), "s": [v[0] for v in got.values()], "n": [v[1] for v in got.values()]})
    return got


def model_layers(con, run_layers: dict[int, int]) -> dict[int, tuple[int, bool]]:
    """TEMP _seg_model (model_layers.sql) over _pp_stage and `run_layers` ({run_id: layers of its passes});
    returns {run_id: (model layer of its layer 0, whether an earlier stage's count was assumed)}."""
    con.execute("CREATE OR REPLACE TEMP TABLE _run_layers AS SELECT unnest($r)::INTEGER AS run_id, "
                "unnest($n)::BIGINT AS layers", {"r": list(run_layers), "n": list(run_layers.values())})
    sql.run(con, "model_layers")
    return {r: (base, assumed) for r, _, base, assumed in con.execute("SELECT * FROM _seg_model").fetchall()}
