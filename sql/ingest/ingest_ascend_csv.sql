-- Load Ascend kernel_details.csv / op_summary CSV files of one run straight into kernels_raw.
-- The CSV reader parses "1718851234567890.123<TAB>" as DECIMAL(25,6) itself (exact, and a bad value
-- fails with its line number); trunc(x * 1000) gives integer ns, dropping digits below 1 ns.
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
--   $cols STRUCT: column -> type name for c0..cN (tracedb.ingest.ascend_csv picks DECIMAL for times,
--     BIGINT for ids, VARCHAR else)
-- Output: rows in kernels_raw, one per CSV row (seq 0 and dup NULL until ingest_finish.sql).
INSERT INTO kernels_raw BY NAME
WITH csv AS (
    SELECT {projection},
        {metrics} AS metrics,
        {extra_text} AS extra_text
    FROM read_csv($files, auto_detect = false, header = true, delim = ',', quote = '"', escape = '"',
                  nullstr = ['N/A', ''], columns = $cols)
)
SELECT $run_id AS run_id, 0 AS seq,
    CAST(trunc(start_us * 1000) AS BIGINT) AS start_ns,
    CAST(trunc(dur_us * 1000) AS BIGINT) AS dur_ns,
    name, op_type,
    CASE WHEN core_type IN ('HCCL', 'COMMUNICATION') OR starts_with(name, 'hcom_') THEN 'comm' ELSE 'kernel' END AS kind,
    core_type, device_id, stream_id, task_id, step_id,
    nullif(model_id, 4294967295) AS model_id, nullif(context_id, 4294967295) AS context_id,
    block_dim, mix_block_dim,
    CAST(trunc(wait_us * 1000) AS BIGINT) AS wait_ns,
    op_state,
    -- shapes stay as written (msprof quotes them itself: "1,4096"); reports strip the quotes
    input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes, output_formats,
    metrics, extra_text
FROM csv;
