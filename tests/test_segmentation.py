"""Segmentation stages on hand-made traces whose expected numbers are derived in comments."""
import pytest

import tracedb
from tracedb.engine.reports.registry import render_report
import tiny_trace
from helpers import copy_store, write_csv
from tracedb.engine.segmentation import assignment, binding, segment
from tracedb.engine.segmentation.words import ALL_PASSES, PassSpec
from tracedb.errors import UsageError

HEADER = ["Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)"]


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny")
    con = tracedb.connect(str(d / "store.duckdb"))
    tracedb.ingest_trace(con, tiny_trace.write(d / "k.csv"), name="tiny")
    con.close()
    return str(d / "store.duckdb")


@pytest.fixture
def tiny(tiny_store, db_path):
    """A writable connection to this test's own copy of a store holding tests/tiny_trace.py as run 'tiny'."""
    con = tracedb.connect(copy_store(tiny_store, db_path))
    yield con
    con.close()


def passes(con, **kw):
    b = binding.bind(con, binding.Options(runs=kw.pop("runs", ["tiny"]), **kw))
    segment.find_passes(con, b)
    return b, con.execute("SELECT pass, anchors, partial, first_start, last_end FROM _passes ORDER BY pass").fetchall()


def test_count_and_gap_based_passes_agree_on_tiny(tiny):
    # 4 passes of 2 anchors; the ~900 us idle gap between passes is > 10 x the 30 x s us anchor gaps
    _, by_count = passes(tiny, anchor="FusedInferAttentionScore", layers=2)
    _, by_gap = passes(tiny, anchor="FusedInferAttentionScore")
    assert by_count == by_gap
    assert [(p, a, part) for p, a, part, _, _ in by_count] == [(p, 2, False) for p in range(4)]
    # pass 3 strict window: first anchor at T0 + 3000 + 20 us, last anchor ends at T0 + 3000 + 60 us
    t3 = tiny_trace.T0_NS + 3_000_000
    assert by_count[3][3:] == (t3 + 20_000, t3 + 60_000)


# the device time of the passes of tests/tiny_trace.py by what started them: 3 at its Step Id changes
STEP_EVIDENCE = ("; device time by what started its passes: step marks 3 passes (0.214 ms), the run's start 1 pass "
                 "(0.101 ms)")


def test_counts_subdivide_gap_passes_but_never_merge_them(tiny):
    # 4 passes of 2 anchors ~900 us apart; --layers 3 cannot merge anchors across those gaps: each pass
    # keeps its 2 anchors, flagged partial, and the note says where the counts disagree with the trace
    b, got = passes(tiny, anchor="FusedInferAttentionScore", layers=3)
    assert [(p, a, part) for p, a, part, _, _ in got] == [(0, 2, True), (1, 2, True), (2, 2, True), (3, 2, True)]
    assert b.notes == ["run 'tiny': 3 pass breaks at step boundaries (Step Id, ProfilerStep#N or serving step "
                       "annotations); no other anchor gap stands out as a pass break (the largest inside is 45.0 us); "
                       "pass 0 holds 2 of 3 anchors (the capture starts mid-pass: its layers are numbered 1 to 2, "
                       "and its kernels before the first anchor are the end of layer 0); pass 1 holds 2 of 3 "
                       "anchors (a short pass between two breaks: --layers may be wrong or anchors missing); pass 2 "
                       "holds 2 of 3 anchors (a short pass between two breaks: --layers may be wrong or anchors "
                       "missing); pass 3 holds 2 of 3 anchors (the capture ends mid-pass)" + STEP_EVIDENCE]
    b, _ = passes(tiny, anchor="FusedInferAttentionScore", layers=2)
    assert b.notes == ["run 'tiny': 3 pass breaks at step boundaries (Step Id, ProfilerStep#N or serving step "
                       "annotations); no other anchor gap stands out as a pass break (the largest inside is 45.0 us)"
                       + STEP_EVIDENCE]
    # --layers 1: each gap pass of 2 anchors is cut into 2 passes of 1
    _, got = passes(tiny, anchor="FusedInferAttentionScore", layers=1)
    assert [(p, a, part) for p, a, part, _, _ in got] == [(p, 1, False) for p in range(8)]


