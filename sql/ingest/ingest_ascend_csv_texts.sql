-- The distinct tuples of text cells of one run's Ascend CSV rows, into kernel_texts.
-- Inputs: ascend_csv_texts, an Arrow table registered by tracedb.ingest.ascend_csv: text_id INTEGER and
--   the text columns the files have (op_state, input_shapes, input_dtypes, input_formats, output_shapes,
--   output_dtypes, output_formats VARCHAR; extra_text VARCHAR when they have text extras).
-- Parameters:
--   $run_id INTEGER: the run being ingested
-- Output: the run's rows in kernel_texts (columns the files lack are NULL).
INSERT INTO kernel_texts BY NAME SELECT $run_id AS run_id, * FROM ascend_csv_texts;
