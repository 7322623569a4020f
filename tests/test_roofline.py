"""FLOPs and bytes per kernel (kernel_work, kernel_layers) from the trace's own shapes, and `report roofline`:
synthetic traces with known shapes for each formula, then the real Ascend and Kineto traces."""
import csv
import io
import json

import duckdb
import pytest

import tiny_trace
from helpers import cli, real_trace, write_csv

BASE_NS = 1_700_000_000_000_000_000
# Ascend rows: (start µs, dur µs, name, type, core, input shapes, input dtypes, output shapes, output dtypes)
NPU_ROWS = [
    (0, 10, "mm_plain", "MatMulV3", "AI_CORE", "4096,1024;1024,3072", "DT_BF16;DT_BF16", "4096,3072", "DT_BF16"),
    # weight gradient: A^T B, K = 4096 only the output says (the shared 1024 fits no output)
    (20, 10, "mm_wgrad", "MatMulV3", "AI_CORE", "4096,1024;4096,3072", "DT_BF16;DT_BF16", "1024,3072", "DT_BF16"),
    # M = N: the output [4096,4096] settles K = 32 (a rule taking A's last dim would say 4096)
    (40, 10, "mm_square", "MatMulV2", "AI_CORE", "32,4096;32,4096", "FLOAT;FLOAT", "4096,4096", "FLOAT"),
    (60, 10, "bmm", "BatchMatMulV2", "AI_CORE", "12,1024,512;12,512,1024", "FLOAT16;FLOAT16", "12,1024,1024",
     "FLOAT16"),
    # no output shape and two readings (K 32 or 4096): unknown, never a guess
    (80, 10, "mm_ambiguous", "MatMulV2", "AI_CORE", "32,4096;32,4096", "FLOAT;FLOAT", "", ""),
    # SBH layout, GQA, compressed causal mask 2048x2048; softmax_max [B,N,Sq,8] = [1,16,4096,8]
    (100, 50, "fa", "FlashAttentionScore", "MIX_AIC", "4096,1,2048;4096,1,1024;4096,1,1024;;;;2048,2048",
     "DT_BF16;DT_BF16;DT_BF16;DT_BF16;UINT8;DT_BF16;BOOL", "1,16,4096,8;1,16,4096,8;;4096,1,2048",
     "FLOAT;FLOAT;DT_BF16;DT_BF16"),
    (200, 5, "add", "Add", "AI_VECTOR_CORE", "4096,1024;4096,1024", "DT_BF16;DT_BF16", "4096,1024", "DT_BF16"),
]
NPU_WANT = {
    "mm_plain": (2 * 4096 * 3072 * 1024, (4096 * 1024 + 1024 * 3072 + 4096 * 3072) * 2, "gemm 2MNK"),
    "mm_wgrad": (2 * 1024 * 3072 * 4096, (4096 * 1024 + 4096 * 3072 + 1024 * 3072) * 2, "gemm 2MNK"),
    "mm_square": (2 * 4096 * 4096 * 32, (2 * 32 * 4096 + 4096 * 4096) * 4, "gemm 2MNK"),
    "bmm": (2 * 12 * 1024 * 1024 * 512, (2 * 12 * 1024 * 512 + 12 * 1024 * 1024) * 2, "gemm 2MNK"),
    # 4 * B * N * Sq * Sk * D / 2 with D = 2048 / 16 = 128
    "fa": (4 * 1 * 16 * 4096 * 4096 * 128 // 2, None, "attention causal 4BNSqSkD/2"),
    "add": (None, 3 * 4096 * 1024 * 2, "memory r+w"),
}


def _npu_csv(path):
    header = ["Step Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State",
              "Accelerator Core", "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Mix Block Dim",
              "HF32 Eligible", "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes",
              "Output Data Types", "Output Formats", "aic_mac_ratio"]
    rows = []
    for i, (start, dur, name, op, core, ins, dt, outs, odt) in enumerate(NPU_ROWS):
        n_in = len(ins.split(";"))
        rows.append([1, 0, 4294967295, i, 2, name, op, "dynamic", core,
                     tiny_trace.us_text(tiny_trace.T0_NS + start * 1000) + "\t", f"{dur}.000", "0", 24, 0, "NO",
                     f'"""{ins}"""', dt, ";".join(["ND"] * n_in), f'"""{outs}"""', odt, "ND", "0.5"])
    return write_csv(path, header, rows)


def _work(db, run):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {r[0]: r[1:] for r in con.execute(
            "SELECT k.name, w.flops, w.bytes, w.flops_source, w.dtype FROM kernels k JOIN runs r USING (run_id) "
            "LEFT JOIN kernel_work w USING (run_id, seq) WHERE r.name = ?", [run]).fetchall()}
    finally:
        con.close()


def test_npu_formulas(tmp_path):
    db = tmp_path / "n.duckdb"
    cli("ingest", _npu_csv(tmp_path / "kernel_details.csv"), "--db", db, "--name", "n")
    got = _work(db, "n")
    for name, (flops, nbytes, source) in NPU_WANT.items():
        assert got[name][0] == flops, name
        if nbytes is not None:
            assert got[name][1] == nbytes, name
        assert got[name][2] == source, name
    assert got["mm_ambiguous"][:3] == (None, None, None)
    assert got["mm_plain"][3] == "bf16" and got["mm_square"][3] == "fp32"
    # the report: given peaks, and the device's own aic_mac_ratio (0.5 on every row) beside
    rows = {r["name"]: r for r in _roofline(db, "n", "--anchor", "FlashAttentionScore", "--window", "full",
                                            "--peak-tflops", "1000", "--peak-tbs", "100")}
    mm = rows["mm_plain"]
    # 25,769,803,776 FLOPs in 10 µs = 2576.980 TFLOP/s: above the 1000 given, flagged and left empty
    assert (mm["tflops_s"], mm["pct_peak"], mm["device_mac_pct"]) == ("2576.980", "", "50.0")
    assert "over 100 %" in mm["flag"]


def _kineto(path):
    """One forward step on an H100: an addmm launching a split-K GEMM and its reduce, a causal flash
    attention, an add, and a view that launches nothing."""
    ev, corr = [], [0]

    def op(name, ts, dur, dims, types, concrete=None, kernels=()):
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
                   "args": {"Input Dims": dims, "Input type": types,
                            "Concrete Inputs": concrete or [""] * len(dims)}})
        for i, (kname, kdur) in enumerate(kernels):
            corr[0] += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": ts + 1 + i, "dur": 0.5, "args": {"correlation": corr[0]}})
            ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": ts + 10 + 20 * i,
                       "dur": kdur, "args": {"correlation": corr[0], "device": 0, "stream": 7}})
    bf = "c10::BFloat16"
    op("aten::addmm", 0, 5, [[3072], [4096, 1024], [1024, 3072], [], []], [bf, bf, bf, "Scalar", "Scalar"],
       kernels=[("gemm_splitk_kernel", 15), ("splitk_reduce_kernel", 2)])
    op("aten::_flash_attention_forward", 100, 5, [[2, 512, 16, 64], [2, 512, 4, 64], [2, 512, 4, 64]] + [[]] * 12,
       [bf, bf, bf] + [""] * 12, ["", "", "", "", "", "512", "512", "0.", "True", "False", "0.125", "", "", "", ""],
       kernels=[("flash_fwd_kernel", 8)])
    op("aten::add", 200, 5, [[2, 512, 1024], [2, 512, 1024], []], [bf, bf, "Scalar"], kernels=[("add_kernel", 3)])
    op("aten::view", 300, 1, [[2, 512, 1024], [3]], [bf, "long int"])
    trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
             "baseTimeNanoseconds": BASE_NS, "traceEvents": ev}
    path.write_text(json.dumps(trace))
    return str(path)