def anchors_at(con, tmp_path, name, starts, dur=1, extra=()):
    """A run of 1 us anchor kernels `A` starting at the given µs (plus extra (name, start) kernels)."""
    rows = [["A", "A", "AI_CORE", f"{t}.000", f"{dur}.000"] for t in starts]
    rows += [[n, n, "AI_CORE", f"{t}.000", "1.000"] for n, t in extra]
    rows.sort(key=lambda r: float(r[3]))
    tracedb.ingest_trace(con, write_csv(tmp_path / f"{name}.csv", HEADER, rows), name=name)


def pass_starts(sizes, between):
    """Anchor starts (µs) of passes with these anchor counts: 11 us apart inside a pass (10 us gaps after
    each 1 us anchor), `between` us from a pass's last anchor start to the next pass's first."""
    starts, t = [], 0
    for n in sizes:
        starts += [t + 11 * i for i in range(n)]
        t = starts[-1] + between
    return starts


def layout(con, run, **kw):
    b, got = passes(con, runs=[run], anchor="^A$", **kw)
    return b, [(a, part) for _, a, part, _, _ in got]


def test_a_capture_that_starts_mid_pass_gives_a_partial_first_pass(con, tmp_path):
    # the last 3 layers of a pass, then two whole passes of 5: anchors 11 us apart inside a pass (10 us
    # gaps), 100 us gaps between passes (10x). With --layers 5 and without it, the fragment stays apart.
    anchors_at(con, tmp_path, "mid", pass_starts((3, 5, 5), 101))
    assert layout(con, "mid", layers=5)[1] == [(3, True), (5, False), (5, False)]
    # the fragment holds the last 3 of 5 layers: numbered 2, 3, 4
    b = binding.bind(con, binding.Options(runs=["mid"], anchor="^A$", layers=5))
    segment.find_passes(con, b)
    assignment.assign(con, b, assignment.select_passes(con, b, ALL_PASSES))
    assert con.execute("SELECT pass, list(DISTINCT layer ORDER BY layer) FROM _assigned GROUP BY pass ORDER BY pass"
                       ).fetchall() == [(0, [2, 3, 4]), (1, [0, 1, 2, 3, 4]), (2, [0, 1, 2, 3, 4])]
    assert layout(con, "mid")[1] == [(3, True), (5, False), (5, False)]
    # without --layers the full passes' count (5) numbers the fragment just the same
    b = binding.bind(con, binding.Options(runs=["mid"], anchor="^A$"))
    segment.find_passes(con, b)
    assignment.assign(con, b, assignment.select_passes(con, b, ALL_PASSES))
    assert con.execute("SELECT pass, list(DISTINCT layer ORDER BY layer) FROM _assigned GROUP BY pass ORDER BY pass"
                       ).fetchall() == [(0, [2, 3, 4]), (1, [0, 1, 2, 3, 4]), (2, [0, 1, 2, 3, 4])]
    # with a gap rule that finds no break (--pass-gap 1000) the 13 anchors are one stretch, and the count
    # cuts still land on the largest gaps (a count from the first anchor would mix two passes: 5, 5, 3)
    b, got = layout(con, "mid", layers=5, pass_gap=1000)
    assert got == [(3, True), (5, False), (5, False)]
    assert "passes 0-2 were cut every 5 anchors, at the largest gaps the count allows (smallest gap at a cut " \
           "100.0 us)" in b.notes[0]


