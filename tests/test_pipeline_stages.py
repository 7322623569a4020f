"""Pipeline stages on a real Megatron job (Qwen3, pp 2 x dp 2, on Ascend): each stage's layers numbered in the
model, ranks compared only with their own stage, waits across stages blamed on the schedule, and backward layers
that hold their own layer's gradients. The shared job holds stage 0's kernels (rank 0) and the communication
analyses of ranks 1 and 3; its stage-1 rank with kernels is made here from rank 0's files with the metadata of
rank 2 (same kernels, stage 1 of the pp group [0, 2])."""
import csv
import io
import json
import os
import re
import shutil

import pytest

from helpers import cli, real_trace


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def _job(tmp_path, with_stage1=True):
    """A copy of the Megatron job folder; with `with_stage1`, plus rank 2 (stage 1) made from rank 0's files."""
    src = os.path.dirname(real_trace("ascend-megatron-job", "rank_0_ascend_pt"))
    job = tmp_path / "job"
    shutil.copytree(src, job)
    if not with_stage1:
        return str(job)
    r2 = job / "rank_2_ascend_pt"
    shutil.copytree(job / "rank_0_ascend_pt", r2)
    info = (r2 / "profiler_info_0.json").read_text()
    (r2 / "profiler_info_0.json").unlink()
    (r2 / "profiler_info_2.json").write_text(re.sub(r'"rank_id": ?"?0"?', '"rank_id": 2', info))
    meta = json.loads((r2 / "profiler_metadata.json").read_text())
    meta["distributed_args"]["rank"] = 2
    meta["parallel_group_info"] = {
        "group_name_0": {"group_name": "default_group", "group_rank": 2, "global_ranks": [0, 1, 2, 3]},
        "group_name_6": {"group_name": "dp_cp", "group_rank": 0, "global_ranks": [2, 3]},
        "group_name_19": {"group_name": "pp", "group_rank": 1, "global_ranks": [0, 2]}}
    (r2 / "profiler_metadata.json").write_text(json.dumps(meta))
    kd = r2 / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    # one duration a ns longer: the same bytes would be skipped as a copy of rank 0
    kd.write_text(kd.read_text(encoding="utf-8").replace(",1892.920,", ",1892.921,", 1), encoding="utf-8")
    return str(job)


@pytest.fixture(scope="module")
def job_db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pp")
    db = str(tmp / "pp.duckdb")
    cli("ingest", _job(tmp), "--db", db, "--name", "mj", "--tag", "job=mj")
    seg = cli("segment", "--db", db, "--tag", "job=mj")
    return db, seg.stdout + seg.stderr


def test_communication_only_ranks_do_not_stop_the_segmentation(job_db):
    _, said = job_db
    assert "not segmented: 'mj-rank1', 'mj-rank3'" in said


def test_each_stage_numbers_its_layers_in_the_model(job_db):
    db, said = job_db
    got = rows(cli("sql", "--db", db, "SELECT run, phase, pp_stage, min(model_layer) AS lo, max(model_layer) AS hi, "
                   "count(DISTINCT model_layer) AS n FROM kernel_layers WHERE unit = 'layer' GROUP BY ALL ORDER BY ALL",
                   "--format", "csv").stdout)
    want = {("mj-rank0", "0"): ("0", "13"), ("mj-rank2", "1"): ("14", "27")}
    assert {(r["run"], r["pp_stage"]): (r["lo"], r["hi"]) for r in got} == want
    assert all(r["n"] == "14" for r in got) and {r["phase"] for r in got} == {"forward", "backward"}
    assert "stage 0 of 2 ('mj-rank0'): model layers 0-13; stage 1 of 2 ('mj-rank2'): model layers 14-27" in said


