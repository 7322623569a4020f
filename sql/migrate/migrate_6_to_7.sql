-- Schema v6 -> v7: the repeated texts of kernels_raw stored once per run. An Ascend kernel row's state,
-- shapes, dtypes, formats and other text columns repeat across millions of rows (14 distinct tuples among
-- the 2 M rows of a decode trace); storing each row's copy cost most of an Ascend CSV ingest. They move
-- to kernel_texts, one row per run and distinct tuple; kernels_raw keeps the tuple's text_id. The views
-- `kernels` and `kernel_extras` (views.sql) join them back, so what they show is unchanged.
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