def test_counts_cut_at_the_largest_gaps_when_no_break_stands_out(con, tmp_path):
    # 2 + 5 + 5 anchors, 10 us gaps inside passes and 18 us between them: 1.8x, under the 2x a break needs,
    # so the gaps form one stretch; --layers 5 cuts it where the cuts meet the largest gaps (offset 2)
    anchors_at(con, tmp_path, "soft", pass_starts((2, 5, 5), 19))
    b, got = layout(con, "soft", layers=5)
    assert got == [(2, True), (5, False), (5, False)]
    assert b.notes == ["run 'soft': no anchor gap stands out as a pass break (the largest inside is 18.0 us); "
                       "pass 0 holds 2 of 5 anchors (the capture starts mid-pass: its layers are numbered 3 to 4, "
                       "and its kernels before the first anchor are the end of layer 2); passes 0-2 were cut every 5 "
                       "anchors, at the largest gaps the count allows (smallest gap at a cut 18.0 us): no gap there "
                       "stands out; device time by what started its passes: the anchor count 2 passes (0.010 ms), "
                       "the run's start 1 pass (0.002 ms)"]
    assert layout(con, "soft")[1] == [(12, False)]


def test_a_hiccup_inside_a_pass_does_not_split_it(con, tmp_path):
    # 4 passes of 6 anchors, 100 us between passes, 10 us inside, but one 40 us stall inside pass 2: the
    # largest jump (40 -> 10: 4x) would cut pass 2 in two; the break set with the most regular passes wins
    starts, t = [], 0
    for p in range(4):
        for i in range(6):
            starts.append(t)
            t += 41 if (p == 2 and i == 2) else 11
        t += 90
    anchors_at(con, tmp_path, "hiccup", starts)
    assert layout(con, "hiccup")[1] == [(6, False)] * 4
    assert layout(con, "hiccup", layers=6)[1] == [(6, False)] * 4


def test_a_full_window_stops_before_the_backward_pass(con, tmp_path):
    # a training step: forward anchors A at 0, 10 (2 layers), a forward kernel F at 15, then backward
    # kernels (AGrad, MatMulGrad) from 30 us and F at 50 after them: the forward stream is A, A, F (15 us),
    # the backward one AGrad, MatMulGrad, F, so the forward pass's full window ends at F's start, 15 us
    anchors_at(con, tmp_path, "train", [0, 10], extra=[("F", 15), ("AGrad", 30), ("MatMulGrad", 40), ("F", 50)])
    b = binding.bind(con, binding.Options(runs=["train"], anchor="^A$", window="full"))
    segment.find_passes(con, b)
    t0 = con.execute("SELECT min(start_ns) FROM kernels k JOIN runs r USING (run_id) "
                     "WHERE r.name = 'train'").fetchone()[0]
    assert con.execute("SELECT win_start - $t, win_end - $t FROM _windows", {"t": t0}).fetchall() == [(0, 15_000)]
    assert b.phase == "forward"
    assert b.notes[0].startswith("run 'train': a training trace: forward 3 kernels (0.003 ms), backward 3 kernels")


def test_gap_factor_changes_grouping(tiny):
    # with G = 1000 no anchor gap exceeds 1000 x median (30 x 1.0 .. 1.5 us): everything is one pass
    _, got = passes(tiny, anchor="FusedInferAttentionScore", pass_gap=1000)
    assert [(p, a) for p, a, *_ in got] == [(0, 8)]


def test_gap_based_partial_is_the_odd_count(con, tmp_path):
    # anchors A at 0,10,20 | 1000,1010,1020 | 2000,2010 (1 us each): gaps 9 us inside, 979/979 between;
    # median gap 9 -> threshold 90: three passes of 3, 3, 2 anchors; the most common count 3 is expected
    rows = [["A", "A", "AI_CORE", f"{t}.000", "1.000"] for t in (0, 10, 20, 1000, 1010, 1020, 2000, 2010)]
    tracedb.ingest_trace(con, write_csv(tmp_path / "g.csv", HEADER, rows), name="g")
    _, got = passes(con, runs=["g"], anchor="^A$")
    assert [(p, a, part) for p, a, part, _, _ in got] == [(0, 3, False), (1, 3, False), (2, 2, True)]


