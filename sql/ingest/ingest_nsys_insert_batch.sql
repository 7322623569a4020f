-- One Arrow batch of rows read from an Nsight Systems export into its TEMP table (the placeholder target,
-- quoted), the columns matched by name.
-- Inputs: the registered Arrow batch _nsys_batch.
-- Parameters: none.
-- Output: the batch's rows inserted into the target table (a TEMP table of ingest_nsys_scratch.sql).
INSERT INTO {target} BY NAME SELECT * FROM _nsys_batch;
