#!/usr/bin/env python3
"""Generator of a job of N ranks: one PyTorch-profiler (Kineto) trace per rank, with known clock offsets,
a slow rank in chosen layers and late arrivals at chosen collectives, and a truth file that says exactly what
was injected. Plain stdlib Python, deterministic: the same arguments give the same bytes.

Usage:
    python bench/gen_job.py OUTDIR [--ranks 4] [--layers 8] [--passes 3] [--tp N] [--slow-rank R]
        [--slow-layers 3,5] [--slow-factor 1.5] [--late 'rank=1,coll=7,us=150' ...]
        [--offsets-us 0,12345,-678,9000] [--jitter-ns 0] [--c10d-seq] [--seed 0]

    OUTDIR          gets rank<r>.pt.trace.json per rank and truth.json (`tracedb ingest OUTDIR --name job`
                    makes the runs job-rank0 ... with the tag job=job)
    --tp N          ranks per tensor-parallel group (default: all ranks). Each layer ends with an all-reduce
                    over the rank's TP group; with several TP groups, each pass ends with an all-gather over the
                    data-parallel group (the ranks of equal r mod N), so that no collective holds every rank
                    and clock alignment must chain through shared ranks
    --slow-rank R --slow-layers L,..  rank R's compute kernels in those layers take --slow-factor times longer
                    (default 1.5): it arrives late at the layer's all-reduce; the others wait
    --late SPEC     rank=R,coll=C,us=X: rank R starts the C-th collective of its TP group (0-based: the `seq` of
                    `tracedb report collectives`) X µs late; every member of the group still ends together.
                    Repeatable
    --offsets-us    each rank's clock offset in µs (comma list, one per rank; default 0 for all): rank r writes
                    true time + offset_r. tracedb's alignment should add offset_ref - offset_r (ref: rank 0)
    --jitter-ns J   each rank's end of each collective is moved by a seeded integer in [-J, J] ns (default 0:
                    every member ends at the same ns, so the offsets are recovered exactly)
    --c10d-seq      write c10d's sequence number ("Seq") in the collectives' args, as newer PyTorch does

What each rank's trace holds, in Kineto's shapes (those tests/tiny_kineto.py and bench/gen_kineto_trace.py
write): distributedInfo {backend, rank, world_size, pg_count, pg_config: [{pg_name, pg_desc,
backend_config, pg_size, ranks}], nccl_version}; per pass a ProfilerStep#p annotation; per layer an
`nn.Module: DecoderLayer_<l>` frame, and six kernels on stream 7 (RMSNorm, QKV GEMM, the anchor
flash_fwd_kernel, O-projection GEMM, two MLP GEMMs), each launched by a cpu_op and a cudaLaunchKernel with its
correlation id; then the NCCL all-reduce on stream 20 with the args c10d records ("Collective name", "In msg
nelems", "Out msg nelems", "Group size", "dtype", "In split size", "Out split size", "Process Group Name",
"Process Group Description", "Process Group Ranks"). Times are integer ns, printed as µs with 3 decimals
relative to baseTimeNanoseconds, so they are exact.

Timing model (true time, before the offsets): ranks start pass 0 together. A kernel follows the previous one
after a 1 µs gap; its duration is the kind's base (RMSNorm 5 µs, GEMMs 12-30 µs, attention 15 µs) plus a
seeded jitter of up to ±2 % of it (slow layers: times the factor). A rank arrives at a collective 1 µs after its
last compute kernel (plus its injected lateness); the collective ends, on every member, at the latest arrival
plus the transfer (8 µs + bytes at 100 GB/s), plus the end jitter. The next layer starts 1 µs after.

truth.json: the offsets (`offsets_ns`, and `align_ns`, what to add to each rank), the slow rank, its layers and
its injected slowdown per rank, layer and pass (`slowdown_ns`: extra ns of compute), the late arrivals
(`late`: rank, group, seq, late_ns and the instance's true arrival skew), and every collective instance
(`collectives`: group, seq, op, bytes, ranks, arrival_skew_ns, each member's true arrival_ns, transfer_ns, the last
rank to arrive).
"""
import argparse
import json
import os
import random
import sys

