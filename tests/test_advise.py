"""`tracedb advise` on tests/advise_faults.py's synthetic jobs, in four forms (Kineto traces of H100 ranks, the
same on MI300X ranks as ROCm writes them, Ascend profiler folders of 910B3 ranks with kernel_details.csv alone
and with their trace_view.json beside it): each rule fires on its planted
fault with the planted time at stake (within 5 %), no rule fires on the clean job or on another rule's fault, and
the clean job stays silent across 10 seeds per form. (A fault a form cannot show must stay silent there:
advise_faults.SILENT.)"""
import csv
import io
import json

import pytest

import advise_faults
from helpers import cli
from tracedb.engine.advise import rules
from tracedb.errors import UsageError


def _store(tmp_path, fault, seed=0, form="kineto"):
    db = str(tmp_path / f"{fault}-{seed}.duckdb")
    folder = tmp_path / "job"
    folder.mkdir()
    return db, advise_faults.store(db, folder, seed, fault, form)


def _findings(db, *args):
    out = cli("advise", "--db", db, "--tag", "job=job", "--format", "csv", *args).stdout
    return list(csv.DictReader(io.StringIO(out)))


class _Stores(dict):
    """(form, fault) -> (store, planted µs), each job made when a test first asks for it: the default tier makes
    the Kineto form's only (the other forms' tests are in the slow tier)."""

    def __init__(self, tmp_path_factory):
        super().__init__()
        self.factory = tmp_path_factory

    def __missing__(self, key):
        form, fault = key
        self[key] = _store(self.factory.mktemp(f"{form}-{fault}"), fault, form=form)
        return self[key]


# the Kineto form in the default tier; the AMD and Ascend forms in the slow tier (.ci/run runs both)
FORMS = [pytest.param(f, marks=() if f == "kineto" else pytest.mark.slow) for f in advise_faults.FORMS]
KERNEL_FORMS = [pytest.param(f, marks=() if f == "kineto" else pytest.mark.slow) for f in ("kineto", "ascend")]


@pytest.fixture(scope="module")
def all_stores(tmp_path_factory):
    return _Stores(tmp_path_factory)


@pytest.fixture(scope="module")
def stores(all_stores):
    return {fault: all_stores["kineto", fault] for fault in advise_faults.FAULTS}


@pytest.fixture(scope="module")
def ascend(all_stores):
    return {fault: all_stores["ascend", fault] for fault in advise_faults.FAULTS}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("fault", advise_faults.FAULTS)
def test_each_rule_fires_on_its_fault_only(all_stores, form, fault):
    db, planted = all_stores[form, fault]
    rows = _findings(db, *advise_faults.ARGS.get(fault, ()))
    fired = {r["rule"] for r in rows}
    if fault == "clean" or fault in advise_faults.SILENT.get(form, ()):
        # the Ascend form has no host side: the sync fault leaves only the device's idle between layers (45 µs),
        # which no rule reads (the host fault's 400 µs waits are rule low-utilisation's there); nor message
        # sizes (communication.json), without which the link fault's all-reduces are compared with none; ROCm's
        # Kineto does not say which copies are pageable, nor does trace_view.json record host copies
        assert fired == set()
        return
    rule = advise_faults.RULE_BY_FORM.get((form, fault), advise_faults.RULE_OF[fault])
    assert fired == {rule}, rows
    got = sum(float(r["at_stake_us"]) for r in rows)
    assert got == pytest.approx(planted, rel=0.05)
    for r in rows:
        assert r["finding"] and r["try"] and "tracedb report " in r["evidence"]
        assert r["severity"] in rules.SEVERITIES


def _silent_across_seeds(tmp_path, fault, seeds, form):
    for seed in range(seeds):
        d = tmp_path / str(seed)
        d.mkdir()
        db, _ = _store(d, fault, seed, form)
        r = cli("advise", "--db", db, "--tag", "job=job")
        assert r.stdout.strip() == "no finding", (seed, r.stdout)


@pytest.mark.parametrize("form", FORMS)
def test_clean_job_is_silent_across_seeds(tmp_path, form):
    _silent_across_seeds(tmp_path, "clean", 10, form)


