"""`report pipeline` and the pipeline stage of a run (sql/segment/pipeline_stage.sql): on generated 1F1B jobs
(tests/tiny_pipeline.py) every micro-batch's start, end, busy time, bubble and send/receive time, and every
stage's bubble and bubble fraction, equal what the schedule gives by construction, to the ns; a job without
pipeline process groups gets its stages from the send/receive order when its metadata give the stage count,
and is said to be unknown when they do not; on the shared Megatron job, rank 0's micro-batches."""
import csv
import io
import json
from decimal import Decimal

import pytest

import tiny_pipeline as tp
import tiny_trace
import tracedb
from helpers import cli, needs_html, real_trace
from tracedb import sql
from tracedb.engine.segmentation import binding, segment
from tracedb.engine.store.connect import open_store

PASS_COLUMNS = ("start_us", "end_us", "busy_us", "bubble_us", "p2p_us")


def _ns(v: str) -> int:
    return int(Decimal(v) * 1000)


def _job(tmp_path, **kw):
    path = str(tmp_path / "pp.duckdb")
    con = tracedb.connect(path)
    tp.ingest(con, tmp_path, **kw)
    con.close()
    return path


def _rows(db, *extra):
    r = cli("report", "pipeline", "--db", db, "--tag", "job=pp", "--format", "csv", *extra)
    assert r.returncode == 0, r.stderr
    return list(csv.DictReader(io.StringIO(r.stdout))), r.stderr


@pytest.mark.parametrize("stages, micro, steps", [(2, 2, 1), (4, 4, 1), (4, 8, 2)])
def test_every_figure_is_the_schedule_s(tmp_path, stages, micro, steps):
    db = _job(tmp_path, stages=stages, micro=micro, layers=2, steps=steps)
    rows, _ = _rows(db)
    want, want_stage = tp.expected(stages, micro, layers=2, steps=steps)
    assert len(rows) == len(want) + len(want_stage)
    first_step = min(int(r["step"]) for r in rows)
    got, got_stage = {}, {}
    for r in rows:
        assert r["pp_stage"] == r["rank"] and r["stages"] == str(stages)   # rank s is stage s in its group
        if r["unit"] == "pass":
            key = (int(r["rank"]), int(r["step"]) - first_step, r["phase"], int(r["microbatch"]))
            got[key] = tuple(_ns(r[c]) for c in PASS_COLUMNS)
        else:
            key = (int(r["rank"]), int(r["step"]) - first_step)
            got_stage[key] = tuple(_ns(r[c]) for c in PASS_COLUMNS) + (Decimal(r["bubble_pct"]),)
            assert r["microbatches"] == str(micro)
            assert Decimal(r["ideal_1f1b_pct"]) == tp.ideal_pct(stages, micro)
            # the schedule's only overhead over 1F1B's model is the few µs between passes
            assert abs(Decimal(r["bubble_pct"]) - tp.ideal_pct(stages, micro)) < 2
    assert got == want
    assert got_stage == want_stage


def test_order_and_stage_rows(tmp_path):
    """Per stage its passes in time order, then its stage row; the first pass of stage 0 has no bubble and the
    last stage's first forward waits for the stages before it."""
    rows, _ = _rows(_job(tmp_path, stages=2, micro=2, layers=2))
    assert [(r["rank"], r["phase"], r["microbatch"], r["unit"]) for r in rows] == [
        ("0", "forward", "0", "pass"), ("0", "forward", "1", "pass"), ("0", "backward", "0", "pass"),
        ("0", "backward", "1", "pass"), ("0", "", "", "stage"),
        ("1", "forward", "0", "pass"), ("1", "backward", "0", "pass"), ("1", "forward", "1", "pass"),
        ("1", "backward", "1", "pass"), ("1", "", "", "stage")]
    assert rows[0]["bubble_us"] == "0.000" and rows[0]["start_us"] == "0.000"
    assert _ns(rows[5]["bubble_us"]) == _ns(rows[0]["end_us"]) + tp.ns(tp.SEND_US + tp.GAP)


def test_notes_say_where_the_stage_comes_from_and_what_the_ideal_is(tmp_path):
    _, stderr = _rows(_job(tmp_path, stages=2, micro=2, layers=2))
    assert "its rank in its pipeline process group (PIPELINE_MODEL_PARALLEL_GROUP): 'pp-rank0' 0 of 2, " \
           "'pp-rank1' 1 of 2" in stderr
    assert "ideal_1f1b_pct is the bubble fraction of a 1F1B (or GPipe) schedule, (p - 1) / (m + p - 1)" in stderr


def _stages(db, tag="job=pp"):
    """pipeline_stage.sql's rows after a segmentation of the job (name -> (stage, stages, source, why))."""
    con = open_store(db, read_only=True)
    try:
        sql.run(con, "macros")
        b = segment.prepare(con, binding.Options(tags=[tag]))
        return {b.run_names[r[0]]: (r[1], r[2], r[6], r[7])
                for r in sql.run(con, "pipeline_stage", {"run_ids": b.run_ids}).fetchall()}
    finally:
        con.close()