def test_a_stage_alone_says_its_offset_is_assumed(tmp_path):
    db = str(tmp_path / "one.duckdb")
    cli("ingest", _job(tmp_path), "--db", db, "--name", "mj", "--tag", "job=mj")
    said = cli("segment", "--db", db, "--run", "mj-rank2")
    assert "model layers 14-27" in said.stdout + said.stderr and "assumed" in said.stdout + said.stderr
    got = cli("sql", "--db", db, "SELECT min(model_layer), max(model_layer) FROM kernel_layers WHERE run = 'mj-rank2'",
              "--format", "csv")
    assert rows(got.stdout)[0] == {"min(model_layer)": "14", "max(model_layer)": "27"}


def test_backward_layers_hold_their_own_mlp_gradients(job_db):
    db, _ = job_db
    # every backward layer of a full pass: its MLP gradient (SwiGluGrad), its attention gradient, 4 norm grads
    per = rows(cli("sql", "--db", db, "SELECT pass, layer, count(*) AS n, count(*) FILTER (WHERE short_name = "
                   "'SwiGluGrad') AS act, count(*) FILTER (WHERE short_name = 'RmsNormGrad') AS norm, "
                   "count(*) FILTER (WHERE short_name = 'FlashAttentionScoreGrad') AS attn FROM kernel_layers "
                   "WHERE run = 'mj-rank0' AND phase = 'backward' AND unit = 'layer' GROUP BY ALL", "--format",
                   "csv").stdout)
    assert len(per) == 28
    assert all((r["act"], r["norm"], r["attn"]) == ("1", "4", "1") for r in per)
    # 36 kernels a layer, but the first layer to run of the first pass: its down projection's two GEMMs and add
    # ran before the capture's backward window
    assert sorted(int(r["n"]) for r in per)[1:] == [36] * 27
    pro = cli("sql", "--db", db, "SELECT count(*) FROM kernel_layers WHERE run = 'mj-rank0' AND phase = 'backward' "
              "AND unit = 'prologue'", "--format", "csv").stdout
    assert rows(pro)[0]["count_star()"] == "0"


def test_gradient_norm_and_clipping_are_optimizer_work(job_db):
    db, _ = job_db
    got = rows(cli("sql", "--db", db, "SELECT coalesce(phase, unit) AS where_, count(*) AS n FROM kernel_layers WHERE "
                   "run = 'mj-rank0' AND short_name = 'LpNormV2' GROUP BY ALL", "--format", "csv").stdout)
    assert got == [{"where_": "optimizer", "n": "59"}]


def test_ranks_compare_a_layer_only_within_its_stage(job_db):
    db, _ = job_db
    got = rows(cli("report", "ranks", "--db", db, "--tag", "job=mj", "--format", "csv").stdout)
    assert got and {"pp_stage", "model_layer"} <= set(got[0])
    assert all(r["ranks"] == "1" and r["straggler"] == "false" for r in got)
    layers = {(r["pp_stage"], r["model_layer"]) for r in got if r["unit"] == "layer"}
    assert layers == {("0", str(i)) for i in range(14)} | {("1", str(i)) for i in range(14, 28)}
    votes = rows(cli("report", "ranks", "--db", db, "--tag", "job=mj", "--stragglers", "--format", "csv").stdout)
    assert all(v["stragglers"] == "0" for v in votes)


def test_waits_across_stages_are_pipeline_bubbles_not_kernel_excess(job_db):
    db, _ = job_db
    got = rows(cli("report", "blame", "--db", db, "--tag", "job=mj", "--format", "csv").stdout)
    assert any(r["kernel"] == "(pipeline bubble)" for r in got)
    assert not [r for r in got if r["kernel"].startswith("FlashAttentionScore") and float(r["excess_us"]) > 100]
    said = cli("report", "blame", "--db", db, "--tag", "job=mj").stdout
    assert "computing 401,131.7 us" in said     # rank 3's step_trace_time.csv, which has no kernels


def test_compare_refuses_runs_of_different_stages(job_db):
    db, _ = job_db
    r = cli("report", "compare", "--db", db, "--run", "mj-rank0", "--run", "mj-rank2", check=False)
    assert r.returncode != 0 and "different pipeline stages" in r.stderr and "Traceback" not in r.stderr
