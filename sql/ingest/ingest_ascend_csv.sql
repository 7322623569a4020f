-- Load Ascend kernel_details.csv / op_summary CSV files of one run straight into kernels_raw.
-- Times are read as text and converted here, exactly, to BIGINT ns: integer part * 1000 + the first 3
-- decimals (digits below 1 ns truncated, torch_npu's convert_us2ns rule), never through DOUBLE or a
-- rounding DECIMAL cast. A time cell must be plain decimal digits (TAB/space padding allowed, as Ascend
-- writes "1718851234567890.123<TAB>"); Wait Time may carry a '-'. tracedb.ingest.timefmt.csv_us_to_ns is
-- the same rule in Python. A Start Time or Duration that is missing, not plain, negative or beyond BIGINT ns,
-- a row that ends (start + duration) beyond BIGINT ns, or a Wait Time that is present but not such a
-- number, stops the load with error('tracedb:bad-time'), and
-- a NUL character in a text cell with error('tracedb:nul'): tracedb.ingest.ascend_csv then finds the file,
-- line and column in Python and words the one-line error (the rows are never inserted).
-- seq is left 0 here: ingest_finish.sql numbers rows from their insertion order (= file order).
-- 'N/A' and empty cells are NULL (rows outside every step have an empty Step Id); Model ID / Context ID
-- 4294967295 (UINT32_MAX, msprof's "invalid") too.
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `projection` maps the file's column
--   positions to canonical names, NULL where the file lacks one; `metrics` lists the other columns that
--   hold numbers (parsed as DOUBLE by the reader: 2.2x faster to store than text), `extra_text` the rest,
--   joined into one string (NULL as '').
-- Inputs: the CSV files.
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $files VARCHAR[]: files sharing one header, in read order
--   $cols STRUCT: column -> type name for c0..cN (tracedb.ingest.ascend_csv picks VARCHAR for times,
--     BIGINT for ids, DOUBLE for numeric extras, VARCHAR else)
--   $max_line_size BIGINT: the longest line read, in bytes (tracedb.ingest.ascend_csv.LINE_LIMIT)
-- Output: rows in kernels_raw, one per CSV row (seq 0 and dup NULL until ingest_finish.sql).

-- ascend_us_ns(t VARCHAR) -> BIGINT ns of a text that matches [0-9]+(\.[0-9]+)?; NULL beyond BIGINT ns
--   (more than 16 integer digits after leading zeros cannot fit, and are not multiplied at all). The
--   pattern check and these casts take 0.38 s per 1 M cells on one core, less than a DECIMAL cast of the
--   same text (0.43 s).
CREATE OR REPLACE TEMP MACRO ascend_us_ns(t) AS
    CASE WHEN length(ltrim(split_part(t, '.', 1), '0')) <= 16 THEN
        TRY_CAST(CAST(split_part(t, '.', 1) AS HUGEINT) * 1000
                 + CAST(rpad(left(split_part(t, '.', 2), 3), 3, '0') AS HUGEINT) AS BIGINT) END;

INSERT INTO kernels_raw BY NAME
WITH csv AS (
    SELECT {projection},
        {metrics} AS metrics,
        {extra_text} AS extra_text
    FROM read_csv($files, auto_detect = false, header = true, delim = ',', quote = '"', escape = '"',
                  nullstr = ['N/A', ''], max_line_size = $max_line_size, columns = $cols)
), cells AS (
    SELECT *,
        trim(start_us, chr(9) || ' ') AS start_t,
        trim(dur_us, chr(9) || ' ') AS dur_t,
        trim(wait_us, chr(9) || ' ') AS wait_t
    FROM csv
), times AS (
    SELECT *,
        CASE WHEN regexp_full_match(start_t, '[0-9]+(\.[0-9]+)?') THEN ascend_us_ns(start_t) END AS start_ns,
        CASE WHEN regexp_full_match(dur_t, '[0-9]+(\.[0-9]+)?') THEN ascend_us_ns(dur_t) END AS dur_ns,
        CASE WHEN NOT regexp_full_match(wait_t, '-?[0-9]+(\.[0-9]+)?') THEN NULL
             WHEN starts_with(wait_t, '-') THEN -ascend_us_ns(substr(wait_t, 2))
             ELSE ascend_us_ns(wait_t) END AS wait_ns
    FROM cells
)
SELECT $run_id AS run_id, 0 AS seq,
    -- the end (start + duration) must fit in BIGINT too: every report adds them
    CASE WHEN start_ns IS NULL OR dur_ns IS NULL OR (wait_t IS NOT NULL AND wait_ns IS NULL)
              OR start_ns > 9223372036854775807 - dur_ns
         THEN error('tracedb:bad-time') ELSE start_ns END AS start_ns,
    dur_ns,
    CASE WHEN contains(name, chr(0)) OR contains(op_type, chr(0)) OR contains(core_type, chr(0))
              OR contains(op_state, chr(0)) OR contains(input_shapes, chr(0)) OR contains(input_dtypes, chr(0))
              OR contains(input_formats, chr(0)) OR contains(output_shapes, chr(0))
              OR contains(output_dtypes, chr(0)) OR contains(output_formats, chr(0)) OR contains(extra_text, chr(0))
         THEN error('tracedb:nul') ELSE name END AS name,
    op_type,
    CASE WHEN core_type IN ('HCCL', 'COMMUNICATION') OR starts_with(name, 'hcom_') THEN 'comm' ELSE 'kernel' END AS kind,
    core_type, device_id, stream_id, task_id, step_id,
    nullif(model_id, 4294967295) AS model_id, nullif(context_id, 4294967295) AS context_id,
    block_dim, mix_block_dim,
    wait_ns,
    op_state,
    -- shapes stay as written (msprof quotes them itself: "1,4096"); reports strip the quotes
    input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes, output_formats,
    metrics, extra_text
FROM times;
