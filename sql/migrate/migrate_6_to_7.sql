-- Schema v6 -> v7: the repeated texts of kernels_raw stored once per run. An Ascend kernel row's state,
-- shapes, dtypes, formats and other text columns repeat across millions of rows (14 distinct tuples among
-- the 2 M rows of a decode trace); storing each row's copy cost most of an Ascend CSV ingest. They move
-- to kernel_texts, one row per run and distinct tuple; kernels_raw keeps the tuple's text_id. The views
-- `kernels` and `kernel_extras` join them back, so what they show is unchanged.
-- Inputs: a v6 store (kernels_raw with the text columns).
-- Parameters: none.
-- Output: TABLE kernel_texts, one row per run and distinct tuple of text columns:
--   run_id INTEGER: the run
--   text_id INTEGER: the tuple's id within the run (kernels_raw.text_id)
--   op_state VARCHAR: OP State
--   input_shapes VARCHAR: Input Shapes, as written (msprof quotes them: "1,4096")
--   input_dtypes VARCHAR: Input Data Types
--   input_formats VARCHAR: Input Formats
--   output_shapes VARCHAR: Output Shapes, as written
--   output_dtypes VARCHAR: Output Data Types
--   output_formats VARCHAR: Output Formats
--   extra_text VARCHAR: values of runs.extra_columns joined by chr(31), '' for NULL
-- Output: kernels_raw.text_id INTEGER (NULL for a row without texts: JSON and SQLite traces); the columns
--   op_state, input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes, output_formats and
--   extra_text leave kernels_raw.
-- Output: VIEW kernels (columns, types and order as in v6) and VIEW kernel_extras (as in v1), now joining
--   kernel_texts.
CREATE TABLE kernel_texts (
    run_id        INTEGER NOT NULL,  -- the run
    text_id       INTEGER NOT NULL,  -- the tuple's id within the run
    op_state      VARCHAR,
    input_shapes  VARCHAR,
    input_dtypes  VARCHAR,
    input_formats VARCHAR,
    output_shapes VARCHAR,
    output_dtypes VARCHAR,
    output_formats VARCHAR,
    extra_text    VARCHAR
);
ALTER TABLE kernels_raw ADD COLUMN text_id INTEGER;
CREATE TEMP TABLE _texts AS
    SELECT run_id, (row_number() OVER (PARTITION BY run_id ORDER BY min(seq)) - 1)::INTEGER AS text_id,
        op_state, input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes, output_formats, extra_text
    FROM kernels_raw
    WHERE coalesce(op_state, input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes,
                   output_formats, extra_text) IS NOT NULL
    GROUP BY run_id, op_state, input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes,
        output_formats, extra_text;
INSERT INTO kernel_texts BY NAME SELECT * FROM _texts;
UPDATE kernels_raw k SET text_id = t.text_id
FROM _texts t
WHERE k.run_id = t.run_id AND k.op_state IS NOT DISTINCT FROM t.op_state
  AND k.input_shapes IS NOT DISTINCT FROM t.input_shapes AND k.input_dtypes IS NOT DISTINCT FROM t.input_dtypes
  AND k.input_formats IS NOT DISTINCT FROM t.input_formats AND k.output_shapes IS NOT DISTINCT FROM t.output_shapes
  AND k.output_dtypes IS NOT DISTINCT FROM t.output_dtypes AND k.output_formats IS NOT DISTINCT FROM t.output_formats
  AND k.extra_text IS NOT DISTINCT FROM t.extra_text;
DROP TABLE _texts;
ALTER TABLE kernels_raw DROP COLUMN op_state;
ALTER TABLE kernels_raw DROP COLUMN input_shapes;
ALTER TABLE kernels_raw DROP COLUMN input_dtypes;
ALTER TABLE kernels_raw DROP COLUMN input_formats;
ALTER TABLE kernels_raw DROP COLUMN output_shapes;
ALTER TABLE kernels_raw DROP COLUMN output_dtypes;
ALTER TABLE kernels_raw DROP COLUMN output_formats;
ALTER TABLE kernels_raw DROP COLUMN extra_text;
CREATE OR REPLACE VIEW kernels AS
    SELECT k.run_id, k.seq, k.start_ns, k.dur_ns, k.name, k.op_type, k.kind, k.core_type, k.device_id, k.stream_id,
        k.task_id, k.step_id, k.model_id, k.context_id, k.correlation_id, k.block_dim, k.mix_block_dim, k.wait_ns,
        t.op_state, t.input_shapes, t.input_dtypes, t.input_formats, t.output_shapes, t.output_dtypes,
        t.output_formats, k.grid, k.block, k.registers_per_thread, k.shared_mem_bytes, k.external_id,
        k.function_id, k.core_id
    FROM kernels_raw k LEFT JOIN kernel_texts t ON t.run_id = k.run_id AND t.text_id = k.text_id
    WHERE k.dup IS NULL
    UNION ALL BY NAME
    SELECT run_id, seq, start_ns, dur_ns, name, kind, core_type,
        coalesce(device_id, TRY_CAST(pid AS INTEGER)) AS device_id,
        coalesce(stream_id, TRY_CAST(tid AS BIGINT)) AS stream_id, task_id, correlation_id, grid, block,
        registers_per_thread, shared_mem_bytes, external_id, function_id, core_id
    FROM trace_events
    WHERE kind IS NOT NULL AND kind <> 'npu_task' AND run_id IN (SELECT run_id FROM runs);
CREATE OR REPLACE VIEW kernel_extras AS
    SELECT run_id, seq, column_name, nullif(value, '') AS value FROM (
        SELECT k.run_id, k.seq, unnest(r.extra_columns) AS column_name,
               unnest(string_split(coalesce(t.extra_text, ''), chr(31))) AS value
        FROM kernels_raw k JOIN runs r USING (run_id)
        LEFT JOIN kernel_texts t ON t.run_id = k.run_id AND t.text_id = k.text_id
        WHERE len(r.extra_columns) > 0);
