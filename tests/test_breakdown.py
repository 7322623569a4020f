"""`tracedb report breakdown`: span, computing, communication, overlapped, comm_not_overlapped and free time per
run, step, pass or layer, then copies and fills (overlapped or exposed) and idle time. The expected numbers are
derived by hand for a small Kineto trace written here, and computed for the tiny Ascend decode by a plain Python
interval union written here (not from tracedb's SQL).
The real-trace checks are in tests/test_breakdown_real.py."""
import csv
import io
import json
from decimal import Decimal

import pytest

import tiny_kineto
import tiny_swimlane
import tiny_trace
import tracedb
from helpers import breakdown_figures, assert_one_line_error, cli, store_of

COLUMNS = ["run", "rank", "step", "pass", "layer", "source", "span_us", "computing_us", "communication_us",
           "overlapped_us", "comm_not_overlapped_us", "free_us", "prof_span_us", "prof_computing_us",
           "prof_communication_us", "prof_overlapped_us", "prof_comm_not_overlapped_us", "prof_free_us",
           "prof_bubble_us", "prof_preparing_us", "unit", "memcpy_us", "memcpy_overlapped_us", "memcpy_exposed_us",
           "memset_us", "memset_exposed_us", "device_span_us", "idle_us"]

# A Kineto trace of two profiler steps, GPU compute on stream 7, collectives on stream 20 and copies on stream 30,
# µs relative to the trace. Each activity: (name, category, stream, start, end, launch time or None: no launch in
# the trace).
#
#   ProfilerStep#7 [0, 100)    gemm            s7  [10, 30)   launched at 1
#                              ncclDevKernel   s20 [20, 50)   launched at 2    (overlaps gemm 20-30, flash 40-45)
#                              flash_fwd       s7  [40, 45)   launched at 3
#                              Memcpy HtoD     s7  [55, 60)   launched at 4    (memcpy: neither, so free)
#                              relu            s7  [70, 72)   launched at 5
#                              late_kernel     s7  [101, 104) launched at 90   (runs in step 8's time, is step 7's)
#                              Memcpy DtoH     s30 [44, 52)   launched at 6    (under flash and the AllReduce to 50)
#                              Memset          s30 [56, 58)   launched at 7    (under the HtoD copy)
#                              Memset          s7  [104, 106) launched at 91   (after step 7's last kernel)
#   ProfilerStep#8 [100, 200)  nccl AllGather  s20 [110, 130) launched at 101
#                              gemm            s7  [120, 150) launched at 102  (overlaps the AllGather 120-130)
#                              DeepEP combine  s20 [160, 170) launched at 103
#                              custom AR       s20 [175, 180) launched at 104  (vLLM cross_device_reduce)
#                              Memcpy DtoH     s30 [180, 190) launched at 105  (after step 8's last kernel)
#   after the steps            after_kernel    s7  [260, 262) launched at 250  (in no step)
#                              orphan          s7  [300, 301) no launch        (in no step)
#                              Memcpy HtoD     s30 [305, 310) no launch        (in no step)
#
# step 7: span 10..104 = 94; computing [10,30) [40,45) [70,72) [101,104) = 30; communication [20,50) = 30;
#         overlapped [20,30) [40,45) = 15; comm_not_overlapped 15; busy [10,50) [70,72) [101,104) = 45, free 49.
#         memcpy [44,52) [55,60) = 13, of it under busy [44,50) = 6, exposed [50,52) [55,60) = 7; memset [56,58)
#         [104,106) = 4, exposed [104,106) = 2 ([56,58) is under the copy); device span 10..106 = 96; everything
#         [10,52) [55,60) [70,72) [101,106) = 54, idle 96 - 54 = 42 = 96 - 30 - 15 - 7 - 2.
# step 8: span 110..180 = 70; computing [120,150) = 30; communication 20 + 10 + 5 = 35; overlapped [120,130) = 10;
#         comm_not_overlapped 25; busy [110,150) [160,170) [175,180) = 55, free 15.
#         memcpy [180,190) = 10, all exposed; no memset; device span 110..190 = 80; idle 80 - 65 = 15.
# run:    span 10..301 = 291; computing 30 + 30 + 2 + 1 = 63; communication 65; overlapped 25; comm_not_overlapped
#         40; busy 63 + 65 - 25 = 103, free 188.
#         memcpy 8 + 5 + 10 + 5 = 28, overlapped 6, exposed 22; memset 4, exposed 2; device span 10..310 = 300;
#         everything 103 + 22 + 2 = 127, idle 173 = 300 - 63 - 40 - 22 - 2.
KERNELS = [
    ("gemm_kernel", "kernel", 7, 10, 30, 1),
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "kernel", 20, 20, 50, 2),
    ("flash_fwd_kernel", "kernel", 7, 40, 45, 3),
    ("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 7, 55, 60, 4),
    ("relu_kernel", "kernel", 7, 70, 72, 5),
    ("late_kernel", "kernel", 7, 101, 104, 90),
    ("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "kernel", 20, 110, 130, 101),
    ("gemm_kernel", "kernel", 7, 120, 150, 102),
    ("void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(int4*, float*, int4 const*)", "kernel",
     20, 160, 170, 103),
    ("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, int)", "kernel",
     20, 175, 180, 104),
    ("after_kernel", "kernel", 7, 260, 262, 250),
    ("orphan_kernel", "kernel", 7, 300, 301, None),
    ("Memcpy DtoH (Device -> Pinned)", "gpu_memcpy", 30, 44, 52, 6),
    ("Memset (Device)", "gpu_memset", 30, 56, 58, 7),
    ("Memset (Device)", "gpu_memset", 7, 104, 106, 91),
    ("Memcpy DtoH (Device -> Pinned)", "gpu_memcpy", 30, 180, 190, 105),
    ("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 30, 305, 310, None),
]
STEPS = [("ProfilerStep#7", 0, 100), ("ProfilerStep#8", 100, 200)]
EXPECTED_STEPS = {7: (94, 30, 30, 15, 15, 49), 8: (70, 30, 35, 10, 25, 15)}   # span, comp, comm, ov, comm_nov, free
EXPECTED_RUN = (291, 63, 65, 25, 40, 188)
# memcpy, memcpy_overlapped, memcpy_exposed, memset, memset_exposed, device_span, idle
EXPECTED_COPIES_STEPS = {7: (13, 6, 7, 4, 2, 96, 42), 8: (10, 0, 10, 0, 0, 80, 15)}
EXPECTED_COPIES_RUN = (28, 6, 22, 4, 2, 300, 173)


def write_kineto(path):
    host, gpu = 100, 0
    ev = [{"ph": "M", "name": "process_name", "pid": gpu, "tid": 0, "args": {"name": "GPU 0"}}]
    for name, start, end in STEPS:
        ev.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": host, "tid": host, "ts": start,
                   "dur": end - start, "args": {}})
    for corr, (name, cat, stream, start, end, launch) in enumerate(KERNELS, start=500):
        if launch is not None:
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": host, "tid": host,
                       "ts": launch, "dur": 0.5, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": gpu, "tid": stream, "ts": start, "dur": end - start,
                   "args": {"device": 0, "stream": stream, "correlation": corr if launch is not None else 99999}})
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)
    return str(path)


