"""The host side of device time: each kernel's launching module, annotation and op
(sql/segment/attribute_modules.sql), and the categories kernels with generic names take from their module
(sql/segment/module_categories.sql)."""
from tracedb import sql
from tracedb.engine.segment import Bound


def attribute(con, b) -> dict[int, int]:
    """Module of every kernel of the bound runs (_attr), with a note on kernels without a host launch.
    Returns, per run, how many of its kernels have one."""
    sql.run(con, "attribute_scope_runs", {"run_ids": b.run_ids})
    sql.run(con, "attribute_modules", {"run_ids": b.run_ids})
    missing = con.execute("SELECT count(*) FILTER (WHERE module = '(no host launch)'), count(*) FROM _attr").fetchone()
    if missing[0]:
        b.notes.append(f"{missing[0]:,} of {missing[1]:,} kernels have no launching runtime call in the trace "
                       "(no correlation id, or host side not recorded): module '(no host launch)'")
    launched = dict(con.execute("SELECT run_id, count(*) FILTER (WHERE module <> '(no host launch)') FROM _attr "
                                "GROUP BY run_id").fetchall())
    return {rid: launched.get(rid, 0) for rid in b.run_ids}


def categorize_by_module(con, b: Bound, attributed: bool = False):
    """After assign: kernels whose name gives no category ('other') take their launching module's, when the
    runs were recorded with nn.Module frames; a note says how much time moved, and how much stayed 'other'
    for want of a module frame. `attributed`: attribute() has filled _attr for every kernel of the runs,
    so it is read as it is (and kept); else only the 'other' kernels are attributed, into a _attr dropped
    afterwards."""
    if not con.execute("SELECT count(*) FROM _assigned").fetchone()[0] or not con.execute(
            "SELECT EXISTS (SELECT 1 FROM host_events WHERE run_id IN (SELECT unnest($r)) AND cat = 'python_function' "
            "AND starts_with(name, 'nn.Module: '))", {"r": b.run_ids}).fetchone()[0]:
        return
    other = b.profile.categories.index("other")
    if not attributed:
        sql.run(con, "attribute_scope_other", {"other_ord": other})
        sql.run(con, "attribute_modules", {"run_ids": b.run_ids})
    sql.run(con, "module_categories", {"other_ord": other})
    if not attributed:
        con.execute("DROP TABLE _attr")
    rows = con.execute("SELECT category, kernels, ns FROM _by_module").fetchall()
    moved = [r for r in rows if r[0] is not None]
    if moved:
        unframed = [f"{ns / 1000:,.3f} us ({k}) launched outside any nn.Module frame stay other"
                    for c, k, ns in rows if c is None]
        b.notes.append(f"{sum(n for _, _, n in moved) / 1000:,.3f} us of kernels with generic names (elementwise, "
                       "reduce, copy) categorised by their launching module: "
                       + ", ".join(f"{c} {ns / 1000:,.3f} us ({k})" for c, k, ns in moved)
                       + (f"; {unframed[0]}" if unframed else ""))
