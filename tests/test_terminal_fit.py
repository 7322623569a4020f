"""Terminal tables fit the terminal and keep rows distinguishable (engine/rendering/fitting.py, names.py), on
real kernel names: hipBLASLt `Cijk_…` GEMMs (SGLang on an MI300X), CUTLASS and flash-attention templates,
Ascend `aclnn…` names; in a real pseudo-terminal. Without an anchor, `report kernels` answers run-wide; a
folder ingest names what it did not load."""
import csv
import io
import os
import re
import sys

import pytest
from helpers import cli, in_pty, write_csv
from tiny_trace import HEADER as HEADER_ASCEND

from tracedb.engine.rendering import fitting
from tracedb.engine.rendering.names import middle, shorten

if sys.platform == "win32":   # pragma: no cover
    pytest.skip("pseudo-terminals are POSIX", allow_module_level=True)

CIJK = "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_{mt}_MI16x16x1_SN_LDSB{l}_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_" \
       "DTLA0_DTLB0_DTVA{d}_DTVB0_EPS0_FDSI0_GRPM1_GRVWA{g}_GRVWB{g}_GSUAMBSK_GLS0_ISA942_IU1_K1_LDSTI0_" \
       "LBSPPA{p}_LBSPPB256_LBSPPM0_LPA{a}_LPB16_LPM0_LRVW{g}_LWPMn1_MIAV0_MIWT{w}_MO40_NTn1_NTA0_NTB0_NTC0_NTD4_" \
       "NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW8_SK0_SKFTR0_SKXCCM0_TLDS1_" \
       "ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA8_VWB{v}_WSGRA0_WSGRB0_WS64_WG{wg}"
HIPBLASLT = [
    CIJK.format(mt="MT128x256x32", l=1, d=0, g=4, p=512, a=4, w="8_4", v=4, wg="16_16_1"),
    CIJK.format(mt="MT320x224x64", l=0, d=1, g=8, p=0, a=0, w="5_14", v=2, wg="64_4_1"),
    CIJK.format(mt="MT256x192x64", l=1, d=0, g=8, p=1024, a=16, w="8_6", v=2, wg="32_8_1"),
    CIJK.format(mt="MT256x16x64", l=1, d=0, g=8, p=1024, a=16, w="8_6", v=2, wg="32_8_1"),
]
CUTLASS = [
    "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>"
    "(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8::Params)",
    "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_64x2_nn_align8>"
    "(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_64x2_nn_align8::Params)",
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
    "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, "
    "false, false, true, true, false>(pytorch_flash::Flash_fwd_params)",
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, "
    "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 64, 4, cutlass::bfloat16_t> >, false, true, "
    "false, false, true, true, false>(pytorch_flash::Flash_fwd_params)",
]
ASCEND = ["aclnnMatmul_MatMulV3Common_MatMulV3", "aclnnAddmm_MatMulV2_MatMulV2", "aclnnMm_MatMulV2_MatMulV2",
          "aclnnInplaceAdd_AddAiCore_Add", "aclnnFusedInferAttentionScore_FusedInferAttentionScore_"
          "FusedInferAttentionScore", "aclnnFusedInferAttentionScore_FusedInferAttentionScoreV2_"
          "FusedInferAttentionScore"]
NAMES = HIPBLASLT + CUTLASS + ASCEND


@pytest.mark.parametrize("width", [14, 20, 28, 40, 60])
@pytest.mark.parametrize("names", [HIPBLASLT, CUTLASS, ASCEND, NAMES], ids=["hipblaslt", "cutlass", "ascend", "all"])
def test_shortened_names_fit_and_stay_distinct(names, width):
    short, _ = shorten(names, width)
    assert all(len(s) <= width for s in short), [s for s in short if len(s) > width]
    assert len(set(short)) == len(set(names)), short


def test_what_differs_is_kept():
    short, numbered = shorten(HIPBLASLT[:3], 40)
    assert not numbered
    for s, tile in zip(short, ("MT128x256x32", "MT320x224x64", "MT256x192x64")):
        assert s.startswith("Cijk") and tile in s, short


def test_a_path_keeps_its_file_name():
    assert middle("/work/data/traces/sglang/sglang_Qwen3-8B_prefilldecode.json.gz", 30, head=0.25).endswith(
        "prefilldecode.json.gz")


def _draw(columns, numeric, rows):
    from tabulate import tabulate
    return tabulate(rows, headers=columns, tablefmt="simple", disable_numparse=True,
                    colalign=["right" if n else "left" for n in numeric])


def test_fit_never_cuts_numbers_and_says_what_it_left_out():
    columns = ["run", "name", "count", "sum_us", "host_bound_idle_us", "other_idle_us", "delay_p95_us", "note"]
    numeric = [False, False, True, True, True, True, True, False]
    rows = [["r", n, "12", "123456.789", "1.000", "22.500", "464425.161", ""] for n in NAMES]
    cols, num, shown, notes = fitting.fit(columns, numeric, rows, 80, _draw)
    assert max(len(line) for line in _draw(cols, num, shown).splitlines()) <= 80
    assert "note" not in cols and "run" not in cols and any("same in every row: run r" in n for n in notes)
    for c in ("sum_us", "count"):
        if c in cols:
            assert {r[cols.index(c)] for r in shown} == {rows[0][columns.index(c)]}
    assert len({r[cols.index("name")] for r in shown}) == len(NAMES)


# ------------------------------------------------------------------------------------------- in a pty
RUN = ["--run", "names-*"]
PLAIN = ["--run", "plain"]


