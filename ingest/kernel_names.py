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
    `std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm…`
        -> `vllm::fused_add_rms_norm_kernel` (the name after the return type, before the parameters)
    `<unnamed>::nvfuser_none_f0_c0_r0_g0(<unnamed>::Tensor<float, (int)2, (int)2>, …)`
        -> `nvfuser_none_f0_c0_r0_g0` (an anonymous namespace as nsys and CUPTI print it)
    `volta_sgemm_32x128_nn`, `RmsNorm`
        -> unchanged

Nsight Systems exports carry a `shortName` beside `demangledName`, and rocprofv3 a `truncated_kernel_name`:
the function's bare identifier (`fused_add_rms_norm_kernel`, `device_kernel`). A short name here holds that
identifier (tests/test_short_names_real.py checks it against an export's shortName) with its namespace, or the
kernel a launch wrapper runs (`flash::FlashAttnBwd`), and is derived alike for every format, so that runs from
different profilers share their short names.

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
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# an anonymous namespace as libstdc++ (`(anonymous namespace)::`), NVIDIA's demangler (`<unnamed>::`, as nsys
# and CUPTI print it) and MSVC-like tools write it: nothing to show, and its `<` would read as a template
ANONYMOUS = re.compile(r"\(anonymous namespace\)::|<unnamed>::|`anonymous namespace'::|\{anonymous\}::")
# a launch wrapper's template arguments before the kernel class it launches (`kentry<2, Kernel<…>>`): numbers,
# casts of numbers and booleans; a wrapper whose first other argument is a builtin type is a kernel of its own
# (`internal::gemvx::kernel<int, int, float, …, cublasGemvParams<…>>`)
NUMBER = re.compile(r"(?:\([\w: ]+\))?\s*-?\d+[uUlL]*|true|false")
BUILTIN = re.compile(r"(?:(?:unsigned|signed|const|long|short) )*(?:void|bool|char|short|int|long|float|double|half|"
                     r"__half|__nv_bfloat16|__hip_bfloat16|bf16|_Float16|size_t|u?int\d+_t)(?: const)?[\s*&]*")
NOT_A_NAME = {"void", "auto", "const", "unsigned", "signed", "int", "long", "float", "double", "bool", "char",
              "std", "type", "enable_if", "operator", "lambda", "anonymous", "namespace", "unnamed"}


def fill(con, run_ids=None):
    """Short names for the kernel names of some runs (or of every run) that table kernel_names does not
    hold yet, inside the caller's transaction (an ingest's, or a migration's)."""
    from tracedb import sql
    new = [n for (n,) in sql.run(con, "kernel_names_missing", {"run_ids": run_ids}).fetchall()]
    if new:
        sql.run(con, "ingest_kernel_names_insert", {"n": new, "s": [short_name(n) for n in new]})


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
    if "(" not in text and "<" not in text:
        return text
    m = ELEMENTWISE.search(text)
    if m and ("at::native" in text or "elementwise" in m.group(1)) and _function(text) == m.group(1):
        for rx in OPS:
            op = rx.search(text[m.end():])
            if op:
                return f"{m.group(1)}[{_snake(op.group(1))}]"
        return m.group(1)
    short = _cxx_short(text)
    # never a bare namespace, keyword or return type: then the longest identifier of the name says more
    last = short.rsplit("::", 1)[-1]
    return short if last and last not in NOT_A_NAME and IDENTIFIER.match(last) else _fallback(text)


def _function(text: str) -> str | None:
    """The function's own identifier: the last component of its qualified name (`vectorized_elementwise_kernel`
    of `void at::native::vectorized_elementwise_kernel<4, …>(…)`)."""
    declarator = _declarator(ANONYMOUS.sub("", text))
    parts = _qualified(declarator) if declarator else []
    return parts[-1][0] if parts else None


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
    """`void ns::kernel<targs>(params)` -> `ns::kernel`: the qualified name just before the parameter list,
    whatever return type comes first (`std::enable_if<(((8)>(0)))&&…, void>::type vllm::fused_add_rms_norm_kernel
    <…>(…)` -> `vllm::fused_add_rms_norm_kernel`); a launch wrapper (kentry, device_kernel, Kernel) gives way to
    its first class argument; a traits argument's leading numbers (tile sizes) are kept."""
    text = ANONYMOUS.sub("", text.strip())
    declarator = _declarator(text)
    if declarator is None:        # `Memcpy DtoH (Device -> Pinned)`: not C++, the words before the bracket
        return text[:next(i for i, ch, a, b in _levels(text) if ch == "(" and a == 0 and b == 1)].strip() or text
    parts = _qualified(declarator)
    if not parts:
        return _fallback(text)
    base, args = "::".join(p for p, _ in parts), parts[-1][1]
    if parts[-1][0] in WRAPPERS and args:
        first = next((a for a in args if not NUMBER.fullmatch(a)), None)
        if first and not BUILTIN.fullmatch(first):
            inner = _qualified(first)
            while inner and inner[-1][0].startswith(("enable_sm", "enable_if")) and inner[-1][1] \
                    and not NUMBER.fullmatch(inner[-1][1][0]) and not BUILTIN.fullmatch(inner[-1][1][0]):
                inner = _qualified(inner[-1][1][0])   # flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<…>>
            if inner:
                name, inner_args = "::".join(p for p, _ in inner), inner[-1][1]
                if "tensorop" in name or "gemm" in name.lower() and not inner_args:
                    return f"{base}<{name}>"
                base, args = name, inner_args
    tile = next((a for a in args if re.search(r"traits", a, re.I)), None)
    if tile:
        traits = _qualified(tile)
        nums = [a for a in traits[-1][1] if re.fullmatch(r"\d+", a)] if traits else []
        if nums:
            return f"{base}<{traits[-1][0]}<{', '.join(nums)}>>"
    return base


def _levels(text: str):
    """(index, character, template depth, bracket depth) of each character of a C++ name. `<` and `>` count
    only outside brackets: inside `(…)` they are comparisons (`enable_if<(((8)>(0)))…>`), casts or parameter
    types that the brackets already enclose."""
    angle = bracket = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            bracket += 1
        elif ch in ")]}":
            bracket = max(0, bracket - 1)
        elif bracket == 0 and ch == "<":
            angle += 1
        elif bracket == 0 and ch == ">" and angle:
            angle -= 1
        yield i, ch, angle, bracket


def _declarator(text: str) -> str | None:
    """The function's qualified name with its template arguments: the last word at depth 0 (past a return type
    such as `void` or `std::enable_if<…>::type`) before the parameter list (or the end of a cut name); None
    when the first bracket at depth 0 follows a space (a phrase, not a function)."""
    end, start = len(text), 0
    for i, ch, angle, bracket in _levels(text):
        if ch == "(" and angle == 0 and bracket == 1:
            if not i or not (text[i - 1].isalnum() or text[i - 1] in "_>"):
                return None
            end = i
            break
    for i, ch, angle, bracket in _levels(text[:end]):
        if ch == " " and angle == 0 and bracket == 0 and text[i + 1:end].strip():
            start = i + 1
    return text[start:end].strip()


def _qualified(name: str) -> list[tuple[str, list[str]]]:
    """`a::b<x, y<z>>::c<w>` -> [('a', []), ('b', ['x', 'y<z>']), ('c', ['w'])]: each component's identifier
    and template arguments; components that are not identifiers (`{lambda()#1}`) are left out."""
    pieces, cur = [], 0
    for i, ch, angle, bracket in _levels(name):
        if ch == ":" and angle == 0 and bracket == 0 and name[i:i + 2] == "::" and i >= cur:
            pieces.append(name[cur:i])
            cur = i + 2
    pieces.append(name[cur:])          # the last one, also when a cut name leaves its brackets open
    parts = []
    for piece in pieces:
        ident, args = _split(piece.strip())
        if IDENTIFIER.fullmatch(ident) and ident not in ("const", "volatile"):
            parts.append((ident, args))
    return parts


def _split(text: str) -> tuple[str, list[str]]:
    """`b<x, y<z>>` -> ('b', ['x', 'y<z>']): the identifier before its template arguments, and those."""
    open_at = None
    for i, ch, angle, bracket in _levels(text):
        if ch == "<" and angle == 1 and bracket == 0 and open_at is None:
            open_at = i
        elif ch == ">" and angle == 0 and bracket == 0 and open_at is not None:
            return text[:open_at].strip(), _top_level(text[open_at + 1:i])
    if open_at is not None:      # a name cut inside its template arguments
        return text[:open_at].strip(), []
    return text.strip(), []


def _top_level(s: str) -> list[str]:
    out, cur = [], 0
    for i, ch, angle, bracket in _levels(s + ","):
        if ch == "," and angle == 0 and bracket == 0:
            out.append(s[cur:i].strip())
            cur = i + 1
    return [a for a in out if a]


def _fallback(text: str) -> str:
    """A name whose declarator could not be read: its longest identifier that is not a keyword, else the text."""
    words = [w for w in IDENTIFIER.findall(text) if w not in NOT_A_NAME]
    return max(words, key=len) if words else text


def _snake(op: str) -> str:
    """MulFunctor's Mul -> mul, ArgMax -> argmax, bfloat16_copy stays."""
    return op.lower() if "_" not in op else op
