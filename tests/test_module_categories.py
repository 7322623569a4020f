"""Categories by name, then by module: kernels with generic names take their launching module's category.

An eager model's RMSNorm is several elementwise kernels (pow, mean, rsqrt, mul): 'other' by name alone.
The trace below has two passes of two layers; per layer, in µs from the layer's start L:
  nn.Module: Qwen2RMSNorm_i  [0, 10)  launches elementwise_kernel<mul>  at 1  -> device [100+L, 104+L)   4 µs
  nn.Module: Qwen2Attention_i [10, 30) launches flash_fwd_kernel        at 11 -> device [105+L, 111+L)  6 µs
    nn.Module: Linear_i       [12, 20) launches gemm_kernel             at 13 -> device [112+L, 120+L)  8 µs
  (no nn.Module frame)                 launches reduce_kernel<sum>      at 31 -> device [121+L, 124+L)  3 µs
so per pass: norm 8 µs (by module), attention 12, gemm 16, other 6 (no module to take it from).
"""
import csv
import io
import json

import tracedb
from tracedb.engine.segmentation import segment
from tracedb.engine.segmentation import persist as segment_store
from tracedb.engine.reports.registry import render_report


def _trace(path):
    ev, corr = [], 0

    def x(cat, name, ts, dur, pid=1, tid=1, **args):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})

    def launch(kname, at, kstart, kdur):
        nonlocal corr
        corr += 1
        x("cuda_runtime", "cudaLaunchKernel", at, 0.5, correlation=corr)
        x("kernel", kname, kstart, kdur, pid=0, tid=7, device=0, stream=7, correlation=corr)

    for p in range(2):
        for i in range(2):
            L = p * 10_000 + i * 50
            x("python_function", f"nn.Module: Qwen2RMSNorm_{i}", L, 10)
            launch("void at::native::vectorized_elementwise_kernel<4, at::native::mul>", L + 1, 100 + L, 4)
            x("python_function", f"nn.Module: Qwen2Attention_{i}", L + 10, 20)
            launch("flash_fwd_kernel", L + 11, 105 + L, 6)
            x("python_function", f"nn.Module: Linear_{i}", L + 12, 8)
            launch("gemm_kernel", L + 13, 112 + L, 8)
            launch("void at::native::reduce_kernel<512, 1, at::native::sum>", L + 31, 121 + L, 3)
    path.write_text(json.dumps({"traceEvents": ev}))
    return str(path)


def test_generic_kernels_take_their_modules_category(con, tmp_path):
    tracedb.ingest_trace(con, _trace(tmp_path / "m.json"), name="m")
    res = tracedb.report(con, "layers", run="m", anchor="flash_fwd", layers=2)
    rows = res.arrow().to_pylist()
    by_pass = {}
    for r in rows:
        agg = by_pass.setdefault(r["pass"], {})
        for c in ("norm_us", "attention_us", "gemm_us", "other_us"):
            agg[c] = agg.get(c, 0) + round(float(r[c]) * 1000)
    assert by_pass == {0: {"norm_us": 8000, "attention_us": 12000, "gemm_us": 16000, "other_us": 6000},
                       1: {"norm_us": 8000, "attention_us": 12000, "gemm_us": 16000, "other_us": 6000}}
    note = next(n for n in res.notes if "categorised by their launching module" in n)
    assert note.startswith("16.000 us of kernels with generic names")
    assert "norm 16.000 us (4)" in note and "12.000 us (4) launched outside any nn.Module frame stay other" in note


def test_stored_segments_and_kernels_carry_the_module_category(con, tmp_path):
    tracedb.ingest_trace(con, _trace(tmp_path / "m.json"), name="m")
    segment_store.segment_runs(con, segment.Options(runs=["m"], anchor="flash_fwd", layers=2))
    got = con.execute("SELECT category, count(*), sum(dur_ns) FROM kernel_layers WHERE run = 'm' "
                      "GROUP BY ALL ORDER BY 1").fetchall()
    assert got == [("attention", 4, 24000), ("gemm", 4, 32000), ("norm", 4, 16000), ("other", 4, 12000)]
    out = render_report(con, "kernels", runs=["m"], anchor="flash_fwd", layers=2, pass_spec="0", fmt="csv")
    by_name = {r["name"]: r["category"] for r in csv.DictReader(io.StringIO(out))}
    assert by_name["void at::native::vectorized_elementwise_kernel<4, at::native::mul>"] == "norm"
    assert by_name["void at::native::reduce_kernel<512, 1, at::native::sum>"] == "other"


def test_runs_without_module_frames_are_left_alone(con, tmp_path):
    """A trace without nn.Module frames: no note, categories by name only."""
    path = tmp_path / "bare.json"
    ev = json.loads(open(_trace(tmp_path / "m.json")).read())["traceEvents"]
    path.write_text(json.dumps({"traceEvents": [e for e in ev if e["cat"] != "python_function"]}))
    tracedb.ingest_trace(con, str(path), name="bare")
    res = tracedb.report(con, "layers", run="bare", anchor="flash_fwd", layers=2)
    assert not any("launching module" in n for n in res.notes)
    assert sum(round(float(r["other_us"]) * 1000) for r in res.arrow().to_pylist()) == 2 * (8000 + 6000)


def test_roles_number_distinct_instances_and_group_calls_of_one(con, tmp_path):
    """Two layers, each with two Linear instances (q, k: ordinals 0 and 1, the same in both layers), then one
    instance called three times under the model (vLLM's piecewise graph pieces are all 'GraphModule_0'):
    one role for all three calls, with no ordinal."""
    from tracedb import sql
    ev, corr = [], 0

    def x(cat, name, ts, dur, pid=1, tid=1, **args):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})

    def launch(at, kname="k"):
        nonlocal corr
        corr += 1
        x("cuda_runtime", "cudaLaunchKernel", at, 0.5, correlation=corr)
        x("kernel", kname, 1000 + at, 1, pid=0, tid=7, device=0, stream=7, correlation=corr)

    x("python_function", "nn.Module: Model_0", 0, 200)
    for i in range(2):
        L = i * 50
        x("python_function", f"nn.Module: Layer_{i}", L, 40)
        x("python_function", f"nn.Module: Linear_{2 * i}", L + 1, 5)
        launch(L + 2)
        x("python_function", f"nn.Module: Linear_{2 * i + 1}", L + 10, 5)
        launch(L + 11)
    for j in range(3):
        x("python_function", "nn.Module: Graph_0", 120 + 20 * j, 10)
        launch(121 + 20 * j)
    path = tmp_path / "roles.json"
    path.write_text(json.dumps({"traceEvents": ev}))
    tracedb.ingest_trace(con, str(path), name="r")
    sql.run(con, "attribute_scope_runs", {"run_ids": [1]})
    sql.run(con, "attribute_modules", {"run_ids": [1]})
    got = con.execute("SELECT module, module_path FROM _attr ORDER BY launch_ns").fetchall()
    assert got == [("Model/Layer/Linear#0", "Model_0/Layer_0/Linear_0"),
                   ("Model/Layer/Linear#1", "Model_0/Layer_0/Linear_1"),
                   ("Model/Layer/Linear#0", "Model_0/Layer_1/Linear_2"),
                   ("Model/Layer/Linear#1", "Model_0/Layer_1/Linear_3"),
                   ("Model/Graph", "Model_0/Graph_0"), ("Model/Graph", "Model_0/Graph_0"),
                   ("Model/Graph", "Model_0/Graph_0")]
