"""Two different kernels never print the same text in one table: a tiny job of two ranks (PyTorch-profiler
traces made here) runs two pairs of kernels that share a short name (`vectorized_elementwise_kernel[add]`
and `elementwise_kernel_manual_unroll[direct_copy]`, as the H100 and MI300X traces do). Every report that
shows kernels keeps them on rows of their own (never merged under the short name) and prints them
differently, whole (Markdown) and fitted to 80 and 120 columns (engine/rendering/names.py, fitting.py).

Per pass p (T = p x 1000 µs), layer l (B = T + 10 + 200 l), on stream 7 of both ranks: flash_fwd_kernel
[B, B + 10) (the anchor), then the elementwise kernels 5 µs each, 1 µs apart: layer 0 runs ADD_BF16,
ADD_FLOAT, COPY_INT, COPY_LONG, layer 1 ADD_BF16 and COPY_INT; then an NCCL all-reduce on stream 13 from
each rank's ready time to 8 µs after the later one. On rank 1, ADD_BF16 and ADD_FLOAT of layer 0 take
15 µs: rank 1 is late at layer 0's collective, and both kernels are its causes (report blame)."""
import json
import re

import pytest

import tracedb
from tracedb.engine.rendering import render
from tracedb.engine.rendering.fitting import widest
from tracedb.engine.rendering.names import shorten
from tracedb.engine.reports.registry import build_report

ADD_BF16 = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
            "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)")
ADD_FLOAT = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, "
             "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, 2ul>)")
_COPY = ("void at::native::elementwise_kernel_manual_unroll<128, 4, at::native::gpu_kernel_impl<at::native::"
         "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#3}}::operator()() const::{{lambda()#{k}}}::"
         "operator()() const::{{lambda({t})#1}}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda("
         "at::TensorIteratorBase&)::{{lambda()#3}}::operator()() const::{{lambda()#{k}}}::operator()() const::"
         "{{lambda({t})#1}} const&)::{{lambda(int, bool)#1}}>(int, at::native::gpu_kernel_impl<at::native::"
         "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#3}}::operator()() const::{{lambda()#{k}}}::"
         "operator()() const::{{lambda({t})#1}}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda("
         "at::TensorIteratorBase&)::{{lambda()#3}}::operator()() const::{{lambda()#{k}}}::operator()() const::"
         "{{lambda({t})#1}} const&)::{{lambda(int, bool)#1}})")
COPY_INT, COPY_LONG = _COPY.format(k=3, t="int"), _COPY.format(k=4, t="long")
SHARED = [ADD_BF16, ADD_FLOAT, COPY_INT, COPY_LONG]      # two short names, two kernels each
LAYER_KERNELS = {0: SHARED, 1: [ADD_BF16, COPY_INT]}
PASSES, SLOW = 3, {ADD_BF16, ADD_FLOAT}                   # SLOW: 15 µs on rank 1 in layer 0
NCCL = "ncclKernel_AllReduce_RING_LL_Sum_float"
OPTS = {"runs": ["names-rank*"], "anchor": "flash_fwd", "layers": 2}
WIDTHS = (80, 120)


def _events(rank):
    ev = [{"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python3"}},
          {"ph": "M", "name": "thread_name", "pid": 100, "tid": 100, "args": {"name": "python"}},
          {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": f"GPU {rank}"}},
          {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
          {"ph": "M", "name": "thread_name", "pid": 0, "tid": 13, "args": {"name": "stream 13"}}]
    corr = 0

    def kernel(name, start, dur, launch_at, stream=7):
        nonlocal corr
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                   "ts": launch_at, "dur": 0.5, "args": {"correlation": corr, "External id": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": start, "dur": dur,
                   "args": {"device": rank, "stream": stream, "correlation": corr, "External id": corr}})

    for p in range(PASSES):
        for layer, names in LAYER_KERNELS.items():
            base = p * 1000 + 10 + 200 * layer
            ev.append({"ph": "X", "cat": "python_function", "name": f"nn.Module: Layer_{layer}", "pid": 100,
                       "tid": 100, "ts": base - 9, "dur": 8})
            kernel("flash_fwd_kernel", base, 10, base - 8)
            t = base + 11
            for i, name in enumerate(names):
                dur = 15 if rank == 1 and layer == 0 and name in SLOW else 5
                kernel(name, t, dur, base - 7 + i)
                t += dur + 1
            ready = [base + 11 + sum((15 if r == 1 and layer == 0 and n in SLOW else 5) + 1 for n in names)
                     for r in range(2)]
            kernel(NCCL, ready[rank], max(ready) + 8 - ready[rank], base - 2, stream=13)
    return ev


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    d = tmp_path_factory.mktemp("names")
    c = tracedb.connect(str(d / "names.duckdb"))
    for rank in range(2):
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": rank, "name": "NVIDIA H100", "numSms": 132}],
               "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
               "baseTimeNanoseconds": 1_751_410_836_000_000_000, "traceEvents": _events(rank)}
        path = d / f"names_rank{rank}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        tracedb.ingest_trace(c, str(path), name=f"names-rank{rank}", tags={"job": "names"})
    yield c
    c.close()


