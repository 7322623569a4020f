"""Short kernel names: real names from the shared traces, the kernel_names table at ingest and migration,
and terminal tables that fit their width while CSV keeps every name whole."""
import pytest

import tiny_kineto
import tracedb
from helpers import cli
from tracedb.engine.rendering import render
from tracedb.engine.reports.registry import build_report
from tracedb.ingest.kernel_names import short_name

REAL = [   # (name as the profiler wrote it, short name): ROCm, CUDA, PyTorch, Tensile, Ascend
    ("_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_40BlockFmhaBatchPrefillPipelineQRKSVS"
     "AsyncINS_36BlockFmhaBatchPrefillPipelineProblemIDF16bDF16bDF16bffDF16bhfDF16bfDF16bNS_13TileFmhaShapeINS_8seq"
     "uenceIJLi128ELi128ELi32ELi128ELi32ELi128EEEENS5_IJLi4ELi1ELi1EEEENS5_IJLi32ELi32ELi16EEEES7_S8_Lb1EEELb1ENS_17"
     "ComposedAttentionILj0ELb1EEENS_30SimplifiedGenericAttentionMaskILb1EEELb0ELi1ENS_26TileFmhaBatchPrefillTraitsI"
     "Lb1ELb1ELb1ELb1ELb0ELNS_22BlockAttentionBiasEnumE0ELb0ELb0ELb0ELNS_28BlockAttentionQuantScaleEnumE0ELin1ELb0ELb"
     "0ELi1ELNS_37BlockAttentionKVCacheMemoryLayoutEnumE1ELNS_36BlockAttentionKVCacheLookupTableEnumE1ELNS_33BlockAt"
     "tentionKVCacheLoadModeEnumE0EEEEENS_53BlockFmhaBatchPrefillPipelineQRKSVSAsyncDefaultPolicyEEENS_17Default2DEpi"
     "logueINS_24Default2DEpilogueProblemIfDF16bLb1ELb1ELb1EEEvEEEEJNSS_21FmhaFwdGroupModeKargsEEEEvDpT1_",
     "ck_tile::FmhaBatchPrefillWithPagedKVCacheKernel"),
    ("_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
     "aiter::add_rmsnorm_quant_kernel"),
    ("_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i",
     "sgl_hip::act_and_mul_kernel"),
    ("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT32x32x256_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
     "DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA512_LBSPPB512_LBSPPM0_LPA16_LPB16",
     "Cijk_Alik_Bljk_BBS_BH MT32x32x256 MI16x16x1"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, "
     "3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
     "vectorized_elementwise_kernel[add]"),
    ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, "
     "float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::"
     "BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>"
     "(int, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::"
     "binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, "
     "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
     "elementwise_kernel[mul]"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::"
     "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >"
     "(int, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::"
     "operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)", "vectorized_elementwise_kernel[rsqrt]"),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
     "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
     "unsigned int, float, 4>)", "reduce_kernel[mean]"),
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_tn_align1>(cutlass_80_tensorop_s1688gemm_64x64_"
     "32x4_tn_align1::Params)", "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_tn_align1>"),
    ("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
     "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, "
     "false, false, false, true, false>(pytorch_flash::Flash_fwd_params)",
     "pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4>>"),
    ("hcom_allReduce__271_0_1", "hcom_allReduce"),
    ("aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3"),
    ("volta_sgemm_32x128_nn", "volta_sgemm_32x128_nn"),
]


@pytest.mark.parametrize("name, short", REAL, ids=[s for _, s in REAL])
def test_short_names_of_real_kernels(name, short):
    assert short_name(name) == short


def test_ingest_stores_short_names_that_plain_sql_sees(con, tmp_path):
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "g.json"), name="g")
    assert con.execute("SELECT count(*) FROM kernel_names WHERE short_name IS NULL").fetchone() == (0,)
    got = dict(con.execute("SELECT name, short_name FROM kernel_stats").fetchall())
    assert got["gemm_kernel"] == "gemm_kernel" and set(got) == {n for (n,) in con.execute(
        "SELECT DISTINCT name FROM kernels").fetchall()}


def test_terminal_tables_fit_their_width_and_csv_keeps_whole_names(con, tmp_path):
    long_name = "void my::kernel<" + ", ".join(["veryLongTemplateArgument"] * 20) + ">(int)"
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "g.json"), name="g")
    con.execute("UPDATE trace_events SET name = $n WHERE name = 'gemm_kernel'", {"n": "x" * 300})
    res = build_report(con, "kernels", runs=["g"], anchor="flash_fwd", layers=2, pass_spec="0", fmt="table")
    table = render.render(res, "table", width=130)
    lines = table.splitlines()
    # the 300-character name is clipped to what 130 columns leave it; numbers are never clipped
    assert max(len(line) for line in lines) <= 130 and any(("x" * 20) + "…" in line for line in lines)
    whole = render.render(build_report(con, "kernels", runs=["g"], anchor="flash_fwd", layers=2, pass_spec="0",
                                       fmt="csv"), "csv")
    assert "x" * 300 in whole and long_name not in whole
    assert max(len(line) for line in render.render(res, "table").splitlines()) > 300   # no width: unclipped


def test_the_cli_table_fits_columns(tmp_path):
    db = str(tmp_path / "w.duckdb")
    cli("ingest", tiny_kineto.write(tmp_path / "g.json"), "--db", db, "--name", "g")
    from helpers import in_pty
    out = in_pty(["report", "passes", "--db", db, "--run", "g", "--anchor", "flash_fwd"], 60)
    notes = [line for line in out if line.startswith(("note: ", "  "))]
    # notes wrap at the width (the table itself is all numbers and is never clipped)
    assert len(notes) > 2 and max(len(line) for line in notes) <= 60