BASE_NS = 1_760_000_000_000_000_000      # baseTimeNanoseconds of every rank
T0_NS = 5_000_000_000                    # pass 0 starts 5 s after the base (room for negative offsets)
HOST_PID, HOST_TID, STREAM, NCCL_STREAM = 4242, 4242, 7, 20
GAP_NS = 1_000
PASS_GAP_NS = 200_000
HOST_LEAD_NS = 40_000                    # the host launches each kernel this long before it starts
# (name, base duration ns, bytes of its weights: for the record only)
LAYER_KERNELS = (
    ("void flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, "
     "unsigned int, unsigned int, unsigned int, unsigned int, float, float)", 5_000, "aten::rms_norm"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
     "kernel__5x_cublas", 20_000, "aten::mm"),
    ("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, false, "
     "true>(Flash_fwd_params)", 15_000, "FlashAttnFunc"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
     "kernel__5x_cublas", 12_000, "aten::mm"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1_execute_segment_k_off_"
     "kernel__5x_cublas", 30_000, "aten::mm"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
     "kernel__5x_cublas", 25_000, "aten::mm"),
)
ANCHOR = "flash_fwd_kernel"
K_ALLREDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
K_ALLGATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
TP_NELEMS = 16 * 4096                    # one decode step of 16 tokens, hidden 4096, bf16
DP_NELEMS = 1 << 20
BF16 = 2


def parse_late(spec: str) -> dict:
    kv = dict(p.split("=", 1) for p in spec.split(",") if "=" in p)
    try:
        return {"rank": int(kv["rank"]), "coll": int(kv["coll"]), "ns": round(float(kv["us"]) * 1000)}
    except (KeyError, ValueError):
        raise SystemExit(f"--late {spec!r}: expected rank=R,coll=C,us=X") from None