def test_kineto_formulas(tmp_path):
    db = tmp_path / "k.duckdb"
    cli("ingest", _kineto(tmp_path / "t.json"), "--db", db, "--name", "k")
    got = _work(db, "k")
    gemm = 2 * 4096 * 3072 * 1024
    # the op's FLOPs once, on its longest kernel; the reduce says where they went
    assert got["gemm_splitk_kernel"][:3] == (gemm, (4096 * 1024 + 1024 * 3072 + 4096 * 3072) * 2, "gemm 2MNK")
    assert got["splitk_reduce_kernel"][0] == 0 and "longest kernel" in got["splitk_reduce_kernel"][2]
    # causal: 4 * B * H * Sq * Sk * D / 2 (GQA: 16 query heads, 4 key heads)
    assert got["flash_fwd_kernel"][0] == 4 * 2 * 16 * 512 * 512 * 64 // 2
    assert got["flash_fwd_kernel"][2] == "attention causal 4BHSqSkD/2"
    assert got["add_kernel"][:3] == (None, 3 * 2 * 512 * 1024 * 2, "memory r+w")
    con = duckdb.connect(str(db), read_only=True)
    try:   # the shapes stay on the ops that launched kernels only
        kept = dict(con.execute("SELECT name, extra_args IS NOT NULL FROM trace_events "
                                "WHERE cat = 'cpu_op'").fetchall())
    finally:
        con.close()
    assert kept == {"aten::addmm": True, "aten::_flash_attention_forward": True, "aten::add": True,
                    "aten::view": False}


