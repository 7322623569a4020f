-- The TEMP tables an Ascend SQLite export (ascend_pytorch_profiler_N.db, msprof_N.db) is copied into, one
-- per table of the file that tracedb reads, with the columns tracedb.ingest.ascend_db reads from it (in this
-- order; a column the file lacks is NULL, a table it lacks stays empty). Times are integer ns as written;
-- every text of the file is an id of STRING_IDS.
-- Inputs: none (tracedb.ingest.ascend_db fills the tables through Arrow batches).
-- Parameters: none.
-- Output: TEMP _adb_strings (STRING_IDS), _adb_task (TASK), _adb_compute (COMPUTE_TASK_INFO), _adb_comm
--   (COMMUNICATION_OP), _adb_comm_tasks (COMMUNICATION_TASK_INFO), _adb_steps (STEP_TIME), _adb_ranks
--   (RANK_DEVICE_MAP), _adb_npus (NPU_INFO), _adb_api (CANN_API), _adb_api_types (ENUM_API_TYPE), _adb_fwk
--   (PYTORCH_API, its text times as integers), _adb_links (CONNECTION_IDS) and _adb_pmu (TASK_PMU_INFO,
--   its values as DOUBLE), empty. Read by
--   ingest_ascend_db_check, ingest_ascend_db_metrics, ingest_ascend_db_insert, ingest_ascend_db_host and
--   ingest_ascend_db_facts;
--   dropped by ingest_ascend_db_drop.
CREATE OR REPLACE TEMP TABLE _adb_strings (id BIGINT, value VARCHAR);
CREATE OR REPLACE TEMP TABLE _adb_task (globalTaskId BIGINT, startNs BIGINT, endNs BIGINT, deviceId BIGINT,
    streamId BIGINT, taskId BIGINT, modelId BIGINT, contextId BIGINT, connectionId BIGINT, taskType BIGINT);
CREATE OR REPLACE TEMP TABLE _adb_compute (globalTaskId BIGINT, name BIGINT, opType BIGINT, taskType BIGINT,
    blockDim BIGINT, mixBlockDim BIGINT, inputShapes BIGINT, inputDataTypes BIGINT, inputFormats BIGINT,
    outputShapes BIGINT, outputDataTypes BIGINT, outputFormats BIGINT, waitNs BIGINT);
CREATE OR REPLACE TEMP TABLE _adb_comm (opName BIGINT, startNs BIGINT, endNs BIGINT, opId BIGINT, opType BIGINT,
    waitNs BIGINT, connectionId BIGINT);
CREATE OR REPLACE TEMP TABLE _adb_comm_tasks (globalTaskId BIGINT, opId BIGINT);
CREATE OR REPLACE TEMP TABLE _adb_steps (id BIGINT, startNs BIGINT, endNs BIGINT);
CREATE OR REPLACE TEMP TABLE _adb_ranks (rankId BIGINT, deviceId BIGINT);
CREATE OR REPLACE TEMP TABLE _adb_npus (id BIGINT, name VARCHAR);
CREATE OR REPLACE TEMP TABLE _adb_api (startNs BIGINT, endNs BIGINT, type BIGINT, connectionId BIGINT,
    globalTid BIGINT, name BIGINT);
CREATE OR REPLACE TEMP TABLE _adb_api_types (id BIGINT, name VARCHAR);
CREATE OR REPLACE TEMP TABLE _adb_fwk (startNs BIGINT, endNs BIGINT, globalTid BIGINT, name BIGINT, connectionId BIGINT,
    type BIGINT);
CREATE OR REPLACE TEMP TABLE _adb_links (id BIGINT, connectionId BIGINT);
CREATE OR REPLACE TEMP TABLE _adb_pmu (globalTaskId BIGINT, name BIGINT, value DOUBLE);