def groups(ranks: int, tp: int) -> list[dict]:
    """pg_config entries: the default group, the TP groups, and the DP groups when there are several TP groups."""
    out = [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": ranks,
            "ranks": list(range(ranks))}]
    for g in range(ranks // tp):
        out.append({"pg_name": str(len(out)), "pg_desc": "tp", "backend_config": "cuda:nccl", "pg_size": tp,
                    "ranks": list(range(g * tp, (g + 1) * tp))})
    if ranks // tp > 1:
        for j in range(tp):
            members = list(range(j, ranks, tp))
            out.append({"pg_name": str(len(out)), "pg_desc": "dp", "backend_config": "cuda:nccl",
                        "pg_size": len(members), "ranks": members})
    return out


class Rank:
    """One rank's events (true times; the offset is added when written) and its counters."""

    def __init__(self, r: int):
        self.r, self.events, self.corr, self.t = r, [], 1000, T0_NS

    def launch(self, name, start, dur, stream, cpu_op, args=None):
        self.corr += 1
        host = start - HOST_LEAD_NS
        self.events.append(("X", "cpu_op", cpu_op, HOST_PID, HOST_TID, host, 8_000,
                            {"External id": self.corr, **(args or {})}))
        self.events.append(("X", "cuda_runtime", "cudaLaunchKernel", HOST_PID, HOST_TID, host + 2_000, 4_000,
                            {"External id": self.corr, "cbid": 211, "correlation": self.corr}))
        self.events.append(("X", "kernel", name, 0, stream, start, dur, {
            "External id": self.corr, "queued": 0, "device": self.r, "context": 1, "stream": stream,
            "correlation": self.corr, "registers per thread": 128, "shared memory": 49152,
            "grid": [132, 1, 1], "block": [256, 1, 1], **(args or {})}))

    def host_span(self, cat, name, start, end):
        self.events.append(("X", cat, name, HOST_PID, HOST_TID, start - HOST_LEAD_NS, end - start, {}))


def generate(out: str, ranks=4, layers=8, passes=3, tp=None, slow_rank=None, slow_layers=(), slow_factor=1.5,
             late=(), offsets_us=None, jitter_ns=0, c10d_seq=False, seed=0) -> dict:
    tp = tp or ranks
    if ranks < 2 or ranks % tp or tp < 1:
        raise SystemExit(f"--ranks {ranks} --tp {tp}: expected at least 2 ranks, a multiple of --tp")
    offsets = [round(float(x) * 1000) for x in (offsets_us or [0] * ranks)]
    if len(offsets) != ranks:
        raise SystemExit(f"--offsets-us: {len(offsets)} values for {ranks} ranks")
    rng = random.Random(seed)
    pgs = groups(ranks, tp)
    tp_of = {r: next(g for g in pgs if g["pg_desc"] == "tp" and r in g["ranks"]) for r in range(ranks)}
    dp_of = {r: next((g for g in pgs if g["pg_desc"] == "dp" and r in g["ranks"]), None) for r in range(ranks)}
    late_at = {(x["rank"], x["coll"]): x["ns"] for x in late}
    rk = [Rank(r) for r in range(ranks)]
    count = {g["pg_name"]: 0 for g in pgs}       # next seq per group
    truth_colls, slowdown = [], {}

    def collective(members, group, kname, op, nelems_in, nelems_out, late_key):
        seq = count[group["pg_name"]]
        count[group["pg_name"]] += 1
        arrive = {r: rk[r].t + GAP_NS + (late_at.get((r, seq), 0) if late_key else 0) for r in members}
        nbytes = max(nelems_in, nelems_out) * BF16
        transfer = 8_000 + nbytes // 100
        end = max(arrive.values()) + transfer
        ends = {r: end + (rng.randint(-jitter_ns, jitter_ns) if jitter_ns else 0) for r in members}
        args = {"Collective name": op, "In msg nelems": nelems_in, "Out msg nelems": nelems_out,
                "Group size": len(members), "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]",
                "Process Group Name": group["pg_name"], "Process Group Description": group["pg_desc"],
                "Process Group Ranks": str(group["ranks"])}
        if c10d_seq:
            args["Seq"] = seq + 1                 # c10d counts from 1 per group
        for r in members:
            rk[r].launch(kname, arrive[r], ends[r] - arrive[r], NCCL_STREAM, "record_param_comms", args)
            rk[r].t = ends[r]
        last = max(members, key=lambda r: (arrive[r], r))
        truth_colls.append({"group": group["pg_name"], "group_desc": group["pg_desc"], "seq": seq, "op": op,
                            "bytes": nbytes, "ranks": len(members),
                            "arrival_skew_ns": max(arrive.values()) - min(arrive.values()),
                            "arrival_ns": {str(r): arrive[r] for r in members},
                            "transfer_ns": min(ends.values()) - max(arrive.values()), "last_rank": last,
                            "late": {str(r): late_at[(r, seq)] for r in members if late_key and (r, seq) in late_at}})

    for p in range(passes):
        pass_start = {r: rk[r].t for r in range(ranks)}
        for layer in range(layers):
            for r in range(ranks):
                R, t0, extra = rk[r], rk[r].t, 0
                for name, base, cpu_op in LAYER_KERNELS:
                    dur = base + rng.randint(-base // 50, base // 50)
                    if r == slow_rank and layer in slow_layers:
                        slow = round(dur * slow_factor)
                        extra, dur = extra + slow - dur, slow
                    start = R.t + GAP_NS
                    R.launch(name, start, dur, STREAM, cpu_op)
                    R.t = start + dur
                R.host_span("python_function", f"nn.Module: DecoderLayer_{layer}", t0, R.t)
                if extra:
                    slowdown.setdefault(str(r), {}).setdefault(str(layer), []).append(extra)
            for g in {id(tp_of[r]): tp_of[r] for r in range(ranks)}.values():
                if len(g["ranks"]) > 1:
                    collective(g["ranks"], g, K_ALLREDUCE, "allreduce", TP_NELEMS, TP_NELEMS, True)
        for g in {id(dp_of[r]): dp_of[r] for r in range(ranks) if dp_of[r]}.values():
            collective(g["ranks"], g, K_ALLGATHER, "allgather", DP_NELEMS, DP_NELEMS * len(g["ranks"]), False)
        for r in range(ranks):
            rk[r].host_span("user_annotation", f"ProfilerStep#{p}", pass_start[r], rk[r].t)
            rk[r].t += PASS_GAP_NS

    os.makedirs(out, exist_ok=True)
    for r in range(ranks):
        _write(os.path.join(out, f"rank{r}.pt.trace.json"), rk[r], ranks, pgs, offsets[r])
    late_truth = []
    for x in late:
        grp = tp_of[x["rank"]]["pg_name"]
        inst = next((c for c in truth_colls if c["group"] == grp and c["seq"] == x["coll"]), None)
        if inst is None:
            raise SystemExit(f"--late rank={x['rank']},coll={x['coll']}: its TP group has {count[grp]} collectives")
        late_truth.append({"rank": x["rank"], "group": grp, "seq": x["coll"], "late_ns": x["ns"],
                           "arrival_skew_ns": inst["arrival_skew_ns"]})
    truth = {"ranks": ranks, "layers": layers, "passes": passes, "tp": tp, "anchor": ANCHOR, "seed": seed,
             "jitter_ns": jitter_ns, "offsets_ns": {str(r): offsets[r] for r in range(ranks)},
             "align_ns": {str(r): offsets[0] - offsets[r] for r in range(ranks)},
             "slow_rank": slow_rank, "slow_layers": sorted(slow_layers), "slow_factor": slow_factor,
             "slowdown_ns": slowdown, "late": late_truth, "groups": pgs, "collectives": truth_colls}
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    return truth


def _us(ns: int) -> str:
    """Integer ns as µs with exactly 3 decimals (no float on the way)."""
    sign = "-" if ns < 0 else ""
    return f"{sign}{abs(ns) // 1000}.{abs(ns) % 1000:03d}"


def _write(path, rank: Rank, world, pgs, offset):
    meta = [{"ph": "M", "name": "process_name", "pid": HOST_PID, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "thread_name", "pid": HOST_PID, "tid": HOST_TID, "args": {"name": "python"}},
            {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": f"GPU {rank.r}"}},
            {"ph": "M", "name": "thread_name", "pid": 0, "tid": STREAM, "args": {"name": f"stream {STREAM}"}},
            {"ph": "M", "name": "thread_name", "pid": 0, "tid": NCCL_STREAM, "args": {"name": f"stream {NCCL_STREAM}"}}]
    pgs = [g for g in pgs if rank.r in g["ranks"]]      # a rank knows the groups it is a member of
    head = {"schemaVersion": 1, "deviceProperties": [{"id": rank.r, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
            "distributedInfo": {"backend": "nccl", "rank": rank.r, "world_size": world, "pg_count": len(pgs),
                                "pg_config": pgs, "nccl_version": "2.21.5"},
            "displayTimeUnit": "ms", "baseTimeNanoseconds": BASE_NS}
    with open(path, "w") as f:
        f.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
        lines = [json.dumps(m) for m in meta]
        for ph, cat, name, pid, tid, start, dur, args in rank.events:
            lines.append('{"ph": "%s", "cat": "%s", "name": %s, "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": %s}'
                         % (ph, cat, json.dumps(name), pid, tid, _us(start + offset), _us(dur), json.dumps(args)))
        f.write(",\n".join(lines))
        f.write('\n], "traceName": "%s"}\n' % os.path.basename(path))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--tp", type=int, default=None)
    ap.add_argument("--slow-rank", type=int, default=None)
    ap.add_argument("--slow-layers", default="")
    ap.add_argument("--slow-factor", type=float, default=1.5)
    ap.add_argument("--late", action="append", default=[])
    ap.add_argument("--offsets-us", default=None)
    ap.add_argument("--jitter-ns", type=int, default=0)
    ap.add_argument("--c10d-seq", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    truth = generate(a.out, ranks=a.ranks, layers=a.layers, passes=a.passes, tp=a.tp, slow_rank=a.slow_rank,
                     slow_layers={int(x) for x in a.slow_layers.split(",") if x.strip()}, slow_factor=a.slow_factor,
                     late=[parse_late(s) for s in a.late],
                     offsets_us=a.offsets_us.split(",") if a.offsets_us else None, jitter_ns=a.jitter_ns,
                     c10d_seq=a.c10d_seq, seed=a.seed)
    print(f"wrote {truth['ranks']} ranks, {len(truth['collectives'])} collective instances, truth.json to {a.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
