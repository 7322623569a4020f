"""`report passes`' us_per_token: the serving step's device span over its tokens, from the first to the last
kernel the step ran, not the pass's full window, which reaches back over the idle before the step to the
kernels launched before its annotation (SGLang's prefill: 64.277 µs/token by the window, 32.131 by the step)."""
import csv
import io
import json
from decimal import Decimal

import pytest

import tiny_steps as ts
import tracedb
from helpers import cli, real_trace

TOKENS = 64
IDLE_US = 5000


def _trace(device_only=False):
    """Two kernels launched before the step annotation, 5 ms idle, then the step: one serving forward pass of
    3 layers inside step[EXTEND bs=2 toks=64] (device_only: only its GPU-side copy in the trace)."""
    t = ts._Trace()
    t.run([("prepare_inputs_kernel", 3), ("copy_kernel", 2)])
    before = len(t.spans)
    t.device += IDLE_US
    with t.annotate(f"step[EXTEND bs=2 toks={TOKENS}]", gpu=device_only):
        t.run(ts.PROLOGUE + ts.forward_layer() * 3 + ts.SERVE_TAIL)
    doc = t.document()
    if device_only:
        doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "user_annotation"]
    step = t.spans[before:]
    return doc, (t.spans[0][0], step[-1][1]), (step[0][0], step[-1][1])


def _passes(tmp_path, doc):
    path = tmp_path / "serve.json"
    path.write_text(json.dumps(doc))
    db = str(tmp_path / "s.duckdb")
    con = tracedb.connect(db)
    tracedb.ingest_trace(con, str(path), name="serve")
    con.close()
    r = cli("report", "passes", "--db", db, "--run", "serve", "--format", "csv")
    assert r.returncode == 0, r.stderr
    return list(csv.DictReader(io.StringIO(r.stdout)))


def _per_token(span) -> str:
    ns = round((Decimal(str(span[1])) - Decimal(str(span[0]))) * 1000 / TOKENS)
    return f"{Decimal(ns) / 1000:.3f}"


@pytest.mark.parametrize("device_only", [False, True], ids=["host-annotation", "gpu-annotation"])
def test_per_token_is_the_step_s_device_span(tmp_path, device_only):
    doc, window, step = _trace(device_only)
    (row,) = _passes(tmp_path, doc)
    assert (row["step_kind"], row["tokens"]) == ("prefill", str(TOKENS))
    # the pass's window holds the kernels before the step: its wall is not what the step's tokens cost
    assert Decimal(row["wall_us"]) == Decimal(str(window[1])) - Decimal(str(window[0]))
    assert row["us_per_token"] == _per_token(step)
    assert row["us_per_token"] != _per_token(window)


@pytest.mark.real_data
def test_sglang_prefill_per_token(tmp_path):
    db = str(tmp_path / "sg.duckdb")
    path = real_trace("amd-tracelens", "inference", "sglang_prefilldecode", "sglang_Qwen3-8B_prefilldecode.json.gz")
    assert cli("ingest", path, "--db", db, "--name", "sg").returncode == 0
    r = cli("report", "passes", "--db", db, "--run", "sg", "--format", "csv")
    (row,) = list(csv.DictReader(io.StringIO(r.stdout)))
    # 987,288.887 µs of wall (a 493 ms gap after the first kernel) / 15,360 tokens would be 64.277
    assert (row["tokens"], row["wall_us"], row["us_per_token"]) == ("15360", "987288.887", "32.131")
