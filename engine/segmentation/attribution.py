"""The host side of device time: each kernel's launching module, annotation and op
(sql/segment/attribute_modules.sql), and each kernel's category from the best evidence: its launching module,
then its launching op, then its name (sql/segment/module_categories.sql)."""
from tracedb import sql
from tracedb.engine.segmentation import graph_capture
from tracedb.engine.segmentation.categories import evidence_params
from tracedb.engine.segmentation.binding import Bound

# what each kind of evidence is called in the notes
EVIDENCE = {"module": "the launching module", "op": "the launching op", "name": "the kernel name",
            "frame": "the kernel name refined by its launching frame (a grouped GEMM under attention is a GEMM, "
                     "a top-k under an MoE block is routing)"}


def attribute(con, b, note: bool = True) -> dict[int, int]:
    """Module of every kernel of the bound runs (_attr), with a note on kernels without a host launch (`note`:
    a report that says so its own way passes False). Returns, per run, how many of its kernels have one."""
    sql.run(con, "attribute_scope_runs", {"run_ids": b.run_ids})
    graph_capture.match(con, b)     # graph-replayed kernels take their capture's frames
    sql.run(con, "attribute_modules", {"run_ids": b.run_ids})
    missing = sql.run(con, "attribution_missing").fetchone()
    if missing[0] and note:
        b.notes.append(f"{missing[0]:,} of {missing[1]:,} kernels have no launching runtime call in the trace "
                       "(no correlation id, or host side not recorded): module '(no host launch)'")
    launched = dict(sql.run(con, "attribution_launched").fetchall())
    return {rid: launched.get(rid, 0) for rid in b.run_ids}


def categorize_by_module(con, b: Bound, attributed: bool = False):
    """After assign: every kernel takes the category of its launching module, else of its launching op, else
    of its name (communication: always its name's), when the runs were recorded with host frames (cpu_op,
    annotation or nn.Module); notes say how much device time each kind of evidence decided, what moved, and
    how much stays other. `attributed`: attribute() has filled _attr for every kernel of the runs, so it is
    read as it is (and kept); else the assigned kernels but communication are attributed, into a _attr
    dropped afterwards."""
    if not sql.run(con, "assigned_count").fetchone()[0] or not sql.run(
            con, "attribution_host_frames", {"run_ids": b.run_ids}).fetchone()[0]:
        return
    if not attributed:
        sql.run(con, "attribute_scope_assigned")
        graph_capture.match(con, b)
        sql.run(con, "attribute_modules", {"run_ids": b.run_ids})
    params = evidence_params(b.profile)
    sql.run(con, "module_categories", params)
    # passes none of whose kernels has a module frame while others' do: no module decided there
    bare = sql.run(con, "attribution_bare_passes", {"other_ord": params["other_ord"]}).fetchall()
    framed_runs = {r for (r,) in sql.run(con, "attribution_framed_runs").fetchall()}
    if not attributed:
        sql.run(con, "attr_drop")
    for rid, p, ns, ops in bare:
        if rid in framed_runs:
            b.notes.append(f"run '{b.run_names[rid]}' pass {p} has no nn.Module frames (a frame entered before the "
                           f"capture started is not in the trace): its categories come from kernel names "
                           f"{'and launching ops ' if ops else ''}alone, so {ns / 1000:,.3f} us stay other that module "
                           f"frames put in norm, attention, ... elsewhere")
    b.notes += evidence_notes(sql.run(con, "attribution_by_evidence").fetchall())


def evidence_notes(rows) -> list[str]:
    """The notes of _by_evidence rows (evidence, category, by_name, framed, kernels, ns): how much device time
    each kind of evidence decided, what took another category than its name's, and what stays other."""
    total = sum(r[5] for r in rows)
    if not total:
        return []

    def us(ns):
        return f"{ns / 1000:,.3f} us"

    def pct(ns):   # two significant digits below 1 % (0.041 %, not 0.0 %)
        p = 100 * ns / total
        return f"{p:.1f} %" if p >= 1 or not p else f"{p:.2g} %" if p >= 0.01 else "< 0.01 %"

    by_kind = {}
    for ev, *_, ns in rows:
        by_kind[ev] = by_kind.get(ev, 0) + ns
    notes = [f"categories by evidence, of {us(total)} of device time: "
             + ", ".join(f"{EVIDENCE[k]} decided {pct(by_kind[k])} ({us(by_kind[k])})"
                         for k in ("module", "op", "name", "frame") if by_kind.get(k))
             + (f"; nothing decided {pct(by_kind['none'])} (other)" if by_kind.get("none") else "")]
    moved = {}
    for ev, cat, by_name, _, k, ns in rows:
        if cat != by_name:
            m = moved.setdefault(cat, [0, 0, {}])
            m[0], m[1] = m[0] + k, m[1] + ns
            m[2][by_name] = m[2].get(by_name, 0) + ns
    if moved:
        notes.append(f"{us(sum(m[1] for m in moved.values()))} take another category than their name gives, from "
                     "their launching module, op or frame: "
                     + ", ".join(f"{c} {us(ns)} ({k}; by name {', '.join(sorted(fr, key=lambda n: (-fr[n], n)))})"
                                 for c, (k, ns, fr) in sorted(moved.items(), key=lambda kv: (-kv[1][1], kv[0]))))
    other = [(framed, k, ns) for ev, cat, _, framed, k, ns in rows if ev == "none"]
    if other:
        k_all, ns_all = sum(k for _, k, _ in other), sum(ns for _, _, ns in other)
        k_bare, ns_bare = sum(k for f, k, _ in other if not f), sum(ns for f, _, ns in other if not f)
        notes.append(f"{us(ns_all)} ({k_all}), {pct(ns_all)} of device time, stay other: neither their launching "
                     "module, their launching op nor their name gives a category"
                     + (f"; {us(ns_bare)} ({k_bare}) of them launched outside any nn.Module frame" if k_bare else ""))
    return notes