def _roofline(db, run, *args):
    out = cli("report", "roofline", "--db", db, "--run", run, "--format", "csv", *args).stdout
    return list(csv.DictReader(io.StringIO(out)))


def test_roofline_report_and_flag(tmp_path):
    db = tmp_path / "k.duckdb"
    cli("ingest", _kineto(tmp_path / "t.json"), "--db", db, "--name", "k")
    rows = {r["name"]: r for r in _roofline(db, "k", "--anchor", "flash_fwd")}
    g = rows["gemm_splitk_kernel"]
    # 2*4096*3072*1024 FLOPs in 15 µs = 1717.987 TFLOP/s: above the H100's 989 bf16 -> flagged, never printed
    assert g["tflops_s"] == "1717.987" and g["pct_peak"] == "" and "over 100 %" in g["flag"]
    # with a peak given, the same kernel is 1717.987 / 2000 = 85.9 % of it, compute bound
    g = {r["name"]: r for r in _roofline(db, "k", "--anchor", "flash_fwd", "--peak-tflops", "2000",
                                         "--peak-tbs", "3.35")}["gemm_splitk_kernel"]
    assert (g["pct_peak"], g["bound"], g["flag"]) == ("85.9", "compute", "")
    add = rows["add_kernel"]
    # 6,291,456 bytes in 3 µs = 2.097 TB/s of 3.35: 62.6 %, memory bound
    assert (add["tbytes_s"], add["bound"], add["pct_peak"]) == ("2.097", "memory", "62.6")
    by_run = _roofline(db, "k", "--anchor", "flash_fwd", "--by", "run")
    assert len(by_run) == 1 and by_run[0]["coverage_pct"] == "100.0"


