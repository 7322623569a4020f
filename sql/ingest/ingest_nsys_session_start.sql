-- The capture's UTC start in an Nsight Systems export, on the file's own sqlite3 connection.
-- Inputs: the SQLite file's TARGET_INFO_SESSION_START_TIME.
-- Parameters: none.
-- Output: rows, none or one: utcEpochNs (an integer when the file is well formed).
SELECT "utcEpochNs" FROM TARGET_INFO_SESSION_START_TIME LIMIT 1;
