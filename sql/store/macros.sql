-- Session macros (TEMP: never stored in the file, so the store needs nothing but plain DuckDB), created
-- on every open of a store, read-only ones too; each is described above its definition.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP MACROs us_text_to_ns, us, mean_ns, mean1, ratio3, ms, sec, simple_name, bare_shape,
--   npu_runtime_task, launch_call, sync_call, serving_step, step_mark, poly_hash32, hccl_group_id, dtype_bytes, shape_dims, numel, gemm_options,
--   gemm_flops, dtype_name, nz_rows, nz_cols.

-- us_text_to_ns(s VARCHAR) -> BIGINT ns: a decimal µs string, TAB/space/quote padded as Ascend writes it,
--   to integer ns, truncating digits below 1 ns (the torch_npu convert_us2ns rule). Never through DOUBLE:
--   absolute Ascend µs have 19 significant digits. NULL when the text is not a number.
CREATE OR REPLACE TEMP MACRO us_text_to_ns(s) AS
    CAST(trunc(TRY_CAST(trim(s, chr(9) || ' "') AS DECIMAL(38, 9)) * 1000) AS BIGINT);
-- us(ns BIGINT) -> DECIMAL(23,3) µs, exact (BIGINT * 0.001 stays DECIMAL; a HUGEINT sum gives DECIMAL(38,3)).
CREATE OR REPLACE TEMP MACRO us(ns) AS ns * 0.001;
-- mean_ns(total, n) -> BIGINT: total / n rounded half up to an integer, exact for total >= 0, n > 0 (integer
--   arithmetic, no DOUBLE): the mean of n passes' ns, e.g. us(mean_ns(sum(ns), count(*))).
CREATE OR REPLACE TEMP MACRO mean_ns(total, n) AS ((2 * total + n) // (2 * n))::BIGINT;
-- mean1(total, n) -> DECIMAL(18,1): total / n rounded half up to one decimal (mean kernel counts).
CREATE OR REPLACE TEMP MACRO mean1(total, n) AS (mean_ns(10 * total, n) * 0.1)::DECIMAL(18, 1);
-- ratio3(a, b) -> DECIMAL(12,3): a / b with 3 decimals; NULL when b is 0 or NULL.
CREATE OR REPLACE TEMP MACRO ratio3(a, b) AS round(a::DOUBLE / nullif(b, 0), 3)::DECIMAL(12, 3);
-- ms(ns BIGINT) -> DECIMAL(26,6) ms, exact.
CREATE OR REPLACE TEMP MACRO ms(ns) AS ns * 0.000001;
-- sec(ns BIGINT) -> DECIMAL(29,9): seconds with 9 decimals, exact
CREATE OR REPLACE TEMP MACRO sec(ns) AS ns * 0.000000001;
-- A short kernel name for tables: GPU names lose `void `, template arguments and parameter lists;
-- aclnn names keep their last part (aclnnMatmul_MatMulV3Common_MatMulV3 -> MatMulV3); hcom ops lose
-- their numeric suffix (hcom_allReduce__428_0_1 -> hcom_allReduce).
CREATE OR REPLACE TEMP MACRO simple_name(n) AS
    CASE WHEN n IS NULL THEN NULL
         WHEN starts_with(n, 'aclnn') AND contains(n, '_') THEN regexp_extract(n, '_([^_]+)$', 1)
         WHEN starts_with(n, 'hcom_') THEN regexp_replace(n, '_*(_\d+)+$', '')
         ELSE coalesce(nullif(regexp_extract(regexp_replace(n, '^void ', ''), '^([^<(]+)', 1), ''), n) END;
-- msprof quotes shapes itself ("1,4096"); show them bare
CREATE OR REPLACE TEMP MACRO bare_shape(s) AS trim(s, '"');
-- npu_runtime_task(task_type, name) -> BOOLEAN: an Ascend Hardware task of trace_view.json that is runtime
--   machinery rather than an operator, by its task type or name: HCCL notify record/wait, write value, SDMA
--   and PCIe DMA copies (MEMCPY_ASYNC), event record/wait, placeholders, profiling markers.
--   kernel_details.csv lists none of them.
CREATE OR REPLACE TEMP MACRO npu_runtime_task(task_type, name) AS
    regexp_matches(coalesce(task_type, '') || chr(10) || coalesce(name, ''),
                   '(?im)^(notify[ _](wait|record)|write[ _]value|sdma(_sqe)?|pcie_dma(_sqe)?|memcpy_async|'
                   || 'event_(record|wait)(_sqe)?|place_holder(_sqe)?|profiling_(enable|disable))$');
-- launch_call(cat VARCHAR) -> BOOLEAN: a host event of this category launches device work, and its
--   correlation id is the launched kernel's (Kineto's cuda_runtime and cuda_driver, their NPU twins
--   privateuse1_*, ROCm's and rocprofv3's runtime).
CREATE OR REPLACE TEMP MACRO launch_call(cat) AS
    cat IN ('cuda_runtime', 'cuda_driver', 'privateuse1_runtime', 'privateuse1_driver', 'runtime');
