"""Graph replays attributed through their capture: `tracedb ingest REPLAY --capture CAPTURE`, folder ingests that
hold a replay and its capture, the matching (sql/segment/graph_capture_match.sql) and the attribution it gives
(sql/segment/attribute_modules.sql), on the tiny traces of tiny_graphs.py and on the shared real pairs."""
import csv
import os

import pytest

import tiny_graphs as tg
import tracedb
from helpers import assert_one_line_error, cli, real_trace


def attributed(db, run) -> dict:
    """Per kernel of `run`: (name, module, module_path, cpu_op, launch_ns), keyed by seq, with the notes."""
    from tracedb.engine.segmentation import attribution, binding
    con = tracedb.connect(db, read_only=True)
    try:
        b = binding.bind_runs(con, [run])
        attribution.attribute(con, b)
        rows = con.execute("SELECT a.seq, k.name, a.module, a.module_path, a.cpu_op, a.launch_ns FROM _attr a "
                           "JOIN kernels k USING (run_id, seq) ORDER BY k.start_ns").fetchall()
        return {"rows": rows, "notes": b.notes}
    finally:
        con.close()


def tags(db) -> dict:
    con = tracedb.connect(db, read_only=True)
    try:
        return dict(con.execute("SELECT name, tags FROM runs").fetchall())
    finally:
        con.close()


def graph_launch_starts(db, run, since_trace_start=False) -> list:
    """The run's graph launch calls' starts (`since_trace_start`: from the trace's first event, as notes say)."""
    con = tracedb.connect(db, read_only=True)
    try:
        return [r[0] for r in con.execute(
            "SELECT h.start_ns - CASE WHEN $rel THEN r.trace_start_ns ELSE 0 END FROM host_events h JOIN runs r "
            "USING (run_id) WHERE r.name = $n AND h.name = 'hipGraphLaunch' ORDER BY 1",
            {"n": run, "rel": since_trace_start}).fetchall()]
    finally:
        con.close()


def pair_line(stdout) -> str:
    lines = [ln.strip() for ln in stdout.splitlines() if "paired with replay" in ln]
    assert len(lines) == 1, stdout
    return lines[0]


def test_full_one_graph_takes_the_frames_that_captured_it(tmp_path, db_path):
    rep = tg.write_replay(tmp_path / "rep.json", [tg.full_graph()])
    cap = tg.write_capture(tmp_path / "cap.json", [tg.full_graph()])
    con = tracedb.connect(db_path)
    tracedb.ingest_trace(con, rep, name="bare")
    con.close()
    before = attributed(db_path, "bare")
    # without its capture, every graph kernel sits in the graph launch's frame
    assert {m for _, n, m, *_ in before["rows"] if n != "argmax_kernel"} == {"execute_step_0", "execute_step_1"}

    out = cli("ingest", rep, "--db", db_path, "--name", "rep", "--capture", cap, "--replace", "--jobs", "1").stdout
    assert "ingested run 'rep-capture'" in out
    assert pair_line(out) == ("graph capture 'rep-capture' paired with replay 'rep': 2 of 2 graph replays matched, "
                              "18 of 18 kernels attributed to the ops and modules that captured them")
    assert tags(db_path) == {"rep": {"capture": "rep"}, "rep-capture": {"capture_of": "rep"}}

    got = attributed(db_path, "rep")
    assert got["notes"][0] == ("run 'rep': 2 of 2 graph replays (18 kernels) matched to the launch calls of its graph "
                               "capture 'rep-capture': their kernels take the op, annotation and module that captured "
                               "them, as if launched eagerly")
    rows = got["rows"]
    assert len(rows) == 20                       # 2 x 9 graph kernels, 2 eager sampler kernels
    first = [r for r in rows if r[1] != "argmax_kernel"][:9]
    assert [(n, m, p, op) for _, n, m, p, op, _ in first] == [
        ("embed_kernel", "Model/Embedding", "Model_0/Embedding_0", "aten::embedding"),
        ("rms_kernel", "Model/Layer/Norm", "Model_0/Layer_0/Norm_0", "aiter::rms_norm"),
        ("qkv_gemm", "Model/Layer/Linear", "Model_0/Layer_0/Linear_0", "aten::mm"),
        ("attn_kernel", "Model/Layer/Attention", "Model_0/Layer_0/Attention_0", "vllm::attention"),
        ("moe_kernel", "Model/Layer/MoE", "Model_0/Layer_0/MoE_0", "vllm::moe_forward"),
        ("rms_kernel", "Model/Layer/Norm", "Model_0/Layer_1/Norm_1", "aiter::rms_norm"),
        ("qkv_gemm", "Model/Layer/Linear", "Model_0/Layer_1/Linear_1", "aten::mm"),
        ("attn_kernel", "Model/Layer/Attention", "Model_0/Layer_1/Attention_1", "vllm::attention"),
        ("moe_kernel", "Model/Layer/MoE", "Model_0/Layer_1/MoE_1", "vllm::moe_forward")]
    # the launch stays the replay's own graph launch: only the frames come from the capture
    assert {r[5] for r in first} == {graph_launch_starts(db_path, "rep")[0]}
    assert [r[2] for r in rows if r[1] == "argmax_kernel"] == ["Sampler", "Sampler"]   # eager: its own frames

    table = cli("report", "modules", "--db", db_path, "--run", "rep", "--by", "module", "--format", "csv").stdout
    by_module = {row["module"]: (int(row["kernels"]), row["sum_us"]) for row in csv.DictReader(table.splitlines())}
    assert by_module == {"Model/Layer/MoE": (4, "80.000"), "Model/Layer/Linear": (4, "40.000"),
                         "Model/Layer/Attention": (4, "20.000"), "Model/Layer/Norm": (4, "12.000"),
                         "Model/Embedding": (2, "4.000"), "Sampler": (2, "2.000")}


