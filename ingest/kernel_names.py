"""Readable short names for kernel names, computed once per distinct name at ingest (table kernel_names).

Real names are long and vendor-shaped; a table needs the part that says what the kernel is (each name as the
profiler writes it in real traces, then its short name):

    `_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelI…` (867 chars)
        -> `ck_tile::FmhaBatchPrefillWithPagedKVCacheKernel`
    `_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64E…`
        -> `aiter::add_rmsnorm_quant_kernel`
    `Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT32x32x256_MI16x16x1_SN_…` (447)
        -> `Cijk_Alik_Bljk_BBS_BH MT32x32x256 MI16x16x1`
    `void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<…`
        -> `vectorized_elementwise_kernel[add]`
    `void at::native::elementwise_kernel<128, 2, …BinaryFunctor<…MulFunctor<float> > >…`
        -> `elementwise_kernel[mul]`
    `void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(…`
        -> `vectorized_elementwise_kernel[rsqrt]`
    `void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, …MeanOps<…`
        -> `reduce_kernel[mean]`
    `void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_tn_align1>(…)`
        -> `cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_tn_align1>`
    `void cutlass::device_kernel<flash::FlashAttnBwd<flash::CollectiveMainloopBwd<2, …`
        -> `flash::FlashAttnBwd`
    `void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, …`
        -> `pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4>>`
    `hcom_allReduce__271_0_1`
        -> `hcom_allReduce`
    `aclnnMatmul_MatMulV3Common_MatMulV3`
        -> `MatMulV3`
    `volta_sgemm_32x128_nn`, `RmsNorm`
        -> unchanged

Itanium-mangled names are demangled with `cxxfilt` (libstdc++'s abi::__cxa_demangle through ctypes: no
build step, ~10 µs a name). libstdc++ before GCC 13 does not know `DF16b` (std::bfloat16_t), which every
ROCm bf16 kernel carries, so it is read as another builtin type of the same grammar and named back
(a vendor type instead would shift the substitution indices and misname later arguments).
"""
import re

WRAPPERS = {"kentry", "Kernel", "Kernel2", "device_kernel", "kernel", "launch_kernel"}
ELEMENTWISE = re.compile(r"\b((?:vectorized_|unrolled_)?elementwise_kernel(?:_with_index|_manual_unroll)?|"
                         r"reduce_kernel|index_elementwise_kernel)\b")
# the op of a PyTorch elementwise / reduce kernel, most specific first. Every repetition that a failed
# attempt could rescan is bounded ({1,128}), so a search costs O(128 n) on any text: an unbounded lazy `\w+?`
# before `Functor` rescanned the rest of a long identifier from each start (a 40 KB name took 30-45 s).
OPS = [re.compile(p) for p in (
    r"ReduceOp<[^,]{1,256}, at::native::(?:func_wrapper_t<[^,]{1,256}, at::native::)?(\w{1,128}?)(?:Ops|Functor)\b",
    r"CUDAFunctor(?:OnSelf|OnOther)?_(\w+)",
    r"(?<![A-Za-z])(?!AUnary|BUnary|Binary|Unary)(\w{1,128}?)Functor\b",
    r"at::native::(?:\(anonymous namespace\)::)?(?!gpu_kernel_impl)(\w{1,128}?)"
    r"_(?:kernel_cuda|kernel_impl|cuda_out|cuda)\b",
    # any other function the kernel was instantiated for: silu_kernel(…), sum_functor<…>, _float_to_hfp8_gpu
    r"::(?:\(anonymous namespace\)::)?(?!gpu_kernel_impl|func_wrapper_t)(?:launch_)?_?([a-z]\w{0,127}?)"
    r"(?:_cuda_kernel|_kernel_cuda|_kernel_impl|_kernel|_functor|_cuda|_gpu)?[(<]",
)]
# Short names are derived from a name's first NAME_CAP characters (the full name stays in the store): the
# longest kernel names in the real traces tracedb is tested on are 1,956 characters (CUTLASS and ROCm
# templates), and a cap keeps the demangler and every pattern below bounded on a hostile megabyte name.
NAME_CAP = 4096
TRAILING_COUNTERS = re.compile(r"(?:\d+_)+_*")   # `_*(_\d+)+$` read backwards: anchored, so linear
LENGTH_PREFIX = re.compile(r"\d{1,5}")          # a mangled source name's length (at most NAME_CAP)


def fill(con, run_ids=None):
    """Short names for the kernel names of some runs (or of every run) that table kernel_names does not
    hold yet, inside the caller's transaction (an ingest's, or a migration's)."""
    from tracedb import sql
    new = [n for (n,) in sql.run(con, "kernel_names_missing", {"run_ids": run_ids}).fetchall()]
    if new:
        con.execute("INSERT INTO kernel_names SELECT unnest($n), unnest($s)",
                    {"n": new, "s": [short_name(n) for n in new]})


