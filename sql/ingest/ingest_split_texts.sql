-- Store rows that carry their text columns: each distinct tuple of texts once in kernel_texts, the rows in
-- kernels_raw_full with the tuple's text_id. Text ids number the tuples of the run from 0 in the order of
-- their first row; a row whose texts are all NULL gets no id.
-- Inputs: TEMP _rows_with_texts: kernels_raw columns (any of them, matched by name; no text_id) and
--   op_state, input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes, output_formats,
--   extra_text VARCHAR, in insertion order. Dropped at the end.
-- Parameters:
--   $run_id INTEGER: the run being ingested (the rows' run)
-- Output: the run's rows in kernel_texts and kernels_raw_full (in the temp table's row order).
INSERT INTO kernel_texts BY NAME
SELECT $run_id AS run_id, (row_number() OVER (ORDER BY first_row) - 1)::INTEGER AS text_id, * EXCLUDE (first_row)
FROM (SELECT op_state, input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes, output_formats,
             extra_text, min(rowid) AS first_row
      FROM _rows_with_texts
      WHERE coalesce(op_state, input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes,
                     output_formats, extra_text) IS NOT NULL
      GROUP BY ALL);
INSERT INTO kernels_raw_full BY NAME
SELECT r.* EXCLUDE (op_state, input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes,
                    output_formats, extra_text), t.text_id
FROM _rows_with_texts r
LEFT JOIN kernel_texts t ON t.run_id = $run_id
    AND t.op_state IS NOT DISTINCT FROM r.op_state AND t.input_shapes IS NOT DISTINCT FROM r.input_shapes
    AND t.input_dtypes IS NOT DISTINCT FROM r.input_dtypes AND t.input_formats IS NOT DISTINCT FROM r.input_formats
    AND t.output_shapes IS NOT DISTINCT FROM r.output_shapes AND t.output_dtypes IS NOT DISTINCT FROM r.output_dtypes
    AND t.output_formats IS NOT DISTINCT FROM r.output_formats AND t.extra_text IS NOT DISTINCT FROM r.extra_text
ORDER BY r.rowid;
DROP TABLE _rows_with_texts;