def test_anchor_matches_op_type_or_name_with_search_semantics(con, tmp_path):
    rows = [["aclnnFoo_MyAttn_MyAttn", "MyAttn", "AI_CORE", "0.000", "1.000"],
            ["other", "MyAttnV2", "AI_CORE", "5.000", "1.000"],
            ["x", "y", "AI_CORE", "9.000", "1.000"]]
    tracedb.ingest_trace(con, write_csv(tmp_path / "a.csv", HEADER, rows), name="a")
    b, got = passes(con, runs=["a"], anchor="MyAttn$")        # name ends with MyAttn; op type MyAttnV2 does not
    assert got[0][1] == 1
    b, got = passes(con, runs=["a"], anchor="^MyAttn")        # op types MyAttn and MyAttnV2
    assert got[0][1] == 2


def test_no_anchor_names_the_frequent_kernels(tiny):
    # 5 MatMulV3 per pass (qkv, o, qkv, o, lm_head) x 4 passes = 20, the most frequent name
    with pytest.raises(UsageError, match=r"no kernel name or op type matches anchor 'Nope'.*MatMulV3 \(20\)"):
        passes(tiny, anchor="Nope")


def test_invalid_regex_is_a_usage_error(tiny):
    with pytest.raises(UsageError, match="not a valid RE2 pattern"):
        passes(tiny, anchor="(unclosed")


def test_steady_pass_is_three_and_walls_follow_the_scales(tiny):
    b, _ = passes(tiny, anchor="FusedInferAttentionScore", layers=2)
    walls = assignment.layer0_walls(tiny, b)
    # layer-0 wall 33 us x scale 1.5, 1.2, 1, 1
    assert [walls[(b.run_ids[0], p)] for p in range(4)] == [49_500, 39_600, 33_000, 33_000]
    assert assignment.steady_pass(tiny, b, b.run_ids[0], walls) == 3


def test_no_steady_pass_lists_layer0_walls(con, tmp_path):
    # one anchor per pass, passes 1000 us apart; the kernel after each anchor grows ~50 % a pass, so the
    # layer-0 wall in the full window (anchor start to that kernel's end: 2 + d us) never settles within 5 %
    rows = []
    for p, d in enumerate([10, 15, 22, 33]):
        rows += [["A", "A", "AI_CORE", f"{p * 1000}.000", "1.000"],
                 ["B", "B", "AI_CORE", f"{p * 1000 + 2}.000", f"{d}.000"]]
    tracedb.ingest_trace(con, write_csv(tmp_path / "s.csv", HEADER, rows), name="s")
    b, _ = passes(con, runs=["s"], anchor="^A$", layers=1, window="full")
    with pytest.raises(UsageError, match=r"no steady pass.*0: 12\.000, 1: 17\.000, 2: 24\.000, 3: 35\.000"):
        assignment.select_passes(con, b, PassSpec("steady"))


def test_pass_selection_errors(tiny):
    b, _ = passes(tiny, anchor="FusedInferAttentionScore", layers=2)
    assert assignment.select_passes(tiny, b, PassSpec.parse("all")) == [(b.run_ids[0], p) for p in range(4)]
    assert assignment.select_passes(tiny, b, PassSpec.parse(" 2 ")) == [(b.run_ids[0], 2)]
    with pytest.raises(UsageError, match=r"has 4 passes \(0..3\); --pass 4"):
        assignment.select_passes(tiny, b, PassSpec.parse(4))


@pytest.mark.parametrize("given, word, number", [("all", "all", None), (" Steady ", "steady", None),
                                                 ("AUTO", "auto", None), ("mean", "mean", None), ("07", "", 7),
                                                 (3, "", 3), ("9999999", "", 9_999_999)])
def test_pass_spec_parses_words_and_numbers_once(given, word, number):
    spec = PassSpec.parse(given)
    assert (spec.word, spec.number) == (word, number)
    assert PassSpec.parse(spec) is spec     # parsed once: a PassSpec passes through as it is
    assert str(spec) == (word or str(number))
    assert spec.chosen == (word in ("steady", "auto", "mean"))