def test_migrated_store_gets_work(tmp_path):
    """A store of schema v8 migrated to v9 computes the work of the Ascend kernels already in it."""
    db = tmp_path / "n.duckdb"
    cli("ingest", _npu_csv(tmp_path / "kernel_details.csv"), "--db", db, "--name", "n")
    con = duckdb.connect(str(db))
    con.execute("DROP VIEW kernel_work")   # v8 had none; v10 made it a view over two tables
    con.execute("DROP TABLE kernel_work_rows")
    con.execute("DROP TABLE kernel_work_tuples")
    # v8 kept every row in one table kernels_raw (v10 made it a view over two)
    con.execute("DROP VIEW kernels_raw")
    con.execute("CREATE TABLE kernels_raw AS SELECT * FROM kernels_raw_full UNION ALL BY NAME "
                "SELECT * FROM kernels_raw_ascend_csv")
    con.execute("DROP TABLE kernels_raw_full")
    con.execute("DROP TABLE kernels_raw_ascend_csv")
    # v12 added the Ascend profiler's step_trace_time.csv and the pipeline stage of stored segmentations
    con.execute("DROP TABLE step_times")
    con.execute("DROP VIEW kernel_layers")
    con.execute("ALTER TABLE kernel_segments DROP COLUMN pp_stage")
    con.execute("ALTER TABLE kernel_segments DROP COLUMN model_layer")
    # v11 added the stages of stored segmentations
    con.execute("ALTER TABLE kernel_segments DROP COLUMN stage")
    con.execute("ALTER TABLE kernel_segments DROP COLUMN layer_kind")
    con.execute("UPDATE tracedb_meta SET value = '8' WHERE key = 'schema_version'")
    con.close()
    cli("migrate", "--db", db)
    assert _work(db, "n")["mm_square"][0] == 2 * 4096 * 4096 * 32


def test_real_ascend_gemms_exact(tmp_path):
    path = real_trace("ascend-megatron-job", "rank_0_ascend_pt", "ASCEND_PROFILER_OUTPUT", "kernel_details.csv")
    db = tmp_path / "a.duckdb"
    cli("ingest", path, "--db", db, "--name", "a")
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT input_shapes, output_shapes, w.flops FROM kernels k "
                           "LEFT JOIN kernel_work w USING (run_id, seq) WHERE op_type LIKE '%MatMul%'").fetchall()
    finally:
        con.close()
    assert len(rows) == 336
    for ins, outs, flops in rows:
        a, b = ([int(x) for x in s.split(",")] for s in ins.strip('"').split(";")[:2])
        m, n = (int(x) for x in outs.strip('"').split(","))
        k = a[0] * a[1] // m
        assert flops == 2 * m * n * k and b[0] * b[1] == k * n, (ins, outs)


def test_real_kineto_gemm_ops(tmp_path):
    path = real_trace("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")
    db = tmp_path / "h.duckdb"
    cli("ingest", path, "--db", db, "--name", "h")
    con = duckdb.connect(str(db), read_only=True)
    try:
        n, exact = con.execute("""
            SELECT count(*), count(*) FILTER (WHERE w.flops = 2 * m * nn * kk * batch)
            FROM (SELECT seq, TRY_CAST(json_extract(extra_args, '$.dims') AS BIGINT[][]) AS d,
                         CASE WHEN name = 'aten::addmm' THEN 2 ELSE 1 END AS i FROM trace_events
                  WHERE cat = 'cpu_op' AND name IN ('aten::mm', 'aten::addmm', 'aten::bmm')) o,
                 LATERAL (SELECT d[i][-2] AS m, d[i + 1][-1] AS nn, d[i][-1] AS kk,
                                 CASE WHEN len(d[i]) = 3 THEN d[i][1] ELSE 1 END AS batch) x,
                 LATERAL (SELECT sum(flops) AS flops FROM kernel_work w JOIN trace_events k USING (run_id, seq)
                          JOIN trace_events h ON h.correlation_id = k.correlation_id AND h.cat = 'cuda_runtime'
                          JOIN trace_events p ON p.seq = o.seq
                          WHERE h.start_ns BETWEEN p.start_ns AND p.start_ns + p.dur_ns) w""").fetchone()
    finally:
        con.close()
    assert n >= 160 and exact >= 0.99 * n   # 99 % of the GEMM ops at least
    rows = _roofline(db, "h")
    pct = [float(r["pct_peak"]) for r in rows if r["pct_peak"]]
    assert pct and max(pct) <= 100


