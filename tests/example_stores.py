"""The test stores the reports' examples run on (each report module of tracedb/engine/reports/catalog/ names one
in its Examples), built from the generated traces of tests/, and the examples read from the declarations:
the golden cases (tests/test_golden.py), the command line against the Python API (tests/test_declared.py) and
the query files' headers against DuckDB (tests/test_sql_headers.py) all run these, so a new report's examples
are tested without a list here.

    tiny      the tiny Ascend decode (tiny_trace: tiny, tiny_x2 twice as slow, tiny_jitter), the GPU trace
              with host events (tiny_kineto: gpu, gpu_x2), the per-core NPU trace (tiny_swimlane: cores,
              cores2), a performance model's prediction (tiny_simulated: tiny_sim tagged kind=simulated,
              tiny_deep of 3 layers), a graph replay and its capture (graph, graph_cap), three ranks of a job
              (tiny_job: job-rank0..2, job=job), 1F1B pipeline jobs (tiny_pipeline: job=pp, job=steps,
              job=nogroups), a 2-rank job meeting at all-reduces (job_sim: job=ar), passes named by NVTX
              ranges (ranges) and two ranks with no layers to find (cnn0, cnn1)
    gen_job   bench/gen_job.py's seeded 3-rank TP job (job-rank0..2, job=job): rank 1 late by 25 µs at the
              group's collective 1, clock offsets 0, +100 and -50 µs

Each store has a default selection (BASE) that its examples' options are laid over."""
import importlib.util
import os

import pytest

import tracedb
from helpers import ROOT

BASE = {
    # the strict window unless a case says full: the extraction method the tiny cases were derived for
    "tiny": {"runs": ["tiny"], "profile": "qwen3-npu", "layers": 2, "window": "strict"},
    "gen_job": {"runs": [], "tags": ["job=job"]},
}
GEN_JOB = os.path.join(ROOT, "bench", "gen_job.py")
JOB = {"ranks": 3, "layers": 2, "passes": 2, "late": [{"rank": 1, "coll": 1, "ns": 25_000}],
       "offsets_us": ["0", "100", "-50"], "jitter_ns": 0, "seed": 1}


def build(con, name: str, folder) -> None:
    """Ingest store `name`'s traces into `con`, writing them under `folder` (a pathlib.Path)."""
    if name == "tiny":
        _tiny(con, folder)
    elif name == "gen_job":
        _gen_job(con, folder)
    else:
        raise KeyError(f"no example store {name!r}; stores: {', '.join(BASE)}")


def _tiny(con, d):
    import job_sim
    import test_evidence
    import tiny_graphs
    import tiny_job
    import tiny_kineto
    import tiny_pipeline
    import tiny_simulated
    import tiny_swimlane
    import tiny_trace
    from tracedb.engine.loading import captures
    tracedb.ingest_trace(con, tiny_trace.write(d / "kernel_details.csv"), name="tiny")
    tracedb.ingest_trace(con, tiny_kineto.write(d / "trace.json"), name="gpu")
    tracedb.ingest_trace(con, tiny_swimlane.write(d / "swimlane.json"), name="cores")
    tracedb.ingest_trace(con, tiny_trace.write(d / "slow.csv", dur_factor=2), name="tiny_x2")
    tracedb.ingest_trace(con, tiny_kineto.write(d / "slow.json", dur_factor=2), name="gpu_x2")
    tracedb.ingest_trace(con, tiny_trace.write(d / "jitter.csv", scales=tiny_trace.JITTER), name="tiny_jitter")
    tracedb.ingest_trace(con, tiny_simulated.write(d / "sim.json"), name="tiny_sim", tags={"kind": "simulated"})
    tracedb.ingest_trace(con, tiny_simulated.write(d / "deep.json", layers=3), name="tiny_deep")
    other = tiny_swimlane.write(d / "swimlane2.json")
    with open(other, "a") as f:
        f.write("\n")                                # other bytes: not skipped as the same content
    tracedb.ingest_trace(con, other, name="cores2")
    # a graph replay and its capture, paired as a folder ingest pairs them (graph_capture_match at report time)
    replay = tiny_graphs.write_replay(d / "graph.json", [tiny_graphs.full_graph()])
    capture = tiny_graphs.write_capture(d / "graph_cap.json", [tiny_graphs.full_graph()])
    tracedb.ingest_trace(con, replay, name="graph")
    tracedb.ingest_trace(con, capture, name="graph_cap", capture=True)
    captures.pair_landed(con, [captures.Landed(replay, "graph", False), captures.Landed(capture, "graph_cap", True)])
    (d / "job").mkdir()
    tiny_job.ingest(con, d / "job")
    for sub, kw in (("pp", {}), ("steps", {"stages": 4, "micro": 4, "steps": 2}), ("nogroups", {"groups": False})):
        (d / sub).mkdir()
        tiny_pipeline.ingest(con, d / sub, name=sub, **kw)
    for r, path in enumerate(job_sim.write(d / "ar", job_sim.simulate_job(0, ranks=2))):
        tracedb.ingest_trace(con, path, name=f"ar-rank{r}", tags={"job": "ar"})
    tracedb.ingest_trace(con, str(test_evidence.back_to_back(d / "ranges.json", 2, 3, "range")), name="ranges")
    for i in range(2):
        t = test_evidence.Trace()
        for _ in range(3):
            for kernel, us in (("conv_kernel", 10 + i), ("relu_kernel", 2), ("ncclDevKernel_AllReduce", 5)):
                t.kernel(kernel, us)
        tracedb.ingest_trace(con, str(t.write(d / f"cnn{i}.json")), name=f"cnn{i}")