@pytest.mark.slow
def test_a_hundred_clean_seeds_are_silent(tmp_path):
    """The clean Kineto job of seeds 0-99, every rule at its default threshold: no finding (in-process, so that a
    hundred stay within a minute or two; the command-line runs above cover ten seeds of every form)."""
    import tracedb
    from tracedb.engine.advise import advise as engine
    fired = {}
    for seed in range(100):
        folder = tmp_path / str(seed)
        folder.mkdir()
        con = tracedb.connect(str(folder / "s.duckdb"))
        try:
            advise_faults.ingest(con, folder, seed, "clean")
            found = engine.build(con, "csv", tags=["job=job"])
            if found.severities:
                fired[seed] = found.result.rows
        finally:
            con.close()
    assert fired == {}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("fault", ("moe_even", "moe_a2a_even"))
def test_balanced_moe_job_is_silent(tmp_path, form, fault):
    """The MoE job with every rank's tokens equal: expert GEMMs of equal work whose times differ by jitter alone
    (fused, or one by one between the expert-parallel all-to-alls)."""
    _silent_across_seeds(tmp_path, fault, 3, form)


@pytest.mark.parametrize("form", KERNEL_FORMS)
def test_moe_imbalance_names_the_hot_rank_and_its_experts(all_stores, form):
    kernel = {"kineto": "fused_moe_kernel", "ascend": "GroupedMatmul"}[form]
    rows = _findings(all_stores[form, "moe"][0])
    assert [(r["rule"], r["rank"], r["kernel"]) for r in rows] == [("moe-imbalance", str(advise_faults.MOE_HOT),
                                                                   kernel)]
    assert "30.0 % more routed tokens" in rows[0]["finding"] and "24 of 24 expert GEMMs" in rows[0]["finding"]
    assert "report roofline" in rows[0]["evidence"] and "load-balancing" in rows[0]["try"]
    # its MoE layers named: the n-th expert GEMM of a kind in a step (Ascend: one kind, GroupedMatmul)
    first = "step 1, down expert GEMM #1: +30.0 %" if form == "kineto" else "step 1, expert GEMM #1: +30.0 %"
    assert f"the most imbalanced (the n-th expert GEMM of its kind in the step: its MoE layer): {first}; " in \
        rows[0]["evidence"]


@pytest.mark.parametrize("form", KERNEL_FORMS)
def test_moe_imbalance_between_all_to_alls(all_stores, form):
    """Expert parallel, each expert's GEMMs launched one by one (aten::mm; Ascend MatMulV3), none of them an expert
    GEMM by its shapes: the stretch from each dispatch all-to-all to the combine is the rank's expert work,
    measured by the tokens the dispatch received (c10d's Out msg nelems) where the trace records them, else by the
    stretch's GEMM FLOPs (kernel_details.csv has no message sizes)."""
    kernel = {"kineto": "gemm_kernel", "ascend": "MatMulV3"}[form]
    rows = _findings(all_stores[form, "moe_a2a"][0])
    assert [(r["rule"], r["rank"], r["kernel"]) for r in rows] == [("moe-imbalance", str(advise_faults.MOE_HOT),
                                                                   kernel)]
    # 4 layers x 3 steps; the Kineto form counts the stretches after each combine too (received: its own tokens
    # back, balanced); the Ascend form only those with GEMM FLOPs (attention has no shapes there)
    of = {"kineto": "12 of 21", "ascend": "12 of 12"}[form]
    assert f"30.0 % more routed tokens than the median rank's in {of} stretches between all-to-alls" in \
        rows[0]["finding"]
    measure = {"kineto": "work: the elements the all-to-all received, c10d's Out msg nelems",
               "ascend": "work: the GEMM FLOPs in it, from their shapes"}[form]
    assert measure in rows[0]["evidence"] and "all-to-all stretch #1: +30.0 %" in rows[0]["evidence"]