def test_layers_roofline_columns_are_the_roofline_reports(tmp_path):
    """report layers --roofline: per layer the tflops_s and pct_peak that report roofline --by layer gives."""
    db = tmp_path / "n.duckdb"
    cli("ingest", tiny_trace.write(tmp_path / "kernel_details.csv"), "--db", db, "--name", "t")
    seg = ("--profile", "qwen3-npu", "--layers", "2", "--pass", "3", "--window", "full", "--peak-tflops", "300",
           "--peak-tbs", "8")
    layers = list(csv.DictReader(io.StringIO(cli("report", "layers", "--db", db, "--run", "t", "--roofline", *seg,
                                                 "--format", "csv").stdout)))
    roof = _roofline(db, "t", "--by", "layer", *seg)
    assert [(r["layer"], r["tflops_s"], r["pct_peak"]) for r in layers] == \
        [(r["layer"], r["tflops_s"], r["pct_peak"]) for r in roof]
    # layer 0 of the tiny trace: two MatMulV3 of 16x4096 by 4096x4096 (2*16*4096*4096 FLOPs each) in 16 µs
    assert layers[1]["tflops_s"] == "67.109" and layers[1]["pct_peak"] == "44.8"
    plain = cli("report", "layers", "--db", db, "--run", "t", *seg[:-4], "--format", "csv").stdout
    assert "tflops_s" not in plain.splitlines()[0]


def test_compare_roofline_gives_each_run_its_own_roofline_figures(tmp_path):
    """report compare --roofline: per layer and run the tflops_s and pct_peak that report roofline --by layer
    gives for that run (tidy rows), and each run's % of peak beside its µs in the wide table."""
    db = tmp_path / "n.duckdb"
    cli("ingest", tiny_trace.write(tmp_path / "kernel_details.csv"), "--db", db, "--name", "t")
    (tmp_path / "x2").mkdir()
    cli("ingest", tiny_trace.write(tmp_path / "x2" / "kernel_details.csv", dur_factor=2), "--db", db, "--name", "t2")
    seg = ("--profile", "qwen3-npu", "--layers", "2", "--pass", "3", "--window", "full", "--peak-tflops", "300",
           "--peak-tbs", "8")
    tidy = list(csv.DictReader(io.StringIO(cli("report", "compare", "--db", db, "--run", "t", "--run", "t2",
                                               "--roofline", *seg, "--format", "csv").stdout)))
    for run in ("t", "t2"):
        roof = [(r["layer"], r["tflops_s"], r["pct_peak"]) for r in _roofline(db, run, "--by", "layer", *seg)]
        assert [(r["layer"], r["tflops_s"], r["pct_peak"]) for r in tidy if r["run"] == run] == roof
    # the same kernels twice as long: half the TFLOP/s and half the % of peak, layer 0's GEMMs included
    g1, g2 = ([r for r in tidy if r["run"] == run and r["layer"] == "0"][0] for run in ("t", "t2"))
    assert g1["tflops_s"] == "67.109" and float(g2["tflops_s"]) == pytest.approx(67.109 / 2, abs=0.001)
    assert float(g2["pct_peak"]) == pytest.approx(float(g1["pct_peak"]) / 2, abs=0.1)
    wide = cli("report", "compare", "--db", db, "--run", "t", "--run", "t2", "--by", "category", "--roofline",
               *seg, "--format", "md").stdout
    assert "t_pct_peak" in wide and "t2_pct_peak" in wide
    plain = cli("report", "compare", "--db", db, "--run", "t", "--run", "t2", *seg[:-4], "--format", "csv").stdout
    assert "pct_peak" not in plain.splitlines()[0]


@pytest.mark.parametrize("name,device", [("NVIDIA H100 80GB HBM3", "H100 SXM"), ("NVIDIA H100 PCIe", "H100 PCIe"),
                                         ("NVIDIA H800", "H800 SXM"), ("AMD Instinct MI300X VF", "MI300X"),
                                         ("NVIDIA B200", "B200 (HGX)"), ("Ascend910B3", "Ascend 910B3"),
                                         ("gfx942", None), (None, None)])
def test_peak_table_matches_device_names(name, device):
    from tracedb.engine.reports import peaks
    got = peaks.match(name)
    assert (got[0] if got else None) == device
