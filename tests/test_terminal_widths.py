"""Terminal tables and notes at 60, 80 and 120 columns (engine/rendering/fitting.py, names.py): a report keeps
its key columns and leaves out the ones that say where a row lies in time first; a long id keeps both ends;
two different kernels never print alike; a note wraps whole. The rows are a real Megatron job's on Ascend
(ascend-megatron-job in the shared real traces) and real kernel names; the last test runs the CLI on that job
in a pseudo-terminal."""
import re
import sys

import pytest
from helpers import cli, in_pty, real_trace

from tracedb.engine.rendering import fitting, render
from tracedb.engine.rendering.fitting import drop_rank, widest
from tracedb.engine.rendering.names import distinguished, shorten, wrapped

WIDTHS = (60, 80, 120)


def _draw(columns, numeric, rows):
    from tabulate import tabulate
    return tabulate(rows, headers=columns, tablefmt="simple", disable_numparse=True,
                    colalign=["right" if n else "left" for n in numeric])


def _fit(columns, numeric, rows, width):
    cols, num, shown, notes = fitting.fit(columns, numeric, rows, width, _draw)
    assert widest(_draw(cols, num, shown)) <= width, _draw(cols, num, shown)
    return [c.replace("\n", "_") for c in cols], shown, notes


# report layers of rank 0, pass 0 (CSV columns and cells as the report gives them)
LAYERS = ["run", "pass", "layer", "kernels", "sum_us", "wall_us", "start_us", "end_us", "communication_us",
          "norm_us", "attention_us", "gemm_us", "rope_us", "activation_us", "other_us", "comm_count"]
LAYER_ROWS = [
    ["mj-rank0", "0", "prologue", "30", "2612.700", "9372.760", "0.000", "9372.760", "0.000", "103.580", "0.000",
     "170.400", "94.700", "0.000", "2244.020", "0"],
    ["mj-rank0", "0", "0", "31", "2102.880", "4817.020", "9730.320", "14547.340", "0.000", "129.640", "881.640",
     "631.200", "93.980", "58.420", "308.000", "0"],
    ["mj-rank0", "0", "1", "31", "2107.180", "4264.140", "14777.580", "19041.720", "0.000", "127.160", "884.320",
     "635.100", "95.300", "61.320", "303.980", "0"],
    ["mj-rank0", "1", "epilogue", "5", "158920.420", "160910.340", "154427.880", "315338.220", "158553.280", "0.000",
     "0.000", "318.000", "0.000", "0.000", "49.140", "1"],
]
CATEGORIES = [c for c in LAYERS if c.endswith("_us") and c not in ("sum_us", "wall_us", "start_us", "end_us")]
POSITIONS = ["wall_us", "start_us", "end_us"]


@pytest.mark.parametrize("width", WIDTHS)
def test_layers_keep_their_keys_and_categories_before_positions(width):
    cols, _, notes = _fit(LAYERS, [c not in ("run", "layer") for c in LAYERS], LAYER_ROWS, width)
    assert {"pass", "layer", "sum_us"} <= set(cols)
    kept = [c for c in CATEGORIES if c in cols]
    if len(kept) < len(CATEGORIES):      # a category left out: every position went before it
        assert not set(POSITIONS) & set(cols), cols
    assert len(kept) >= {60: 2, 80: 4, 120: 7}[width], cols
    assert "comm_count" not in cols or width == 120


# report collectives of the job: its 19-digit HCCL group ids, ranks 0, 1 and 3
COLLECTIVES = ["op", "group", "group_desc", "seq", "ranks", "group_size", "bytes", "start_us", "arrival_skew_us",
               "transfer_us", "waiting_us", "last_rank", "algbw_gbps", "busbw_gbps", "prof_elapse_us", "prof_wait_us",
               "prof_transit_us", "prof_sync_us"]
COLLECTIVE_ROWS = [
    ["batchsendrecv", "3985310499963036764", "pp", "0", "2", "2", "8388608", "0.000", "73288.100", "435.180",
     "73288.100", "1", "19.276", "19.276", "73750.880", "403.360", "0.000", "403.360"],
    ["batchsendrecv", "3985310405473756128", "pp", "0", "1", "2", "0", "70236.160", "0.000", "436.140", "0.000", "0",
     "0.000", "0.000", "436.140", "403.500", "0.000", "403.500"],
    ["batchsendrecv", "3985310499963036764", "pp", "1", "2", "2", "8388608", "149571.900", "163266.900", "801.680",
     "163266.900", "3", "10.464", "10.464", "164096.540", "163648.020", "0.000", "163648.020"],
    ["allreduce", "3985310401178788831", "tp", "0", "1", "1", "0", "165225.000", "0.000", "2.560", "0.000", "3",
     "0.000", "0.000", "2.560", "0.000", "0.000", "0.000"],
    ["allreduce", "5862276093215481612", "default_group", "0", "3", "4", "0", "190000.000", "12.500", "2.000",
     "12.500", "1", "0.000", "0.000", "2.560", "0.000", "0.000", "0.000"],
]


