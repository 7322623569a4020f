"""`tracedb segment` and the view kernel_layers: layers and categories in plain SQL, equal to report layers."""
import csv
import io
import subprocess

import pytest

import tiny_kineto
import tiny_trace
from helpers import cli
from test_store import duckdb_cli

SEG = ["--profile", "qwen3-npu", "--layers", "2"]


@pytest.fixture
def segmented(tmp_path):
    db = str(tmp_path / "s.duckdb")
    cli("ingest", tiny_trace.write(tmp_path / "k.csv"), "--db", db, "--name", "tiny", "--tag", "hw=910B")
    p = cli("segment", "--db", db, "--run", "tiny", *SEG)
    assert p.stdout == "segmented run 'tiny': 4 passes, 60 kernels in a pass (view kernel_layers)\n"
    return db


def report_cells(db, *args):
    """(pass, layer, category) -> µs text from report layers' category columns; the layer of the prologue and
    the epilogue is their unit, as kernel_layers' coalesce(layer, unit) gives it."""
    rows = csv.DictReader(io.StringIO(cli("report", "layers", "--db", db, "--run", "tiny", *SEG, *args,
                                          "--format", "csv").stdout))
    out = {}
    for r in rows:
        for col, v in r.items():
            if col.endswith("_us") and col not in ("sum_us", "wall_us", "start_us", "end_us") and float(v):
                out[(r["pass"], r["layer"], col[:-3])] = v
    return out


def test_kernel_layers_equals_report_layers_per_pass_layer_and_category(segmented):
    view = cli("sql", "--db", segmented, "--format", "csv",
               "select pass, coalesce(layer::varchar, unit) as layer, category, us(sum(dur_ns)) as us "
               "from kernel_layers where run = 'tiny' and pass is not null group by all order by all").stdout
    got = {(r["pass"], r["layer"], r["category"]): r["us"] for r in csv.DictReader(io.StringIO(view))}
    want = report_cells(segmented, "--pass", "all")
    assert got == want
    # tests/tiny_trace.py, pass 3 full window: layer 1 = FIA 5 + o 6 + hcom 3 + SwiGlu 1, the epilogue lm_head 8
    # + ArgMax 1, the prologue GatherV2 4 (other) + RmsNorm 2 + MatMul 10
    assert got[("3", "1", "gemm")] == "6.000" and got[("3", "epilogue", "gemm")] == "8.000"
    assert got[("3", "prologue", "other")] == "4.000"


def test_the_plain_duckdb_cli_reads_kernel_layers_with_the_runs_columns(segmented):
    exe, ver = duckdb_cli()
    p = subprocess.run([exe, "-readonly", "-csv", "-noheader", segmented, "-c",
                        "select run, tags['hw'], count(*), sum(dur_ns) from kernel_layers where pass = 3 and layer = 0 "
                        "group by all"], capture_output=True, text=True)
    assert p.returncode == 0, f"duckdb {ver}: {p.stderr}"
    # layer 0 of pass 3: 6 kernels, 27 us
    assert p.stdout.split() == ["tiny,910B,6,27000"]


def test_segmenting_again_replaces_the_assignment_and_records_the_options(segmented):
    cli("segment", "--db", segmented, "--run", "tiny", *SEG, "--window", "strict")
    rows = cli("sql", "--db", segmented, "--format", "csv",
               "select count(*) as n, count(pass) as in_pass, "
               "count(*) filter (where pass is not null and layer is null) as prologue from kernel_segments").stdout
    # 60 kernels, still one row each; strict: 7 per pass (6 in layer 0, the anchor of layer 1), no prologue
    assert rows.splitlines()[1] == "60,28,0"
    opts = cli("sql", "--db", segmented, "--format", "csv",
               "select json_extract_string(options, '$.window') as w, json_extract(options, '$.layers') as l, "
               "len(notes) > 0 as noted from segmentations").stdout
    assert opts.splitlines()[1] == "strict,2,true"


def test_gpu_runs_store_the_launching_module(tmp_path):
    db = str(tmp_path / "g.duckdb")
    cli("ingest", tiny_kineto.write(tmp_path / "g.json"), "--db", db, "--name", "gpu")
    cli("segment", "--db", db, "--run", "gpu", "--anchor", "flash_fwd", "--layers", "2")
    out = cli("sql", "--db", db, "--format", "csv",
              "select module, count(*) as n from kernel_layers group by all order by n desc, module").stdout
    mods = dict(line.rsplit(",", 1) for line in out.splitlines()[1:])
    # every kernel has its module as report modules attributes it
    rep = csv.DictReader(io.StringIO(cli("report", "modules", "--db", db, "--run", "gpu", "--by", "module",
                                         "--format", "csv").stdout))
    want = {}
    for r in rep:
        want[r["module"]] = want.get(r["module"], 0) + int(r["kernels"])
    assert {m: int(n) for m, n in mods.items()} == want


def test_segment_needs_a_run_that_exists(tmp_path):
    db = str(tmp_path / "e.duckdb")
    cli("ingest", tiny_trace.write(tmp_path / "k.csv"), "--db", db, "--name", "tiny")
    p = cli("segment", "--db", db, "--run", "nope", *SEG, check=False)
    assert p.returncode == 2 and p.stderr.startswith("error: ") and len(p.stderr.splitlines()) == 1


def test_removing_or_replacing_a_run_drops_its_segmentation(segmented, tmp_path):
    cli("ingest", tiny_trace.write(tmp_path / "k2.csv", dur_factor=2), "--db", segmented, "--name", "tiny", "--replace",
        "--no-segment")
    count = "select (select count(*) from kernel_segments) as k, (select count(*) from segmentations) as s"
    assert cli("sql", "--db", segmented, "--format", "csv", count).stdout.splitlines()[1] == "0,0"
    cli("segment", "--db", segmented, "--run", "tiny", *SEG)
    cli("runs", "rm", "--db", segmented, "tiny")
    assert cli("sql", "--db", segmented, "--format", "csv", count).stdout.splitlines()[1] == "0,0"