-- sync_call(cat VARCHAR, name VARCHAR) -> BOOLEAN: a host call that blocks until device work ends: a runtime
--   call (launch_call's categories) named *Synchronize (cudaDeviceSynchronize, cudaStreamSynchronize,
--   cudaEventSynchronize, hip* alike) or a blocking copy or fill (cudaMemcpy, hipMemcpyWithStream,
--   cudaMemcpyToSymbol, hipMemsetD32, ...: any cuda/hipMemcpy* or Memset* but the *Async ones); in Ascend's
--   trace_view.json (no category) AscendCL@aclrtSynchronizeStream / Device / Event (WithTimeout), not the
--   Runtime@ call inside it.
CREATE OR REPLACE TEMP MACRO sync_call(cat, name) AS
    launch_call(cat) AND (regexp_matches(name, '(?i)synchronize$')
                          OR regexp_matches(name, '^(cuda|hip)Mem(cpy|set)') AND NOT contains(name, 'Async'))
    OR starts_with(name, 'AscendCL@aclrtSynchronize')
       AND regexp_matches(name, '^AscendCL@aclrtSynchronize(Stream|Device|Event)(WithTimeout)?$');
-- serving_step(name VARCHAR) -> BOOLEAN: a serving framework's step annotation: SGLang step[EXTEND bs=15 ...],
--   vLLM execute_<tokens>_context_<n>(...)_generation_<m>(...) or its older execute_context_<n>(...)_... form.
--   The prefixes first: a regular expression per host op costs more than the rest of a query.
CREATE OR REPLACE TEMP MACRO serving_step(name) AS
    (starts_with(name, 'step[') OR starts_with(name, 'execute_'))
    AND (regexp_matches(name, '^step\[[A-Z]+ bs=\d+')
         OR regexp_matches(name, '^execute_(\d+_)?context_\d+\(.*\)_generation_\d+\('));
-- step_mark(name VARCHAR) -> BOOLEAN: a step's annotation: torch.profiler's ProfilerStep#N or a serving step.
CREATE OR REPLACE TEMP MACRO step_mark(name) AS
    starts_with(name, 'ProfilerStep#') AND regexp_matches(name, '^ProfilerStep#\d+$') OR serving_step(name);
-- poly_hash32(s VARCHAR, p BIGINT) -> BIGINT: the polynomial hash h = h * p + code point over s's characters,
--   modulo 2^32 (kept under 2^32 at every step, so h * p never leaves BIGINT).
CREATE OR REPLACE TEMP MACRO poly_hash32(s, p) AS
    list_reduce(list_transform(string_split(s, ''), lambda c: ascii(c)::BIGINT),
                lambda h, x: (h * p + x) % 4294967296, 0::BIGINT);
-- hccl_group_id(key VARCHAR) -> VARCHAR: the id an Ascend profiler's communication.json gives a process group
--   (the text after '@' in an op's key), from the group's key in profiler_metadata.json's
--   parallel_group_info ('group_name_5' -> '5862276114690318097', the dp_cp group of the shared Megatron
--   job): msprof-analyze's double_hash, (hash with 29 << 32) | hash with 131.
CREATE OR REPLACE TEMP MACRO hccl_group_id(key) AS
    (poly_hash32(key, 29)::HUGEINT * 4294967296 + poly_hash32(key, 131))::VARCHAR;
-- dtype_bytes(t VARCHAR) -> INTEGER: bytes of one element of a dtype as profilers write it (Ascend DT_BF16,
--   FLOAT16, FLOAT, INT64; PyTorch c10::BFloat16, c10::Half, float, double, long int, c10::Float8_e4m3fn);
--   NULL for a dtype it does not know (never a guess).
CREATE OR REPLACE TEMP MACRO dtype_bytes(t) AS
    CASE WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''),
                                'INT8|UINT8|BOOL|CHAR|SIGNED CHAR|UNSIGNED CHAR|(HI)?FLOAT8.*|FP8.*') THEN 1
         WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''),
                                'BF16|BFLOAT16|FLOAT16|HALF|FP16|INT16|UINT16|SHORT') THEN 2
         WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''),
                                'FLOAT|FLOAT32|FP32|INT32|UINT32|INT|UNSIGNED INT|COMPLEX32') THEN 4
         WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''),
                                'DOUBLE|FLOAT64|INT64|UINT64|LONG|LONG INT|LONG LONG|COMPLEX64') THEN 8 END;
-- shape_dims(s VARCHAR) -> BIGINT[]: one tensor's shape as Ascend writes it ('4096,1024') as a list;
--   NULL for an empty or malformed one.
CREATE OR REPLACE TEMP MACRO shape_dims(s) AS
    CASE WHEN regexp_full_match(trim(s), '\d{1,18}(,\d{1,18})*')
         THEN list_transform(string_split(trim(s), ','), lambda x: x::BIGINT) END;
