"""Categories of kernels under a profile's ordered rules (sql/segment/categories.sql): of given (name, op
type) pairs, or of every distinct kernel of the bound runs (TEMP _cats); and the evidence the launching host
side adds (sql/segment/module_categories.sql): the module first, then the launching op, then the name."""
from tracedb import sql
from tracedb.engine.segmentation import profiles

# Module classes of an MoE block and its parts: everything launched inside one is MoE work (the expert GEMMs
# whatever their names say, the routing, the experts' activation). Matched at the end of the class name,
# where its role word is: FusedMoE, SharedFusedMoE, DeepseekV2MoE, Llama4TextMoe, Qwen3MoeSparseMoeBlock,
# MoELayer, MoEGate, GptOssExperts, Expert, GptOssTopKRouter, TopKRouter; but not Qwen3MoeAttention,
# Qwen3MoeRMSNorm, Qwen3MoeDecoderLayer or OlmoeForCausalLM, whose model name merely contains "Moe".
MODULE_MOE = r"(?i)(moe|moe_?block|moe_?layer|moe_?gate|experts?|router)$"
# Module classes that say nothing of the kernels launched directly inside them, even with a role word in
# their name: wrappers of both attention and MLP (a decoder layer or block, the model, a compiled graph
# piece: MllamaCrossAttentionDecoderLayer, diffusers' CrossAttnDownBlock2D, UNetMidBlock2DCrossAttn), and
# linear layers (AutoGPTQ's QuantLinear launches GEMMs, not quantisation), whose GEMMs their op or name place.
MODULE_SILENT = (r"(DecoderLayer|EncoderLayer|Layer|Block|Block\dD|Block\dDCrossAttn|Model|ForCausalLM|"
                 r"ForConditionalGeneration|Module|Linear)$|^Transformer$")
# The launching op's category (the innermost cpu_op around the launch), in order, the first match winning.
# Op names get rules of their own rather than the profile's kernel-name rules: a namespace names a library,
# not the op (fbgemm::split_embedding_codegen_lookup_* is an embedding lookup, not a GEMM: 15.2 ms of HTA's
# trace_diff control trace), and generic words mean other things in op names (fbgemm::permute_2D_sparse_data
# permutes sparse features, not MoE tokens). ATen's matrix products are GEMMs whatever kernel cuBLAS or
# hipBLASLt picks (a memset or split-K reduce they launch too); an MoE op (vLLM's moe_forward, the _moe_C and
# sgl_kernel moe_* ops, a grouped GEMM) is MoE work whatever it launches; a fused rope + flash-attention op is
# attention.
OP_RULES = [
    ("moe", r"(?i)moe|expert|grouped_?(mm|gemm|matmul)"),
    ("gemm", r"^aten::(mm|addmm|bmm|baddbmm|addbmm|matmul|linear|_scaled_mm|_int_mm|addmv|mv)$"
             r"|(?i)(^|::)[^:]*(gemm|matmul)[^:]*$"),
    ("attention", r"(?i)scaled_dot_product|attention|attn|kv_?cache|reshape_and_cache"),
    ("norm", r"(?i)layer_?norm|rms_?norm|group_?norm|batch_?norm"),
    ("rope", r"(?i)rotary|rope"),
    ("activation", r"(?i)silu|gelu|swiglu|act_and_mul|relu"),
    ("quant", r"(?i)quant"),
]
# A quantised GEMM's name: moved out of moe under attention, it is gemm_quant (the GPU profile's own rule)
QUANT_GEMM = r"(?i)fp8|e4m3|e5m2|int8|w8a8|f8|ptp128|dptp128"


def categorize(con, prof: profiles.Profile, pairs: list[tuple[str, str | None]]) -> list[str]:
    """Category of each (name, op_type) under a profile's rules: the SQL every report uses."""
    load_rules(con, prof)
    # op types all None (a GPU trace) would type the column "NULL": _cats keeps one shape
    sql.run(con, "categories_names_given", {"names": [n for n, _ in pairs], "op_types": [o for _, o in pairs]})
    sql.run(con, "categories")
    got = {(n, o): c for n, o, c in sql.run(con, "categories_cats").fetchall()}
    return [got[(n, o)] for n, o in pairs]


def load_rules(con, prof):
    """TEMP _rules: the profile's category rules in order, `other` last."""
    order = {c: i for i, c in enumerate(prof.categories)}
    rules = prof.rules + [("other", None)]   # NULL pattern: never matches, only names the column
    sql.run(con, "categories_rules", {"categories": [c for c, _ in rules], "patterns": [p for _, p in rules],
                                      "cat_ords": [order[c] for c, _ in rules]})


def categorize_kernels(con, b):
    """_cats (categories.sql): the category of every distinct (name, op type) of the bound runs' kernels
    under the bound profile's rules."""
    load_rules(con, b.profile)
    sql.run(con, "categories_kernel_names", {"run_ids": b.run_ids})
    sql.run(con, "categories")


def evidence_params(prof: profiles.Profile) -> dict:
    """The bound parameters of module_categories.sql under a profile: its categories' positions (NULL for
    one it lacks) and the module and op patterns above. An op rule whose category the profile lacks is
    left out."""
    cats = prof.categories
    ords = {c: cats.index(c) if c in cats else None
            for c in ("other", "communication", "moe", "topk", "gemm", "gemm_quant", "attention")}
    ops = [(cats.index(c), p) for c, p in OP_RULES if c in cats]
    return {"other_ord": ords["other"], "comm_ord": ords["communication"], "moe_ord": ords["moe"],
            "topk_ord": ords["topk"], "gemm_ord": ords["gemm"],
            "gemm_quant_ord": ords["gemm_quant"] if ords["gemm_quant"] is not None else ords["gemm"],
            "attention_ord": ords["attention"], "quant_pattern": QUANT_GEMM, "moe_class": MODULE_MOE,
            "silent_class": MODULE_SILENT, "op_ords": [o for o, _ in ops], "op_patterns": [p for _, p in ops]}