@pytest.mark.parametrize("given", [" Steady ", "2"])
def test_the_reports_take_pass_as_parsed_at_the_edge(tiny_store, tmp_path, monkeypatch, given):
    """--pass is parsed once, where the call comes in: what the pass selection of a report receives is that
    PassSpec, from the command line and from Python alike."""
    from tracedb.engine.segmentation import selection
    from helpers import cli
    seen = []
    real = selection.select_noted
    monkeypatch.setattr(selection, "select_noted", lambda con, b, spec: seen.append(spec) or real(con, b, spec))
    db = copy_store(tiny_store, str(tmp_path / "s.duckdb"))
    opts = ["--anchor", "FusedInferAttentionScore", "--layers", "2"]
    cli("report", "layers", "--db", db, "--run", "tiny", *opts, "--pass", given)
    tracedb.report(db, "layers", run="tiny", anchor="FusedInferAttentionScore", layers=2, pass_=given)
    assert seen == [PassSpec.parse(given)] * 2 and all(type(s) is PassSpec for s in seen)


@pytest.mark.parametrize("given, why", [("last", "unknown"), ("-1", "unknown"), (-1, "unknown"), (True, "unknown"),
                                        ("1.5", "unknown"), ("", "unknown"), ("²", "unknown"),
                                        ("10000000", "out of range")])
def test_pass_spec_refuses_what_is_no_pass(given, why):
    with pytest.raises(UsageError, match=f"^--pass .*: {why}; expected a pass number"):
        PassSpec.parse(given)


def test_mean_takes_the_steady_passes_near_the_median(con, tmp_path):
    # tiny_trace.JITTER: layer-0 walls 49.5, 39.6, 33, 33.66, 32.34, 42.9, 33.33 us; steady pass 3; the lower
    # median of passes 3..6 is 33.33 us, within 5 % of it: 3, 4 and 6 (pass 5, a hiccup at 42.9 us, is not)
    tracedb.ingest_trace(con, tiny_trace.write(tmp_path / "j.csv", scales=tiny_trace.JITTER), name="j")
    b, _ = passes(con, runs=["j"], anchor="FusedInferAttentionScore", layers=2)
    rid = b.run_ids[0]
    walls = assignment.layer0_walls(con, b)
    assert [walls[(rid, p)] for p in range(7)] == [49_500, 39_600, 33_000, 33_660, 32_340, 42_900, 33_330]
    assert assignment.select_passes(con, b, PassSpec("steady")) == [(rid, 3)]
    assert assignment.select_passes(con, b, PassSpec.parse(" Mean ")) == [(rid, 3), (rid, 4), (rid, 6)]


def test_a_simulated_run_has_no_cold_start(con, tmp_path):
    import tiny_simulated
    tracedb.ingest_trace(con, tiny_simulated.write(tmp_path / "s.json", passes=2), name="sim",
                         tags={"kind": "simulated"})
    tracedb.ingest_trace(con, tiny_simulated.write(tmp_path / "u.json", passes=3), name="untagged")
    b, _ = passes(con, runs=["sim"], anchor="FusedInferAttentionScore", layers=2)
    assert assignment.select_passes(con, b, PassSpec("steady")) == [(b.run_ids[0], 0)]
    assert assignment.select_passes(con, b, PassSpec("mean")) == [(b.run_ids[0], 0), (b.run_ids[0], 1)]
    b, _ = passes(con, runs=["untagged"], anchor="FusedInferAttentionScore", layers=2)
    # identical passes: 2 is the first
    assert assignment.select_passes(con, b, PassSpec("steady")) == [(b.run_ids[0], 2)]


