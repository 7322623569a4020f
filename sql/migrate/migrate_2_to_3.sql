-- Schema v2 -> v3: many runs in one store. Adds runs.source_bytes and three plain views for cross-run SQL
-- (no macros, no UDFs: they work from the plain `duckdb` CLI). Times in the views are exact DECIMAL µs
-- (BIGINT ns * 0.001); means are rounded to the ns.
-- Inputs: a v2 store.
-- Parameters: none.
-- Output: TABLE runs, new columns:
--   source_bytes BIGINT: bytes of runs.source_files as read (a .gz counts compressed); NULL for runs
--     ingested before v3
-- Output: VIEW run_kernels, the counted kernels (the `kernels` view) with their run's name and tags, so a
--   query can filter by `run` or `tags['hw']` without a join: run_id INTEGER, run VARCHAR (runs.name), tags
--   MAP(VARCHAR, VARCHAR) (runs.tags), then every other column of the kernels view.
-- Output: VIEW run_summary, one row per run (runs without kernels too):
--   run_id INTEGER: the run
--   run VARCHAR: its name
--   tags MAP(VARCHAR, VARCHAR): its tags
--   format VARCHAR: runs.format
--   rank INTEGER: runs.rank
--   device_name VARCHAR: runs.device_name
--   source_bytes BIGINT: runs.source_bytes
--   kernels BIGINT: counted kernels
--   device_us DECIMAL(38,3): sum of durations
--   span_us DECIMAL(23,3): first start to last end
--   first_start_ns BIGINT: the first kernel's start
--   last_end_ns BIGINT: the latest kernel end
-- Output: VIEW kernel_stats, one row per run and kernel name:
--   run_id INTEGER: the run
--   run VARCHAR: its name
--   tags MAP(VARCHAR, VARCHAR): its tags
--   name VARCHAR: the kernel name
--   op_type VARCHAR: the smallest seen with that name
--   count BIGINT: kernels of that name
--   sum_us DECIMAL(38,3): their time
--   avg_us DECIMAL(23,3): mean duration, rounded to the ns
--   min_us DECIMAL(23,3): shortest duration
--   max_us DECIMAL(23,3): longest duration
ALTER TABLE runs ADD COLUMN source_bytes BIGINT;
-- v2 removed a replaced run's kernels but not its host events and tracks; a later run could reuse the id.
DELETE FROM host_events WHERE run_id NOT IN (SELECT run_id FROM runs);
DELETE FROM tracks WHERE run_id NOT IN (SELECT run_id FROM runs);
-- run_kernels: the counted kernels (the `kernels` view) with their run's name and tags, so a query can
--   filter by `run` or `tags['hw']` without a join. Columns: run_id, run, tags, then every kernels column.
CREATE VIEW run_kernels AS
    SELECT k.run_id, r.name AS run, r.tags, k.* EXCLUDE (run_id)
    FROM kernels k JOIN runs r USING (run_id);
-- run_summary: one row per run (runs without kernels too). Columns: run_id, run, tags, format, rank,
--   device_name, source_bytes, kernels (counted), device_us (sum of durations), span_us (first start to
--   last end), first_start_ns, last_end_ns.
CREATE VIEW run_summary AS
    SELECT r.run_id, r.name AS run, r.tags, r.format, r.rank, r.device_name, r.source_bytes,
        count(k.run_id) AS kernels, coalesce(sum(k.dur_ns), 0) * 0.001 AS device_us,
        (max(k.start_ns + k.dur_ns) - min(k.start_ns)) * 0.001 AS span_us,
        min(k.start_ns) AS first_start_ns, max(k.start_ns + k.dur_ns) AS last_end_ns
    FROM runs r LEFT JOIN kernels k USING (run_id)
    GROUP BY r.run_id, r.name, r.tags, r.format, r.rank, r.device_name, r.source_bytes;
-- kernel_stats: one row per run and kernel name. Columns: run_id, run, tags, name, op_type (the smallest
--   seen with that name), count, sum_us, avg_us, min_us, max_us.
CREATE VIEW kernel_stats AS
    SELECT s.run_id, r.name AS run, r.tags, s.name, s.op_type, s.count,
        s.sum_ns * 0.001 AS sum_us, round(s.avg_ns)::BIGINT * 0.001 AS avg_us, s.min_ns * 0.001 AS min_us,
        s.max_ns * 0.001 AS max_us
    FROM (SELECT run_id, name, min(op_type) AS op_type, count(*) AS count, sum(dur_ns) AS sum_ns,
                 avg(dur_ns) AS avg_ns, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns
          FROM kernels GROUP BY run_id, name) s
    JOIN runs r USING (run_id);
