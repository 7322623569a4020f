-- Run facts of an Ascend SQLite export once its rows are in kernels_raw: the rank of the run's device
-- (RANK_DEVICE_MAP, when its devices map to one rank) and the device name (NPU_INFO, Ascend910B).
-- Inputs: kernels_raw rows of the run, TEMP _adb_ranks, _adb_npus.
-- Parameters:
--   $run_id INTEGER: the run being ingested
-- Output: one row of two columns (the tiny traces of tests/test_sql_headers.py are no SQLite exports;
--   tests/test_ascend_db.py reads both) rank BIGINT, NULL when unknown or several, and device_name VARCHAR,
--   the names of the run's devices joined by a comma, NULL when NPU_INFO is absent.
WITH devs AS (
    SELECT DISTINCT device_id FROM kernels_raw WHERE run_id = $run_id AND device_id IS NOT NULL
)
SELECT (SELECT CASE WHEN count(DISTINCT r.rankId) = 1 THEN min(r.rankId) END
        FROM _adb_ranks r SEMI JOIN devs d ON d.device_id = r.deviceId) AS rank,
       (SELECT string_agg(DISTINCT n.name, ', ' ORDER BY n.name)
        FROM _adb_npus n SEMI JOIN devs d ON d.device_id = n.id) AS device_name;