def _say_stages(db, stages):
    """The job's metadata as Ascend's profiler_metadata.json gives them (distributed_args)."""
    con = tracedb.connect(db)
    con.execute("UPDATE runs SET metadata = $m",
                {"m": json.dumps({"distributed_args": {"pipeline_model_parallel_size": stages}})})
    con.close()


def test_the_process_group_gives_the_stage(tmp_path):
    got = _stages(_job(tmp_path, stages=4, micro=4, layers=2))
    assert {n: v[:3] for n, v in got.items()} == {f"pp-rank{s}": (s, 4, "process-group") for s in range(4)}


def test_without_a_group_or_a_stage_count_the_stage_is_unknown(tmp_path):
    db = _job(tmp_path, stages=2, micro=2, layers=2, groups=False)
    got = _stages(db)
    assert {n: v[:3] for n, v in got.items()} == {f"pp-rank{s}": (None, None, "unknown") for s in range(2)}
    assert all("do not give pipeline_model_parallel_size" in v[3] for v in got.values())
    rows, stderr = _rows(db)
    assert {r["pp_stage"] for r in rows} == {""} and {r["ideal_1f1b_pct"] for r in rows} == {""}
    assert "its pipeline stage is unknown: no pipeline process group, and the job's metadata do not give " \
           "pipeline_model_parallel_size" in stderr
    # the figures stand without the stage
    want, _ = tp.expected(2, 2, layers=2)
    assert {(int(r["rank"]), 0, r["phase"], int(r["microbatch"])): tuple(_ns(r[c]) for c in PASS_COLUMNS)
            for r in rows if r["unit"] == "pass"} == want


@pytest.mark.parametrize("stages, micro", [(2, 2), (4, 4), (4, 8)])
def test_the_send_receive_order_gives_the_stage_when_the_job_says_how_many(tmp_path, stages, micro):
    db = _job(tmp_path, stages=stages, micro=micro, layers=2, groups=False)
    _say_stages(db, stages)
    got = _stages(db)
    assert {n: v[:3] for n, v in got.items()} == {f"pp-rank{s}": (s, stages, "send-recv-order")
                                                  for s in range(stages)}
    k = {s: min(stages - s, micro) for s in range(stages)}
    for s in range(stages):
        assert f"{k[s]} of {micro} forward micro-batches before the first backward" in got[f"pp-rank{s}"][3]
    rows, _ = _rows(db)
    assert {(r["rank"], r["pp_stage"]) for r in rows} == {(str(s), str(s)) for s in range(stages)}


def test_fewer_micro_batches_than_stages_leave_the_first_stages_unknown(tmp_path):
    """m = 2 < p = 4: stages 0, 1 and 2 all run both forwards before their first backward (1F1B's warm-up is
    min(p - s - 1, m)), so only stage 3 can be told; the others are said to be unknown, not guessed."""
    db = _job(tmp_path, stages=4, micro=2, layers=2, groups=False)
    _say_stages(db, 4)
    got = _stages(db)
    assert got["pp-rank3"][:3] == (3, 4, "send-recv-order")
    for s in range(3):
        assert got[f"pp-rank{s}"][:3] == (None, 4, "unknown")
        assert "all 2 forward micro-batches run before the first backward: in 1F1B any stage from 0 to 2" \
            in got[f"pp-rank{s}"][3]


def test_a_job_of_one_stage_is_no_pipeline(tmp_path):
    db = _job(tmp_path, stages=2, micro=2, layers=2, groups=False)
    _say_stages(db, 1)
    assert _stages(db) == {}


def test_no_pipeline_stage_is_one_line_and_no_rows(tmp_path):
    db = str(tmp_path / "t.duckdb")
    con = tracedb.connect(db)
    tracedb.ingest_trace(con, tiny_trace.write(tmp_path / "kernel_details.csv"), name="tiny")
    con.close()
    r = cli("report", "pipeline", "--db", db, "--run", "tiny")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("note: no run of the selection is a pipeline stage: none has a pipeline process group of "
                        "two or more ranks or a pipeline send/receive kernel\n\n(no rows)\n")
    r = cli("report", "pipeline", "--db", db, "--run", "tiny", "--format", "csv")
    assert r.returncode == 0 and r.stdout.count("\n") == 1 and r.stdout.startswith("run,rank,pp_stage,")
    r = cli("report", "pipeline", "--db", db, "--run", "tiny", "--format", "json")
    assert json.loads(r.stdout)["rows"] == []


