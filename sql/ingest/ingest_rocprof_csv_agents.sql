-- The device of every agent a rocprofv3 CSV capture names (Agent_Id of the kernel trace, Source_Agent_Id
-- and Destination_Agent_Id of the memory copies), as the index of the GPU among the node's GPUs, the index
-- rocprofv3's JSON output gives (logical_node_type_id). rocprofv3 spells an agent in three ways
-- (rocprofiler-sdk, source/lib/output/metadata.cpp, get_agent_index): `Agent N` with N the logical node id
-- (the default, --agent-index relative) or the node id (absolute), `GPU N` / `CPU N` with N the index
-- among the agents of that type (type-relative), and before ROCm 7 the bare node id `N`. The agent info
-- file beside the trace (Node_Id, Logical_Node_Id, Agent_Type, Product_Name) turns a node id into a GPU
-- index: the GPUs in Node_Id order, as rocprofiler-sdk numbers them. Without it, `GPU N` is GPU N, and
-- `Agent N` or `N` keeps its number N (an agent of the kernel trace is then taken as a GPU).
-- Inputs: TEMP _rcsv_rows.
-- Parameters: none.
-- Output: TEMP _rcsv_devices, one row per agent text: agent VARCHAR, as written; parsed BOOLEAN, it reads
--   as one of the spellings above; device_id INTEGER, the GPU index (NULL for an agent the agent info lists
--   as no GPU); is_gpu BOOLEAN; device_name VARCHAR, Product_Name (else Name) from the agent info.
CREATE OR REPLACE TEMP TABLE _rcsv_devices AS
WITH info AS (
    SELECT TRY_CAST(trim(node_id) AS BIGINT) AS node_id,
           coalesce(TRY_CAST(trim(logical_node_id) AS BIGINT), TRY_CAST(trim(node_id) AS BIGINT)) AS logical_id,
           upper(trim(agent_type)) AS agent_type,
           coalesce(nullif(trim(product_name), ''), nullif(trim(agent_name), '')) AS device_name
    FROM _rcsv_rows WHERE part = 'agent_info'
), gpus AS (
    SELECT node_id, (row_number() OVER (ORDER BY node_id) - 1)::INTEGER AS gpu_index
    FROM info WHERE agent_type = 'GPU'
), listed AS (
    SELECT i.*, g.gpu_index FROM info i LEFT JOIN gpus g USING (node_id)
), named AS (
    SELECT agent, bool_or(part = 'kernel_trace') AS runs_kernels
    FROM (SELECT part, agent FROM _rcsv_rows WHERE part = 'kernel_trace'
          UNION ALL SELECT part, src_agent FROM _rcsv_rows WHERE part = 'memory_copy_trace'
          UNION ALL SELECT part, dst_agent FROM _rcsv_rows WHERE part = 'memory_copy_trace')
    WHERE agent IS NOT NULL
    GROUP BY agent
), parsed AS (
    SELECT agent, runs_kernels,
           regexp_extract(agent, '^\s*(?:(Agent|GPU|CPU)\s+)?(\d{1,9})\s*$', 1) AS label,
           TRY_CAST(regexp_extract(agent, '^\s*(?:(Agent|GPU|CPU)\s+)?(\d{1,9})\s*$', 2) AS BIGINT) AS num
    FROM named
)
SELECT p.agent, p.num IS NOT NULL AS parsed,
       CASE WHEN p.label = 'GPU' THEN p.num
            WHEN p.label = 'CPU' THEN NULL
            WHEN (SELECT count(*) FROM info) > 0 THEN l.gpu_index
            ELSE p.num END::INTEGER AS device_id,
       CASE WHEN p.label IN ('GPU', 'CPU') THEN p.label = 'GPU'
            WHEN (SELECT count(*) FROM info) > 0 THEN coalesce(l.agent_type = 'GPU', false)
            ELSE p.runs_kernels END AS is_gpu,
       coalesce(l.device_name, (SELECT i.device_name FROM listed i WHERE p.label = 'GPU' AND i.gpu_index = p.num))
           AS device_name
FROM parsed p
LEFT JOIN listed l ON (p.label = 'Agent' AND l.logical_id = p.num) OR (p.label = '' AND l.node_id = p.num);
