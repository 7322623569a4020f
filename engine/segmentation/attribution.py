"""The host side of device time: each kernel's launching module, annotation and op
(sql/segment/attribute_modules.sql), and the categories kernels with generic names take from their module
(sql/segment/module_categories.sql)."""
from tracedb import sql
from tracedb.engine.segmentation.segment import Bound


# A quantised GEMM's name: moved out of moe under attention, it is gemm_quant (the GPU profile's own rule)
QUANT_GEMM = r"(?i)fp8|e4m3|e5m2|int8|w8a8|f8|ptp128|dptp128"


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
            "SELECT EXISTS (SELECT 1 FROM host_events WHERE run_id IN (SELECT unnest($r)) AND (cat = 'user_annotation' "
            "OR cat = 'python_function' AND starts_with(name, 'nn.Module: ')))", {"r": b.run_ids}).fetchone()[0]:
        return
    cats = b.profile.categories
    ords = {c: cats.index(c) if c in cats else None for c in ("other", "moe", "topk", "gemm", "gemm_quant")}
    other = ords["other"]
    if not attributed:
        scoped = [o for o in (other, ords["moe"], ords["topk"]) if o is not None]
        sql.run(con, "attribute_scope_other", {"ords": scoped})
        sql.run(con, "attribute_modules", {"run_ids": b.run_ids})
    sql.run(con, "module_categories", {"other_ord": other, "moe_ord": ords["moe"], "topk_ord": ords["topk"],
                                       "gemm_ord": ords["gemm"], "gemm_quant_ord": ords["gemm_quant"] or ords["gemm"],
                                       "quant_pattern": QUANT_GEMM})
    # passes none of whose generic kernels has a module frame while others' do: names alone decided there
    bare = con.execute(
        "SELECT s.run_id, s.pass, sum(s.dur_ns) FILTER (WHERE s.cat_ord = $o) "
        "FROM _assigned s JOIN _attr a USING (run_id, seq) "
        "GROUP BY ALL HAVING count(a.nn_module) = 0 AND count(*) FILTER (WHERE s.cat_ord = $o) > 0 ORDER BY ALL",
        {"o": other}).fetchall()
    framed_runs = {r for (r,) in con.execute("SELECT DISTINCT s.run_id FROM _assigned s "
                                             "JOIN _attr a USING (run_id, seq) "
                                             "WHERE a.nn_module IS NOT NULL").fetchall()}
    if not attributed:
        con.execute("DROP TABLE _attr")
    for rid, p, ns in bare:
        if rid in framed_runs:
            b.notes.append(f"run '{b.run_names[rid]}' pass {p} has no nn.Module frames (a frame entered before the "
                           f"capture started is not in the trace): its categories come from kernel names alone, so "
                           f"{ns / 1000:,.3f} us stay other that module frames put in norm, attention, ... elsewhere")
    framed = con.execute("SELECT category, kernels, ns FROM _by_module WHERE how = 'frame' ORDER BY ns DESC").fetchall()
    if framed:
        b.notes.append(f"{sum(n for _, _, n in framed) / 1000:,.3f} us categorised by the module or annotation that "
                       "launched them rather than by name (a grouped GEMM under attention is a GEMM, a top-k under "
                       "an MoE block is routing): "
                       + ", ".join(f"to {c} {ns / 1000:,.3f} us ({k})" for c, k, ns in framed))
    rows = con.execute("SELECT category, kernels, ns FROM _by_module WHERE how = 'module'").fetchall()
    moved = [r for r in rows if r[0] is not None]
    if moved:
        unframed = [f"{ns / 1000:,.3f} us ({k}) launched outside any nn.Module frame stay other"
                    for c, k, ns in rows if c is None]
        b.notes.append(f"{sum(n for _, _, n in moved) / 1000:,.3f} us of kernels with generic names (elementwise, "
                       "reduce, copy) categorised by their launching module: "
                       + ", ".join(f"{c} {ns / 1000:,.3f} us ({k})" for c, k, ns in moved)
                       + (f"; {unframed[0]}" if unframed else ""))
