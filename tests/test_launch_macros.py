"""The launch of a kernel is written once for queries (sql/store/launch_macros.sql: launches_of for the kernels a
query names, first_launches for whole runs) and once for users of the plain DuckDB CLI (the stored view kernel_launches,
which also follows Ascend's flows). The three give the same launch for every kernel a correlation id links."""
import tiny_graphs
import tiny_kineto

import tracedb


def _store(con, tmp_path):
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "trace.json"), name="gpu")
    # a graph launch: one call carrying the correlation id of every kernel of its graph
    tracedb.ingest_trace(con, tiny_graphs.write_replay(tmp_path / "graph.json", [tiny_graphs.full_graph()]),
                         name="graph")
    return [r for r, in con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]


def test_the_macros_and_the_view_give_every_kernel_the_same_launch(con, tmp_path):
    runs = _store(con, tmp_path)
    view = con.execute("SELECT run_id, seq, call_seq, call_ns, api, pid, tid FROM kernel_launches "
                       "WHERE via = 'correlation' ORDER BY run_id, seq").fetchall()
    bulk = con.execute("SELECT run_id, seq, call_seq, call_ns, api, pid, tid FROM first_launches(?) "
                       "ORDER BY run_id, seq", [runs]).fetchall()
    named = con.execute("SELECT k.run_id, k.seq, l.call_seq, l.call_ns, l.api, l.pid, l.tid FROM kernels k "
                        "JOIN launches_of('kernels') l USING (run_id, correlation_id) "
                        "ORDER BY k.run_id, k.seq").fetchall()
    assert len(view) > 20
    assert bulk == view
    assert named == view
    # a graph launch is the launch of every kernel of its graph
    per_call = {}
    for run, _, call, _, api, _, _ in view:
        if "graphlaunch" in api.lower():
            per_call[call] = per_call.get(call, 0) + 1
    assert per_call and min(per_call.values()) == len(tiny_graphs.full_graph())


def test_a_kernel_no_call_carries_has_no_launch(con, tmp_path):
    runs = _store(con, tmp_path)
    con.execute("UPDATE trace_events SET correlation_id = correlation_id + 1000000 "
                "WHERE kind IS NULL AND run_id = ?", [runs[0]])
    assert con.execute("SELECT count(*) FROM first_launches(?)", [[runs[0]]]).fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM kernels k JOIN launches_of('kernels') l USING (run_id, correlation_id) "
                       "WHERE k.run_id = ?", [runs[0]]).fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM first_launches(?)", [[runs[1]]]).fetchone()[0] > 0