def test_anchor_fallback_of_dsv4(con, tmp_path):
    # no mhc_post_tilelang kernel: the dsv4-gpu profile falls back to mhc_pre_big_fuse and says so
    rows = [["mhc_pre_big_fuse_kernel", "", "AI_CORE", f"{t}.000", "1.000"] for t in (0, 10, 20, 30)]
    tracedb.ingest_trace(con, write_csv(tmp_path / "f.csv", HEADER, rows), name="f")
    b = binding.bind(con, binding.Options(runs=["f"], profile="dsv4-gpu"))
    assert b.anchor == "mhc_pre_big_fuse" and "fallback" in b.notes[0]
    segment.find_passes(con, b)
    assignment.assign(con, b, assignment.select_passes(con, b, ALL_PASSES))
    # 4 anchors, 2 blocks per layer -> layers 0, 0, 1, 1 with halves 0, 1, 0, 1
    assert con.execute("SELECT layer, half FROM _assigned ORDER BY start_ns").fetchall() == [
        (0, 0), (0, 1), (1, 0), (1, 1)]


def test_overlapping_kernels_on_two_streams_assign_by_start(con, tmp_path):
    # A at 0 (anchor, 1 us), B at 0.5 on another stream lasting 20 us (overlaps the next anchor at 10),
    # A at 10, C at 11. Strict window [0, 11]: block 0 = {A, B} (starts 0, 0.5), block 1 = {A, C}.
    rows = [["A", "A", "AI_CORE", "0.000", "1.000"], ["B", "B", "AI_CORE", "0.500", "20.000"],
            ["A", "A", "AI_CORE", "10.000", "1.000"], ["C", "C", "AI_CORE", "10.500", "0.500"]]
    tracedb.ingest_trace(con, write_csv(tmp_path / "o.csv", HEADER, rows), name="o")
    b = binding.bind(con, binding.Options(runs=["o"], anchor="^A$", layers=2, window="strict"))
    segment.find_passes(con, b)
    assignment.assign(con, b, assignment.select_passes(con, b, ALL_PASSES))
    got = con.execute("SELECT layer, count(*), sum(dur_ns), max(end_ns) - min(start_ns) FROM _assigned "
                      "GROUP BY layer ORDER BY layer").fetchall()
    # layer 0: 1 + 20 us, wall 0 -> 20.5 us; layer 1: 1 + 0.5 us, wall 10 -> 11 us
    assert got == [(0, 2, 21_000, 20_500), (1, 2, 1_500, 1_000)]


def test_multiple_runs_stack_in_the_given_order(tiny, tmp_path):
    path = tiny_trace.write(tmp_path / "k2.csv")
    with open(path, "a") as f:   # other content than run tiny: one more kernel after the last pass
        f.write("5,0,4294967295,999,2,Extra,Extra,dynamic,AI_CORE,1764246877078569.640\t,1.000,0,1,0,NO,,,,,,,N/A,1\n")
    tracedb.ingest_trace(tiny, path, name="tiny2")
    out = render_report(tiny, "passes", runs=["tiny2", "tiny"], profile="qwen3-npu", layers=2, fmt="csv")
    runs = [line.split(",")[0] for line in out.splitlines()[1:]]
    assert runs == ["tiny2"] * 4 + ["tiny"] * 4


def test_anchor_is_proposed_when_none_is_given(tiny):
    # generic profile, no --anchor: the attention kernel (FusedInferAttentionScore) repeats 2 per pass
    # in 4 of 4 gap-found passes; the note names it whole
    b = binding.bind(tiny, binding.Options(runs=["tiny"]))
    name = "aclnnFusedInferAttentionScoreV3_FusedInferAttentionScore_FusedInferAttentionScore"
    assert b.anchor == f"^({name})$"
    assert b.notes == ["run 'tiny': anchor chosen: FusedInferAttentionScore — an attention kernel, seen 2 times in "
                       f"4 of 4 passes; pass --layers to check; full name: {name}"]
    segment.find_passes(tiny, b)
    assert tiny.execute("SELECT count(*), min(anchors), max(anchors) FROM _passes").fetchone() == (4, 2, 2)