def test_piecewise_graphs_between_eager_attention(tmp_path, db_path):
    graphs = tg.piecewise_graphs()
    rep = tg.write_replay(tmp_path / "pw.json", graphs, eager_attention=True)
    cap = tg.write_capture(tmp_path / "pwcap.json", graphs)
    out = cli("ingest", rep, "--db", db_path, "--capture", cap, "--jobs", "1").stdout
    assert pair_line(out) == ("graph capture 'pw-capture' paired with replay 'pw': 8 of 8 graph replays matched, "
                              f"{tg.graph_kernels(graphs)} of 22 kernels attributed to the ops and modules that "
                              "captured them")
    rows = attributed(db_path, "pw")["rows"]
    # graphs 2 and 3 launch the same kernels: each step's first replay of them is layer 0's MoE, the second layer 1's
    moe = [p for _, n, _, p, _, _ in rows if n == "moe_kernel"]
    assert moe == ["Model_0/Layer_0/MoE_0", "Model_0/Layer_1/MoE_1", "Model_0/Layer_2/MoE_2"] * 2
    qkv = [p for _, n, _, p, _, _ in rows if n == "qkv_gemm"]
    assert qkv == ["Model_0/Layer_0/Linear_0", "Model_0/Layer_1/Linear_1", "Model_0/Layer_2/Linear_2"] * 2
    # the eager attention keeps its own launch: annotation around it, its cpu_op
    attn = [(m, op) for _, n, m, _, op, _ in rows if n == "attn_kernel"]
    assert attn == [("execute_step_0", "vllm::attention")] * 3 + [("execute_step_1", "vllm::attention")] * 3
    assert [m for _, n, m, *_ in rows if n == "final_norm"] == ["Model/FinalNorm"] * 2