def _kernel_details(path, names):
    rows, t = [], 1_000_000
    for i, name in enumerate(names * 3):
        dur = 10 + (i * 7) % 50
        rows.append([1, 0, 4294967295, 100 + i, 2, f'"{name}"', name.split("_")[0][:20], "dynamic", "AI_CORE",
                     f"{t}.000\t", f"{dur}.250", "0", 24, 0, "NO", "N/A", "N/A", "N/A", "N/A", "N/A", "N/A", "N/A",
                     "N/A"])
        t += dur + 3
    return write_csv(path, HEADER_ASCEND, rows)


@pytest.fixture(scope="module")
def named_store(tmp_path_factory):
    """Run names-…: the real names above, three kernels each; run `plain`: those that are not attention (no
    kernel that could anchor layers)."""
    d = tmp_path_factory.mktemp("fit")
    db = str(d / "s.duckdb")
    cli("ingest", _kernel_details(d / "kernel_details.csv", NAMES), "--db", db, "--name", "names-of-a-long-run",
        "--no-segment")
    plain = [n for n in NAMES if "ttention" not in n and "flash" not in n]
    os.mkdir(d / "plain")
    cli("ingest", _kernel_details(d / "plain" / "kernel_details.csv", plain), "--db", db, "--name", "plain")
    return db


@pytest.mark.parametrize("cols", [80, 100, 120])
def test_every_table_fits_a_terminal(named_store, cols):
    for args in (["runs"], ["report", "kernels", *RUN], ["report", "breakdown", *RUN], ["report", "timeline", *RUN]):
        lines = in_pty([*args, "--db", named_store], cols)
        assert not any(line.startswith("error:") for line in lines), lines
        assert max(len(line) for line in lines) <= cols, (args, [line for line in lines if len(line) > cols])


def test_kernel_rows_stay_distinguishable_in_a_terminal(named_store):
    lines = in_pty(["report", "kernels", *RUN, "--db", named_store, "--top", "0"], 80)
    start = next(i + 1 for i, line in enumerate(lines) if line.startswith("---"))
    body = [line for line in lines[start:] if line.strip()]
    shown = {" ".join(w for w in line.split() if not re.fullmatch(r"[\d.,-]+", w)) for line in body}
    assert len(body) == len(set(NAMES)) and len(shown) == len(body), body


def test_wide_and_piped_output_keep_whole_names(named_store):
    wide = "\n".join(in_pty(["report", "kernels", *RUN, "--db", named_store, "--wide"], 80))
    piped = cli("report", "kernels", *RUN, "--db", named_store).stdout
    for text in (wide, piped):
        assert "MatMulV3" in text and "left out" not in text and "shortened" not in text


def test_run_wide_kernels_sum_to_the_device_time(named_store):
    got = list(csv.DictReader(io.StringIO(cli("report", "kernels", *PLAIN, "--db", named_store, "--top", "3",
                                              "--format", "csv").stdout)))
    query = "select sum(k.dur_ns) from kernels k join runs r using (run_id) where r.name = 'plain'"
    total = cli("sql", "--db", named_store, query, "--format", "csv").stdout.split()[-1]
    assert len(got) == 4 and got[-1]["rank"] == "" and got[-1]["short_name"].endswith("more)")
    assert sum(round(float(r["sum_us"]) * 1000) for r in got) == int(total)


def test_a_segmenting_report_without_anchor_names_candidates(named_store):
    r = cli("report", "passes", *PLAIN, "--db", named_store, check=False)
    assert r.returncode != 0 and "could anchor" in r.stderr and "(3)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_folder_ingest_names_the_files_it_did_not_load(tmp_path, named_store):
    folder = tmp_path / "out"
    folder.mkdir()
    src = os.path.join(os.path.dirname(named_store), "kernel_details.csv")
    with open(src, "rb") as f:
        (folder / "kernel_details.csv").write_bytes(f.read())
    (folder / "cluster_step_trace_time.csv").write_text("Step,Type,Index\n1,rank,0\n")
    (folder / "notes.bin").write_bytes(b"\x00\x01")
    out = cli("ingest", str(folder), "--db", str(tmp_path / "f.duckdb")).stdout
    assert "loaded: kernel_details.csv" in out
    assert "not loaded: cluster_step_trace_time.csv, notes.bin — not a trace" in out
    runs = list(csv.DictReader(io.StringIO(cli("runs", "--db", str(tmp_path / "f.duckdb"), "--format",
                                               "csv").stdout)))
    assert runs[0]["source"].endswith("kernel_details.csv")


# ------------------------------------------------------------------------------------- smaller things
def test_modules_for_one_pass_lists_that_pass_only(tmp_path):
    import tiny_kineto
    db = str(tmp_path / "m.duckdb")
    cli("ingest", tiny_kineto.write(tmp_path / "g.json"), "--db", db, "--name", "g")
    every = list(csv.DictReader(io.StringIO(cli("report", "modules", "--db", db, "--run", "g", "--anchor",
                                                "flash_fwd", "--format", "csv").stdout)))
    one = list(csv.DictReader(io.StringIO(cli("report", "modules", "--db", db, "--run", "g", "--anchor", "flash_fwd",
                                              "--pass", "1", "--format", "csv").stdout)))
    assert {r["pass"] for r in every} > {"1"} and {r["pass"] for r in one} == {"1"}


def test_kernel_layers_before_segment_says_how(named_store):
    out = cli("sql", "--db", named_store, "select * from kernel_layers").stdout
    assert "tracedb segment" in out and "(no rows)" in out


def test_the_html_hint_names_the_checkout():
    from tracedb.engine.rendering import html
    hint = html.extra_hint()
    assert hint.startswith(html.EXTRA)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(html.__file__))))
    assert (f"pip install -e '{root}[html]'" in hint) == os.path.exists(os.path.join(root, "pyproject.toml"))
