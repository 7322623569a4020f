"""Golden tests: every report in every format over the tiny synthetic traces (tests/tiny_trace.py, an
Ascend decode, tests/tiny_kineto.py, a GPU trace with host events, tests/tiny_simulated.py, a performance
model's prediction of tiny_trace's model; each derives the expected numbers), compared whole with golden/<case>
(for --format html, the data block the page embeds: golden/*.html.json). A missing or different golden file
fails with a unified diff; `pytest --update-golden` rewrites them (read every diff before committing)."""
import os

import pytest

import tracedb
from tracedb.engine.rendering import render
from tracedb.engine.rendering.html import embedded
from tracedb.engine.reports.registry import render_report
import tiny_kineto
import tiny_simulated
import tiny_swimlane
import tiny_trace
from helpers import GOLDEN, check_golden, needs_html, slow_beyond

# the strict window unless a case says full: the extraction method these cases were derived for
SEG = {"runs": ["tiny"], "profile": "qwen3-npu", "layers": 2, "window": "strict"}
TINY_CONFIG = os.path.join(os.path.dirname(__file__), "data", "tiny_config.json")
CASES = {
    # name: (report, format, options)
    "passes.table": ("passes", "table", {}),
    "passes.md": ("passes", "md", {}),
    "passes.csv": ("passes", "csv", {}),
    "passes.json": ("passes", "json", {}),
    "passes_by_gap.csv": ("passes", "csv", {"layers": None}),
    "layers.table": ("layers", "table", {"pass_spec": "all"}),
    "layers.md": ("layers", "md", {"pass_spec": "steady"}),
    "layers.csv": ("layers", "csv", {"pass_spec": "all"}),
    "layers.json": ("layers", "json", {"pass_spec": "3"}),
    "layers_full.csv": ("layers", "csv", {"pass_spec": "all", "window": "full"}),
    "layers_full_offset2.csv": ("layers", "csv", {"pass_spec": "3", "window": "full", "layer_offset": 2}),
    "layers_two_blocks.csv": ("layers", "csv", {"pass_spec": "all", "layers": 1, "blocks_per_layer": 2}),
    "layers_absolute.csv": ("layers", "csv", {"pass_spec": "0", "absolute": True}),
    "kernels.table": ("kernels", "table", {"pass_spec": "steady"}),
    "kernels.md": ("kernels", "md", {"pass_spec": "3", "layer": 0}),
    "kernels.csv": ("kernels", "csv", {"pass_spec": "3", "window": "full", "top": 0}),
    "kernels.json": ("kernels", "json", {"pass_spec": "3", "layer": 0, "top": 3}),
    "kernels_flow.table": ("kernels", "table", {"pass_spec": "3", "layer": 0, "flow": True}),
    "kernels_flow.csv": ("kernels", "csv", {"pass_spec": "3", "layer": 1, "flow": True, "window": "full",
                                            "order": "time"}),
    "kernels_compare.csv": ("kernels", "csv", {"pass_spec": "3", "window": "full", "layer": 0, "compare_layer": 1}),
    "layers_clusters.md": ("layers", "md", {"pass_spec": "all", "window": "full", "layers": None, "clusters": True,
                                            "config": TINY_CONFIG}),
    # GPU trace (run "gpu"): module attribution with and without layers
    "modules.table": ("modules", "table", {"runs": ["gpu"], "profile": None, "layers": None}),
    "modules.md": ("modules", "md", {"runs": ["gpu"], "profile": None, "layers": None, "by": "module"}),
    "modules.csv": ("modules", "csv", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd", "layers": 2}),
    "modules.json": ("modules", "json", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd", "layers": 2,
                                         "by": "module"}),
    "layers_gpu.csv": ("layers", "csv", {"runs": ["gpu"], "profile": "dsv3-gpu", "anchor": "flash_fwd", "layers": 2}),
    # per-core NPU trace (run "cores")
    "cores.table": ("cores", "table", {"runs": ["cores"]}),
    "cores.md": ("cores", "md", {"runs": ["cores"], "per_core": True}),
    "cores.csv": ("cores", "csv", {"runs": ["cores"]}),
    "cores.json": ("cores", "json", {"runs": ["cores"], "match": "attn"}),
    "cores_window.csv": ("cores", "csv", {"runs": ["cores"], "from_us": 10, "to_us": 30, "per_core": True}),
    "cores_gaps.csv": ("cores", "csv", {"runs": ["cores"], "top_gaps": 2}),
    # two Ascend runs, the second with every duration doubled
    "compare.csv": ("compare", "csv", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3", "by": "layer"}),
    "compare.md": ("compare", "md", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3", "by": "category"}),
    "compare_kernel.csv": ("compare", "csv", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3", "by": "kernel",
                                              "window": "full"}),
    "compare.table": ("compare", "table", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3"}),
    "compare.json": ("compare", "json", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3", "by": "category"}),
    "compare_layer.md": ("compare", "md", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3", "by": "layer",
                                           "window": "full"}),
    "compare_category.csv": ("compare", "csv", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3", "by": "category"}),
    "compare_kernel.md": ("compare", "md", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3", "by": "kernel",
                                            "window": "full"}),
    # two GPU runs, the second with every device duration doubled: its memcpy falls into layer 1
    "compare_module.md": ("compare", "md", {"runs": ["gpu", "gpu_x2"], "profile": None, "anchor": "flash_fwd",
                                            "by": "module"}),
    "compare_module.csv": ("compare", "csv", {"runs": ["gpu", "gpu_x2"], "profile": None, "anchor": "flash_fwd",
                                              "by": "module", "window": "full"}),
    # --pass mean over the steady passes 3, 4, 6 of a jittery decode (tests/tiny_trace.py JITTER)
    "layers_mean.csv": ("layers", "csv", {"runs": ["tiny_jitter"], "pass_spec": "mean"}),
    "layers_mean.md": ("layers", "md", {"runs": ["tiny_jitter"], "pass_spec": "mean", "window": "full"}),
    "compare_mean.csv": ("compare", "csv", {"runs": ["tiny_jitter", "tiny"], "pass_spec": "mean", "by": "kernel"}),
    "compare_mean.md": ("compare", "md", {"runs": ["tiny_jitter", "tiny"], "pass_spec": "mean", "by": "category"}),
    # predicted vs measured: tests/tiny_simulated.py, tagged kind=simulated; ratio = simulated / measured
    "compare_sim.md": ("compare", "md", {"runs": ["tiny", "tiny_sim"], "pass_spec": "steady", "by": "category"}),
    "compare_sim.csv": ("compare", "csv", {"runs": ["tiny", "tiny_sim"], "pass_spec": "steady", "by": "layer",
                                           "window": "full"}),
    # runs of different depth (2 and 3 layers; passes by gaps): a note, layers of one run flagged, kernels of
    # one run unpaired
    "compare_depth.md": ("compare", "md", {"runs": ["tiny", "tiny_deep"], "pass_spec": "0", "layers": None,
                                           "by": "kernel"}),
    # breakdown: computing / communication / overlap / free; tiny_x2 doubles every duration at the same starts,
    # so its hcom ops overlap the MatMul before and the SwiGlu after them (tests/test_breakdown.py derives it)
    "breakdown.table": ("breakdown", "table", {"runs": ["tiny", "tiny_x2"]}),
    "breakdown.md": ("breakdown", "md", {"runs": ["tiny_x2"], "by": "step"}),
    "breakdown.csv": ("breakdown", "csv", {"runs": ["tiny_x2"], "by": "layer", "window": "full"}),
    "breakdown.json": ("breakdown", "json", {"runs": ["tiny_x2"], "by": "pass", "pass_spec": "3"}),
    "breakdown_layer.md": ("breakdown", "md", {"runs": ["tiny_x2"], "by": "layer", "pass_spec": "steady"}),
    "breakdown_gpu.csv": ("breakdown", "csv", {"runs": ["gpu"], "profile": None, "layers": None}),
    # launches: launch calls, launch-to-start delay, idle time host-bound or not, over the GPU trace
    # (tests/test_launches.py derives the run's figures); the Ascend run has no host launches: left out with a note
    "launches.table": ("launches", "table", {"runs": ["gpu"], "profile": None, "layers": None}),
    "launches.md": ("launches", "md", {"runs": ["gpu", "gpu_x2", "tiny"], "profile": None, "layers": None,
                                       "by": "run"}),
    "launches.csv": ("launches", "csv", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd"}),
    "launches.json": ("launches", "json", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd", "by": "pass",
                                           "window": "full"}),
    "launches_layer.csv": ("launches", "csv", {"runs": ["gpu_x2"], "profile": None, "anchor": "flash_fwd",
                                               "by": "layer", "window": "full"}),
    # roofline: the tiny Ascend run's MatMulV3 (16,4096 x 4096,4096) and vector ops against a given peak; the
    # GPU run's aten::mm shapes (tests/tiny_kineto.py)
    "roofline.table": ("roofline", "table", {"pass_spec": "3", "peak_tflops": 300, "peak_tbs": 1.6}),
    "roofline.md": ("roofline", "md", {"by": "layer", "pass_spec": "3", "window": "full", "peak_tflops": 300,
                                       "peak_tbs": 8}),
    "roofline.csv": ("roofline", "csv", {"by": "pass", "pass_spec": "all", "peak_tflops": 300, "peak_tbs": 1.6}),
    "roofline.json": ("roofline", "json", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd",
                                           "by": "category"}),
    "timeline.table": ("timeline", "table", {}),
    "timeline.md": ("timeline", "md", {"window": "full"}),
    "timeline.csv": ("timeline", "csv", {"timeline_layers": [1]}),
    "timeline.json": ("timeline", "json", {"pass_spec": "all"}),
    # HTML: the data block the page embeds (the report as JSON, the chart's Vega-Lite spec), not Vega's markup
    "passes.html.json": ("passes", "html", {}),
    "layers.html.json": ("layers", "html", {"pass_spec": "all", "window": "full"}),
    "layers_mean.html.json": ("layers", "html", {"runs": ["tiny_jitter"], "pass_spec": "mean"}),
    "layers_clusters.html.json": ("layers", "html", {"pass_spec": "all", "window": "full", "layers": None,
                                                     "clusters": True, "config": TINY_CONFIG}),
    "kernels.html.json": ("kernels", "html", {"pass_spec": "3", "window": "full", "top": 0}),
    "kernels_flow.html.json": ("kernels", "html", {"pass_spec": "3", "layer": 0, "flow": True}),
    "kernels_compare.html.json": ("kernels", "html", {"pass_spec": "3", "window": "full", "layer": 0,
                                                     "compare_layer": 1}),
    "timeline.html.json": ("timeline", "html", {}),
    "modules.html.json": ("modules", "html", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd", "layers": 2}),
    "compare.html.json": ("compare", "html", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3", "by": "category"}),
    "compare_kernel.html.json": ("compare", "html", {"runs": ["tiny", "tiny_x2"], "pass_spec": "3", "by": "kernel",
                                                     "window": "full"}),
    "cores.html.json": ("cores", "html", {"runs": ["cores"], "per_core": True}),
    "breakdown.html.json": ("breakdown", "html", {"runs": ["tiny_x2"], "by": "layer", "window": "full"}),
    "launches.html.json": ("launches", "html", {"runs": ["gpu", "gpu_x2"], "profile": None, "layers": None,
                                                "by": "run"}),
    "launches_kernel.html.json": ("launches", "html", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd"}),
    "roofline.html.json": ("roofline", "html", {"pass_spec": "3", "peak_tflops": 300, "peak_tbs": 1.6}),
    # GPU trace (run "gpu"): its critical path (tests/test_critical_path.py holds the path to a simulator's)
    "critical_path.table": ("critical-path", "table", {"runs": ["gpu"], "profile": None, "layers": None}),
    "critical_path.md": ("critical-path", "md", {"runs": ["gpu"], "profile": None, "layers": None, "by": "category"}),
    "critical_path.csv": ("critical-path", "csv", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd",
                                                   "layers": 2}),
    "critical_path.json": ("critical-path", "json", {"runs": ["gpu"], "profile": None, "anchor": "flash_fwd",
                                                     "layers": 2, "by": "layer"}),
    "critical_path_kernel.csv": ("critical-path", "csv", {"runs": ["gpu", "gpu_x2"], "profile": None,
                                                          "layers": None, "by": "kernel"}),
    "critical_path.html.json": ("critical-path", "html", {"runs": ["gpu"], "profile": None, "layers": None,
                                                          "by": "category"}),
    "critical_path_slack.csv": ("critical-path", "csv", {"runs": ["gpu"], "profile": None, "layers": None,
                                                         "by": "slack"}),
    # two Ascend ranks as one job: one path across them (tests/test_critical_path_job.py holds it to a simulator)
    "critical_path_job.csv": ("critical-path", "csv", {"runs": ["tiny", "tiny_x2"], "job": True}),
    # the same trace replayed with edits (tests/test_what_if.py holds the replay to the simulator's)
    "what_if.table": ("what-if", "table", {"runs": ["gpu"], "profile": None, "layers": None, "kernel": ["gemm=50"]}),
    "what_if.md": ("what-if", "md", {"runs": ["gpu", "gpu_x2"], "profile": None, "layers": None,
                                     "kernel": ["flash=0"], "no_gap": ["launch_latency"]}),
    "what_if.csv": ("what-if", "csv", {"runs": ["gpu"], "profile": None, "layers": None,
                                       "category": ["gemm=50"], "overlap_comm": True}),
    "what_if.json": ("what-if", "json", {"runs": ["gpu_x2"], "profile": None, "layers": None,
                                         "no_gap": ["device_gap", "sync_wait"]}),
    "what_if.html.json": ("what-if", "html", {"runs": ["gpu"], "profile": None, "layers": None,
                                              "kernel": ["gemm=50"]}),
}


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("golden")
    con = tracedb.connect(str(d / "g.duckdb"))
    tracedb.ingest_trace(con, tiny_trace.write(d / "kernel_details.csv"), name="tiny")
    tracedb.ingest_trace(con, tiny_kineto.write(d / "trace.json"), name="gpu")
    tracedb.ingest_trace(con, tiny_swimlane.write(d / "swimlane.json"), name="cores")
    tracedb.ingest_trace(con, tiny_trace.write(d / "slow.csv", dur_factor=2), name="tiny_x2")
    tracedb.ingest_trace(con, tiny_kineto.write(d / "slow.json", dur_factor=2), name="gpu_x2")
    tracedb.ingest_trace(con, tiny_trace.write(d / "jitter.csv", scales=tiny_trace.JITTER), name="tiny_jitter")
    tracedb.ingest_trace(con, tiny_simulated.write(d / "sim.json"), name="tiny_sim", tags={"kind": "simulated"})
    tracedb.ingest_trace(con, tiny_simulated.write(d / "deep.json", layers=3), name="tiny_deep")
    yield con
    con.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case, tiny_store, update_golden):
    report, fmt, extra = CASES[case]
    if fmt == "html":
        needs_html()       # the html extra is optional: skipped, with the reason, without it
    got = render_report(tiny_store, report, fmt=fmt, **{**SEG, **extra})
    if fmt == "html":
        got = embedded(got)
    check_golden(case, got, update_golden, "report")


# spreadsheet is CSV with inert formula cells: checked against each CSV case below, not golden files of its own
FORMATS = tuple(f for f in render.FORMATS if f != "spreadsheet")


@pytest.mark.parametrize("case", slow_beyond(sorted(c for c in CASES if CASES[c][1] == "csv"), {0, 1, 2}))
def test_spreadsheet_is_the_csv_where_no_cell_starts_a_formula(case, tiny_store):
    """The tiny traces' names start no formula, so `--format spreadsheet` must give the CSV byte for byte
    (it is written from the rows in Python, the CSV by DuckDB)."""
    report, _, extra = CASES[case]
    csv = render_report(tiny_store, report, fmt="csv", **{**SEG, **extra})
    assert render_report(tiny_store, report, fmt="spreadsheet", **{**SEG, **extra}) == csv


# The golden cases of the reports and exports that need stores of their own (a job of several ranks, an
# exported trace): each module's CASES maps a golden file name to its case.
OTHER_CASES = ("test_golden_ranks", "test_golden_collectives", "test_golden_perfetto", "test_golden_blame",
               "test_golden_pipeline")


def _other_cases() -> dict:
    import importlib
    return {name: case for mod in OTHER_CASES for name, case in importlib.import_module(mod).CASES.items()}


def test_every_report_and_format_has_a_golden_case():
    from tracedb.engine.reports.registry import REPORTS
    covered = {(r, f) for r, f, _ in CASES.values()}
    for name in _other_cases():          # ranks_per_rank.html.json: report ranks, format html
        report = name.split(".")[0].split("_")[0]
        covered.add((report, "html" if name.endswith(".html.json") else name.rsplit(".", 1)[1]))
    assert {(r, f) for r in REPORTS for f in FORMATS} <= covered


def test_no_stray_golden_files():
    """A golden file no case writes is a test that silently stopped running."""
    files = {f for f in os.listdir(GOLDEN) if os.path.isfile(os.path.join(GOLDEN, f))}
    stray = files - set(CASES) - set(_other_cases())
    assert not stray
