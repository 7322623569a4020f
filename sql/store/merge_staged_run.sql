-- Copy runs of a side store (attached as `staged`, a complete tracedb store of the same schema) into the
-- store, each under its new run id, inside the caller's transaction. An ingest parses its traces into a
-- side store so that the store's write lock is held only for this copy (engine/loading/staging.py); a
-- folder ingest's worker parses a batch of traces into one side store, copied by one statement per table.
-- Inputs: staged.runs, staged.kernels_raw_full, staged.kernels_raw_ascend_csv, staged.kernel_texts,
--   staged.kernel_work_rows, staged.kernel_work_tuples, staged.trace_events, staged.tracks,
--   staged.kernel_names, staged.run_groups, staged.comm_ops, staged.comm_links, staged.comm_matrix,
--   staged.step_times.
-- Parameters:
--   $staged_ids INTEGER[]: the side store's runs to copy
--   $run_ids INTEGER[]: their ids in the store, in the order of $staged_ids
-- Output: the runs' rows in runs, kernels_raw_full, kernels_raw_ascend_csv, kernel_texts, kernel_work_rows,
--   kernel_work_tuples, trace_events, tracks, run_groups, the comm_* tables and step_times; the kernel names
--   the store did not have yet in kernel_names. Columns are matched by name.
CREATE OR REPLACE TEMP TABLE _merge_ids AS
SELECT unnest($staged_ids::INTEGER[]) AS staged_id, unnest($run_ids::INTEGER[]) AS new_id;
INSERT INTO runs BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.runs s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO kernels_raw_full BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.kernels_raw_full s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO kernels_raw_ascend_csv BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.kernels_raw_ascend_csv s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO kernel_texts BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.kernel_texts s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO kernel_work_rows BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.kernel_work_rows s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO kernel_work_tuples BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.kernel_work_tuples s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO trace_events BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.trace_events s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO tracks BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.tracks s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO run_groups BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.run_groups s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO comm_ops BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.comm_ops s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO comm_links BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.comm_links s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO comm_matrix BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.comm_matrix s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO step_times BY NAME SELECT s.* REPLACE (m.new_id AS run_id) FROM staged.step_times s JOIN _merge_ids m ON s.run_id = m.staged_id;
INSERT INTO kernel_names BY NAME SELECT * FROM staged.kernel_names ON CONFLICT DO NOTHING;
DROP TABLE _merge_ids;