@pytest.mark.parametrize("form", KERNEL_FORMS)
def test_regression_needs_its_baseline_and_names_what_grew(all_stores, form):
    """The regressed job judged against its baseline job (rank by rank): each rank's finding names its baseline
    run and the attention kernel; without --baseline, or against a baseline of the same steps, nothing fires."""
    kernel = {"kineto": "flash_fwd_kernel", "ascend": "FlashAttentionScore"}[form]
    db = all_stores[form, "regress"][0]
    rows = _findings(db, "--baseline", "base-*")
    assert sorted((r["run"], r["kernel"]) for r in rows) == [(f"job-rank{n}", kernel)
                                                             for n in range(advise_faults.RANKS)]
    for r in rows:
        assert f"baseline run 'base-rank{r['rank']}'" in r["finding"] and "+" in r["finding"]
        assert "report compare" in r["evidence"] and f"--run base-rank{r['rank']} --run job-rank" in r["evidence"]
    assert _findings(db) == []
    assert _findings(db, "--baseline", "base-rank0") != []      # one baseline run: every rank against it
    same = cli("advise", "--db", db, "--run", "base-rank1", "--run", "base-rank2", "--baseline", "base-rank0")
    assert same.stdout.strip() == "no finding"
    both = cli("advise", "--db", db, "--tag", "job=base", "--baseline", "base-*", check=False)
    assert both.returncode == 2 and "both as a run and as its baseline" in both.stderr
    none = cli("advise", "--db", db, "--tag", "job=job", "--baseline", "nope*", check=False)
    assert none.returncode == 2 and none.stderr.startswith("error: --baseline: run pattern 'nope*' matches no run")


def test_evidence_names_the_host_and_the_step(stores):
    rows = _findings(stores["idle"][0])
    assert len(rows) == advise_faults.RANKS
    assert all(r["step"] == "2" and "cudaStreamSynchronize" in r["evidence"] for r in rows)
    slow = _findings(stores["slow"][0])
    assert [r["rank"] for r in slow] == [str(advise_faults.SLOW)]
    assert "report blame" in slow[0]["evidence"] and "CUDA" not in slow[0]["try"]
    roof = _findings(stores["roofline"][0])
    assert {r["kernel"] for r in roof} == {"elementwise_add_kernel"}
    assert all("Nsight Compute" in r["try"] for r in roof)


def _split(finding):
    """(waiting, moving, unmatched) µs of an exposed-comm finding's line."""
    import re
    wait = re.search(r"([0-9.]+) us waiting for the last rank", finding)
    move = re.search(r"([0-9.]+) us moving data", finding)
    alone = re.search(r"([0-9.]+) us in ops no other rank matched", finding)
    return tuple(float(m.group(1)) if m else None for m in (wait, move, alone))


def test_exposed_comm_tells_waiting_from_transfer(stores, tmp_path):
    """Every rank's exposed all-reduce moves data EXPOSED_US a step; with rank SLOW arriving LATE µs after the
    others, they wait LATE µs inside it, which overlap would not remove: the split says so, for the job and for
    one rank selected alone (its peers read from the store)."""
    steps, moved = advise_faults.STEPS, advise_faults.EXPOSED_US * advise_faults.STEPS
    on_time = _findings(stores["exposed"][0])
    assert [_split(r["finding"]) for r in on_time] == [(0.0, moved, None)] * advise_faults.RANKS
    late = 2 * advise_faults.EXPOSED_US
    db = str(tmp_path / "late.duckdb")
    import tracedb
    con = tracedb.connect(db)
    advise_faults.ingest(con, tmp_path, 0, "exposed", late_us=late)
    con.close()
    rows = {int(r["rank"]): r for r in _findings(db) if r["rule"] == "exposed-comm"}
    assert sorted(rows) == list(range(advise_faults.RANKS))
    for rank, row in rows.items():
        waited = 0.0 if rank == advise_faults.SLOW else late * steps
        assert _split(row["finding"]) == (waited, moved, None)
        assert float(row["at_stake_us"]) == waited + moved
        assert ("mostly waiting" in row["finding"]) == (waited > moved)
        assert ("comm_wait" in row["evidence"]) == (waited > 0)
    one = csv.DictReader(io.StringIO(cli("advise", "--db", db, "--run", "job-rank0", "--format", "csv").stdout))
    assert [(r["run"], _split(r["finding"])) for r in one if r["rule"] == "exposed-comm"] == [
        ("job-rank0", (late * steps, moved, None))]
    # with another job beside it, every run selected: each job's ranks are aligned on their own collectives
    other = tmp_path / "other"
    other.mkdir()
    con = tracedb.connect(db)
    advise_faults.ingest(con, other, 1, "exposed", name="other")
    con.close()
    every = csv.DictReader(io.StringIO(cli("advise", "--db", db, "--run", "*", "--format", "csv").stdout))
    split = {r["run"]: _split(r["finding"]) for r in every if r["rule"] == "exposed-comm"}
    assert split["job-rank0"] == (late * steps, moved, None) and split["other-rank0"][0] == 0.0


