"""Short names of real kernel names (ingest/kernel_names.py): never empty, never a bare namespace, keyword or
return type, and always holding the function's own identifier (for a launch wrapper: the kernel it launches).
FROM_TRACES are copied from the shared real traces (the comment names the folder); NSYS_STYLE are written as
Nsight Systems and CUPTI print names (as in public nsys reports): their demangler writes `<unnamed>`, `(int)4`
and `[lambda(int) (instance 1)]` where libstdc++ writes `(anonymous namespace)`, `4` and `{lambda(int)#1}`."""
import json
import re
import sqlite3

import pytest
from helpers import real_trace

from tracedb.ingest.kernel_names import short_name

# (name as the profiler wrote it, the identifier its short name must hold)
FROM_TRACES = [
    ("void (anonymous namespace)::act_and_mul_kernel<__nv_bfloat16, ((anonymous namespace)::ActivationKind)0, true"
     ", false>((anonymous namespace)::ActivationParams)",
     "act_and_mul_kernel"),  # amd-tracelens
    ("void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<at::native::(anonymous namespace)::Opaque"
     "Type<4u>, unsigned int, 1, 128, 1>(at::native::(anonymous namespace)::OpaqueType<4u>*, at::native::(anonymou"
     "s namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 128"
     ", 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
     "CatArrayBatchedCopy_contig"),  # amd-tracelens
    ("void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, unsigned int, 2, 2, -2>(a"
     "t::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, "
     "unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, long)",
     "indexSelectSmallIndex"),  # amd-tracelens
    ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorL"
     "istMetadata<1>, at::native::LpNormFunctor<float, (at::native::NormType)1, float, 1, 1, 0>, float*, int>(at::"
     "native::(anonymous namespace)::TensorListMetadata<1>, at::native::LpNormFunctor<float, (at::native::NormType"
     ")1, float, 1, 1, 0>, float*, int)",
     "multi_tensor_apply_kernel"),  # amd-tracelens
    ("void at::native::vectorized_templated_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<c"
     "har*, 3ul>, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::"
     "memory::LoadWithCast<2>, at::native::memory::StoreWithCast<1>, float, float, c10::BFloat16>(int, at::native:"
     ":CUDAFunctor_add<float>, std::array<char*, 3ul>, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalc"
     "ulator<1, unsigned int>, at::native::memory::LoadWithCast<2>, at::native::memory::StoreWithCast<1>)",
     "vectorized_templated_elementwise_kernel"),  # amd-tracelens
    ("void at_cuda_detail::cub::detail::scan::DeviceScanKernel<at_cuda_detail::cub::detail::scan::policy_hub<int, "
     "int, int, unsigned int, std::plus<int> >::Policy1000, int const*, int*, at_cuda_detail::cub::ScanTileState<i"
     "nt, true>, std::plus<int>, at_cuda_detail::cub::NullType, unsigned int, int, false, at_cuda_detail::cub::Nul"
     "lType>(int const*, int*, at_cuda_detail::cub::ScanTileState<int, true>, int, std::plus<int>, at_cuda_detail:"
     ":cub::NullType, unsigned int)",
     "DeviceScanKernel"),  # amd-tracelens
    ("void ck_tile::kentry<2, ck_tile::MoeSortingKernel<ck_tile::MoeSortingProblemEx<int, float, 2, true, false, f"
     "alse, true, 0> >, ck_tile::MoeSortingKernel<ck_tile::MoeSortingProblemEx<int, float, 2, true, false, false, "
     "true, 0> >::Kargs>(ck_tile::MoeSortingKernel<ck_tile::MoeSortingProblemEx<int, float, 2, true, false, false,"
     " true, 0> >::Kargs)",
     "MoeSortingKernel"),  # amd-tracelens
    ("_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2dFwdPipelineProblemID"
     "F16bDF16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeINS_8sequenceIJLi1ELi3072EEEENS5_IJLi1ELi128EEEENS5_IJLi1"
     "ELi8EEEEEENS_18Rmsnorm2dFwdTraitsILb1ELb0ELb0ELb0ELNS_21Rmsnorm2dFusedAddEnumE0ELNS_23Rmsnorm2dFusedQuantEnu"
     "mE0ELNS_22Rmsnorm2dSensitiveEnumE0EEEEENS_33Rmsnorm2dFwdPipelineDefaultPolicyEEENS_17Default2DEpilogueINS_24"
     "Default2DEpilogueProblemIfDF16bLb0ELb1ELb0EEEvEEEEJNSM_5KargsEEEEvDpT1_",
     "Rmsnorm2dFwd"),  # amd-tracelens
    ("void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, true, true, false>(cublasLt::cub"
     "lasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, float const*, float "
     "const*, float*, void*, long, float*, int*)",
     "splitKreduce_kernel"),  # hta-multirank
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1"
     "::Params)",
     "cutlass_80_simt_sgemm_128x32_8x5_nn_align1"),  # amd-tracelens
    ("void (anonymous namespace)::groupnorm_kernel_dispatch_up<__hip_bfloat16, 1024u>(unsigned int, unsigned int, "
     "long, bool, __hip_bfloat16 const*, float*, float*)",
     "groupnorm_kernel_dispatch_up"),  # amd-tracelens
    ("void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, 3, false>(__hip_bflo"
     "at16*, float const*, float const*, __hip_bfloat16 const*, int const*, int const*, int, int, float const*)",
     "paged_attention_ll4mi_reduce_kernel"),  # amd-tracelens
    ("void rocprim::ROCPRIM_400001_NS::detail::lookback_scan_kernel<(rocprim::ROCPRIM_400001_NS::detail::lookback_"
     "scan_determinism)0, true, true, rocprim::ROCPRIM_400001_NS::detail::wrapped_scan_config<rocprim::ROCPRIM_400"
     "001_NS::default_config, long>, long const*, long*, at::cuda::cub::(anonymous namespace)::SumOp<long>, long, "
     "long, rocprim::ROCPRIM_400001_NS::detail::lookback_scan_state<long, false, true> >(long const*, long*, unsig"
     "ned long, long, at::cuda::cub::(anonymous namespace)::SumOp<long>, rocprim::ROCPRIM_400001_NS::detail::lookb"
     "ack_scan_state<long, false, true>, unsigned int, long*, long*, bool, bool)",
     "lookback_scan_kernel"),  # amd-tracelens
    ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>(float*, float const*, int, i"
     "nt, int)",
     "softmax_warp_forward"),  # torch-tb-profiler-sample
    ("void (anonymous namespace)::store_kvcache<2048l, 4, true, long>((anonymous namespace)::StoreKVCacheParams)",
     "store_kvcache"),  # amd-tracelens
    ("void vllm::reshape_and_cache_flash_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0>(__hip"
     "_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, __hip_bfloat16*, long const*, long, long, long, lo"
     "ng, long, int, int, int, float const*, float const*, int)",
     "reshape_and_cache_flash_kernel"),  # amd-tracelens
    ("void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::TensorInfo<float, unsig"
     "ned int>, unsigned int, unsigned int, bool, unsigned int, unsigned int, at::cuda::detail::TensorInfo<float, "
     "unsigned int>, unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, float*)",
     "gatherTopK"),  # deepseek-profile-data
    ("void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128, false, 128, false>(__nv_bfloat16 const*, "
     "int, unsigned char*, float*, int, int, int, int, bool, float, __nv_fp8_interpretation_t)",
     "per_token_cast_to_fp8_with_channels"),  # deepseek-profile-data
    ("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::fp8"
     "_ptp128c::GemmKernel::Params)",
     "GemmKernel"),  # deepseek-profile-data
    ("void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*, bool const*, int4 co"
     "nst*, float const*, int4 const*, int4 const*, int const*, int const*, dpsk::ep::internode::SourceMeta const*"
     ", int const*, int const*, int const*, int, int, int, int, void*, int, int, void**, int, int, int, int, int*)",
     "combine"),  # deepseek-profile-data
    ("void cutlass::device_kernel<flash::FlashAttnBwdPreprocess<cute::tuple<cute::C<64>, cute::C<192> >, cute::tup"
     "le<cute::C<64>, cute::C<128> >, cutlass::bfloat16_t, float, cutlass::arch::Sm90, true, true> >(flash::FlashA"
     "ttnBwdPreprocess<cute::tuple<cute::C<64>, cute::C<192> >, cute::tuple<cute::C<64>, cute::C<128> >, cutlass::"
     "bfloat16_t, float, cutlass::arch::Sm90, true, true>::Params)",
     "FlashAttnBwdPreprocess"),  # deepseek-profile-data
    ("void flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1, cutlass::bfloat16_t, 128"
     ">, true, flash::SingleTileScheduler, flash::SeqLenTraits<true> >(flash::CollectiveMainloopFwd<Flash_fwd_kern"
     "el_traits<192, 128, 128, 12, 2, false, 1, cutlass::bfloat16_t, 128>, true, flash::SeqLenTraits<true> >::Para"
     "ms, flash::CollectiveEpilogueFwd<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1, cutlass::bfloat16_t"
     ", 128>, flash::SeqLenTraits<true> >::Params, flash::SingleTileScheduler::Params, flash::SeqLenTraits<true>, "
     "flash::SeqLenTraits<true>)",
     "compute_attn_ws"),  # deepseek-profile-data
    ("void layer_norm::ln_fwd_kernel<layer_norm::Kernel_traits<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, __nv_b"
     "float16, float, unsigned int, 512u, 1u, 4u, 1u, 16u, layer_norm::Kernel_traits_base<512u, __nv_bfloat16, __n"
     "v_bfloat16, __nv_bfloat16, __nv_bfloat16, float, unsigned int, 128u> >, false, false, false, true>(layer_nor"
     "m::FwdParams)",
     "ln_fwd_kernel"),  # deepseek-profile-data
    ("void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out(c10::Scalar const"
     "&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#3}::ope"
     "rator()() const::{lambda(long)#1}>(int, at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, "
     "c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#3}::operator()() const::{lambd"
     "a(long)#1}, function_traits<{lambda(long)#1}>::result_type*)",
     "elementwise_kernel_with_index"),  # deepseek-profile-data
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<long, at::native::func_wrapper_t<long, at::nativ"
     "e::sum_functor<long, long, long>::operator()(at::TensorIterator&)::{lambda(long, long)#1}>, unsigned int, lo"
     "ng, 4> >(at::native::ReduceOp<long, at::native::func_wrapper_t<long, at::native::sum_functor<long, long, lon"
     "g>::operator()(at::TensorIterator&)::{lambda(long, long)#1}>, unsigned int, long, 4>)",
     "reduce_kernel"),  # hta-tests-data
    ("void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<float, float>(long, long, float co"
     "nst*, float const*, float const*, float const*, float*, float*)",
     "GammaBetaBackwardCUDAKernel_32x32"),  # hta-multirank
    ("void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*, long, long, l"
     "ong, int, int, int, int, int, int, int, int, int, int, float*, long*)",
     "max_pool_forward_nchw"),  # hta-multirank
    ("void cask_cudnn_infer::computeOffsetsKernel<false, false>(cask_cudnn_infer::ComputeOffsetsParams)",
     "computeOffsetsKernel"),  # hta-multirank
    ("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct, float const*, cudnnTens"
     "orStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)",
     "bn_fw_tr_1C11_kernel_NCHW"),  # torch-tb-profiler-sample
    ("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::ops::nc"
     "hw2nhwc_params_t<float>, float const*, float*)",
     "nchwToNhwcKernel"),  # hta-multirank
    ("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_128x128_16x4_nhwc_align4>(cutlas"
     "s_tensorop_s1688fprop_optimized_tf32_128x128_16x4_nhwc_align4::Params)",
     "cutlass_tensorop_s1688fprop_optimized_tf32_128x128_16x4_nhwc_align4"),  # hta-multirank
    ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, tr"
     "ue, true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBat"
     "ched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedB"
     "atched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, flo"
     "at>)",
     "kernel"),  # hta-tests-data
    ("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 2, 2, false, false, cublasGemvParams<c"
     "ublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStr"
     "idedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorS"
     "tridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>, float, float)",
     "gemv2T_kernel_val"),  # hta-tests-data
    ("void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, cublasLtEpilogue_"
     "t, int, float*, long, void*, long, long, long, float*, long, int*)",
     "globalKernel"),  # hta-tests-data
    ("void CUTENSOR_NAMESPACE::permutationKernelPLC3<CUTENSOR_NAMESPACE::VectorWrite2DTensorView<(unsigned char)0,"
     " (unsigned char)1, (bool)0, (unsigned int)4, float, __half, CUTENSOR_NAMESPACE::GeneralUnarySmall<float>>, C"
     "UTENSOR_NAMESPACE::VectorRead2DTensorView<(unsigned char)1, (unsigned char)0, (bool)0, (unsigned int)4, floa"
     "t, __half, CUTENSOR_NAMESPACE::GeneralUnarySmall<float>>, CUTENSOR_NAMESPACE::ThreadLevelElementwise<CUTENSO"
     "R_NAMESPACE::ElementwiseConfig2DSmallMode0<CUTENSOR_NAMESPACE::GeneralUnarySmall<float>, CUTENSOR_NAMESPACE:"
     ":GeneralBinary<float>, (int)2, (int)4, (int)512, (int)128, (signed char)4, (bool)0, (bool)0, (bool)0, (bool)"
     "0, (bool)0>, float>, CUTENSOR_NAMESPACE::ElementwiseRuntimePLC3<__half, float, __half, float>::Params>(T4)",
     "permutationKernelPLC3"),  # nsys-sqlite-samples
    ("void genericReformat::copyVectorizedKernel<double, __half, __half, (bool)1, (bool)0, (int)1>(unsigned int, c"
     "onst void *, genericReformat::ArrayN<T6>, genericReformat::ArrayNWithReducedDivisors<T6>, genericReformat::A"
     "rrayN<T6>, int, const float *, void *, genericReformat::ArrayN<T6>, genericReformat::ArrayNWithReducedDiviso"
     "rs<T6>, genericReformat::ArrayN<T6>, int, const float *)",
     "copyVectorizedKernel"),  # nsys-sqlite-samples
    ("void fbgemm_gpu::permute_indices_weights_kernel<true, int, float>(int, int, int, int const*, float const*, i"
     "nt const*, int const*, int const*, int*, float*)",
     "permute_indices_weights_kernel"),  # hta-tests-data
    ("void at::to_dense_representation_kernel<float>(long, long, long const*, float const*, long const*, float*)",
     "to_dense_representation_kernel"),  # hta-tests-data
    ("ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)",
     "ncclDevKernel_Generic_1"),  # amd-tracelens
    ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
     "ncclKernel_AllReduce_RING_LL_Sum_float"),  # hta-tests-data
    ("void at::native::unrolled_elementwise_kernel<at::native::AUnaryFunctor<int, int, bool, at::native::(anonymou"
     "s namespace)::CompareEqFunctor<int> >, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>"
     ", TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithoutCast, at::native::memory::StoreWi"
     "thoutCast>(int, at::native::AUnaryFunctor<int, int, bool, at::native::(anonymous namespace)::CompareEqFuncto"
     "r<int> >, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, "
     "unsigned int>, at::native::memory::LoadWithoutCast, at::native::memory::StoreWithoutCast)",
     "unrolled_elementwise_kernel"),  # hta-multirank
    ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::pow_tensor_scalar_kerne"
     "l_impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::n"
     "ative::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, float)::{"
     "lambda(float)#1}, std::array<char*, 2ul>)",
     "vectorized_elementwise_kernel"),  # amd-tracelens
    ("void at::native::elementwise_kernel_manual_unroll<128, 4, at::native::gpu_kernel_impl<at::native::direct_cop"
     "y_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#3}::operator()() const::"
     "{lambda(int)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lam"
     "bda()#3}::operator()() const::{lambda()#3}::operator()() const::{lambda(int)#1} const&)::{lambda(int, bool)#"
     "1}>(int, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()"
     "#3}::operator()() const::{lambda()#3}::operator()() const::{lambda(int)#1}>(at::TensorIteratorBase&, at::nat"
     "ive::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#3}::opera"
     "tor()() const::{lambda(int)#1} const&)::{lambda(int, bool)#1})",
     "elementwise_kernel_manual_unroll"),  # amd-tracelens
    ("_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
     "add_rmsnorm_quant_kernel"),  # amd-tracelens
    ("void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, long, long, bool)",
     "vectorized_gather_kernel"),  # amd-tracelens
    ("void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::WinogradDataPa"
     "rams<float, float>)",
     "winogradForwardData4x4"),  # torch-tb-profiler-sample
    ("void cunn_ClassNLLCriterion_updateOutput_kernel<float, float>(float*, float*, float*, long*, float*, int, in"
     "t, int, int, long)",
     "cunn_ClassNLLCriterion_updateOutput_kernel"),  # torch-tb-profiler-sample
    ("void split_embedding_codegen_forward_unweighted_kernel<float, float, float, long, 2ul>(at::GenericPackedTens"
     "orAccessor<float, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<float, 1ul, at::Restric"
     "tPtrTraits, long>, at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, long>, at::GenericPack"
     "edTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::Restr"
     "ictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPacked"
     "TensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::Restri"
     "ctPtrTraits, int>, long, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericP"
     "ackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, int>)",
     "split_embedding_codegen_forward_unweighted_kernel"),  # hta-tests-data
]

