-- The PMU metrics of an Ascend SQLite export (TASK_PMU_INFO, the aic_metrics set the capture asked for), in
-- the order the run's metric_columns lists them: by name. A name id that STRING_IDS lacks is left out (its
-- values are not kept: they could not be named).
-- Inputs: TEMP _adb_pmu, _adb_strings (ingest_ascend_db_tables).
-- Parameters: none.
-- Output: one row per metric, in order:
--   metric VARCHAR: its name as the export writes it (e.g. aic_mac_ratio, aiv_vec_time)
SELECT DISTINCT s.value AS metric
FROM _adb_pmu p JOIN _adb_strings s ON s.id = p.name
WHERE s.value IS NOT NULL
ORDER BY metric;