@pytest.mark.parametrize("width", (80, 120))
def test_collectives_keep_who_waited_and_shorten_the_group_hash(width):
    numeric = [c not in ("op", "group", "group_desc") for c in COLLECTIVES]
    cols, shown, notes = _fit(COLLECTIVES, numeric, COLLECTIVE_ROWS, width)
    assert {"op", "group", "seq", "waiting_us", "last_rank"} <= set(cols), cols
    assert "start_us" not in cols and not any(c.startswith("prof_") for c in cols)
    groups = [r[cols.index("group")] for r in shown]
    for row, g in zip(COLLECTIVE_ROWS, groups):      # both ends of the id, an ellipsis in the middle
        assert "…" in g and row[1].startswith(g.split("…")[0]) and row[1].endswith(g.split("…")[1]), g
        assert len(g) <= fitting.ID_WIDTH
    assert len(set(groups)) == len({r[1] for r in COLLECTIVE_ROWS})


def test_columns_are_told_apart_by_name():
    ranks = {c: drop_rank(c, True) for c in ("start_us", "end_ns", "ts_ns", "correlation_id", "wall_us",
                                             "prof_wait_us", "kernels", "waiting_us", "busbw_gbps", "last_rank")}
    assert max(ranks["start_us"], ranks["end_ns"], ranks["ts_ns"], ranks["correlation_id"]) < ranks["wall_us"]
    assert ranks["wall_us"] < ranks["prof_wait_us"] < ranks["kernels"] < ranks["waiting_us"] == ranks["last_rank"]
    assert drop_rank("note", False) < drop_rank("busbw_gbps", True) < drop_rank("layer", True)


# kernel names that differ only far from their start: TensorRT-LLM's FMHA cubins (as B200 traces name them)
FMHA = "fmhaSm100aKernel_QkvE4m3OBfloat16H128PagedKvDenseP32VarSeqQ128Kv128{}"
LATE = [FMHA.format("PersistentContext"), FMHA.format("StaticContext"), FMHA.format("PersistentSwapsAbForGen"),
        FMHA.replace("H128", "H64").format("PersistentContext")]
# PyTorch copy kernels of the H100 and MI300X traces (TraceLens): one short name, four kernels
COPIES = [
    "void at::native::elementwise_kernel_manual_unroll<128, 4, at::native::gpu_kernel_impl<at::native::direct_copy_"
    "kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#3}::operator()() const::"
    "{lambda(int)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda()#3}::operator()() const::{lambda()#3}::operator()() const::{lambda(int)#1} const&)::{lambda(int, bool)#1}"
    ">(int, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::"
    "operator()() const::{lambda()#3}::operator()() const::{lambda(int)#1}>(at::TensorIteratorBase&, at::native::"
    "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#3}::operator()() "
    "const::{lambda(int)#1} const&)::{lambda(int, bool)#1})",
    "void at::native::elementwise_kernel_manual_unroll<128, 4, at::native::gpu_kernel_impl<at::native::direct_copy_"
    "kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#4}::operator()() const::"
    "{lambda(long)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda()#3}::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#1} const&)::{lambda(int, bool)"
    "#1}>(int, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}"
    "::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#1}>(at::TensorIteratorBase&, at::native::"
    "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#4}::operator()() "
    "const::{lambda(long)#1} const&)::{lambda(int, bool)#1})",
    "void at::native::elementwise_kernel_manual_unroll<128, 8, at::native::gpu_kernel_impl_nocast<at::native::direct_"
    "copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::"
    "{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
    "::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::"
    "{lambda(int, bool)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::Tensor"
    "IteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>"
    "(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()"
    "() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int, bool)#1})",
    "void at::native::elementwise_kernel_manual_unroll<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_"
    "copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::"
    "{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int, bool)"
    "#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, "
    "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::"
    "operator()() const::{lambda(float)#1} const&)::{lambda(int, bool)#1})",
]
COPY = "elementwise_kernel_manual_unroll[direct_copy]"


@pytest.mark.parametrize("width", [12, 14, 20, 24, 40])
def test_names_that_part_late_print_differently_without_numbers(width):
    short, numbered = shorten(LATE, width)
    assert all(len(s) <= width for s in short) and len(set(short)) == len(LATE), short
    assert not numbered and not any("~" in s for s in short), short