NSYS_STYLE = [
    # a return type before the name: the function is what follows it
    ("std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm_"
     "kernel<c10::BFloat16, 8>(c10::BFloat16*, std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exis"
     "ts, void>::type, c10::BFloat16 const*, float, int, int)",
     "fused_add_rms_norm_kernel"),
    ("_ZN4vllm25fused_add_rms_norm_kernelIN3c108BFloat16ELi8EEENSt9enable_ifIXaagtT0_Li0EsrNS_12_typeConvertIT_EE6"
     "existsEvE4typeEPS5_S8_PKS5_fii",
     "fused_add_rms_norm_kernel"),
    ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, tr"
     "ue, true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBat"
     "ched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedB"
     "atched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, flo"
     "at>)",
     "gemvx::kernel"),
    # nvFuser's kernel in an anonymous namespace, as nsys and CUPTI print it
    ("<unnamed>::nvfuser_none_f0_c0_r0_g0(<unnamed>::Tensor<float, (int)2, (int)2>, <unnamed>::Tensor<float, (int)"
     "2, (int)2>)",
     "nvfuser_none_f0_c0_r0_g0"),
    ("void at::native::<unnamed>::indexSelectLargeIndex<float, long, unsigned int, (int)2, (int)2, (int)-2, (bool)"
     "1>(at::cuda::detail::TensorInfo<T1, T3>, at::cuda::detail::TensorInfo<T1, T3>, at::cuda::detail::TensorInfo<"
     "T2, T3>, int, int, T3, T3, long)",
     "indexSelectLargeIndex"),
    ("void at::native::<unnamed>::cunn_SoftMaxForward<(int)4, float, float, float, at::native::<unnamed>::LogSoftM"
     "axForwardEpilogue>(T4 *, const T2 *, int)",
     "cunn_SoftMaxForward"),
    ("void at::native::mbtopk::computeBlockDigitCounts<float, unsigned int, unsigned int, (int)2>(at::cuda::detail"
     "::TensorInfo<const T1, T2>, unsigned int, unsigned int *, unsigned int, T2, int, int, unsigned int, T3, T3 *"
     ", short *)",
     "computeBlockDigitCounts"),
    ("void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, std::array<char *"
     ", (unsigned long)3>>(int, T2, T3)",
     "vectorized_elementwise_kernel"),
    ("void at::native::vectorized_elementwise_kernel<(int)4, void at::native::<unnamed>::pow_tensor_scalar_kernel_"
     "impl<float, float>(at::TensorIteratorBase &, T2)::[lambda(float) (instance 1)], std::array<char *, (unsigned"
     " long)2>>(int, T2, T3)",
     "vectorized_elementwise_kernel"),
]

