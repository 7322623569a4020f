"""Segmentation takes the strongest evidence a trace records: the module tree's block count over anchor
counts, whole-pass graph replays as pass boundaries, serving step annotations in both vLLM forms and on
either side (host or GPU), and no run called training for a foreach kernel alone. Each trace is written
here with its truth."""
import csv
import io
import json

import pytest

from helpers import cli, real_trace

BASE_NS = 1_790_000_000_000_000_000
HOST, GPU = 100, 0


class Trace:
    """A Kineto trace under construction: host frames on thread HOST, kernels on stream 7, times in µs."""

    def __init__(self):
        self.ev = [{"ph": "M", "name": "process_name", "pid": HOST, "tid": 0, "args": {"name": "python3"}},
                   {"ph": "M", "name": "thread_name", "pid": HOST, "tid": HOST, "args": {"name": "python"}},
                   {"ph": "M", "name": "process_name", "pid": GPU, "tid": 0, "args": {"name": "GPU 0"}},
                   {"ph": "M", "name": "thread_name", "pid": GPU, "tid": 7, "args": {"name": "stream 7"}}]
        self.corr = 0
        self.host_t = 0.0     # the host clock, µs
        self.gpu_t = 50.0     # the device clock: kernels run after their launch

    def frame(self, cat, name, start, dur, pid=HOST, tid=HOST, **args):
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(start, 3),
                        "dur": round(dur, 3), "args": args})

    def kernel(self, name, dur, corr=None):
        """A kernel on the device clock; launched now by a runtime call of its own unless `corr` is given
        (a graph replay's kernels share their graph launch's correlation id)."""
        if corr is None:
            self.corr += 1
            corr = self.corr
            self.frame("cuda_runtime", "cudaLaunchKernel", self.host_t, 2, correlation=corr)
            self.host_t += 3
        self.gpu_t = max(self.gpu_t, self.host_t + 5)
        self.frame("kernel", name, self.gpu_t, dur, pid=GPU, tid=7, device=0, stream=7, correlation=corr)
        self.gpu_t += dur + 2

    def graph_launch(self):
        self.corr += 1
        self.frame("cuda_runtime", "cudaGraphLaunch", self.host_t, 5, correlation=self.corr)
        self.host_t += 6
        return self.corr

    def write(self, path):
        doc = {"schemaVersion": 1, "baseTimeNanoseconds": BASE_NS, "traceEvents": self.ev}
        path.write_text(json.dumps(doc))
        return path


def layer_kernels(i, attn):
    """One decoder layer's kernels: (name, µs), attention kernel `attn`."""
    return [("rmsnorm_kernel", 3), ("nvjet_qkv_gemm", 12), ("rope_kernel", 2), (attn, 20),
            ("nvjet_o_gemm", 8), ("rmsnorm_kernel", 3), ("moe_topk_gating", 3), ("bmm_E2m1_swiGlu_experts", 30)]


def eager_alternating(path, layers=6):
    """An eager decode pass of a gpt-oss-like model: sliding-window and full attention take turns, each
    layer under nn.Module: TransformerBlock_<i>; one pass, so only the module tree tells 6 layers from 3."""
    t = Trace()
    t0 = t.host_t
    t.frame("python_function", "nn.Module: Embedding_0", t.host_t, 4)
    t.kernel("embedding_kernel", 3)
    t.host_t += 5
    for i in range(layers):
        start = t.host_t
        attn = "attention_kernel_sliding<true>" if i % 2 == 0 else "attention_kernel_full<false>"
        for name, dur in layer_kernels(i, attn):
            t.kernel(name, dur)
        t.frame("python_function", f"nn.Module: TransformerBlock_{i}", start - 0.5, t.host_t - start + 1)
        t.host_t += 2
    t.kernel("lm_head_gemm", 15)
    t.frame("python_function", "nn.Module: GptOssModel_0", t0 - 1, t.host_t - t0 + 2)
    return t.write(path)


def graph_steps(path, steps, layers, annotation=None, prep=None):
    """`steps` forward passes each replayed as one CUDA graph of `layers` layers, back to back with gaps
    no larger than those inside a pass; `annotation` (host side) around each step, `prep` a kernel launched
    eagerly before each replay (SGLang's input preparation)."""
    t = Trace()
    for s in range(steps):
        start = t.host_t
        if prep:
            t.kernel(prep, 2)
        corr = t.graph_launch()
        t.gpu_t = max(t.gpu_t, t.host_t + 5)
        t.kernel("embedding_kernel", 3, corr)
        for i in range(layers):
            for name, dur in layer_kernels(i, "fmhaSm100fKernel_PagedKvForGen"):
                t.kernel(name, dur, corr)
        t.kernel("lm_head_gemm", 15, corr)
        if annotation:
            t.frame("user_annotation", annotation, start - 1, t.host_t - start + 2)
        t.host_t = t.gpu_t     # the next step waits for this one's sampling
    return t.write(path)


