"""A segmentation `tracedb segment` keeps in the store: a report on the same runs with the same options
restores it (the same rows and notes, and a note saying so), and nothing stale is ever restored."""
import json

import pytest

import tiny_job
import tiny_steps
from helpers import cli

KEPT = "kept in the store, restored"     # the parameter `segmentation` of a report that restored one
SET_ASIDE = "kept segmentation set aside: "
JOB = ["--tag", "job=job"]


def report(db, *args) -> dict:
    return json.loads(cli("report", *args, "--db", db, "--format", "json").stdout)


def kept_notes(doc) -> bool:
    """The report restored a kept segmentation: its parameters say so."""
    return doc["params"].get("segmentation") == KEPT


def same_but_the_note(after: dict, before: dict):
    """`after` is `before` restored: its rows, columns, notes and parameters, plus the parameter that says so."""
    assert kept_notes(after) and "segmentation" not in before["params"]
    assert {**after, "params": {k: v for k, v in after["params"].items() if k != "segmentation"}} == before


def sql_rows(db, query, write=False):
    return [tuple(r.values()) for r in json.loads(cli("sql", "--db", db, *(["--write"] if write else []),
                                                     "--format", "json", query).stdout)["rows"]]


@pytest.fixture
def job(tmp_path):
    import tracedb
    db = str(tmp_path / "j.duckdb")
    con = tracedb.connect(db)
    try:
        tiny_job.ingest(con, tmp_path)
    finally:
        con.close()
    return db


REPORTS = [("ranks", *JOB), ("ranks", "--per-rank", *JOB), ("blame", *JOB), ("layers", "--pass", "all", *JOB),
           ("breakdown", "--by", "layer", *JOB), ("passes", *JOB), ("kernels", "--pass", "1", *JOB)]


def test_reports_after_segment_restore_it_with_the_same_rows_and_a_note(job):
    before = [report(job, *r) for r in REPORTS]
    assert not any(kept_notes(d) for d in before)
    cli("segment", "--db", job, *JOB)
    for args, was in zip(REPORTS, before):
        same_but_the_note(report(job, *args), was)
    # one kept segmentation: the tiny job is forward only
    assert sql_rows(job, "SELECT count(*), list_sort(any_value(run_ids)) FROM tracedb_cache.segmentations") == \
        [(1, [1, 2, 3])]


def test_segment_says_what_the_ranks_share_once(job):
    """The three ranks of the job are segmented alike: the notes `tracedb segment` prints say each thing once,
    over the runs (as the reports do), and each run still has its line on stdout."""
    out = cli("segment", "--db", job, *JOB)
    notes = [ln for ln in out.stderr.splitlines() if ln.startswith("note: ")]
    assert any(ln.startswith("note: runs 'job-rank0', 'job-rank1', 'job-rank2' (3 runs): anchor chosen")
               for ln in notes), notes
    assert not any(ln.startswith("note: run 'job-rank1': anchor chosen") for ln in notes), notes
    assert sorted(ln.split("'")[1] for ln in out.stdout.splitlines()) == ["job-rank0", "job-rank1", "job-rank2"]


def test_each_run_keeps_its_own_notes(job):
    """A run's row of `segmentations` holds its notes and those about no run, never another rank's: with every
    note on every row, the table grew with the square of the ranks."""
    cli("segment", "--db", job, *JOB)
    rows = sql_rows(job, "SELECT r.name, n.note FROM segmentations s JOIN runs r USING (run_id), "
                         "unnest(s.notes) AS n(note) ORDER BY r.name")
    by_run = {}
    for name, note in rows:
        by_run.setdefault(name, []).append(note)
    assert sorted(by_run) == ["job-rank0", "job-rank1", "job-rank2"]
    for name, notes in by_run.items():
        assert any(n.startswith(f"run '{name}': anchor chosen") for n in notes), notes
        assert all(not n.startswith("run '") or n.startswith(f"run '{name}': ") for n in notes), notes
        assert any(not n.startswith("run '") for n in notes), notes


def test_other_options_or_other_runs_are_computed(job):
    cli("segment", "--db", job, *JOB)
    assert not kept_notes(report(job, "ranks", *JOB, "--layers", "2"))
    assert not kept_notes(report(job, "ranks", "--run", "job-rank0", "--run", "job-rank1"))
    assert not kept_notes(report(job, "layers", "--run", "job-rank0"))
    assert kept_notes(report(job, "ranks", "--run", "job-rank*"))     # the same three runs, named otherwise


def test_segmenting_again_replaces_what_was_kept(job):
    cli("segment", "--db", job, *JOB)
    sql_rows(job, "CREATE TABLE tracedb_cache.mine AS SELECT 1 AS x", write=True)    # not tracedb's: kept
    tables = sql_rows(job, "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'tracedb_cache'")
    cli("segment", "--db", job, *JOB, "--layers", "2")
    assert sql_rows(job, "SELECT count(*) FROM tracedb_cache.segmentations") == [(1,)]
    assert sql_rows(job, "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'tracedb_cache'") == tables
    assert sql_rows(job, "SELECT x FROM tracedb_cache.mine") == [(1,)]
    assert not kept_notes(report(job, "ranks", *JOB))
    assert kept_notes(report(job, "ranks", *JOB, "--layers", "2"))