KEYWORDS = {"void", "auto", "const", "unsigned", "int", "long", "float", "bool", "type", "enable_if", "operator",
            "lambda", "anonymous", "namespace", "unnamed"}
NAMESPACES = {"std", "at", "native", "c10", "cuda", "detail", "cutlass", "cute", "vllm", "flash", "ck_tile"}


def assert_readable(name: str, short: str | None, ident: str):
    assert short and short == short.strip(), (name, short)
    assert not short.startswith(("::", "std::")) and not short.endswith("::"), (name, short)
    last = re.sub(r"[<\[ ].*", "", short).rsplit("::", 1)[-1]
    assert last and last not in KEYWORDS and last not in NAMESPACES, (name, short)
    assert ident in short, (name, short, ident)


@pytest.mark.parametrize("name, ident", FROM_TRACES + NSYS_STYLE,
                         ids=[f"{i}-{ident}" for i, (_, ident) in enumerate(FROM_TRACES + NSYS_STYLE)])
def test_a_short_name_holds_the_function_identifier(name, ident):
    assert_readable(name, short_name(name), ident)


def test_the_nsys_short_name_is_in_ours():
    """An Nsight Systems export names each kernel twice: demangledName and shortName, the function's bare
    identifier; ours is derived from the first and holds the second."""
    path = real_trace("nsys-sqlite-samples", "LeiWang1999_memfusion_artifact", "report1.sqlite")
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        pairs = con.execute("SELECT DISTINCT d.value, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON "
                            "d.id = k.demangledName JOIN StringIds s ON s.id = k.shortName").fetchall()
    finally:
        con.close()
    assert len(pairs) > 10
    for name, short in pairs:
        assert_readable(name, short_name(name), short)


@pytest.mark.parametrize("trace", [("amd-tracelens", "h100", "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
                                   ("amd-tracelens", "semantic_purity", "semantic_purity_deepseek_r1", "B300",
                                    "1782843274.7730265-TP-0-DECODE.trace.json.gz")], ids=["h100", "b300"])
def test_every_kernel_of_a_real_trace_gets_a_readable_short_name(trace):
    """Every kernel name of a Kineto trace: a short name whose identifiers all come from the name, ending in
    an identifier that is no keyword or bare namespace."""
    import gzip
    with gzip.open(real_trace(*trace), "rt", encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    names = {e["name"] for e in events if e.get("cat") == "kernel" and e.get("name")}
    assert len(names) > 20
    for name in names:
        short = short_name(name)
        base = re.sub(r"[<\[ ].*", "", short)
        assert_readable(name, short, base.rsplit("::", 1)[-1])
        assert all(part in name for part in base.split("::")), (name, short)