def passes(tmp_path, trace, *extra, report="passes"):
    db = tmp_path / "t.duckdb"
    cli("ingest", trace, "--db", db, "--name", "t")
    r = cli("report", report, "--db", db, "--run", "t", "--format", "csv", *extra)
    return list(csv.DictReader(io.StringIO(r.stdout))), r.stderr


def test_the_module_tree_counts_alternating_attention_layers(tmp_path):
    rows, notes = passes(tmp_path, eager_alternating(tmp_path / "gptoss.json"))
    assert [(r["pass"], r["anchors"]) for r in rows] == [("0", "6")]
    assert "layers from the module tree: 6 TransformerBlock instances (TransformerBlock_0 ... TransformerBlock_5)" \
        in notes


def test_given_layers_still_decide_over_the_module_tree(tmp_path):
    rows, notes = passes(tmp_path, eager_alternating(tmp_path / "gptoss.json"), "--layers", "3")
    assert {r["anchors"] for r in rows} == {"3"}
    assert "the module tree names 6 TransformerBlock instances (TransformerBlock_0 ... TransformerBlock_5) around " \
           "these anchors; --layers 3 decides" in notes


@pytest.mark.parametrize("steps", [1, 3])
def test_each_whole_pass_graph_replay_is_a_pass(tmp_path, steps):
    rows, notes = passes(tmp_path, graph_steps(tmp_path / "g.json", steps, 5))
    assert [r["anchors"] for r in rows] == ["5"] * steps
    assert [r["step_kind"] for r in rows] == [""] * steps
    if steps > 1:
        assert f"{steps - 1} pass breaks between CUDA/HIP graph replays that each hold whole passes" in notes


def test_a_graph_replayed_decode_step_with_a_foreach_kernel_is_serving_not_training(tmp_path):
    prep = "void at::native::multi_tensor_apply_kernel<TensorListMetadata<2>, UnaryOpFunctor<long, 2, 1, 1>>"
    rows, notes = passes(tmp_path, graph_steps(tmp_path / "d.json", 1, 7, annotation="step[DECODE bs=16]",
                                               prep=prep))
    assert [(r["anchors"], r["step_kind"], r["tokens"], r["requests"]) for r in rows] == [("7", "decode", "16", "16")]
    assert "training" not in notes


def test_a_named_optimizer_still_makes_a_run_training(tmp_path):
    t = Trace()
    for i in range(3):
        for name, dur in layer_kernels(i, "flash_fwd_kernel"):
            t.kernel(name, dur)
    t.host_t = t.gpu_t + 100
    t.kernel("multi_tensor_apply_kernel<FusedAdamMathFunctor>", 5)
    rows, notes = passes(tmp_path, t.write(tmp_path / "train.json"))
    assert [r["step_kind"] for r in rows] == ["train"]


@pytest.mark.parametrize("name, kind, tokens, requests", [
    ("execute_context_1(888_788544)_generation_0(0)", "prefill", "888", "1"),
    ("execute_context_0(0)_generation_4(4_4)", "decode", "4", "4"),
    ("execute_context_2(100_5000)_generation_3(3_3)", "mixed", "103", "5"),
])
def test_the_older_vllm_step_annotation_with_an_empty_side(tmp_path, name, kind, tokens, requests):
    rows, _ = passes(tmp_path, graph_steps(tmp_path / "v.json", 1, 4, annotation=name))
    assert [(r["step_kind"], r["tokens"], r["requests"]) for r in rows] == [(kind, tokens, requests)]