def _table(text: str) -> tuple[list[str], list[list[str]]]:
    """The header (a two-line header joined at `_`) and the cells of a terminal table."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if re.fullmatch(r"-+(  -+)*", line))
    spans = [m.span() for m in re.finditer(r"-+", lines[rule])]
    head = []
    for line in reversed(lines[:rule]):
        if not line.strip() or len(head) == 2:
            break
        head.insert(0, line)
    header = ["_".join(p for p in (h[a:b].strip() for h in head) if p) for a, b in spans]
    body = []
    for line in lines[rule + 1:]:
        if not line.strip():
            break
        body.append([line[a:b].strip() for a, b in spans])
    return header, body


def _shown(con, report, width, **opts):
    """(header, cells) of the report's terminal table at `width` (None: Markdown, whole names) and the rows of
    its JSON (the full names) in the same order."""
    full = build_report(con, report, fmt="json", **{**OPTS, **opts})
    if width is None:
        md = render.render(build_report(con, report, fmt="md", **{**OPTS, **opts}), "md")
        lines = [line for line in md.splitlines() if line.startswith("| ")]
        cells = [[c.strip().replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
                  for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
        header, body = cells[0], cells[1:]
    else:
        text = render.render(build_report(con, report, fmt="table", **{**OPTS, **opts}), "table", width=width)
        assert widest(text) <= width, text
        header, body = _table(text)
    rows = [dict(zip(full.columns, row)) for row in full.rows]
    return header, body, rows


def _texts(header, body, rows, column, name="name"):
    """Printed text -> the full names printed so, row by row (the table's rows are the JSON's)."""
    assert len(body) == len(rows), (len(body), len(rows))
    at = header.index(column)
    out = {}
    for cells, row in zip(body, rows):
        if row[name]:
            out.setdefault(cells[at], set()).add(row[name])
    return out


def _apart(texts, names=SHARED):
    """Each of `names` printed, and no text standing for two names."""
    assert all(len(v) == 1 for v in texts.values()), {t: v for t, v in texts.items() if len(v) > 1}
    printed = set().union(*texts.values())
    assert set(names) <= printed, set(names) - printed


CASES = {
    # report: (options, the column that shows the kernel)
    "kernels": ({"pass_spec": "1", "top": 0}, "short_name"),
    "flow": ({"pass_spec": "1", "layer": 0, "flow": True}, "kernel"),
    "flow by time": ({"pass_spec": "1", "layer": 0, "flow": True, "order": "time"}, "kernel"),
    "compare-layer": ({"pass_spec": "1", "layer": 0, "compare_layer": 1}, "kernel"),
    "roofline": ({"pass_spec": "1", "by": "kernel"}, "short_name"),
    "launches": ({"pass_spec": "1", "by": "kernel"}, "short_name"),
    "blame": ({"by": "kernel", "top": 0}, "kernel"),
}
REPORT = {"flow": "kernels", "flow by time": "kernels", "compare-layer": "kernels"}


@pytest.mark.parametrize("width", [None, *WIDTHS])
@pytest.mark.parametrize("case", sorted(CASES))
def test_kernels_that_share_a_short_name_print_apart(con, case, width):
    opts, column = CASES[case]
    header, body, rows = _shown(con, REPORT.get(case, case), width, **opts)
    # blame: rank 1's causes, the two slow kernels of layer 0
    _apart(_texts(header, body, rows, column), sorted(SLOW) if case == "blame" else SHARED)


def test_modules_print_apart(con):
    """report modules shows the name column itself, short (with_names) where it is templated."""
    for width in (None, *WIDTHS):
        header, body, rows = _shown(con, "modules", width, runs=["names-rank0"], by="kernel")
        _apart(_texts(header, body, rows, "kernel", name="kernel"))


def test_rows_are_per_kernel_name_not_per_short_name(con):
    """--compare-layer: ADD_FLOAT runs in layer 0 only, so it is a row of its own (present in a), not counted
    in ADD_BF16's row; blame: rank 1's two slow kernels are two causes of each pass."""
    res = build_report(con, "kernels", fmt="json", **OPTS, pass_spec="1", layer=0, compare_layer=1)
    cols = res.columns
    by_name = {r[cols.index("name")]: r for r in res.rows if r[cols.index("run")] == "names-rank0"}
    assert by_name[ADD_FLOAT][cols.index("present_in")] == "a"
    assert by_name[ADD_BF16][cols.index("present_in")] == "both"
    assert by_name[ADD_BF16][cols.index("count_a")] == "1" and by_name[ADD_BF16][cols.index("count_b")] == "1"
    res = build_report(con, "blame", fmt="json", **OPTS, by="kernel", top=0)
    causes = [(r[res.columns.index("pass")], r[res.columns.index("name")]) for r in res.rows
              if r[res.columns.index("run")] == "names-rank1" and r[res.columns.index("name")]]
    assert sorted(causes) == sorted((str(p), n) for p in range(PASSES) for n in SLOW), causes


@pytest.mark.parametrize("width", [None, *WIDTHS])
def test_compare_by_kernel_prints_each_kernel_one_way_across_the_runs(con, width):
    """report compare --by kernel: each run's kernel column; one text is one kernel over both columns."""
    full = build_report(con, "compare", fmt="json", **OPTS, pass_spec="1", by="kernel")
    names = {r[full.columns.index("name")] for r in full.rows} - {None}
    if width is None:
        md = render.render(build_report(con, "compare", fmt="md", **OPTS, pass_spec="1", by="kernel"), "md")
        lines = [line for line in md.splitlines() if line.startswith("| ")]
        cells = [[c.strip() for c in line.split(" | ")] for line in lines]
        header, body = [c.strip("| ") for c in cells[0]], [[c.strip("| ") for c in r] for r in cells[1:]]
    else:
        text = render.render(build_report(con, "compare", fmt="table", **OPTS, pass_spec="1", by="kernel"),
                             "table", width=width)
        assert widest(text) <= width, text
        header, body = _table(text)
    shown = [i for i, h in enumerate(header) if h.endswith("_kernel")]
    if width is None or width >= 120:    # narrower, the kernel columns give way to the times (a note says so)
        assert "names-rank0_kernel" in [header[i] for i in shown], header
    texts = {row[i] for row in body for i in shown if row[i] and row[i] != "sum"}
    if shown:
        # as many texts as kernels: two kernels never alike, one kernel never printed two ways
        assert len(texts) == len(names), sorted(texts)


