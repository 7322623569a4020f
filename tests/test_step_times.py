"""The Ascend profiler's step_trace_time.csv: read into step_times exactly (µs text to integer ns, three layouts),
refused in one line when malformed, and shown by `report breakdown` beside tracedb's figures, or in their place
for a rank without kernels (source step_trace_time). Synthetic rank folders written here, then the shared
Megatron job ($TRACEDB_TEST_DATA; skipped when absent)."""
import csv
import io
import json
import os

import pytest

import tiny_trace
import tracedb
from helpers import assert_one_line_error, cli, real_trace

LAYOUT_OLD = ["Step", "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free", "Stage",
              "Bubble", "Communication(Not Overlapped and Exclude Receive)"]
LAYOUT_PREPARING = LAYOUT_OLD + ["Preparing"]
LAYOUT_DEVICE = ["Device_id"] + LAYOUT_PREPARING
STEP_TIMES = ["device_id", "step", "computing_ns", "comm_not_overlapped_ns", "overlapped_ns", "communication_ns",
              "free_ns", "stage_ns", "bubble_ns", "comm_not_overlapped_excl_receive_ns", "preparing_ns"]


def q(db, text, params=None):
    con = tracedb.connect(db, read_only=True)
    try:
        return con.execute(text, params or {}).fetchall()
    finally:
        con.close()


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def rank_folder(root, rank, step_trace=None, kernels=False, comm_ops=()):
    """root/rank_<rank>_ascend_pt/ASCEND_PROFILER_OUTPUT with the tiny decode's kernel_details.csv (kernels),
    a communication.json of `comm_ops` ((key, start µs, elapse ms) of step1), and step_trace_time.csv (text)."""
    out = root / f"rank_{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    if kernels:
        tiny_trace.write(out / "kernel_details.csv")
    if comm_ops:
        ops = {key: {"Communication Time Info": {"Start Timestamp(us)": start, "Elapse Time(ms)": elapse,
                                                 "Transit Time(ms)": 0, "Wait Time(ms)": 0,
                                                 "Synchronization Time(ms)": 0, "Idle Time(ms)": 0,
                                                 "Wait Time Ratio": 0, "Synchronization Time Ratio": 0},
                     "Communication Bandwidth Info": {}} for key, start, elapse in comm_ops}
        (out / "communication.json").write_text(json.dumps({"step1": {"collective": ops}}))
    if step_trace is not None:
        (out / "step_trace_time.csv").write_bytes(step_trace.encode() if isinstance(step_trace, str) else step_trace)
    return out.parent


def table(header, *lines):
    return "\n".join([",".join(header), *lines]) + "\n"


# ------------------------------------------------------------------------------------------------ reading
def test_three_layouts_read_to_the_exact_ns(tmp_path):
    """Python prints the profiler's float sums ('231290.09999999995'): read as exact decimals and rounded to the
    nearest ns (half to even), not truncated, and never through a float. A column the layout lacks is NULL."""
    cases = {
        # newest layout: Device_id and Preparing
        1: (table(LAYOUT_DEVICE, "0,13,231290.09999999995,420174.2600000001,0.0,420174.2600000001,"
                                 "158558.00000000032,810022.25,0,420174.2600000001,206.25"),
            [(0, 13, 231290100, 420174260, 0, 420174260, 158558000, 810022250, 0, 420174260, 206250)]),
        # without Device_id; a capture without step marks leaves Step empty; a tab after a number, 1e-05 µs
        2: (table(LAYOUT_PREPARING, ",1.0005,0.0015,1e-05,0.0025,-3.5,7,0.5\t,-0.0005,0"),
            [(None, None, 1000, 2, 0, 2, -3500, 7000, 500, 0, 0)]),
        # the oldest layout: two steps, no Preparing; a blank line at the end
        3: (table(LAYOUT_OLD, "5,10,0,0,0,1,11,0,0", "6,20.0004999,0,0,0,2,22,0,0", ""),
            [(None, 5, 10000, 0, 0, 0, 1000, 11000, 0, 0, None), (None, 6, 20000, 0, 0, 0, 2000, 22000, 0, 0, None)]),
    }
    for rank, (text, _) in cases.items():
        rank_folder(tmp_path / "job", rank, text, kernels=True)
    db = str(tmp_path / "s.duckdb")
    cli("ingest", str(tmp_path / "job"), "--db", db, "--name", "j")
    for rank, (_, want) in cases.items():
        got = q(db, f"SELECT {', '.join('s.' + c for c in STEP_TIMES)} FROM step_times s JOIN runs r USING (run_id) "
                    "WHERE rank = $r "
                    "ORDER BY step", {"r": rank})
        assert got == want, rank
    files = q(db, "SELECT source_files FROM runs WHERE rank = 1")[0][0]
    assert os.path.basename(files[-1]) == "step_trace_time.csv"     # hashed with the run: a changed file is new content
    # `runs rm` takes the run's lines with it
    cli("runs", "rm", "j-rank1", "--db", db)
    assert q(db, "SELECT count(*) FROM step_times") == [(3,)]