def proposal(con, tmp_path, run, kernels, **kw):
    rows = [[n, n, "AI_CORE", f"{t}.000", "1.000"] for n, t in sorted(kernels, key=lambda k: k[1])]
    tracedb.ingest_trace(con, write_csv(tmp_path / f"{run}.csv", HEADER, rows), name=run)
    return binding.bind(con, binding.Options(runs=[run], **kw))


def test_the_proposal_takes_alternating_variants_as_one_anchor(con, tmp_path):
    # vLLM decode: each layer runs attention_2d or attention_3d, alternating; 2 passes of 6 layers.
    # Alone, attention_2d would make 3 "layers" of 2 per pass; together they are the per-layer anchor.
    ks = []
    for p in range(2):
        for layer in range(6):
            t = p * 1000 + layer * 20
            attention = f"kernel_unified_attention_{2 if layer % 2 == 0 else 3}d"
            ks += [(attention, t), ("gemm_x", t + 5), ("gemm_y", t + 10)]
    b = proposal(con, tmp_path, "vllm", ks)
    assert b.anchor == "^(kernel_unified_attention_2d|kernel_unified_attention_3d)$"
    assert "2 variants of one attention kernel, one per layer, seen 6 times in 2 of 2 passes" in b.notes[0]


def test_variants_side_by_side_in_each_layer_are_not_one_anchor(con, tmp_path):
    # a split-KV attention and its second step, 1 us apart in every layer (20 us): the pair is not a
    # per-layer anchor (its gaps alternate 1 and 18 us); one of the two is
    ks = []
    for p in range(2):
        for layer in range(4):
            t = p * 1000 + layer * 20
            ks += [("attn_part1", t), ("attn_part2", t + 2), ("gemm", t + 8)]
    b = proposal(con, tmp_path, "split", ks)
    assert b.anchor == "^(attn_part1)$"


def test_the_proposal_takes_each_phase_from_its_own_kernels_and_says_so(con, tmp_path):
    # a training step: 3 forward attention kernels, then 3 backward ones (more time each, same count): the
    # forward passes see only the forward stream, the backward ones only the backward stream
    ks = [("flash_fwd", t) for t in (0, 20, 40)] + [("flash_attn_bwd", t) for t in (100, 130, 160)]
    b = proposal(con, tmp_path, "trainp", ks)
    assert b.anchor == "^(flash_fwd)$"
    assert b.notes[0].startswith("run 'trainp': a training trace: forward 3 kernels (0.003 ms), backward 3 kernels")
    b = binding.bind(con, binding.Options(runs=["trainp"], phase="backward"))
    assert b.anchor == "^(flash_attn_bwd)$" and b.phase == "backward"


def test_no_proposal_when_the_layer_count_does_not_fit(tiny):
    with pytest.raises(UsageError, match=r"no attention kernel repeats a steady number of times per pass equal "
                                         r"to 3 layers; candidates: aclnnFusedInfer.* \(3/pass in 0 of 4 passes\)"):
        binding.bind(tiny, binding.Options(runs=["tiny"], layers=3))


def _split_tables(con):
    return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
            for t in ("_anchors", "_anchor_pass", "_passes", "_pass_split", "_pass_groups")}


@pytest.mark.parametrize("layers", [None, 2])
def test_a_proposed_anchor_s_pass_split_is_the_one_segment_passes_gives(tiny_job_store, layers):
    """With no anchor given, the proposal splits each run's chosen candidate into passes; find_passes takes that
    split as the runs' own (candidate_passes.sql) instead of computing it again: the same rows as computing
    afresh with the proposed pattern."""
    con = tiny_job_store
    opt = binding.Options(tags=["job=job"], layers=layers)
    b = binding.bind(con, opt)
    assert b.proposed          # every rank chose the same kernel: the split is reused
    segment.find_passes(con, b)
    reused = _split_tables(con)
    fresh = binding.bind(con, opt)
    fresh.proposed = None
    segment.find_passes(con, fresh)
    assert fresh.anchor == b.anchor and _split_tables(con) == reused
    assert len(reused["_passes"]) == 9          # three ranks of three passes
