"""Whole steps: phases, micro-batches, serving steps and the epilogue, on synthetic schedules whose right
answer is known by construction (tests/tiny_steps.py) and on the real traces of ../shared/data."""
import csv
import io

import pytest

import tiny_steps
from helpers import real_trace, slow_beyond
from tracedb.engine.reports import registry as reports
from tracedb.engine.segmentation import persist as segment_store
from tracedb.engine.store import connect as store
from tracedb.engine.loading.single import ingest_file
from tracedb.engine.segmentation.binding import Options


def _open(tmp_path, path):
    db = str(tmp_path / "t.duckdb")
    ingest_file(db, path, name="t")
    return store.open_store(db)


def _store(tmp_path, builder, **kw):
    return _open(tmp_path, tiny_steps.write(str(tmp_path / f"{builder}.json"), builder, **kw))


def _passes(con, **kw):
    text = reports.render_report(con, "passes", fmt="csv", runs=["t"], **kw)
    return list(csv.DictReader(io.StringIO(text[text.index("run,"):])))


def _phases(con):
    segment_store.segment_runs(con, Options(runs=["t"]))
    return {(s, n): (ph, u) for s, n, ph, u in con.execute(
        "SELECT start_ns, name, phase, unit FROM kernel_layers").fetchall()}


@pytest.mark.parametrize("builder,forward,backward", slow_beyond([
    ("one_f_one_b", [4, 4, 4, 4], [4, 4, 4, 4]),      # 2 steps x 2 micro-batches, split at the pipeline send
    ("dualpipe", [4], [4]),                           # one forward and one backward chunk, interleaved
    ("sequential_training", [4, 4, 4], [4, 4, 4]),    # split where the backward pass and optimizer ran
], {1, 2}))
def test_training_schedules_give_whole_passes_of_each_phase(tmp_path, builder, forward, backward):
    con = _store(tmp_path, builder)
    rows = _passes(con)
    assert [int(r["anchors"]) for r in rows if r["phase"] == "forward"] == forward
    assert [int(r["anchors"]) for r in rows if r["phase"] == "backward"] == backward
    assert {r["step_kind"] for r in rows} == {"train"}


def test_one_f_one_b_numbers_steps_and_microbatches(tmp_path):
    rows = _passes(_store(tmp_path, "one_f_one_b"))
    assert [(r["step"], r["microbatch"]) for r in rows if r["phase"] == "forward"] == \
        [("1", "0"), ("1", "1"), ("2", "0"), ("2", "1")]


@pytest.mark.parametrize("builder", slow_beyond(["one_f_one_b", "dualpipe", "sequential_training"], {0}))
def test_every_kernel_gets_the_phase_it_was_built_with(tmp_path, builder):
    con = _store(tmp_path, builder)
    got = _phases(con)
    want = tiny_steps.expected_phases(tiny_steps.BUILDERS[builder]())
    wrong = {k: (w, got[k]) for k, w in want.items()
             if (got[k][0] or got[k][1]) != w and not (w == "forward" and "SendRecv" in k[1])}
    assert not wrong


def test_backward_layers_are_numbered_by_the_model_layer(tmp_path):
    con = _store(tmp_path, "dualpipe")
    segment_store.segment_runs(con, Options(runs=["t"]))
    # the first backward layer to run holds the last model layer's gradients
    first = con.execute("SELECT layer FROM kernel_layers WHERE phase = 'backward' AND unit = 'layer' "
                        "ORDER BY start_ns LIMIT 1").fetchone()[0]
    assert first == 3
    assert con.execute("SELECT count(DISTINCT layer) FROM kernel_layers WHERE phase = 'backward'").fetchone()[0] == 4


def test_alternating_attention_kernels_count_one_anchor_per_layer(tmp_path):
    rows = _passes(_store(tmp_path, "alternating_attention", layers=6, passes=2))
    assert [int(r["anchors"]) for r in rows] == [6, 6]


@pytest.mark.parametrize("kind", slow_beyond(["sglang", "vllm", "vllm_old", "plain"], {0, 1}))
def test_serving_steps_are_labelled_as_annotated(tmp_path, kind):
    rows = _passes(_store(tmp_path, "serving", kind=kind))
    got = [(r["step_kind"], r["tokens"] or None, r["requests"] or None) for r in rows]
    want = [(k, None if t is None else str(t), None if q is None else str(q))
            for k, t, q in tiny_steps.expected_serving(kind)]
    assert got == want