@pytest.mark.slow
def test_ascend_findings_speak_ascend(ascend):
    """The Ascend form: steps from the Step Id column, and what to try in Ascend words (aclgraph, HCCL, AI Core's
    tools), never CUDA's."""
    idle = _findings(ascend["idle"][0])
    assert len(idle) == advise_faults.RANKS and all(r["step"] == "2" and "--by step" in r["evidence"] for r in idle)
    assert all("aclgraph" in r["try"] and "aclrtSynchronizeStream" in r["try"] for r in idle)
    assert all("HCCL" in r["try"] for r in _findings(ascend["exposed"][0]))
    slow = _findings(ascend["slow"][0])
    assert [r["rank"] for r in slow] == [str(advise_faults.SLOW)] and "npu-smi" in slow[0]["try"]
    roof = _findings(ascend["roofline"][0])
    assert {r["kernel"] for r in roof} == {"Add"} and all("msprof op" in r["try"] for r in roof)
    for fault in advise_faults.RULE_OF:
        for r in _findings(ascend[fault][0]):
            assert not any(w in r["try"] for w in ("CUDA", "NCCL", "Nsight", "nvidia", "HIP", "ROCm")), r["try"]
            assert r["at_stake_pct"] and float(r["at_stake_pct"]) > 0
    notes = cli("advise", "--db", ascend["idle"][0], "--tag", "job=job").stderr
    assert "no ProfilerStep#N annotation" not in notes       # the Step Ids give the step time


@pytest.mark.slow
def test_ascend_host_findings_name_the_host(all_stores):
    """The Ascend form with its trace_view.json: the host faults are found from the CANN calls and the ops the
    async_npu flows lead from, and their evidence names them."""
    idle = _findings(all_stores["ascend_host", "idle"][0])
    assert len(idle) == advise_faults.RANKS
    assert all("host: AscendCL@aclrtSynchronizeStream" in r["evidence"] and "aclgraph" in r["try"] for r in idle)
    sync = _findings(all_stores["ascend_host", "sync"][0])
    assert len(sync) == advise_faults.RANKS and all("AscendCL@aclrtSynchronizeDevice in step" in r["evidence"]
                                                    and "torch.npu.synchronize()" in r["try"] for r in sync)
    launch = _findings(all_stores["ascend_host", "launch"][0])
    assert [r["step"] for r in launch] == ["2"] * advise_faults.RANKS
    assert all(r["finding"].startswith("the device waited for launches between 199 short kernels") for r in launch)
    for fault in advise_faults.RULE_OF:
        for r in _findings(all_stores["ascend_host", fault][0], *advise_faults.ARGS.get(fault, ())):
            assert not any(w in r["try"] for w in ("CUDA", "NCCL", "Nsight", "nvidia", "HIP", "ROCm")), r["try"]


@pytest.mark.slow
def test_amd_findings_speak_amd(all_stores):
    """The AMD form: HIP runtime calls are launches and syncs as CUDA's are, and what to try speaks HIP, RCCL and
    ROCm's tools, never CUDA's or NVIDIA's."""
    for fault in advise_faults.RULE_OF:
        rows = _findings(all_stores["amd", fault][0], *advise_faults.ARGS.get(fault, ()))
        for r in rows:
            assert not any(w in r["try"] for w in ("CUDA graph", "cuBLAS", "Nsight", "nvidia", "NVLink", "CANN")), r
    idle = _findings(all_stores["amd", "idle"][0])
    assert all("hipStreamSynchronize" in r["evidence"] and "HIP graph" in r["try"] for r in idle)
    assert all("rocprof-compute" in r["try"] for r in _findings(all_stores["amd", "roofline"][0]))
    assert all("RCCL" in r["try"] for r in _findings(all_stores["amd", "exposed"][0]))


