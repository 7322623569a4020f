-- The runs an ingest has just landed, with what decides how their segmentation is kept
-- (engine/segmentation/at_ingest.py): a job's runs together, every other run alone.
-- Inputs: runs.
-- Parameters:
--   $names VARCHAR[]: run names
-- Output: rows, one per name that exists, in run order:
--   name VARCHAR: the run's name
--   job VARCHAR: its tag `job`, NULL when it has none
--   kernel_count BIGINT: its kernels (runs.kernel_count)
SELECT name, tags['job'] AS job, coalesce(kernel_count, 0) AS kernel_count
FROM runs WHERE name IN (SELECT unnest($names::VARCHAR[]))
ORDER BY run_id;