def test_a_file_alone_is_no_trace_and_no_rank(tmp_path):
    """step_trace_time.csv is read with its rank's kernels or communication analyses, never as a run of its own."""
    folder = rank_folder(tmp_path, 2, table(LAYOUT_DEVICE, "0,1,1,1,0,1,1,2,0,1,0"))
    csv_file = os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "step_trace_time.csv")
    r = cli("ingest", csv_file, "--db", str(tmp_path / "a.duckdb"), check=False)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1
    r = cli("ingest", str(folder), "--db", str(tmp_path / "b.duckdb"), check=False)
    assert r.returncode != 0 and "no kernel_details.csv" in r.stderr and len(r.stderr.strip().splitlines()) == 1


BAD = [
    # (file bytes, what the one error line holds)
    ("", "empty; expected the Ascend profiler's step_trace_time.csv with a header line"),
    ("Step,Total\n13,1\n", "line 1: no column Computing, Communication(Not Overlapped), Overlapped, Communication, "
                           "Free; expected the Ascend profiler's step_trace_time.csv header"),
    (table(LAYOUT_OLD + ["Free"], "1,1,1,0,1,1,2,0,1,1"), "line 1: column Free twice"),
    (table(LAYOUT_OLD, "13,1,1,0,1,1,2,0,1", "14,1,1,0"), "line 3: 4 fields, the header has 9"),
    (table(LAYOUT_OLD, "13,abc,1,0,1,1,2,0,1"), "line 2: Computing is 'abc'; expected a time in µs (a decimal number)"),
    (table(LAYOUT_OLD, "13,nan,1,0,1,1,2,0,1"), "line 2: Computing is 'nan'; expected a time in µs"),
    (table(LAYOUT_OLD, "13,1,1,0,1,1e99999,2,0,1"), "line 2: Free is '1e99999'"),
    (table(LAYOUT_OLD, "13,1,1,0,1,99999999999999999,2,0,1"), "line 2: Free is '99999999999999999'; out of range"),
    (table(LAYOUT_OLD, "13.5,1,1,0,1,1,2,0,1"), "line 2: Step is '13.5'; expected an integer or nothing"),
    (table(LAYOUT_DEVICE, "x,13,1,1,0,1,1,2,0,1,0"), "line 2: Device_id is 'x'; expected an integer or nothing"),
    # an unclosed quote takes the rest of the file as one field
    (table(LAYOUT_OLD, '13,"1,1,0,1,1,2,0,1'), "line 2: 2 fields, the header has 9"),
    (b"Step,Computing\xff", "byte offset 14: invalid UTF-8; expected a CSV text file"),
    (b"Step,Computing\x00", "byte offset 14: a NUL byte; expected a CSV text file"),
]