def short_name(name: str | None) -> str | None:
    """The short name of one kernel name (see the module docstring)."""
    if not name:
        return name
    name = name[:NAME_CAP]
    text = demangle(name) if name.startswith("_Z") else name
    if text.startswith("aclnn") and "_" in text:   # aclnnMatmul_MatMulV3Common_MatMulV3: the op type
        return text.rsplit("_", 1)[1]
    if text.startswith("hcom_"):   # hcom_allReduce__123_4_1 -> hcom_allReduce
        m = TRAILING_COUNTERS.match(text[::-1])
        return text[:len(text) - m.end()] if m else text
    if text.startswith("Cijk_"):
        parts = text.split("_")
        keep = [p for p in parts if re.fullmatch(r"(MT|MI)\d+x\d+x\d+", p)]
        return " ".join(["_".join(parts[:5])] + keep)
    m = ELEMENTWISE.search(text)
    if m and ("at::native" in text or "elementwise" in m.group(1)):
        for rx in OPS:
            op = rx.search(text[m.end():])
            if op:
                return f"{m.group(1)}[{_snake(op.group(1))}]"
        return m.group(1)
    if "(" not in text and "<" not in text:
        return text
    return _cxx_short(text)


def demangle(name: str) -> str:
    """Itanium C++ demangling; a name the demangler cannot read gets its leading identifiers instead
    (`_ZN19cutlass_cudnn_train6KernelINS_4conv…` -> `cutlass_cudnn_train::ImplicitGemmConvolution`)."""
    try:
        import cxxfilt
        fixed = name.replace("DF16b", "Dn").replace("DF16_", "Di")
        text = cxxfilt.demangle(fixed)
        if fixed != name:
            text = text.replace("decltype(nullptr)", "bf16").replace("char32_t", "_Float16")
        return text
    except Exception:   # a grammar the demangler does not know (lambdas in template arguments, …)
        return _identifiers(name) or name


def _identifiers(mangled: str) -> str | None:
    """Namespace and main identifier of a mangled name from its length-prefixed source names: the first,
    then the longest of the next five (past launch wrappers such as Kernel or kentry)."""
    found, i = [], 2
    while i < len(mangled) and len(found) < 6:
        m = LENGTH_PREFIX.match(mangled, i)
        if not m:
            i += 1
            continue
        n, start = int(m.group()), m.end()
        ident = mangled[start:start + n]
        if n and re.fullmatch(r"[A-Za-z_]\w*", ident):
            found.append(ident)
            i = start + n
        else:
            i = start
    if not found:
        return None
    rest = [f for f in found[1:] if f not in WRAPPERS]
    return found[0] + ("::" + max(rest, key=len) if rest else "")


def _cxx_short(text: str) -> str:
    """`void ns::kernel<targs>(params)` -> `ns::kernel`; a launch wrapper (kentry, device_kernel, Kernel)
    gives way to its first class argument; a traits argument's leading numbers (tile sizes) are kept."""
    text = re.sub(r"^(void|auto)\s+", "", text.strip()).replace("(anonymous namespace)::", "")
    base, args = _split(text)
    if base.split("::")[-1] in WRAPPERS and args:
        first = next((a for a in args if not re.fullmatch(r"[\d\s\-]+", a)), None)
        if first:
            inner, inner_args = _split(first)
            if "tensorop" in inner or "gemm" in inner.lower() and not inner_args:
                return f"{base}<{inner}>"
            base, args = inner, inner_args
    tile = next((a for a in args if re.search(r"traits", a, re.I)), None)
    if tile:
        tb, targs = _split(tile)
        nums = [a for a in targs if re.fullmatch(r"\d+", a)]
        if nums:
            return f"{base}<{tb.split('::')[-1]}<{', '.join(nums)}>>"
    return base


def _split(text: str) -> tuple[str, list[str]]:
    """`a::b<x, y<z>>(p)` -> ('a::b', ['x', 'y<z>']): the name before its template arguments at depth 0."""
    depth, start, args, base = 0, None, [], None
    for i, ch in enumerate(text):
        if ch == "<":
            if depth == 0:
                base, start = text[:i], i + 1
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                args.append(text[start:i].strip())
                return base.strip(), _top_level(args[0])
        elif ch == "," and depth == 1:
            pass
        elif ch == "(" and depth == 0:
            return text[:i].strip(), []
    return (base or text).strip(), []


def _top_level(s: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur).strip())
    return out


def _snake(op: str) -> str:
    """MulFunctor's Mul -> mul, ArgMax -> argmax, bfloat16_copy stays."""
    return op.lower() if "_" not in op else op
