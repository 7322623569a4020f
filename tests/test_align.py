"""Clock alignment on collectives (engine/jobs/align.py) over jobs made by bench/gen_job.py, whose truth file says
what each rank's clock offset is: recovered exactly when every member ends a collective at the same ns, within
the injected jitter otherwise, through chains of groups when no collective holds every rank."""
import json
import os
import subprocess
import sys

import pytest

import tiny_kineto
import tracedb
from helpers import ROOT
from tracedb.engine.jobs import align

GEN_JOB = os.path.join(ROOT, "bench", "gen_job.py")


def make_job(tmp_path, *args, name="job"):
    """A generated job ingested into a new store: (connection, truth, run ids by rank)."""
    out = tmp_path / name
    subprocess.run([sys.executable, GEN_JOB, str(out), *args], check=True, capture_output=True, text=True)
    con = tracedb.connect(str(tmp_path / f"{name}.duckdb"))
    for f in sorted(os.listdir(out)):
        if f.endswith(".pt.trace.json"):
            tracedb.ingest_trace(con, str(out / f), name=f"{name}-{f.split('.')[0]}", tags=[f"job={name}"])
    ids = dict(con.execute("SELECT rank, run_id FROM runs").fetchall())
    return con, json.loads((out / "truth.json").read_text()), ids


def test_offsets_recovered_exactly(tmp_path):
    con, truth, ids = make_job(tmp_path, "--ranks", "4", "--layers", "4", "--passes", "2",
                               "--offsets-us", "0,12345,-678,9000.5")
    a = align.rank_offsets(con, list(ids.values()))
    assert a.aligned and a.residual_ns == 0 and a.reference == ids[0]
    assert {r: a.offsets[ids[r]] for r in ids} == {int(r): v for r, v in truth["align_ns"].items()}
    assert a.offsets[ids[3]] == -9_000_500          # ns to add: offset_ref - offset_3
    assert "aligned on 8 collectives" in a.note and "residual spread of collective ends 0.000 us" in a.note


def test_offsets_within_the_jitter(tmp_path):
    """Ends moved by up to ±300 ns each: the median of end differences stays within 2 x 300 ns of the truth,
    and the residual spread is at most 2 x 300 + that error."""
    con, truth, ids = make_job(tmp_path, "--ranks", "4", "--layers", "8", "--passes", "3", "--jitter-ns", "300",
                               "--offsets-us", "0,-5000,777,31", "--seed", "3")
    a = align.rank_offsets(con, list(ids.values()))
    errors = [abs(a.offsets[ids[r]] - truth["align_ns"][str(r)]) for r in ids]
    assert max(errors) <= 600, errors
    assert 0 < a.residual_ns <= 600 + 2 * max(errors)


def test_chained_through_shared_ranks(tmp_path):
    """--tp 2 on 4 ranks: all-reduces in {0,1} and {2,3}, all-gathers in {0,2} and {1,3}: rank 3 shares no
    collective with rank 0, and is reached over 1 or 2."""
    con, truth, ids = make_job(tmp_path, "--ranks", "4", "--tp", "2", "--layers", "3", "--passes", "2",
                               "--offsets-us", "0,100,-2500,40000")
    a = align.rank_offsets(con, list(ids.values()))
    assert {r: a.offsets[ids[r]] for r in ids} == {int(r): v for r, v in truth["align_ns"].items()}
    groups = con.execute("SELECT grp, list(DISTINCT rank ORDER BY rank) FROM _coll_match GROUP BY grp "
                         "ORDER BY grp").fetchall()
    assert all(0 not in ranks or 3 not in ranks for _, ranks in groups)   # no group holds both 0 and 3


def test_no_align_and_no_collectives_leave_raw_clocks(tmp_path):
    con, _, ids = make_job(tmp_path, "--ranks", "2", "--layers", "2", "--passes", "1", "--offsets-us", "0,50")
    a = align.rank_offsets(con, list(ids.values()), align=False)
    assert (a.aligned, set(a.offsets.values())) == (False, {0}) and "raw (--no-align)" in a.note
    for n, factor in (("a", 1), ("b", 2)):      # two GPU traces without any NCCL kernel
        path = str(tmp_path / f"{n}.json")
        tiny_kineto.write(path, dur_factor=factor)
        tracedb.ingest_trace(con, path, name=n)
    runs = [r for (r,) in con.execute("SELECT run_id FROM runs WHERE name IN ('a', 'b')").fetchall()]
    a = align.rank_offsets(con, runs)
    assert not a.aligned and set(a.offsets.values()) == {0}
    assert "clocks are raw (no collective matched across ranks" in a.note


def test_callers_categories_are_kept(tmp_path):
    """rank_offsets categorises the runs' kernels itself; a caller's _cats (report ranks, its own profile)
    is the same afterwards."""
    con, _, ids = make_job(tmp_path, "--ranks", "2", "--layers", "2", "--passes", "1")
    con.execute("CREATE TEMP TABLE _cats AS SELECT 'x' AS name, NULL AS op_type, 0 AS cat_ord, 'mine' AS category")
    align.rank_offsets(con, list(ids.values()))
    assert con.execute("SELECT * FROM _cats").fetchall() == [("x", None, 0, "mine")]


@pytest.fixture(autouse=True)
def _generator_present():
    if not os.path.exists(GEN_JOB):
        pytest.skip("bench/gen_job.py is not in this checkout")