def test_replay_with_an_extra_kernel_is_not_forced(tmp_path, db_path):
    rep = tg.write_replay(tmp_path / "rep.json", [tg.full_graph()], extra=(1, 0))
    cap = tg.write_capture(tmp_path / "cap.json", [tg.full_graph()])
    out = cli("ingest", rep, "--db", db_path, "--capture", cap, "--jobs", "1").stdout
    assert pair_line(out) == ("graph capture 'rep-capture' paired with replay 'rep': 1 of 2 graph replays matched, "
                              "9 of 19 kernels attributed to the ops and modules that captured them; 1 match no "
                              "captured graph (report modules notes which)")
    got = attributed(db_path, "rep")
    at = graph_launch_starts(db_path, "rep", since_trace_start=True)[1] / 1e6
    assert got["notes"][1] == (f"run 'rep': 1 graph replays match no captured graph of its graph capture "
                               f"'rep-capture' and keep the graph launch's frames: the graph launch at {at:,.3f} ms "
                               "(10 kernels): no captured graph launched as many kernels (nearest: 9)")
    step1 = [r for r in got["rows"] if r[1] != "argmax_kernel"][9:]
    assert len(step1) == 10 and {r[2] for r in step1} == {"execute_step_1"}      # the graph launch's frame
    assert {r[2] for r in got["rows"][:9]} >= {"Model/Layer/MoE", "Model/Embedding"}
    table = cli("report", "modules", "--db", db_path, "--run", "rep").stdout
    assert "note: run 'rep': 1 graph replays match no captured graph" in table


def test_same_count_other_kernel_names_the_kernel(tmp_path, db_path):
    graphs = [tg.full_graph()]
    rep = tg.write_replay(tmp_path / "rep.json", [[(lay, "FinalNorm" if cls == "MoE" and lay == 1 else cls)
                                                   for lay, cls in graphs[0]]], steps=1)
    cap = tg.write_capture(tmp_path / "cap.json", graphs)
    cli("ingest", rep, "--db", db_path, "--capture", cap, "--jobs", "1")
    note = attributed(db_path, "rep")["notes"][-1]
    # the first kernel the two count otherwise: layer 1's MoE became a final norm
    assert note.endswith("(9 kernels): the captured graph of as many launches launched 'moe_kernel' another number "
                         "of times"), note


def test_capture_launch_of_a_kernel_the_graph_lacks_is_set_aside(tmp_path, db_path):
    rep = tg.write_replay(tmp_path / "rep.json", [tg.full_graph()])
    cap = tg.write_capture(tmp_path / "cap.json", [tg.full_graph()], stray=True)
    out = cli("ingest", rep, "--db", db_path, "--capture", cap, "--jobs", "1").stdout
    assert pair_line(out).endswith("2 of 2 graph replays matched, 18 of 18 kernels attributed to the ops and modules "
                                   "that captured them; the captured graph launched 1 kernel its replays do not run "
                                   "(set aside)")
    rows = attributed(db_path, "rep")["rows"]
    assert [p for _, n, _, p, _, _ in rows if n == "qkv_gemm"] == ["Model_0/Layer_0/Linear_0",
                                                                    "Model_0/Layer_1/Linear_1"] * 2


def test_capture_without_kernel_names_matches_by_count_and_order(tmp_path, db_path):
    rep = tg.write_replay(tmp_path / "rep.json", [tg.full_graph()])
    cap = tg.write_capture(tmp_path / "cap.json", [tg.full_graph()], names=False)     # CUDA writes no args.kernel
    out = cli("ingest", rep, "--db", db_path, "--capture", cap, "--jobs", "1").stdout
    assert pair_line(out).endswith("18 of 18 kernels attributed to the ops and modules that captured them; the "
                                   "capture's launch calls name no kernel (CUDA's runtime writes none, or it was not "
                                   "ingested with --capture): matched by kernel count and order only")
    got = attributed(db_path, "rep")
    assert [p for _, n, _, p, _, _ in got["rows"] if n == "moe_kernel"] == ["Model_0/Layer_0/MoE_0",
                                                                             "Model_0/Layer_1/MoE_1"] * 2
    assert any("matched by kernel count and order only" in n for n in got["notes"])


def test_grid_that_differs_unmatches_the_replay(tmp_path, db_path):
    other = {**tg.GRID, "qkv_gemm": [99, 1, 1]}
    rep = tg.write_replay(tmp_path / "rep.json", [tg.full_graph()], steps=1, grids=tg.GRID)
    cap = tg.write_capture(tmp_path / "cap.json", [tg.full_graph()])
    bad = tg.write_replay(tmp_path / "bad.json", [tg.full_graph()], steps=1, grids=other)
    assert "1 of 1 graph replays matched" in pair_line(cli("ingest", rep, "--db", db_path, "--capture", cap,
                                                           "--jobs", "1").stdout)
    cli("ingest", bad, "--db", db_path, "--capture", cap, "--jobs", "1")
    note = attributed(db_path, "bad")["notes"][-1]
    assert note.endswith("(9 kernels): 2 of its kernels differ in grid or block from the launches that captured "
                         "them"), note