def test_host_bound_names_the_step_and_the_report(stores):
    rows = _findings(stores["host"][0])
    assert len(rows) == advise_faults.RANKS
    for r in rows:
        assert r["step"] == "2" and "report critical-path" in r["evidence"] and "--step 2" in r["evidence"]
        assert "CUDA graph" in r["try"] and r["severity"] == "critical"


def test_exposed_and_small_collectives_say_they_share_a_time(stores):
    """With small-collectives widened to the exposed fault's 256 MiB all-reduces, both rules name every rank for
    the same exposed time: each finding says so, and that the two are not to be added."""
    rows = _findings(stores["exposed"][0], "--threshold", "small-collectives.max_bytes=1e9",
                     "--threshold", "small-collectives.min_per_step=1")
    by = {}
    for r in rows:
        by.setdefault(r["rank"], {})[r["rule"]] = r["evidence"]
    assert sorted(by) == ["0", "1", "2", "3"]
    for ev in by.values():
        assert set(ev) == {"exposed-comm", "small-collectives"}
        assert ev["exposed-comm"].endswith("; rule small-collectives names this run too: the small collectives' "
                                           "exposed time is in both findings, two remedies (batch the messages, "
                                           "overlap them) for one time; do not add the two")
        assert "; rule exposed-comm names this run too: " in ev["small-collectives"]
    # alone, neither says it
    assert "names this run too" not in "".join(r["evidence"] for r in _findings(stores["exposed"][0]))


def test_thresholds_silence_and_widen(stores):
    db = stores["exposed"][0]
    assert _findings(db, "--threshold", "exposed-comm.min_pct=50") == []
    assert {r["rule"] for r in _findings(stores["clean"][0], "--threshold", "idle-gap.min_gap_us=10")} == {"idle-gap"}


def test_fail_on_and_formats(stores):
    db = stores["exposed"][0]
    assert cli("advise", "--db", db, "--tag", "job=job", "--fail-on", "critical").returncode == 0
    r = cli("advise", "--db", db, "--tag", "job=job", "--fail-on", "medium", check=False)
    assert r.returncode == 1
    doc = json.loads(cli("advise", "--db", db, "--tag", "job=job", "--format", "json").stdout)
    assert doc
    assert "| exposed-comm |" in cli("advise", "--db", db, "--tag", "job=job", "--format", "md").stdout
    assert cli("advise", "--db", stores["clean"][0], "--tag", "job=job", "--fail-on", "info").returncode == 0


def test_threshold_parsing():
    assert rules.thresholds(["idle-gap.min_gap_us=500"])["idle-gap"]["min_gap_us"] == 500
    for bad in ("idle-gap=5", "nope.x=1", "idle-gap.nope=1", "idle-gap.min_gap_us=abc", "idle-gap.min_gap_us=-1"):
        with pytest.raises(UsageError):
            rules.thresholds([bad])
    # the notes give each threshold as a user would type it back: 1048576, not 1.04858e+06
    assert "max_bytes=1048576," in rules.described(rules.thresholds())


def test_one_run_has_no_slow_rank_and_notes_say_so(stores):
    r = cli("advise", "--db", stores["clean"][0], "--run", "job-rank0")
    assert r.stdout.strip() == "no finding"
    assert "one run selected" in r.stderr


def test_unrelated_runs_are_no_job(tmp_path):
    """Runs without a job tag are compared as one job's ranks only when they look like one (known ranks, none
    repeated): rank 2 of the slow job and rank 2 of a clean job of another seed, in one store untagged, are two
    unrelated runs; the slower is no slow rank, and a note says why nothing was compared."""
    import tracedb
    db = str(tmp_path / "s.duckdb")
    con = tracedb.connect(db)
    try:
        for fault, seed in (("slow", 0), ("clean", 1)):
            d = tmp_path / fault
            d.mkdir()
            paths, _ = advise_faults.write(d, seed, fault)
            tracedb.ingest_trace(con, paths[advise_faults.SLOW], name=f"{fault}-rank2")
    finally:
        con.close()
    r = cli("advise", "--db", db, "--run", "*")
    assert r.stdout.strip() == "no finding", r.stdout
    assert "not one job's ranks" in r.stderr