# four hipBLASLt GEMMs of the xdit FLUX trace (amd-tracelens): two tiles, each with ULSGRO0 and ULSGRO1, that
# part in words too far apart for a column of 12 to 40 characters, so that each is numbered
_GEMM = ("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT{mt}_MI16x16x1_SN_LDSB1_AFC1_AG0_AFEM1_AFEM1_ASEM1_CB0_CD1_"
         "1_CLR1_CADS0_DTLA0_DTLB0_DTLM0_DTVA0_DTVB0_DTVMXSA0_DTVMXSB0_DTVSM0_DPLB0_EPS0_ELFLR0_EMLLn1_FDSI0_GRPM1_"
         "GRVWA8_GRVWB8_GSUAMBSK_GLS0_HPLR0_ISA942_ICIW0_IU1_K1_LDSTI0_LBSPPA1024_LBSPPB1024_LBSPPMXSA0_LBSPPMXSB0_"
         "LBSPPM0_LPA16_LPB16_LPMXSA0_LPMXSB0_LPM0_LRVW8_LWPMn1_MIAV0_MIWT{w}_{w}_MXLIBL_MXSFNS_MO40_MGRIPM1_NTn1_"
         "NTA0_NTB0_NTC0_NTD4_NTE0_NTMXSA0_NTMXSB0_NTM0_NTWS0_NVn1_NVA0_NVB0_NVC0_NVD0_NVE0_NVMXSA0_NVMXSB0_NVM0_"
         "NVWS0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SGROB0_SIA3_SS1_SPO0_SRVW0_SSO0_SVW{w}_SK0_SKFTR0_SKXCCM0_"
         "SIP1_SGRO0_TDMI0_TDMS0_TIN0_THn1_THA0_THB0_THC0_THD0_THE0_THMXSA0_THMXSB0_THM0_THWS0_TLDS1_TLDSM1_"
         "ULSGRO{u}_USL1_USLMX0_UIOFGRO0_UPLRP0_USFGROn1_USI0_VSn1_VWA{w}_VWB{w}_WSGRA0_WSGRB0_WS64_WG{g}")
GEMMS = [_GEMM.format(mt=mt, w=w, g=g, u=u) for mt, w, g in (("128x64x128", 4, "32_4_2"), ("16x16x512", 1, "16_4_4"))
         for u in (0, 1)]


@pytest.mark.parametrize("width", range(12, 41))
def test_numbered_names_never_share_a_text(width):
    """Names told apart only by a number (`~N`): two groups whose shortened texts come out alike once room is
    made for the number are numbered on from one another."""
    short, _ = shorten(GEMMS, width)
    assert len(set(short)) == len(GEMMS) and all(len(s) <= width for s in short), short