def test_folder_pairs_its_capture_traces(tmp_path, db_path):
    job = tmp_path / "job"
    (job / "capture_traces").mkdir(parents=True)
    tg.write_replay(job / "graph_execution.json.gz", [tg.full_graph()])
    tg.write_capture(job / "capture_traces" / "graph_capture_rank_0.pt.trace.json.gz", [tg.full_graph()])
    (job / "capture_traces" / "execution_details.json").write_text('[{"batch_size": 32, "mode": "FULL"}]')
    out = cli("ingest", job, "--db", db_path, "--jobs", "1").stdout
    assert pair_line(out) == ("graph capture 'job-rank0' paired with replay 'job-graph_execution': 2 of 2 graph "
                              "replays matched, 18 of 18 kernels attributed to the ops and modules that captured them")
    # the capture is no rank of a job, nor is the replay, which states no rank or world size (docs/jobs.md)
    assert tags(db_path) == {"job-rank0": {"capture_of": "job-graph_execution"},
                             "job-graph_execution": {"capture": "job-graph_execution"}}
    rows = attributed(db_path, "job-graph_execution")["rows"]
    assert [m for _, n, m, *_ in rows if n == "attn_kernel"] == ["Model/Layer/Attention"] * 4
    again = cli("ingest", job, "--db", db_path, "--jobs", "1").stdout        # stored already: paired all the same
    assert "skipped run" in again and "2 of 2 graph replays matched" in pair_line(again)


def test_folder_recognises_a_capture_by_its_content(tmp_path, db_path):
    job = tmp_path / "job"
    job.mkdir()
    tg.write_replay(job / "steps.json", [tg.full_graph()])
    tg.write_capture(job / "warmup.json", [tg.full_graph()])      # neither its folder nor its name says capture
    out = cli("ingest", job, "--db", db_path, "--jobs", "1").stdout
    assert pair_line(out).startswith("graph capture 'job-warmup' paired with replay 'job-steps': 2 of 2 graph "
                                     "replays matched")
    assert pair_line(out).endswith("matched by kernel count and order only")     # read without its kernel names


def test_folder_of_ranks_pairs_each_capture_with_its_rank(tmp_path, db_path):
    job = tmp_path / "job"
    (job / "capture_traces").mkdir(parents=True)
    for rank in (0, 1):
        tg.write_replay(job / f"replay_{rank}.json", [tg.full_graph()], rank=rank)
        tg.write_capture(job / "capture_traces" / f"capture_{rank}.json", [tg.full_graph()], rank=rank)
    out = cli("ingest", job, "--db", db_path, "--jobs", "1").stdout
    lines = sorted(ln.strip() for ln in out.splitlines() if "paired with replay" in ln)
    assert [ln.split(":")[0] for ln in lines] == [
        "graph capture 'job-capture_traces-rank0' paired with replay 'job-rank0'",
        "graph capture 'job-capture_traces-rank1' paired with replay 'job-rank1'"]
    t = tags(db_path)
    assert t["job-capture_traces-rank1"] == {"capture_of": "job-rank1"}
    assert t["job-rank1"] == {"job": "job", "capture": "job-rank1"}


def test_capture_option_refusals(tmp_path, db_path):
    rep = tg.write_replay(tmp_path / "rep.json", [tg.full_graph()])
    cap = tg.write_capture(tmp_path / "cap.json", [tg.full_graph()])
    assert_one_line_error(cli("ingest", tmp_path, "--db", db_path, "--capture", cap, check=False),
                          "--capture: give one replay trace file as PATH")
    assert_one_line_error(cli("ingest", rep, "--to", tmp_path / "ds", "--capture", cap, check=False),
                          "--capture: pairs runs in a store (--db); not with --to")
    missing = tmp_path / "nope.json"
    assert_one_line_error(cli("ingest", rep, "--db", db_path, "--capture", missing, check=False),
                          f"{missing}: no such file or folder", code=1)
    assert not os.path.exists(db_path)