def test_a_slow_rank_is_judged_within_its_job_whatever_else_is_selected(tmp_path):
    """The slow job beside a clean job of another seed (job `other`): every run selected, the slow rank's finding
    is the one its job alone gives (report blame runs over each candidate's job, not over every selected run)."""
    db = str(tmp_path / "s.duckdb")
    for fault, name in (("slow", "job"), ("clean", "other")):
        d = tmp_path / name
        d.mkdir()
        advise_faults.store(db, d, 0 if fault == "slow" else 1, fault, name=name)
    alone = [r for r in _findings(db) if r["rule"] == "slow-rank"]
    every = list(csv.DictReader(io.StringIO(cli("advise", "--db", db, "--run", "*", "--format", "csv").stdout)))
    assert [r for r in every if r["rule"] == "slow-rank"] == alone
    assert [r["rank"] for r in alone] == [str(advise_faults.SLOW)] and "ranks waited" in alone[0]["finding"]


def test_pipeline_bubble_is_the_stalls_excess_over_1f1b(tmp_path):
    """tests/tiny_pipeline.py's 4-stage, 4-micro-batch 1F1B job, 2 steps: clean, no rule fires (no rank's bubble
    exceeds 1F1B's (p - 1) / m of its busy time by 5 % of its span: the passes' receives and launches add 172 µs a
    rank, 2.5 %; the stages' waits for each other are not idle-gap's nor exposed-comm's);
    with stage 1 starting its forward of micro-batch 1 600 µs late in step 0, every stage waits for it: rule
    pipeline-bubble names each rank with the excess the schedule itself gives (tiny_pipeline.expected)."""
    import tiny_pipeline
    import tracedb
    opts = {"stages": 4, "micro": 4, "layers": 2, "steps": 2}
    for stall in (None, (0, 1, "F", 1, 600)):
        d = tmp_path / ("stall" if stall else "clean")
        d.mkdir()
        con = tracedb.connect(str(d / "s.duckdb"))
        try:
            tiny_pipeline.ingest(con, d, stall=stall, **opts)
        finally:
            con.close()
        _, stages = tiny_pipeline.expected(stall=stall, **opts)
        excess = {}
        for (rank, _), (_, _, busy, bubble, _, _) in stages.items():
            excess[rank] = excess.get(rank, 0) + max(bubble - busy * (opts["stages"] - 1) // opts["micro"], 0)
        out = cli("advise", "--db", str(d / "s.duckdb"), "--tag", "job=pp", "--format", "csv").stdout
        rows = list(csv.DictReader(io.StringIO(out)))
        # the stages' waits for each other are the schedule's: neither idle-gap nor exposed-comm reads them
        assert {r["rule"] for r in rows} <= {"pipeline-bubble"}, rows
        if stall is None:
            assert rows == [] and max(excess.values()) == 172_000
            continue
        got = {int(r["rank"]): round(float(r["at_stake_us"]) * 1000) for r in rows}
        assert got == excess and min(got.values()) > 400_000, (got, excess)
        assert all("tracedb report pipeline" in r["evidence"] for r in rows)
    # with a run of another job beside it that has pipeline sends but no passes to find, selected together: the
    # pipeline job is judged as alone, and a note names the run that is not
    other = {"traceEvents": [{"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t, "dur": 5,
                              "args": {"device": 0, "stream": 7}}
                             for t, name in ((10, "ncclDevKernel_SendRecv"), (20, "gemm_kernel"))]}
    (tmp_path / "other.json").write_text(json.dumps(other))
    db = str(tmp_path / "stall" / "s.duckdb")
    cli("ingest", str(tmp_path / "other.json"), "--db", db, "--name", "other", "--tag", "job=other")
    both = cli("advise", "--db", db, "--run", "*", "--format", "csv")
    assert {int(r["rank"]): round(float(r["at_stake_us"]) * 1000) for r in csv.DictReader(io.StringIO(both.stdout))
            if r["rule"] == "pipeline-bubble"} == excess
    assert "pipeline-bubble: not checked for other (" in both.stderr