def rows_of(text):
    got = list(csv.reader(io.StringIO(text)))
    assert got[0] == COLUMNS
    return got[1:]


def figures(row):
    return tuple(Decimal(v) for v in row[6:12])


def copy_figures(row):
    return tuple(Decimal(v) for v in row[21:28])


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("breakdown")
    return store_of(d, {"steps": write_kineto(d / "steps.json"),
                        "tiny_x2": tiny_trace.write(d / "x2.csv", dur_factor=2),
                        "gpu": tiny_kineto.write(d / "gpu.json"), "cores": tiny_swimlane.write(d / "cores.json")})


def test_by_run_hand_derived(store):
    r = cli("report", "breakdown", "--db", store, "--run", "steps", "--format", "csv")
    (row,) = rows_of(r.stdout)
    assert row[:6] == ["steps", "", "", "", "", "kernels"]
    assert row[12:20] == [""] * 8          # no step_trace_time.csv: none of the profiler's figures
    assert figures(row) == EXPECTED_RUN
    assert copy_figures(row) == EXPECTED_COPIES_RUN
    # the notes (on stderr for CSV) state the definitions and what was not counted
    assert "step_trace_time.csv" in r.stderr and "4 memcpy (28.000 us), 2 memset (4.000 us)" in r.stderr


