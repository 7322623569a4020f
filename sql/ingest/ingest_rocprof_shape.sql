-- The shape of a rocprofv3 JSON results document: its tool entries, those with agents, with kernel_symbols,
-- the kernel dispatches of all, and those with buffer_records.
-- Inputs: TEMP _rocprof_tools.
-- Parameters: none.
-- Output: rows, one: the five counts (the dispatches NULL when no entry has any).
SELECT count(*), count(agents), count(kernel_symbols), sum(len(buffer_records.kernel_dispatch)),
count(buffer_records) FROM _rocprof_tools;