def test_the_epilogue_holds_lm_head_and_sampling(tmp_path):
    con = _store(tmp_path, "serving", kind="sglang")
    text = reports.render_report(con, "layers", fmt="csv", runs=["t"], pass_spec="0")
    rows = list(csv.DictReader(io.StringIO(text[text.index("run,"):])))
    assert [r["layer"] for r in rows] == ["prologue", "0", "1", "2", "epilogue"]
    epi = rows[-1]
    # final norm 2 + lm_head 40 + softmax 3 + sampling 2 (tiny_steps' serving epilogue)
    assert int(epi["kernels"]) == 4 and float(epi["sum_us"]) == 47.0
    assert float(rows[-2]["sum_us"]) == float(rows[-3]["sum_us"]) - 8.0   # no next layer's norm 2, QKV 5, rope 1


# ---- the real traces -------------------------------------------------------------------------------------

def _real(tmp_path, rel):
    return _open(tmp_path, real_trace(*rel.split("/")))


@pytest.mark.slow
def test_real_megatron_stage_splits_into_two_microbatches(tmp_path):
    con = _real(tmp_path, "ascend-msinsight/st_level2_qwen3_megatron/rank_0_ascend_pt")
    rows = _passes(con)
    assert [(r["phase"], int(r["anchors"]), r["step"], r["microbatch"]) for r in rows] == [
        ("forward", 14, "13", "0"), ("forward", 14, "13", "1"),
        ("backward", 14, "13", "0"), ("backward", 14, "13", "1")]


@pytest.mark.slow
def test_real_training_capture_of_50_steps(tmp_path):
    con = _real(tmp_path, "amd-tracelens/rocprofv3/908_results.json.gz")
    rows = [r for r in _passes(con) if r["phase"] == "forward"]
    assert [int(r["anchors"]) for r in rows] == [8] * 50
    assert [int(r["step"]) for r in rows] == list(range(50))
    notes = [r["note"] for r in rows]
    first = notes.index("steady-state")
    assert notes[first:] == ["steady-state"] * (50 - first)      # one contiguous stretch


@pytest.mark.slow
def test_real_dualpipe_phases_follow_the_annotations(tmp_path):
    con = _real(tmp_path, "deepseek-profile-data/train.json")
    segment_store.segment_runs(con, Options(runs=["t"]))
    got = dict(con.execute("SELECT phase, count(DISTINCT layer) FROM kernel_layers WHERE unit = 'layer' "
                           "GROUP BY ALL").fetchall())
    assert got == {"forward": 4, "backward": 4}
    # FlashAttnBwd is launched under attn(B): never in a forward layer
    assert con.execute("SELECT count(*) FROM kernel_layers WHERE name LIKE '%FlashAttnBwd<%' AND phase <> 'backward'"
                       ).fetchone()[0] == 0


@pytest.mark.parametrize("rel,want", [
    ("amd-tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz", ("prefill", "15360", "15")),
    ("amd-tracelens/inference/vllm_decode_full/graph_execution.json.gz", ("decode", "32", "32")),
    ("amd-tracelens/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz", ("mixed", "8192", "46")),
])
@pytest.mark.slow
def test_real_serving_steps(tmp_path, rel, want):
    rows = _passes(_real(tmp_path, rel))
    assert [(r["step_kind"], r["tokens"], r["requests"]) for r in rows] == [want]


def test_real_decode_epilogue_leaves_a_last_layer_like_the_others(tmp_path):
    con = _real(tmp_path, "amd-tracelens/inference/vllm_decode_full/graph_execution.json.gz")
    text = reports.render_report(con, "layers", fmt="csv", runs=["t"], pass_spec="0")
    rows = list(csv.DictReader(io.StringIO(text[text.index("run,"):])))
    assert rows[-1]["layer"] == "epilogue"
    layers = sorted(float(r["sum_us"]) for r in rows if r["layer"].isdigit())
    last = float([r for r in rows if r["layer"].isdigit()][-1]["sum_us"])
    assert last <= 1.25 * layers[len(layers) // 2]