def test_by_step_assigns_kernels_by_their_launch(store):
    r = cli("report", "breakdown", "--db", store, "--run", "steps", "--by", "step", "--format", "csv")
    got = {int(row[2]): figures(row) for row in rows_of(r.stdout)}
    assert got == EXPECTED_STEPS
    # copies and fills are put in steps by their launch too (the copy launched at 105 is step 8's); the one
    # without a launch is in no step, and the note counts kernels only
    assert {int(row[2]): copy_figures(row) for row in rows_of(r.stdout)} == EXPECTED_COPIES_STEPS
    assert "2 kernels (3.000 us) are in no step" in r.stderr


def test_columns_add_up(store):
    """span = computing + comm_not_overlapped + free, communication = overlapped + comm_not_overlapped,
    device_span = computing + comm_not_overlapped + memcpy_exposed + memset_exposed + idle and
    memcpy = memcpy_overlapped + memcpy_exposed."""
    for by in ("run", "step"):
        for row in rows_of(cli("report", "breakdown", "--db", store, "--run", "steps", "--by", by, "-f", "csv").stdout):
            span, comp, comm, ov, nov, free = figures(row)
            assert span == comp + nov + free and comm == ov + nov
            memcpy, memcpy_ov, memcpy_exp, memset, memset_exp, device_span, idle = copy_figures(row)
            assert device_span == comp + nov + memcpy_exp + memset_exp + idle and memcpy == memcpy_ov + memcpy_exp


def tiny_reference(dur_factor):
    """step -> (span, computing, communication, overlapped, comm_not_overlapped, free) in ns, from the rows
    tests/tiny_trace.py writes (hcom rows are written twice: counted once)."""
    per_step = {}
    seen = set()
    for r in tiny_trace.rows(dur_factor):
        step, name, core, start, dur = r[0], r[5], r[8], r[9], r[10]
        s = int(start.strip().replace(".", ""))
        e = s + int(dur.replace(".", ""))
        comm = core == "COMMUNICATION"
        if comm and (step, s, name) in seen:
            continue
        seen.add((step, s, name))
        per_step.setdefault(step, []).append((s, e, comm))
    return {step: breakdown_figures(acts) for step, acts in per_step.items()}


def test_tiny_ascend_by_step_matches_a_plain_union(store):
    """The hcom ops of tiny_x2 overlap the MatMul before and the SwiGlu after them (golden/breakdown.md)."""
    rows = rows_of(cli("report", "breakdown", "--db", store, "--run", "tiny_x2", "--by", "step", "-f", "csv").stdout)
    got = {int(row[2]): figures(row) for row in rows}
    want = tiny_reference(2)
    assert got == want
    assert all(v[3] > 0 for v in want.values())


def test_by_pass_equals_by_step_when_a_pass_is_a_step(store):
    """In the full window each pass of the tiny decode holds exactly its profiler step's kernels (step p + 1 is
    pass p), so --by pass gives the --by step figures; --by layer splits each pass into its prologue and layers,
    each a unit of its own whose columns add up, and its epilogue (lm_head and sampling)."""
    seg = ["--db", store, "--run", "tiny_x2", "--profile", "qwen3-npu", "--layers", "2", "-f", "csv"]
    passes = {int(r[3]): figures(r) for r in rows_of(cli("report", "breakdown", *seg, "--by", "pass").stdout)}
    assert passes == {step - 1: fig for step, fig in tiny_reference(2).items()}
    layers = rows_of(cli("report", "breakdown", *seg, "--by", "layer").stdout)
    assert [(r[3], r[4]) for r in layers][-4:] == [("3", "prologue"), ("3", "0"), ("3", "1"), ("3", "epilogue")]
    for row in layers:
        span, comp, comm, ov, nov, free = figures(row)
        assert span == comp + nov + free and comm == ov + nov
        # the tiny decode has no copies or fills: the device span is the span, and idle time is free time
        assert copy_figures(row) == (0, 0, 0, 0, 0, span, free)