def test_formats(tmp_path):
    db = _job(tmp_path, stages=2, micro=2, layers=2)
    table = cli("report", "pipeline", "--db", db, "--tag", "job=pp").stdout
    assert "(stage)" in table and "ideal_1f1b_pct" in table and "partial" not in table
    md = cli("report", "pipeline", "--db", db, "--tag", "job=pp", "--format", "md").stdout
    assert "| run | rank | pp_stage |" in md
    doc = json.loads(cli("report", "pipeline", "--db", db, "--tag", "job=pp", "--format", "json").stdout)
    assert [r["unit"] for r in doc["rows"]].count("stage") == 2
    assert doc["rows"][-1]["ideal_1f1b_pct"] == 33.33


def test_html_is_a_gantt_chart(tmp_path):
    needs_html()
    from tracedb.engine.rendering import html
    db = _job(tmp_path, stages=2, micro=2, layers=2)
    out = str(tmp_path / "p.html")
    assert cli("report", "pipeline", "--db", db, "--tag", "job=pp", "--format", "html", "-o", out).returncode == 0
    with open(out, encoding="utf-8") as f:
        data = json.loads(html.embedded(f.read()))
    layers = data["chart"]["layer"]
    assert [layer["name"] for layer in layers] == ["bubbles", "bars", "labels"]
    assert layers[1]["encoding"]["x"]["field"] == "start_us" and layers[1]["encoding"]["x2"]["field"] == "end_us"


# --- the shared Megatron job (PP 2 x DP 2 on Ascend; rank 0 has kernels, ranks 1 and 3 communication only) ----

@pytest.fixture(scope="module")
def megatron(tmp_path_factory):
    folder = real_trace("ascend-megatron-job")
    db = str(tmp_path_factory.mktemp("mj") / "mj.duckdb")
    r = cli("ingest", folder, "--db", db, "--name", "mj")
    assert r.returncode == 0, r.stderr
    return db


@pytest.mark.real_data
def test_megatron_rank0_micro_batches(megatron):
    r = cli("report", "pipeline", "--db", megatron, "--tag", "job=mj", "--format", "csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    got = [(r["run"], r["pp_stage"], r["phase"], r["microbatch"], r["start_us"], r["end_us"], r["bubble_us"],
            r["p2p_us"]) for r in rows]
    assert got == [
        ("mj-rank0", "0", "forward", "0", "0.000", "73271.400", "0.000", "0.000"),
        ("mj-rank0", "0", "forward", "1", "77009.720", "154429.740", "3738.320", "436.140"),
        ("mj-rank0", "0", "backward", "0", "315485.400", "396906.020", "161055.660", "158553.280"),
        ("mj-rank0", "0", "backward", "1", "553208.940", "643601.600", "156302.920", "154888.380"),
        ("mj-rank0", "0", "", "", "0.000", "643601.600", "321096.900", "313877.800")]
    assert (rows[-1]["microbatches"], rows[-1]["bubble_pct"], rows[-1]["ideal_1f1b_pct"]) == ("2", "49.89", "33.33")
    assert "'mj-rank1', 'mj-rank3' (2 runs): pipeline stage 0–1 of 2 (process group pp, ranks 1, 3); no kernels" \
        in r.stderr


@pytest.mark.real_data
def test_megatron_rank0_stage_from_its_order_without_its_group(megatron, tmp_path):
    """Rank 0 without its pp group: profiler_metadata.json's pipeline_model_parallel_size (2) and its order (both
    forward micro-batches before the first backward, m = p = 2) make it stage 0."""
    db = str(tmp_path / "mj.duckdb")
    with open(megatron, "rb") as src, open(db, "wb") as dst:
        dst.write(src.read())
    meta = cli("sql", "--db", db, "--format", "json", "SELECT metadata FROM runs WHERE name = 'mj-rank0'").stdout
    assert json.loads(json.loads(meta)["rows"][0]["metadata"])["distributed_args"] == {
        "tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 2, "data_parallel_size": 2,
        "context_parallel_size": 1, "expert_model_parallel_size": 1}
    assert cli("sql", "--db", db, "--write", "DELETE FROM run_groups WHERE group_desc = 'pp'").returncode == 0
    got = _stages(db, "job=mj")
    assert got["mj-rank0"][:3] == (0, 2, "send-recv-order")


@pytest.mark.real_data
def test_deepseek_dualpipe_chunk_has_no_pipeline_stage(tmp_path):
    db = str(tmp_path / "ds.duckdb")
    assert cli("ingest", real_trace("deepseek-profile-data", "train.json"), "--db", db, "--name", "ds").returncode == 0
    r = cli("report", "pipeline", "--db", db, "--run", "ds", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["rows"] == []


def test_kept_segmentation_gives_the_same_report(tmp_path):
    db = _job(tmp_path, stages=2, micro=2, layers=2)
    before, _ = _rows(db)
    assert cli("segment", "--db", db, "--tag", "job=pp").returncode == 0
    after, _ = _rows(db)
    doc = json.loads(cli("report", "pipeline", "--db", db, "--tag", "job=pp", "--format", "json").stdout)
    assert after == before and doc["params"].get("segmentation") == "kept in the store, restored"