-- numel(dims BIGINT[]) -> HUGEINT: the product of a shape's dimensions, exact (1 for []; NULL for NULL, and for a
--   product past a HUGEINT: three dimensions of 2^62 in a trace's shapes, whose work is then unknown).
CREATE OR REPLACE TEMP MACRO numel(dims) AS TRY(list_reduce(dims, lambda p, x: p * x, 1::HUGEINT));
-- gemm_options(a, b, c BIGINT[]) -> HUGEINT[]: the distinct 2*M*N*K (times the batch: c's leading
--   dimensions, else the larger of a's and b's) that the shapes of A, B and the output C allow, trying A and
--   B each as written and transposed (A [M,K] or [K,M], B [K,N] or [N,K]; K the dimension they share, M and
--   N the output's when c is given). One value: the shapes settle it; none or two: they do not. NULL when a
--   product passes a HUGEINT (dimensions of 10^18).
CREATE OR REPLACE TEMP MACRO gemm_options(a, b, c) AS
    TRY(CASE WHEN len(a) >= 2 AND len(b) >= 2 AND (c IS NULL OR len(c) >= 2) THEN
        list_transform(list_distinct([
            CASE WHEN a[-1] = b[-2] AND (c IS NULL OR (a[-2] = c[-2] AND b[-1] = c[-1])) THEN 2 * a[-2]::HUGEINT * b[-1] * a[-1] END,
            CASE WHEN a[-2] = b[-2] AND (c IS NULL OR (a[-1] = c[-2] AND b[-1] = c[-1])) THEN 2 * a[-1]::HUGEINT * b[-1] * a[-2] END,
            CASE WHEN a[-1] = b[-1] AND (c IS NULL OR (a[-2] = c[-2] AND b[-2] = c[-1])) THEN 2 * a[-2]::HUGEINT * b[-2] * a[-1] END,
            CASE WHEN a[-2] = b[-1] AND (c IS NULL OR (a[-1] = c[-2] AND b[-2] = c[-1])) THEN 2 * a[-1]::HUGEINT * b[-2] * a[-2] END]),
            lambda f: f * CASE WHEN c IS NOT NULL THEN numel(c[1:len(c) - 2])
                               ELSE greatest(numel(a[1:len(a) - 2]), numel(b[1:len(b) - 2])) END) END);
-- gemm_flops(a, b, c BIGINT[]) -> HUGEINT: 2*M*N*K (times the batch) when the shapes settle it
--   (gemm_options has one value), else NULL.
CREATE OR REPLACE TEMP MACRO gemm_flops(a, b, c) AS
    CASE WHEN len(gemm_options(a, b, c)) = 1 THEN gemm_options(a, b, c)[1] END;
-- dtype_name(t VARCHAR) -> VARCHAR: a dtype as profilers write it, named as the peak table names them: bf16,
--   fp16, fp32, fp64, fp8, int8; other dtypes lower-cased as written.
CREATE OR REPLACE TEMP MACRO dtype_name(t) AS
    CASE WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''), 'BF16|BFLOAT16') THEN 'bf16'
         WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''), 'FLOAT16|HALF|FP16') THEN 'fp16'
         WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''), 'FLOAT|FLOAT32|FP32') THEN 'fp32'
         WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''), 'DOUBLE|FLOAT64') THEN 'fp64'
         WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''), '(HI)?FLOAT8.*|FP8.*') THEN 'fp8'
         WHEN regexp_full_match(regexp_replace(upper(trim(t)), '^(DT_|C10::|TORCH\.)', ''), 'INT8') THEN 'int8'
         ELSE lower(trim(t)) END;

-- nz_rows(dims BIGINT[], nz BOOLEAN), nz_cols(dims BIGINT[], nz BOOLEAN) -> STRUCT(v BIGINT, t BIGINT): a matrix
--   operand's rows and columns as stored, v the size and t its tile. In Ascend's FRACTAL_NZ layout (nz) the
--   last four dims are [cols/16, rows/16, 16, 16]-style tiles, so rows = dims[-3] x dims[-2] and cols =
--   dims[-4] x dims[-1], a multiple of the tile where the true size was padded; else the last two dims, tile 1.
--   NULL when the shape has too few dims; v NULL when the product passes a BIGINT.
CREATE OR REPLACE TEMP MACRO nz_rows(dims, nz) AS
    CASE WHEN nz AND len(dims) >= 4 THEN {'v': TRY(dims[-3] * dims[-2]), 't': dims[-2]}
         WHEN NOT nz AND len(dims) >= 2 THEN {'v': dims[-2], 't': 1} END;
CREATE OR REPLACE TEMP MACRO nz_cols(dims, nz) AS
    CASE WHEN nz AND len(dims) >= 4 THEN {'v': TRY(dims[-4] * dims[-1]), 't': dims[-1]}
         WHEN NOT nz AND len(dims) >= 2 THEN {'v': dims[-1], 't': 1} END;