def test_a_name_that_parts_at_its_end_shows_its_end():
    short, _ = shorten(LATE[:2], 36)
    assert short[0].endswith("PersistentContext") and short[1].endswith("StaticContext"), short


def test_kernels_with_one_short_name_print_by_what_differs():
    told = distinguished([(n, COPY) for n in COPIES])
    texts = [told[(n, COPY)] for n in COPIES]
    assert len(set(texts)) == len(COPIES) and all(t.startswith(COPY + " <") for t in texts), texts
    assert any("BFloat16" in t for t in texts) and any("float" in t for t in texts), texts


def test_kernels_alike_but_for_a_namespace_or_a_space_still_print_differently():
    names = ["void at::native::(anonymous namespace)::f<float>(int)", "void at::native::f<float>(int)",
             "void at::native::f<float>(int )"]
    texts = set(distinguished([(n, "f") for n in names]).values())
    assert len(texts) == 3, texts


def _kernels_result():
    names = COPIES + LATE
    shorts = [COPY] * len(COPIES) + LATE
    rows = [("mj-rank0", "0", str(i + 1), n, s, "other", "10", f"{100 - i}.000") for i, (n, s) in
            enumerate(zip(names, shorts))]
    res = render.Result(report="kernels", columns=["run", "pass", "rank", "name", "short_name", "category",
                                                   "count", "sum_us"],
                        numeric=[False, True, True, False, False, False, True, True], rows=rows, title="hot kernels",
                        notes=["run 'mj-rank0': coverage 100.0 % of 651.464 ms of device time in named units: forward "
                               "passes 219.865 ms (prologue 3.277 ms, layers 57.229 ms, epilogue 159.358 ms); "
                               "optimizer 129.733 ms; backward kernels 301.867 ms (their passes: --phase backward); "
                               "outside any unit 0.000 ms"])
    return render.for_people(res)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_kernels_table_never_prints_two_kernels_alike(width):
    text = render.render(_kernels_result(), "table", width=width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width, [line for line in lines if len(line) > width]
    start = next(i + 1 for i, line in enumerate(lines) if line.startswith("---"))
    body = [line for line in lines[start:] if line.strip()]
    names = [re.split(r"\s{2,}", line.strip())[1] for line in body]
    assert len(body) == len(COPIES) + len(LATE) and len(set(names)) == len(names), names
    assert not any(re.search(r"~\d+$", n) for n in names), names


@pytest.mark.parametrize("width", WIDTHS)
def test_a_note_wraps_whole(width):
    res = _kernels_result()
    text = render.render(res, "table", width=width)
    note = next(n for n in res.notes if "coverage" in n)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "coverage" in line)
    end = next(i for i in range(at + 1, len(lines)) if not lines[i].startswith("  "))
    got = lines[at:end]
    assert max(len(line) for line in got) <= width
    assert " ".join(line.strip() for line in got) == "note: " + note      # every word, none cut


@pytest.mark.parametrize("width", WIDTHS)
def test_a_long_name_in_a_note_keeps_both_ends(width):
    text = wrapped("note: ", f"run 'r': anchor chosen: x; full name: {COPIES[2]}", width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width and "…" in text
    assert "full name: void at::native::elementwise" in text.replace("\n  ", " ")
    assert text.endswith("{lambda(int, bool)#1})")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_real_job_in_a_terminal(tmp_path):
    """`report layers` and `report collectives` of the Megatron job at 60, 80 and 120 columns: every line fits,
    the keys stay, positions go first, the group ids keep both ends, no note is cut inside."""
    db = str(tmp_path / "mj.duckdb")
    cli("ingest", real_trace("ascend-megatron-job"), "--db", db, "--name", "mj")
    for width in WIDTHS:
        layers = in_pty(["report", "layers", "--db", db, "--run", "mj-rank0"], width)
        assert max(len(line) for line in layers) <= width, layers
        head = next(i for i, line in enumerate(layers) if line.startswith("---"))
        header = " ".join(layers[head - 2:head])
        assert "pass" in header and "layer" in header and "norm_us" in header.replace("\n", "_")
        assert not any(re.search(r"\w…\w", line) for line in layers if line.startswith("note: run")), layers
        if width < 120:
            assert "start_us" not in header and "end_us" not in header
    for width in (80, 120):
        out = in_pty(["report", "collectives", "--db", db, "--run", "mj-*"], width)
        assert max(len(line) for line in out) <= width, out
        head = next(i for i, line in enumerate(out) if line.startswith("---"))
        header = " ".join(out[head - 2:head])
        assert all(w in header for w in ("op", "group", "waiting", "last")), header
        assert "39853…" in out[head + 1] or "58622…" in out[head + 1], out[head + 1]