@pytest.mark.parametrize("content,message", BAD, ids=range(len(BAD)))
def test_a_malformed_file_is_one_line_and_the_store_is_unchanged(tmp_path, content, message):
    """A malformed step_trace_time.csv refuses its rank, as a malformed communication.json does: one line
    naming the file, the line and what was expected; no run lands."""
    folder = rank_folder(tmp_path, 0, content, comm_ops=[("hcom_allReduce__001_1_1@77", 1000.25, 0.5)])
    db = str(tmp_path / "m.duckdb")
    r = cli("ingest", str(folder), "--db", db, check=False)
    assert_one_line_error(r, message, code=1)
    assert os.path.join("ASCEND_PROFILER_OUTPUT", "step_trace_time.csv") in r.stderr
    assert not os.path.exists(db) or q(db, "SELECT count(*) FROM runs") == [(0,)]


# ---------------------------------------------------------------------------------------- report breakdown
@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """Rank 0: the tiny decode's kernels (steps 1-4) and a step_trace_time.csv of steps 1 and 2; rank 1: two
    communication ops of step1 and its step_trace_time.csv; rank 2: communication ops only."""
    root = tmp_path_factory.mktemp("stt") / "job"
    rank_folder(root, 0, table(LAYOUT_DEVICE, "0,1,10.5,2,1,3,4,17,0,2,0.25", "0,2,20.5,4,2,6,8,33,1,3,0.5"),
                kernels=True)
    t0 = tiny_trace.T0_NS / 1000      # µs, in the window of rank 0's kernels
    ops = [("hcom_allReduce__001_1_1@77", t0 + 100, 0.002), ("hcom_allReduce__001_2_1@77", t0 + 110, 0.003)]
    rank_folder(root, 1, table(LAYOUT_DEVICE, "1,1,30.001,4.5,0.5,5,2.25,36.75,0.25,4.25,1"), comm_ops=ops)
    rank_folder(root, 2, comm_ops=ops)
    db = str(root.parent / "j.duckdb")
    cli("ingest", str(root), "--db", db, "--name", "j")
    return db


def breakdown(db, *args):
    r = cli("report", "breakdown", "--db", db, "--run", "j-rank*", "--format", "csv", *args)
    return {row["run"]: row for row in rows(r.stdout)} if "--by" not in args else rows(r.stdout), r.stderr


def test_by_run_the_profilers_figures_beside_and_in_place(job):
    got, notes = breakdown(job)
    assert list(got) == ["j-rank0", "j-rank1", "j-rank2"] and [got[r]["rank"] for r in got] == ["0", "1", "2"]
    r0, r1, r2 = got["j-rank0"], got["j-rank1"], got["j-rank2"]
    # rank 0 keeps tracedb's figures; the profiler's, summed over its two lines, stand beside them
    assert r0["source"] == "kernels" and r0["computing_us"] not in ("", r0["prof_computing_us"])
    assert [r0[c] for c in ("prof_span_us", "prof_computing_us", "prof_communication_us", "prof_overlapped_us",
                            "prof_comm_not_overlapped_us", "prof_free_us", "prof_bubble_us", "prof_preparing_us")] \
        == ["51.000", "31.000", "9.000", "3.000", "6.000", "12.000", "1.000", "0.750"]
    # rank 1 has no kernels: the profiler's figures are its own (span = Stage + Bubble = 36.75 + 0.25)
    assert r1["source"] == "step_trace_time"
    assert [r1[c] for c in ("span_us", "computing_us", "communication_us", "overlapped_us", "comm_not_overlapped_us",
                            "free_us")] == ["37.000", "30.001", "5.000", "0.500", "4.500", "2.250"]
    assert r1["prof_computing_us"] == "30.001"
    assert "run 'j-rank1' has no kernel rows: its span, computing, communication, overlap and free time are its " \
           "profiler's step_trace_time.csv figures (source step_trace_time)" in notes
    # rank 2 has neither: its communication ops alone, computing unknown
    assert r2["source"] == "communication.json" and r2["computing_us"] == r2["free_us"] == r2["prof_span_us"] == ""
    assert r2["communication_us"] == "5.000"
    assert "run 'j-rank2' has no kernel rows, only its profiler's communication ops" in notes


