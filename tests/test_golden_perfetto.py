"""Golden tests of `tracedb export perfetto --ranges`: the annotation tracks alone (passes, layers, prologues,
counters) over the tiny synthetic traces, compared whole with golden/perfetto_<case>.json. The file holds no
path, clock time or version, so its text is stable; it is checked to be JSON before it is compared. A missing
or different golden file fails with a unified diff; `pytest --update-golden` rewrites them."""
import json
import os

import pytest

import tiny_kineto
import tiny_trace
import tracedb
from helpers import check_golden
from tracedb.engine.exports import perfetto

CONFIG = os.path.join(os.path.dirname(__file__), "data", "tiny_config.json")
CASES = {
    # name: (run, options)
    "perfetto_tiny_ranges.json": ("tiny", {"profile": "qwen3-npu", "layers": 2, "window": "strict"}),
    "perfetto_tiny_full_pass3.json": ("tiny", {"profile": "qwen3-npu", "config": CONFIG, "pass_spec": "3"}),
    "perfetto_gpu_ranges.json": ("gpu", {"anchor": "flash_fwd", "layers": 2}),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("golden_perfetto")
    con = tracedb.connect(str(d / "g.duckdb"))
    tracedb.ingest_trace(con, tiny_trace.write(d / "kernel_details.csv"), name="tiny")
    tracedb.ingest_trace(con, tiny_kineto.write(d / "trace.json"), name="gpu")
    yield con, d
    con.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_perfetto(case, store, update_golden):
    con, d = store
    run, opts = CASES[case]
    out = d / case
    perfetto.export(con, str(out), runs=[run], ranges=True, **opts)
    got = out.read_text(encoding="utf-8")
    assert json.loads(got)["traceEvents"]
    check_golden(case, got, update_golden, "export")