def test_python_api(store):
    con = tracedb.connect(store, read_only=True)
    try:
        r = tracedb.report(con, "breakdown", run="steps", by="step")
        t = r.arrow()
        assert t.column_names == COLUMNS
        assert t.column("step").to_pylist() == [7, 8]
        assert [str(v) for v in t.column("overlapped_us").to_pylist()] == ["15.000", "10.000"]
        with pytest.raises(tracedb.UsageError, match="by"):
            tracedb.report(con, "breakdown", run="steps", by="module")
    finally:
        con.close()


@pytest.mark.parametrize("args,message", [
    (["--run", "gpu", "--by", "step"], "--by step: run 'gpu' has no steps"),
    (["--run", "cores"], "run 'cores' has no kernels or communication ops"),
    (["--run", "tiny_x2", "--by", "pass", "--pass", "mean", "--profile", "qwen3-npu", "--layers", "2"], "--pass mean"),
    (["--run", "steps", "--by", "module"], "--by 'module': unknown"),
])
def test_errors_are_one_line_exit_2(store, args, message):
    assert_one_line_error(cli("report", "breakdown", "--db", store, *args, check=False), message)


def test_table_shows_the_unit_columns_of_its_by(store):
    out = cli("report", "breakdown", "--db", store, "--run", "steps", "--by", "step").stdout
    header = next(line for line in out.splitlines() if line.startswith("run"))
    # no step_trace_time.csv: none of the profiler's columns
    assert header.split() == ["run", "rank", "step", "source", "span_us", "computing_us", "communication_us",
                              "overlapped_us", "comm_not_overlapped_us", "free_us", "memcpy_us",
                              "memcpy_overlapped_us", "memcpy_exposed_us", "memset_us", "memset_exposed_us",
                              "device_span_us", "idle_us"]


GPU_COMMUNICATION = [
    "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)",                               # NCCL 2.19+ / RCCL
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",          # NCCL before 2.19
    "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*)",            # DeepEP
    "void deep_ep::internode_ll::combine<false, 3, 7168>(void*, int const*)",                 # DeepEP low latency
    "void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int)",            # DeepSeek's DeepEP build
    "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, int)",
    "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>(float**, unsigned long)",
    "void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<(tensorrt_llm::kernels::"
    "AllReduceFusionPattern)1, __nv_bfloat16, 8, true>(tensorrt_llm::kernels::ar_fusion::AllReduceFusionParams)",
    "void userbuffers_fp16_sum_inplace_gpu_rr_rs<2>(int, int, int, int, int, int, int, void**, int, unsigned long)",
    "void tensorrt_llm::kernels::moe_comm::moeA2ADispatchKernel<8, false, false>(int const*)",
]
GPU_NOT_COMMUNICATION = [
    "void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)",
    "void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, long, long, bool)",
    "void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*)",
]


@pytest.mark.parametrize("profile", ["generic", "dsv3-gpu", "dsv4-gpu"])
def test_gpu_communication_kernels_are_recognised(profile):
    """NCCL/RCCL, DeepEP, custom all-reduce, userbuffers and MoE all-to-all kernels are in the communication
    category (what every report, breakdown included, counts as communication); their neighbours are not."""
    from tracedb.engine.segmentation import profiles
    from tracedb.engine.segmentation import categories
    con = tracedb.connect(":memory:")
    try:
        names = GPU_COMMUNICATION + GPU_NOT_COMMUNICATION
        got = categories.categorize(con, profiles.load(profile), [(n, None) for n in names])
    finally:
        con.close()
    assert got[:len(GPU_COMMUNICATION)] == ["communication"] * len(GPU_COMMUNICATION)
    assert "communication" not in got[len(GPU_COMMUNICATION):]
