-- Drop the TEMP tables of an Ascend SQLite export once its rows are in kernels_raw.
-- Inputs: TEMP _adb_* of ingest_ascend_db_tables.
-- Parameters: none.
-- Output: none (the tables are dropped).
DROP TABLE _adb_strings;
DROP TABLE _adb_task;
DROP TABLE _adb_compute;
DROP TABLE _adb_comm;
DROP TABLE _adb_comm_tasks;
DROP TABLE _adb_steps;
DROP TABLE _adb_ranks;
DROP TABLE _adb_npus;
DROP TABLE _adb_api;
DROP TABLE _adb_api_types;
DROP TABLE _adb_fwk;
DROP TABLE _adb_links;
DROP TABLE _adb_launched_by;
DROP TABLE _adb_pmu;