def _gen_job(con, d):
    if not os.path.exists(GEN_JOB):
        pytest.skip("bench/gen_job.py is not in this checkout")
    spec = importlib.util.spec_from_file_location("gen_job", GEN_JOB)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    gen.generate(str(d / "job"), **JOB)
    for r in range(JOB["ranks"]):
        tracedb.ingest_trace(con, str(d / "job" / f"rank{r}.pt.trace.json"), name=f"job-rank{r}", tags=["job=job"])


class Stores:
    """Each example store opened once, when first asked for (a module's fixture holds one of these)."""

    def __init__(self, tmp_path_factory):
        self._factory, self._open, self._paths = tmp_path_factory, {}, {}

    def __getitem__(self, name: str):
        if name not in self._open:
            d = self._factory.mktemp(f"example_{name}")
            con = tracedb.connect(str(d / "store.duckdb"))
            build(con, name, d)
            self._open[name] = con
        return self._open[name]

    def path(self, name: str) -> str:
        """Store `name` built once in a file of its own and closed (for the command line and the API to open)."""
        if name not in self._paths:
            d = self._factory.mktemp(f"example_{name}_file")
            con = tracedb.connect(str(d / "store.duckdb"))
            try:
                build(con, name, d)
            finally:
                con.close()
            self._paths[name] = str(d / "store.duckdb")
        return self._paths[name]

    def close(self):
        for con in self._open.values():
            con.close()


def _options(store: str, options: dict) -> dict:
    """The store's default selection under the example's options; a relative --config from the repository root."""
    out = {**BASE[store], **options}
    if out.get("config") and not os.path.isabs(out["config"]):
        out["config"] = os.path.join(ROOT, out["config"])
    return out


def cases() -> dict:
    """Every golden case of every report: golden file name -> (report, store, format, options)."""
    from tracedb.engine.reports.declared import REPORTS
    out = {}
    for r in REPORTS:
        for name, (fmt, options) in r.examples.cases.items():
            assert name not in out, f"golden {name} is an example of two reports"
            out[name] = (r.name, r.examples.store, fmt, _options(r.examples.store, options))
    return out


def checks() -> list:
    """Every report's examples without a golden: (report, store, options)."""
    from tracedb.engine.reports.declared import REPORTS
    return [(r.name, r.examples.store, _options(r.examples.store, o)) for r in REPORTS for o in r.examples.checks]


def first(report) -> tuple:
    """A report's first case: (store, format, options) (the command line and the API are compared on it)."""
    name, (fmt, options) = next(iter(report.examples.cases.items()))
    return report.examples.store, fmt, _options(report.examples.store, options)
