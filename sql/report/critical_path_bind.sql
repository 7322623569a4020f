-- Report `critical-path`: each node's binding predecessor: of its candidates (_cp_cands), the one released
-- last; on a tie the stream (device) or the thread (host) one, then an event, sync or collective, then the
-- launch: the work already queued bounds the node as much as the call does. A sync's device work, and a
-- collective's last other member to arrive, bind only the node's end: they count only when they came after
-- the node began (a call made once the device was idle waited for nothing; a rank that arrived last waited
-- for no one).
-- Inputs: _cp_nodes, _cp_cands (critical_path_nodes.sql, critical_path_collectives.sql), _cp_offsets.
-- Parameters: none.
-- Output: TEMP _cp_nodes, one row per row of _cp_nodes, with its columns and these new columns:
--   pred BIGINT: the binding predecessor's id; NULL when the node waited for nothing in the trace
--   release_ns BIGINT: when that predecessor released the node, on the node's clock
--   edge VARCHAR: stream | launch | event | thread | sync | collective; NULL with pred
--   off_ns BIGINT: ns to add to the node's times to read them on the job's clock (_cp_offsets; 0 outside
--     --job)
CREATE OR REPLACE TEMP TABLE _cp_nodes AS
WITH bound AS (
    SELECT c.id, arg_max(c.pred, (c.release_ns, -c.pref)) AS pred, max(c.release_ns) AS release_ns,
        arg_max(c.edge, (c.release_ns, -c.pref)) AS edge
    FROM _cp_cands c JOIN _cp_nodes n USING (id)
    WHERE c.edge NOT IN ('sync', 'collective') OR c.release_ns > n.start_ns
    GROUP BY c.id
)
SELECT n.run_id, n.id, n.side, n.kind, n.lane, n.ref_seq, n.name, n.start_ns, n.end_ns, n.launch,
    b.pred, b.release_ns, b.edge, coalesce(o.off_ns, 0)::BIGINT AS off_ns
FROM _cp_nodes n LEFT JOIN bound b USING (id) LEFT JOIN _cp_offsets o USING (run_id)
ORDER BY n.id;
