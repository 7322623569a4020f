"""Profiles are data: every built-in loads, its patterns are valid RE2, and kernel names from real traces
(a DeepSeek H800/B200 per-kernel table, Ascend op types) land in the expected category."""
import duckdb
import pytest

from tracedb.engine.segmentation import profiles
from tracedb.engine.segmentation import categories
from tracedb.errors import UsageError


@pytest.mark.parametrize("name", profiles.builtin_names())
def test_builtin_profiles_load_and_compile(name):
    p = profiles.load(name)
    con = duckdb.connect()
    for cat, pat in p.rules:
        con.execute("SELECT regexp_matches('x', $p)", {"p": pat})   # raises on an invalid RE2 pattern
    assert p.categories[-1] == "other"
    assert len(p.categories) == len(set(p.categories))


def test_expected_builtins_and_anchors():
    got = {n: (profiles.load(n).anchor, profiles.load(n).layers, profiles.load(n).blocks_per_layer)
           for n in profiles.builtin_names()}
    assert got == {
        "qwen3-npu": ("FusedInferAttentionScore", None, 1),
        "dsv3-npu": ("FusedInferAttentionScore", 61, 1),
        "glm5-npu": ("SparseFlashAttention", 80, 1),
        "dsv3-gpu": ("flash_fwd_mla_combine", 61, 1),
        "dsv4-gpu": ("mhc_post_tilelang", None, 2),
        "generic": (None, None, 1),
    }
    assert profiles.load("dsv4-gpu").anchor_fallback == "mhc_pre_big_fuse"


NPU = [  # (kernel name, op type) -> category under qwen3-npu
    ("aclnnFusedInferAttentionScoreV3_FusedInferAttentionScore_FusedInferAttentionScore", "FusedInferAttentionScore",
     "attention"),
    ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "gemm"),
    ("aclnnMatmul_MatMulCommon_MatMulV2", "MatMulV2", "gemm"),
    ("aclnnQuantMatmulV4_QuantBatchMatmulV3_QuantBatchMatmulV3", "QuantBatchMatmulV3", "gemm_quant"),
    ("aclnnGroupedMatmulV4_GroupedMatmul_GroupedMatmul", "GroupedMatmul", "moe"),
    ("aclnnMoeDistributeDispatch_MoeDistributeDispatch_MoeDistributeDispatch", "MoeDistributeDispatch",
     "communication"),
    ("hcom_allReduce__428_0_1", "hcom_allReduce_", "communication"),
    ("RmsNorm", "RmsNorm", "norm"),
    ("aclnnAddRmsNorm_AddRmsNorm_AddRmsNorm", "AddRmsNorm", "norm"),
    ("SwiGlu", "SwiGlu", "activation"),
    ("RotaryPositionEmbedding", "RotaryPositionEmbedding", "rope"),
    ("aclnnMoeGatingTopK_MoeGatingTopK_MoeGatingTopK", "MoeGatingTopK", "moe"),   # MoE routing
    ("aclnnDynamicQuant_DynamicQuant_DynamicQuant", "DynamicQuant", "quant"),
    ("aclnnExpand_BroadcastToAiCore_BroadcastTo", "BroadcastTo", "other"),
    ("aclnnAdd_AddAiCore_Add", "Add", "other"),
]
GPU = [  # DeepSeek H800/B200 kernel names -> category under dsv3-gpu
    ("flashinfer::norm::FusedAddRMSNormKernel", "norm"),
    ("rmsnorm_split_col_kernel", "norm"),
    ("deep_gemm::sm100_fp8_gemm_1d1d_impl", "gemm_quant"),
    ("per_token_group_quant_fp8_kernel", "quant"),
    ("nvjet_tst_256x128_64x5_2x1_v_bz_coopA_NNT", "gemm"),
    ("cublasLt::splitKreduce_kernel", "gemm"),
    ("rotary_embedding_kernel", "rope"),
    ("mhaSm100fKernel_QkvE4m3OBfloat16HQk576", "attention"),
    ("flash_fwd_mla_combine_kernel", "attention"),
    ("deep_ep::internode_ll::dispatch", "communication"),
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "communication"),
    ("silu_and_mul_kernel_ep_index", "activation"),
    ("act_and_mul_kernel", "activation"),
    ("void at::native::sbtopk::gatherTopK<float>", "topk"),
    ("fused_moe_kernel", "moe"),
    ("void at::native::vectorized_elementwise_kernel<4>", "other"),
    ("Cijk_Ailk_Bljk_BBS_BH_MT128x128x64", "gemm"),
    ("FmhaBatchPrefillWithPagedKVCacheKernel", "attention"),
]


