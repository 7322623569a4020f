-- Copy the one run of a side store (attached as `staged`, a complete tracedb store of the same schema)
-- into the store, under a new run id, inside the caller's transaction. An ingest parses its trace into
-- the side store so that the store's write lock is held only for this copy (engine/loading/staging.py).
-- Inputs: staged.runs, staged.kernels_raw, staged.kernel_texts, staged.kernel_work, staged.trace_events, staged.tracks, staged.kernel_names,
--   staged.run_groups, staged.comm_ops, staged.comm_links, staged.comm_matrix.
-- Parameters:
--   $run_id INTEGER: the run's id in the store (the staged run's id is replaced by it)
-- Output: the run's rows in runs, kernels_raw, kernel_texts, kernel_work, trace_events, tracks, run_groups and the comm_* tables; the kernel names the store did not
--   have yet in kernel_names. Columns are matched by name.
INSERT INTO runs BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.runs;
INSERT INTO kernels_raw BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.kernels_raw;
INSERT INTO kernel_texts BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.kernel_texts;
INSERT INTO kernel_work BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.kernel_work;
INSERT INTO trace_events BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.trace_events;
INSERT INTO tracks BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.tracks;
INSERT INTO run_groups BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.run_groups;
INSERT INTO comm_ops BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.comm_ops;
INSERT INTO comm_links BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.comm_links;
INSERT INTO comm_matrix BY NAME SELECT * REPLACE ($run_id::INTEGER AS run_id) FROM staged.comm_matrix;
INSERT INTO kernel_names BY NAME SELECT * FROM staged.kernel_names ON CONFLICT DO NOTHING;