def test_stages_of_moe_layers_in_their_order(tmp_path):
    """Each layer of layer_kernels: the anchor, the output projection, then the post-attention norm and the
    gating (router), the expert GEMM (experts), then the next layer's norm, QKV projection and rope
    (attention again). The last layer's lm_head is the epilogue."""
    rows, notes = passes(tmp_path, graph_steps(tmp_path / "m.json", 1, 5), "--by", "stage", report="layers")
    got = {(r["layer_kind"], r["stage"]): (r["layers"], r["kernels"], r["sum_us"]) for r in rows}
    # attention: layers 0-3 hold fmha 20 + o 8 + the next layer's norm 3, qkv 12, rope 2 (5 kernels, 45 us);
    # layer 4 fmha + o (2 kernels, 28 us)
    assert got == {("moe/full", "attention"): ("5", "22", "208.000"),
                   ("moe/full", "router"): ("5", "10", "30.000"),
                   ("moe/full", "experts"): ("5", "5", "150.000")}
    assert [r["stage"] for r in rows] == ["attention", "router", "experts"]
    assert "layer kinds (layers over the selected passes): moe/full 5" in notes


def test_one_representative_layer_per_kind(tmp_path):
    rows, _ = passes(tmp_path, eager_alternating(tmp_path / "gptoss.json", layers=6), "--by", "kind",
                     report="layers")
    # the sliding-window kernel says so; the other is full attention
    assert sorted((r["layer_kind"], r["layers"]) for r in rows) == [("moe/full", "3"), ("moe/sliding", "3")]
    assert all(int(r["layer"]) % 2 == (r["layer_kind"] == "moe/full") for r in rows)


def test_stored_segmentation_has_stage_and_layer_kind(tmp_path):
    db = tmp_path / "t.duckdb"
    cli("ingest", graph_steps(tmp_path / "m.json", 1, 3), "--db", db, "--name", "t")
    cli("segment", "--db", db, "--run", "t")
    r = cli("sql", "--db", db, "--format", "csv",
            "SELECT stage, layer_kind, count(*) AS n FROM kernel_layers WHERE unit = 'layer' GROUP BY ALL ORDER BY ALL")
    assert list(csv.reader(io.StringIO(r.stdout)))[1:] == [
        ["attention", "moe/full", "12"], ["experts", "moe/full", "3"], ["router", "moe/full", "6"]]


def test_alternating_anchors_whose_names_say_nothing_are_variants(tmp_path):
    t = Trace()
    for i in range(4):
        for name, dur in layer_kernels(i, "unified_attention_2d" if i % 2 else "unified_attention_3d"):
            t.kernel(name, dur)
    rows, notes = passes(tmp_path, t.write(tmp_path / "v.json"), "--by", "kind", "--layers", "4", report="layers")
    assert sorted((r["layer_kind"], r["layers"]) for r in rows) == [("moe/variant 1", "2"), ("moe/variant 2", "2")]
    assert "'variant N' where alternating anchors' names do not say which is sliding" in notes