def test_a_renamed_replaced_or_removed_run_is_never_restored(job, tmp_path):
    cli("segment", "--db", job, *JOB)
    cli("runs", "rename", "job-rank2", "r2", "--db", job)
    assert not kept_notes(report(job, "ranks", *JOB))
    assert sql_rows(job, "SELECT count(*) FROM tracedb_cache.segmentations") == [(0,)]

    cli("segment", "--db", job, *JOB)
    cli("ingest", str(tmp_path / "job_rank0.json"), "--db", job, "--name", "job-rank0", "--tag", "job=job", "--replace",
        "--no-segment")
    assert not kept_notes(report(job, "ranks", *JOB))     # the replaced run has another ingest time

    cli("segment", "--db", job, *JOB)
    cli("runs", "rm", "r2", "--db", job)
    assert sql_rows(job, "SELECT count(*) FROM tracedb_cache.segmentations") == [(0,)]
    assert sql_rows(job, "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'tracedb_cache' "
                         "AND table_name <> 'segmentations'") == [(0,)]


def test_a_changed_profile_is_computed_again(job, tmp_path):
    prof = tmp_path / "mine.toml"
    prof.write_text('extends = "generic"\nanchor = "attn_fwd_kernel"\n')
    cli("segment", "--db", job, *JOB, "--profile", str(prof))
    assert kept_notes(report(job, "ranks", *JOB, "--profile", str(prof)))
    prof.write_text('extends = "generic"\nanchor = "attn_fwd_kernel"\n'
                    '[[category]]\nname = "gemm"\npattern = "gemm"\n')
    assert not kept_notes(report(job, "ranks", *JOB, "--profile", str(prof)))


@pytest.mark.parametrize("damage, why", [
    ("UPDATE tracedb_cache.segmentations SET state = 'not json'", "its options are not JSON"),
    ("UPDATE tracedb_cache.segmentations SET state = '{}'", "its options are not the ones a segmentation keeps"),
    ("DROP TABLE tracedb_cache.s1_passes", "its table tracedb_cache.s1_passes is missing"),
    ("UPDATE tracedb_cache.segmentations SET tables = ['_passes', 'x; DROP TABLE runs']",
     "it lists 'x; DROP TABLE runs', not a table `tracedb segment` keeps"),
])
def test_a_damaged_kept_segmentation_is_computed_again(job, damage, why):
    want = report(job, "ranks", *JOB)
    cli("segment", "--db", job, *JOB)
    sql_rows(job, damage, write=True)
    got = report(job, "ranks", *JOB)
    assert [n for n in got["notes"] if n.startswith(SET_ASIDE)] == [
        f"{SET_ASIDE}{why}; segmented afresh (`tracedb segment` keeps it again)"]
    assert {**got, "notes": [n for n in got["notes"] if not n.startswith(SET_ASIDE)]} == want
    assert sql_rows(job, "SELECT count(*) FROM runs") == [(3,)]


def test_a_training_run_keeps_both_phases(tmp_path):
    db = str(tmp_path / "t.duckdb")
    cli("ingest", tiny_steps.write(tmp_path / "t.json", "sequential_training", layers=3, steps=2), "--db", db,
        "--name", "train", "--no-segment")
    args = [("passes", "--run", "train"), ("layers", "--run", "train", "--phase", "backward", "--pass", "all")]
    before = [report(db, *a) for a in args]
    cli("segment", "--db", db, "--run", "train")
    assert sql_rows(db, "SELECT count(*) FROM tracedb_cache.segmentations") == [(2,)]
    for a, was in zip(args, before):
        after = report(db, *a)
        assert kept_notes(after)
        assert after["notes"] == was["notes"]
        assert after["rows"] == was["rows"]


def test_a_report_over_many_runs_says_that_segment_would_keep_it(job, monkeypatch):
    from tracedb.engine.segmentation import segment
    monkeypatch.setattr(segment, "HINT_RUNS", 3)       # the tiny job has three ranks; real jobs 16 or more
    hint = [n for n in report(job, "ranks", *JOB)["notes"] if "runs segmented for this report" in n]
    assert hint and hint[0].startswith("3 runs segmented for this report: `tracedb segment`")
    assert not [n for n in report(job, "ranks", "--run", "job-rank0", "--run", "job-rank1")["notes"]
                if "runs segmented for this report" in n]
    cli("segment", "--db", job, *JOB)
    after = report(job, "ranks", *JOB)
    assert kept_notes(after) and not [n for n in after["notes"] if "runs segmented for this report" in n]