# ------------------------------------------------------------------------------------------- real pairs
INFERENCE = ("amd-tracelens", "inference")
REAL = {   # replay, capture, graph replays, graph kernels, launches set aside
    "full": ("vllm_decode_full", "graph_execution.json.gz",
             "capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz", 1, 421, 0),
    "piecewise": ("vllm_prefilldecode_piecewise", "graph_execution.json.gz",
                  "capture_traces/graph_capture_rank_0.1773709679453551615.pt.trace.json.gz", 25, 361, 0),
    "flux": ("xdit_flux.1_aiter_sage", "profile_trace_rank_0.json.gz", "capture_traces/capture_trace_rank_0.json.gz",
             4, 6264, 1),
}


@pytest.fixture(scope="module")
def real_store(tmp_path_factory):
    """The shared pairs, each ingested with --capture into one store: (store, {name: ingest stdout})."""
    db = str(tmp_path_factory.mktemp("capture_real") / "real.duckdb")
    outs = {}
    for name, (folder, replay, capture, *_) in REAL.items():
        rep = real_trace(*INFERENCE, folder, replay)
        cap = real_trace(*INFERENCE, folder, *capture.split("/"))
        outs[name] = cli("ingest", rep, "--db", db, "--name", name, "--capture", cap, "--jobs", "1").stdout
    return db, outs


@pytest.mark.real_data
@pytest.mark.parametrize("name", list(REAL))
def test_real_pair_matches_every_graph_replay(real_store, name):
    db, outs = real_store
    _, _, _, graphs, kernels, aside = REAL[name]
    line = pair_line(outs[name])
    assert f"{graphs} of {graphs} graph replays matched, {kernels:,} of {kernels:,} kernels" in line
    assert ("set aside" in line) == bool(aside)


@pytest.mark.real_data
def test_real_full_graph_kernels_take_gpt_oss_ops(real_store):
    db, _ = real_store
    rows = attributed(db, "full")["rows"]
    ops = {}
    for _, kname, module, _, op, _ in rows:
        ops.setdefault(kname, set()).add((module, op))
    # the attention of all 24 layers: vLLM's op, inside the compiled graph's nested GraphModule
    assert ops["kernel_unified_attention_3d"] == {("GptOssForCausalLM/GraphModule/GraphModule",
                                                   "vllm::unified_attention_with_output")}
    assert ops["_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu"] == {("GptOssForCausalLM/GraphModule",
                                                                           "vllm::moe_forward")}
    assert ops["_topk_forward"] == {("GptOssForCausalLM/GraphModule", "TopK")}
    graph = [r for r in rows if r[2].startswith("GptOssForCausalLM/GraphModule")]
    assert len(graph) == 421


@pytest.mark.real_data
@pytest.mark.parametrize("name", list(REAL))
def test_real_pair_agrees_with_tracelens_ops(real_store, name):
    """Kernel time per launching op equals TraceLens's own ops_summary.csv for the same replay, op by op (its
    graph-capture merge of the same two traces)."""
    db, _ = real_store
    folder = REAL[name][0]
    theirs: dict[str, float] = {}
    with open(real_trace(*INFERENCE, folder, "perf_csvs", "ops_summary.csv"), newline="") as f:
        for row in csv.DictReader(f):
            theirs[row["name"]] = theirs.get(row["name"], 0.0) + float(row["total_direct_kernel_time_sum"])
    con = tracedb.connect(db, read_only=True)
    try:
        from tracedb.engine.segmentation import attribution, binding
        b = binding.bind_runs(con, [name])
        attribution.attribute(con, b)
        ours = dict(con.execute("SELECT a.cpu_op, sum(k.dur_ns) FROM _attr a JOIN kernels k USING (run_id, seq) "
                                "GROUP BY 1").fetchall())
    finally:
        con.close()
    assert set(ours) == set(theirs)
    # TraceLens's figures are µs as float32-summed doubles: equal to 0.5 µs per op
    assert {op: abs(ours[op] / 1e3 - theirs[op]) < 0.5 for op in ours} == {op: True for op in ours}