def test_compare_by_stage_lines_up_stages_across_runs(tmp_path):
    db = tmp_path / "t.duckdb"
    cli("ingest", graph_steps(tmp_path / "a.json", 1, 5), "--db", db, "--name", "a")
    cli("ingest", eager_alternating(tmp_path / "b.json", layers=6), "--db", db, "--name", "b")
    r = cli("report", "compare", "--db", db, "--run", "a", "--run", "b", "--by", "stage", "--layer", "mean",
            "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert "category" not in rows[0]
    got = {(r["run"], r["stage"]): r["sum_us"] for r in rows}
    # a: 5 layers, attention 208 us, router 30, experts 150 (test_stages_of_moe_layers_in_their_order)
    assert (got[("a", "attention")], got[("a", "router")], got[("a", "experts")]) == ("41.600", "6.000", "30.000")


def test_an_attention_kernel_the_rules_do_not_know_is_found_by_repetition(tmp_path):
    """SGLang's Triton decode attention (_fwd_kernel_stage1 / _stage2) says nothing of attention: the
    kernels that repeat as often as most repeating kernels do give the layers, and the note says it is a
    guess. Only in a trace that records a serving step: a CNN repeats its convolutions too."""
    t = Trace()
    corr = t.graph_launch()
    t.frame("user_annotation", "step[DECODE bs=4]", 0, t.host_t + 1)
    t.gpu_t = t.host_t + 5
    t.kernel("embedding_kernel", 3, corr)
    for i in range(7):
        for name, dur in [("rmsnorm_kernel", 3), ("nvjet_qkv_gemm", 12), ("z_fwd_kernel_stage1", 25),
                          ("_fwd_kernel_stage2", 4), ("nvjet_o_gemm", 8), ("rmsnorm_kernel", 3),
                          ("nvjet_gate_up", 20), ("act_and_mul_kernel", 3), ("nvjet_down", 10)]:
            t.kernel(name, dur, corr)
    t.kernel("lm_head_gemm", 15, corr)
    rows, notes = passes(tmp_path, t.write(tmp_path / "u.json"))
    assert [r["anchors"] for r in rows] == ["7"]
    assert "a guess: no attention kernel repeats steadily" in notes
    assert "anchor chosen: z_fwd_kernel_stage1" in notes      # the repeating kernel with most device time


@pytest.mark.parametrize("every", [2, 4, 6])
def test_a_hybrid_model_counts_linear_and_full_attention_layers_once(tmp_path, every):
    """Qwen3-Next runs gated-delta-rule linear attention in three of four layers and full attention in the
    fourth; Gemma 3 five sliding to one full: each layer is one anchor whatever its attention."""
    t = Trace()
    layers = 12
    for i in range(layers):
        attn = "flash_fwd_kernel" if i % every == every - 1 else "chunk_gated_delta_rule_fwd_kernel"
        for name, dur in layer_kernels(i, attn):
            t.kernel(name, dur)
    rows, notes = passes(tmp_path, t.write(tmp_path / "h.json"), "--by", "kind", report="layers")
    kinds = {r["layer_kind"]: r["layers"] for r in rows}
    assert kinds == {"moe/linear": str(layers - layers // every), "moe/full": str(layers // every)}


def test_no_guess_without_a_serving_step(tmp_path):
    t = Trace()
    for i in range(6):
        for name, dur in [("conv_fprop_kernel", 30), ("bn_fw_kernel", 5), ("relu_kernel", 2)]:
            t.kernel(name, dur)
    trace = t.write(tmp_path / "cnn.json")
    db = tmp_path / "t.duckdb"
    cli("ingest", trace, "--db", db, "--name", "t")
    r = cli("report", "passes", "--db", db, "--run", "t", check=False)
    assert r.returncode == 2 and "no attention kernel repeats" in r.stderr
    # reports that need no layers answer over the whole run
    rows = list(csv.DictReader(io.StringIO(cli("report", "kernels", "--db", db, "--run", "t", "--format",
                                               "csv").stdout)))
    assert {(r["name"], r["count"]) for r in rows} == {("conv_fprop_kernel", "6"), ("bn_fw_kernel", "6"),
                                                       ("relu_kernel", "6")}


SP = ("amd-tracelens", "semantic_purity")


@pytest.mark.real_data
@pytest.mark.parametrize("parts, layers", [
    (SP + ("semantic_purity_qwen3_30b_a3b", "MI300", "1782859605.7198358-TP-0-DECODE.trace.json.gz"), "48"),
    (SP + ("semantic_purity_deepseek_r1", "B300", "1782843274.7730265-TP-0-DECODE.trace.json.gz"), "32"),
])
def test_real_single_graph_replayed_decode_steps(tmp_path, parts, layers):
    """SGLang's stage-separated decode traces: one graph replay of the whole forward, step[DECODE bs=16], a
    foreach kernel in the input preparation."""
    rows, notes = passes(tmp_path, real_trace(*parts))
    got = [(r["anchors"], r["step_kind"], r["tokens"], r["requests"]) for r in rows]
    assert got == [(layers, "decode", "16", "16")]
    assert "training" not in notes


@pytest.mark.real_data
def test_real_moe_decode_step_by_stage(tmp_path):
    """Qwen3-30B-A3B on MI300X, 48 MoE layers: every layer's router (norm, router GEMM, top-k softmax), dispatch
    (ck MoeSorting), experts (two ck kernel_moe_gemm)."""
    trace = real_trace(*SP, "semantic_purity_qwen3_30b_a3b", "MI300", "1782859605.7198358-TP-0-DECODE.trace.json.gz")
    rows, _ = passes(tmp_path, trace, "--by", "stage", report="layers")
    got = {r["stage"]: (r["layers"], r["kernels"]) for r in rows}
    assert {r["layer_kind"] for r in rows} == {"moe/full"}
    # dispatch: 48 MoeSorting kernels, and in layer 7 an eager elementwise kernel that lands between its
    # sorting and its expert GEMMs (it takes the stage of the kernel before it)
    assert got["experts"] == ("48", "108") and got["router"] == ("48", "145") and got["dispatch"] == ("48", "49")
    assert list(got) == ["attention", "router", "dispatch", "experts"]


@pytest.mark.real_data
@pytest.mark.slow
def test_real_diffusion_transformer_graph_replays_are_passes(tmp_path):
    """xDiT FLUX.1 on MI300X: 4 replays of the compiled transformer, 57 SageAttention blocks each."""
    trace = real_trace("amd-tracelens", "inference", "xdit_flux.1_aiter_sage", "profile_trace_rank_0.json.gz")
    rows, notes = passes(tmp_path, trace)
    assert [r["anchors"] for r in rows] == ["57"] * 4
    assert "3 pass breaks between CUDA/HIP graph replays that each hold whole passes" in notes


def test_real_diffusion_transformer_with_its_capture_keeps_its_text_encoder_out(tmp_path):
    """The same trace ingested as its folder, paired with its graph capture: the capture frames the eager text
    encoder's 12 CLIP layers (attn_fwd, one more in the VAE), not the replayed blocks; joining attn_fwd to
    sage_fwd would hold 57 a pass, not the 12 CLIPEncoderLayer instances, so the blocks' own anchor stands."""
    folder = real_trace("amd-tracelens", "inference", "xdit_flux.1_aiter_sage")
    db = tmp_path / "f.duckdb"
    cli("ingest", folder, "--db", db)
    r = cli("report", "passes", "--db", db, "--run", "xdit_flux.1_aiter_sage-rank0", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [x["anchors"] for x in rows] == ["57"] * 4
    assert "anchor chosen: sage_fwd" in r.stderr


def steps_of_two_kinds(path, layers, prefill_attn, decode_attn, decodes=3):
    """An unannotated eager capture: one prefill step whose layers are long (a 1 ms GEMM each), then decode
    steps of short layers, 1.5 ms of host idle time between steps."""
    t = Trace()
    for step in range(1 + decodes):
        prefill = step == 0
        for i in range(layers):
            t.kernel("rmsnorm_kernel", 3)
            t.kernel("nvjet_qkv_gemm", 1000 if prefill else 12)
            t.kernel(prefill_attn if prefill else decode_attn, 400 if prefill else 20)
            t.kernel("nvjet_o_gemm", 600 if prefill else 8)
        t.kernel("lm_head_gemm", 15)
        t.host_t = t.gpu_t + 1500
    return t.write(path)


def test_prefill_and_decode_kernels_take_turns_pass_by_pass(tmp_path):
    trace = steps_of_two_kinds(tmp_path / "pd.json", 6, "BatchPrefillWithPagedKVCacheKernel",
                               "BatchDecodeWithPagedKVCacheKernel")
    rows, notes = passes(tmp_path, trace)
    assert [(r["anchors"], r["step_kind"]) for r in rows] == [("6", "prefill")] + [("6", "decode")] * 3
    assert "2 attention kernels of steps of two kinds that take turns pass by pass" in notes


def test_a_prefill_before_decode_steps_splits_where_a_gap_stands_out_locally(tmp_path):
    """One attention kernel in both kinds of step: no gap stands out over the whole run (the prefill's
    layer gaps are larger than the decode steps' ends), but each step's end stands out beside its own."""
    trace = steps_of_two_kinds(tmp_path / "hf.json", 6, "flash_fwd_kernel", "flash_fwd_kernel")
    rows, notes = passes(tmp_path, trace)
    assert [r["anchors"] for r in rows] == ["6"] * 4
    assert "3 pass breaks at anchor gaps that stand out from the gaps beside them (>= 4x the smaller)" in notes


def test_embedding_and_sampling_kernels_end_forwards_where_no_gap_does(tmp_path):
    """Decode steps back to back with no idle time between them (a pipelined server): no gap stands out,
    but each forward starts with its embedding lookup and ends with its sampling. A rotary embedding runs
    in every layer and ends nothing."""
    t = Trace()
    for step in range(4):
        t.kernel("aclnnEmbedding_GatherV2AiCore_GatherV2", 3)
        for i in range(5):
            t.kernel("rmsnorm_kernel", 3)
            t.kernel("nvjet_qkv_gemm", 12)
            t.kernel("RotaryPositionEmbedding", 2)
            t.kernel("flash_fwd_kernel", 20)
            t.kernel("nvjet_o_gemm", 8)
        t.kernel("lm_head_gemm", 15)
        t.kernel("ArgMaxV2", 2)
    rows, notes = passes(tmp_path, t.write(tmp_path / "e.json"))
    assert [r["anchors"] for r in rows] == ["5"] * 4
    assert "3 pass breaks where the trace puts one (work of another phase, a pipeline send/receive, or an " \
           "embedding or sampling kernel, between two anchors)" in notes


def test_a_given_anchor_takes_the_module_trees_layer_count(tmp_path):
    rows, notes = passes(tmp_path, eager_alternating(tmp_path / "gptoss.json"), "--anchor", "attention_kernel")
    assert [r["anchors"] for r in rows] == ["6"]
    assert "layers from the module tree: 6 TransformerBlock instances (TransformerBlock_0 ... TransformerBlock_5) " \
           "launch the anchors, so a pass holds 6 of them (--layers overrules)" in notes


def back_to_back(path, passes_n, layers, frame):
    """`passes_n` eager passes of `layers` layers back to back, every anchor gap alike (no embedding, no
    sampling, no step mark between passes): only the layers the trace names tell where a pass starts.
    frame: 'module' (nn.Module: DecoderLayer_<i>), 'range' (a user annotation model.layers.<i>, as layerwise
    NVTX markers write it) or None."""
    t = Trace()
    for _ in range(passes_n):
        for i in range(layers):
            start = t.host_t
            for name, dur in layer_kernels(i, "attention_kernel_full<false>"):
                t.kernel(name, dur)
            if frame == "module":
                t.frame("python_function", f"nn.Module: DecoderLayer_{i}", start - 0.5, t.host_t - start + 1)
            elif frame == "range":
                t.frame("user_annotation", f"model.layers.{i}", start - 0.5, t.host_t - start + 1)
            t.host_t += 2
    return t.write(path)


@pytest.mark.parametrize("frame", ["module", "range"])
def test_the_models_blocks_called_again_start_a_pass(tmp_path, frame):
    rows, notes = passes(tmp_path, back_to_back(tmp_path / "b2b.json", 3, 5, frame))
    assert [(r["pass"], r["anchors"]) for r in rows] == [("0", "5"), ("1", "5"), ("2", "5")]
    assert "2 pass breaks where the model's blocks are called again" in notes
    block = "DecoderLayer" if frame == "module" else "model.layers"
    assert f"layers from the module tree: 5 {block} instances ({block}_0 ... {block}_4) launch these anchors" in notes


def test_without_the_layers_named_back_to_back_passes_are_one(tmp_path):
    """The same trace with no frame: nothing in it marks a pass, so one pass of 15 anchors."""
    rows, _ = passes(tmp_path, back_to_back(tmp_path / "b2b.json", 3, 5, None))
    assert [r["anchors"] for r in rows] == ["15"]


@pytest.mark.parametrize("name, block, number", [
    ("model.layers.3", "model.layers", "3"), ("model.layers.3.self_attn", "model.layers", "3"),
    ("decoder.layers.0.mlp", "decoder.layers", "0"), ("layers.12", "layers", "12"), ("Layer 5", "Layer", "5"),
    ("TransformerLayer_3", "TransformerLayer", "3"), ("Qwen2DecoderLayer_4", "Qwen2DecoderLayer", "4"),
    ("transformer.h.3", "transformer.h.", "3"), ("blocks.7", "blocks", "7"),
    ("layer_norm", None, None), ("h100", None, None), ("ProfilerStep#3", None, None),
    ("step[DECODE bs=32]", None, None), ("attn(F)", None, None), ("forward_step", None, None)])
def test_which_annotations_name_a_layer(name, block, number):
    from tracedb.engine.segmentation.module_tree import LAYER_RANGE
    m = LAYER_RANGE.search(name)
    assert (m.groups() if m else (None, None)) == (block, number)


@pytest.mark.parametrize("frame", ["module", "range"])
def test_a_segmentation_found_from_the_models_blocks_is_kept_and_restored(tmp_path, frame):
    """Every session table such a segmentation makes (its block or range classes too) is one `tracedb segment`
    keeps, so a report after it restores the kept rows instead of setting them aside."""
    db = tmp_path / "t.duckdb"
    cli("ingest", back_to_back(tmp_path / "b2b.json", 3, 5, frame), "--db", db, "--name", "t", "--no-segment")
    before = json.loads(cli("report", "layers", "--db", db, "--run", "t", "--format", "json").stdout)
    cli("segment", "--db", db, "--run", "t")
    after = json.loads(cli("report", "layers", "--db", db, "--run", "t", "--format", "json").stdout)
    assert not [n for n in after["notes"] if "set aside" in n]
    assert after["params"].get("segmentation") == "kept in the store, restored"
    assert after["rows"] == before["rows"]