def test_npu_categories():
    got = categories.categorize(duckdb.connect(), profiles.load("qwen3-npu"), [(n, o) for n, o, _ in NPU])
    assert got == [c for _, _, c in NPU]


def test_gpu_categories():
    got = categories.categorize(duckdb.connect(), profiles.load("dsv3-gpu"), [(n, None) for n, _ in GPU])
    assert got == [c for _, c in GPU]


def test_dsv4_own_categories_come_first():
    got = categories.categorize(duckdb.connect(), profiles.load("dsv4-gpu"),
                             [("mhc_post_tilelang_kernel", None), ("hadamard_transform_kernel", None)])
    assert got == ["mhc", "hadamard"]


def test_user_profile_file_extends_builtin(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('description = "x"\nextends = ["_ascend"]\nanchor = "MyAttn"\nlayers = 3\n'
                 '[[category]]\nname = "my_attn"\npattern = "MyAttn"\n')
    p = profiles.load(str(f))
    assert (p.name, p.anchor, p.layers) == ("mine", "MyAttn", 3)
    assert p.categories[0] == "my_attn" and p.categories[-1] == "other"
    assert categories.categorize(duckdb.connect(), p, [("MyAttn", None), ("RmsNorm", "RmsNorm")]) == ["my_attn", "norm"]


@pytest.mark.parametrize("text, message", [
    ('anchr = "x"\n', "unknown keys anchr"),
    ('[[category]]\nname = "Bad Name"\npattern = "x"\n', "snake_case"),
    ('[[category]]\nname = "ok"\n', "needs name and pattern"),
    ('layers = 0\n', "must be >= 1"),
    ('anchor = \n', "profile file"),
])
def test_bad_profile_files(tmp_path, text, message):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(UsageError, match=message):
        profiles.load(str(f))


def test_unknown_profile_lists_builtins():
    with pytest.raises(UsageError, match="unknown profile 'nope'.*qwen3-npu"):
        profiles.load("nope")


def test_model_config_layers_and_types(tmp_path):
    f = tmp_path / "config.json"
    f.write_text('{"num_hidden_layers": 4, "compress_ratios": [0, 4, 128, 4]}')
    assert profiles.model_config(str(f)) == {"layers": 4,
                                             "layer_types": ["FULL_ATTN", "C4_LIGHT", "C128_HEAVY", "C4_LIGHT"]}
    f.write_text('{"num_hidden_layers": 3, "first_k_dense_replace": 1, "n_routed_experts": 256}')
    assert profiles.model_config(str(f))["layer_types"] == ["dense", "moe", "moe"]
    f.write_text('{"hidden_size": 3}')
    with pytest.raises(UsageError, match="num_hidden_layers"):
        profiles.model_config(str(f))


def test_quantised_expert_gemms_are_moe():
    from tracedb.engine.segmentation import profiles
    from tracedb.engine.segmentation import categories
    import tracedb
    con = tracedb.connect(":memory:")
    names = ["_matmul_ogs_NNT_bf16xbf16xmxfp4_128x256x64x1_swiglu", "grouped_gemm_fp8_kernel",
             "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"]
    cats = categories.categorize(con, profiles.load("generic"), [(n, None) for n in names])
    assert cats == ["moe", "moe", "gemm"]