def test_by_step_lines_up_the_steps(job):
    got, _ = breakdown(job, "--by", "step")
    by = {(r["run"], r["step"]): r for r in got}
    assert by[("j-rank0", "1")]["prof_computing_us"] == "10.500" and by[("j-rank0", "2")]["prof_bubble_us"] == "1.000"
    assert by[("j-rank0", "3")]["prof_computing_us"] == "" and by[("j-rank0", "3")]["source"] == "kernels"
    # a rank without kernels is in the step its communication.json files its ops under (step1)
    assert by[("j-rank1", "1")]["source"] == "step_trace_time" and by[("j-rank1", "1")]["computing_us"] == "30.001"
    assert by[("j-rank2", "1")]["source"] == "communication.json"


def test_by_layer_has_no_profiler_figures(job):
    r = cli("report", "breakdown", "--db", job, "--run", "j-rank0", "--profile", "qwen3-npu", "--layers", "2",
            "--by", "layer", "--format", "csv")
    got = rows(r.stdout)
    assert got and all(row["source"] == "kernels" and row["prof_computing_us"] == "" for row in got)
    assert "step_trace_time.csv has no passes or layers" in r.stderr


def test_a_table_for_people_leaves_the_profilers_columns_out_without_the_file(job):
    out = cli("report", "breakdown", "--db", job, "--run", "j-rank2").stdout
    header = next(line for line in out.splitlines() if line.startswith("run"))
    assert "prof_computing_us" not in header and header.split()[:3] == ["run", "rank", "source"]
    out = cli("report", "breakdown", "--db", job, "--run", "j-rank1", "--wide").stdout
    assert "prof_computing_us" in next(line for line in out.splitlines() if line.startswith("run"))


# -------------------------------------------------------------------------------------------- real data
@pytest.mark.real_data
def test_real_megatron_job(tmp_path):
    """ascend-megatron-job: rank 0 has kernels, ranks 1 and 3 only their communication analyses and their
    step_trace_time.csv. Rank 0's own figures equal its profiler's to the µs printed (231290.100 computing);
    ranks 1 and 3 show the profiler's."""
    folder = os.path.dirname(real_trace("ascend-megatron-job", "rank_0_ascend_pt"))
    db = str(tmp_path / "m.duckdb")
    cli("ingest", folder, "--db", db, "--name", "mj")
    assert q(db, f"SELECT rank, {', '.join('s.' + c for c in STEP_TIMES)} FROM step_times s JOIN runs USING (run_id) "
                 "ORDER BY rank") == [
        (0, 0, 13, 231290100, 420174260, 0, 420174260, 158558000, 810022250, 0, 420174260, 206250),
        (1, 1, 13, 230903720, 441708380, 0, 441708380, 136819560, 809431750, 0, 441708380, 205000),
        (3, 5, 13, 401131700, 261498440, 0, 261498440, 147520200, 810150250, 0, 261498440, 278750)]
    for by in ("run", "step"):
        r = cli("report", "breakdown", "--db", db, "--tag", "job=mj", "--by", by, "--format", "csv")
        got = {row["rank"]: row for row in rows(r.stdout)}
        assert {k: v["source"] for k, v in got.items()} == {"0": "kernels", "1": "step_trace_time",
                                                           "3": "step_trace_time"}
        r0 = got["0"]
        assert r0["computing_us"] == r0["prof_computing_us"] == "231290.100"
        for column in ("computing", "communication", "overlapped", "comm_not_overlapped", "free"):
            assert r0[f"{column}_us"] == r0[f"prof_{column}_us"], column
        assert (r0["span_us"], r0["prof_span_us"]) == ("810022.360", "810022.250")
        assert [got[k]["computing_us"] for k in ("1", "3")] == ["230903.720", "401131.700"]
        assert [got[k]["communication_us"] for k in ("1", "3")] == ["441708.380", "261498.440"]
        assert [got[k]["free_us"] for k in ("1", "3")] == ["136819.560", "147520.200"]
