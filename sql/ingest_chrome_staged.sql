-- Bookkeeping of one staged batch of a Chrome trace, on the parsing connection, before the batch is
-- handed to the mover (ingest_chrome_move_kernels, ingest_chrome_move_host). Inputs:
-- tracedb_stage.<table> (this batch), TEMP _meta (metadata events of the batches so far). No parameters.
-- _meta gains this batch's metadata ('M') events, for tracks.
-- Ascend trace_view.json tasks have no category: they are the complete events of the process named
--   'Ascend Hardware' (such a file is read in one batch, so its names are known here).
-- Output (last statement): events staged, complete events without a numeric ts, and the name of the
--   first of those (ingest refuses such a file).
INSERT INTO _meta SELECT pid, tid, name, arg_name, sort_index FROM tracedb_stage.{ev} WHERE ph = 'M';
UPDATE tracedb_stage.{ev} SET kind = 'kernel'
WHERE ph = 'X' AND cat IS NULL AND kind IS NULL
  AND pid IN (SELECT pid FROM _meta WHERE name = 'process_name' AND arg_name = 'Ascend Hardware');
SELECT count(*), count(*) FILTER (WHERE ph = 'X' AND start_ns IS NULL),
    arg_min(name, rowid) FILTER (WHERE ph = 'X' AND start_ns IS NULL)
FROM tracedb_stage.{ev};
