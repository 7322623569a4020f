"""A kept segmentation is proved against the store before a report restores it, never trusted: each table of
tracedb_cache forged (durations x1000, layers or passes renumbered, rows doubled, a phase 'sideways', a
category moved, a table replaced by a view that reads a file or never ends, a column dropped or of another
type, an index row pointing at tables that are not there) and the store's own rows changed after
`tracedb segment` (`tracedb sql --write`) each give the figures a report computes without any kept
segmentation, and a note saying why the kept one was set aside. `tracedb segment` then keeps it anew."""
import json
import subprocess

import duckdb
import pytest

import tiny_job
import tiny_steps
from helpers import cli, copy_store, tracedb_exe

KEPT = "kept in the store, restored"     # the parameter `segmentation` of a report that restored one


def kept(doc) -> bool:
    return doc["params"].get("segmentation") == KEPT

SET_ASIDE = "kept segmentation set aside: "
AFRESH = "; segmented afresh (`tracedb segment` keeps it again)"
JOB = ["--tag", "job=job"]
# the per-layer figures of every pass (sum_us, wall_us, kernels, categories) and one pass's kernels by name
REPORTS = [("layers", "--pass", "all", *JOB), ("kernels", "--pass", "1", *JOB)]
SECRET = "AWS_SECRET=xyz"


def report(db, *args) -> dict:
    return json.loads(cli("report", *args, "--db", db, "--format", "json").stdout)


def forge(db, *statements):
    """Change the store as anyone who can write it may: any DuckDB client, any SQL."""
    con = duckdb.connect(db)
    try:
        for s in statements:
            con.execute(s)
    finally:
        con.close()


def without_cache(db, tmp_path, *args) -> dict:
    """The report on a copy of `db` that holds no kept segmentation: the figures computed afresh."""
    copy = copy_store(db, str(tmp_path / "afresh.duckdb"))
    forge(copy, "DROP SCHEMA IF EXISTS tracedb_cache CASCADE")
    return report(copy, *args)


def set_aside(got: dict, want: dict) -> str:
    """`got` is `want` (its rows, columns, parameters and notes) plus one note that sets the kept segmentation
    aside; returns what that note says failed."""
    aside = [n for n in got["notes"] if n.startswith(SET_ASIDE)]
    assert len(aside) == 1, got["notes"]
    assert not kept(got)
    assert [n for n in got["notes"] if not n.startswith(SET_ASIDE)] == want["notes"]
    assert {k: v for k, v in got.items() if k != "notes"} == {k: v for k, v in want.items() if k != "notes"}
    assert aside[0].endswith(AFRESH)
    return aside[0][len(SET_ASIDE):-len(AFRESH)]


@pytest.fixture(scope="module")
def kept_job(tmp_path_factory):
    """The tiny job (3 ranks, 3 forward passes of 2 layers) with its segmentation kept, and each report
    computed before anything was kept."""
    d = tmp_path_factory.mktemp("kept_job")
    import tracedb
    db = str(d / "j.duckdb")
    con = tracedb.connect(db)
    try:
        tiny_job.ingest(con, d)
    finally:
        con.close()
    want = {r: report(db, *r) for r in REPORTS}
    cli("segment", "--db", db, *JOB)
    assert all(kept(report(db, *r)) for r in REPORTS)
    return db, want


@pytest.fixture
def job(kept_job, tmp_path):
    db, want = kept_job
    return copy_store(db, str(tmp_path / "j.duckdb")), want


def secret_file(tmp_path) -> str:
    path = tmp_path / "secret.txt"
    path.write_text(SECRET + "\n")
    return str(path)


S = "tracedb_cache."
FORGERIES = [
    ("durations x1000", [f"UPDATE {S}s1_assigned SET dur_ns = dur_ns * 1000, end_ns = start_ns + dur_ns * 1000"],
     "run 'job-rank0' pass 0 layer 0: 3 kernels, 38500.000 us kept; 0 of them the store has as kept "
     "(start, duration, category), with 38.500 us"),
    ("one duration x1000, its end kept", [f"UPDATE {S}s1_assigned SET dur_ns = dur_ns * 1000 WHERE (run_id, seq) = "
                                          f"(SELECT (run_id, max(seq)) FROM {S}s1_assigned WHERE run_id = 2 "
                                          "AND pass = 1 AND layer = 1 GROUP BY run_id)"],
     "run 'job-rank1' pass 1 layer 1: 3 kernels, 23030.000 us kept; 2 of them the store has as kept "
     "(start, duration, category), with 53.000 us"),
    ("layers renumbered", [f"UPDATE {S}s1_assigned SET layer = layer + 1"],
     "run 'job-rank0' pass 0: 3 rows of unit layer, layer 1, block 0, half 0: not what their block gives"),
    ("layers and blocks renumbered", [f"UPDATE {S}s1_assigned SET layer = layer + 5, block = block + 5"],
     "run 'job-rank0' pass 0: 3 rows of unit layer, layer 5, block 5, half 0: not what their block gives"),
    ("passes renumbered", [f"UPDATE {S}s1_passes SET pass = pass + 1"],
     "run 'job-rank0': its passes are numbered 1..3 in 3 rows, not 0..2 once each"),
    ("the last pass dropped", [f"DELETE FROM {S}s1_{t} WHERE pass = 2" for t in
                               ("passes", "windows", "assigned", "pass_info", "anchor_pass", "sel")]
     + [f"DELETE FROM {S}s1_anchors WHERE idx >= 4"],
     "run 'job-rank0': 4 anchors kept, numbered 0..3; the store has 6 kernels its anchor pattern matches"),
    ("a layer's rows dropped", [f"DELETE FROM {S}s1_assigned WHERE layer = 1"],
     "run 'job-rank0' pass 0: 4 kernels kept, 7 in its window in the store"),
    ("layer rows doubled", [f"INSERT INTO {S}s1_assigned SELECT * FROM {S}s1_assigned"],
     "its layer rows hold 63 kernels more than once"),
    ("passes doubled", [f"INSERT INTO {S}s1_passes SELECT * FROM {S}s1_passes"],
     "run 'job-rank0': its passes are numbered 0..2 in 6 rows, not 0..2 once each"),
    ("windows doubled", [f"INSERT INTO {S}s1_windows SELECT * FROM {S}s1_windows"],
     "run 'job-rank0' pass 0: 2 windows"),
    ("steps doubled", [f"INSERT INTO {S}s1_pass_info SELECT * FROM {S}s1_pass_info"],
     "run 'job-rank0' pass 0: 2 step rows, for a pass it does not have or more than once"),
    ("anchors doubled", [f"INSERT INTO {S}s1_anchors SELECT * FROM {S}s1_anchors"],
     "its anchors hold a kernel more than once"),
    ("categories doubled", [f"INSERT INTO {S}s1_cats SELECT * FROM {S}s1_cats"],
     "4 kernel names of another category than the profile gives them, or of several"),
    ("a category moved", [f"UPDATE {S}s1_cats SET (cat_ord, category) = (3, 'gemm') WHERE name = 'attn_fwd_kernel'",
                          f"UPDATE {S}s1_assigned SET cat_ord = 3 WHERE cat_ord = 2"],
     "2 kernel names of another category than the profile gives them, or of several"),
    ("a rule changed", [f"UPDATE {S}s1_rules SET pattern = 'gemm|attn' WHERE category = 'gemm'"],
     "its category rules are not the profile's"),
    ("anchors moved to other blocks", [f"UPDATE {S}s1_anchor_pass SET block = block + 1"],
     "run 'job-rank0' pass 0: 2 anchors numbered 0..1 for 2 anchors from block 0 of 2"),
    ("a column dropped", [f"ALTER TABLE {S}s1_assigned DROP COLUMN cat_ord"],
     "tracedb_cache.s1_assigned has 'unit VARCHAR' as column 11, not cat_ord INTEGER"),
    ("a column of another type", [f"ALTER TABLE {S}s1_passes ALTER COLUMN pass TYPE VARCHAR"],
     "tracedb_cache.s1_passes has 'pass VARCHAR' as column 2, not pass BIGINT"),
    ("a column added", [f"ALTER TABLE {S}s1_marks ADD COLUMN x INTEGER"],
     "tracedb_cache.s1_marks has an extra column 'x INTEGER'"),
    ("a table replaced by a macro", [f"DROP TABLE {S}s1_windows",
                                     f"CREATE MACRO {S}s1_windows() AS TABLE SELECT 1 AS run_id"],
     "its table tracedb_cache.s1_windows is missing"),
    ("the index row moved to other tables", ["UPDATE tracedb_cache.segmentations SET snap_id = 7"],
     "its table tracedb_cache.s7_anchor_pass is missing"),
    ("a table the index does not list", [f"UPDATE {S}segmentations SET tables = list_append(tables, '_extra')"],
     "it lists '_extra', not a table `tracedb segment` keeps"),
    ("a table it must keep unlisted", [f"UPDATE {S}segmentations SET tables = "
                                       "list_filter(tables, lambda t: t <> '_windows')"],
     "it lacks its table _windows"),
    ("a run's name dropped from the options", [
        f"UPDATE {S}segmentations SET state = replace(state, '[2, \"job-rank1\"], ', '')"],
     "its options (run_names) are not well-formed, or not the ones asked for"),
    ("layers as text in the options", [f"UPDATE {S}segmentations SET state = replace(state, '\"layers\": null', "
                                       "'\"layers\": \"two\"')"],
     "its options (layers) are not well-formed, or not the ones asked for"),
    ("phase sideways in the options", [f"UPDATE {S}segmentations SET state = replace(state, '\"phase\": \"forward\"', "
                                       "'\"phase\": \"sideways\"')"],
     "its options (phase) are not well-formed, or not the ones asked for"),
    ("no digest", [f"UPDATE {S}segmentations SET digests = NULL"], "it has no digest of its runs' rows"),
    ("the index short of a column", [f"ALTER TABLE {S}segmentations DROP COLUMN tracedb_version"],
     "tracedb_cache.segmentations is a table of other columns, not the index `tracedb segment` makes, so "
     "nothing in it was read"),
]


@pytest.mark.parametrize("statements, why", [pytest.param(s, w, id=i) for i, s, w in FORGERIES])
def test_a_forged_kept_segmentation_gives_the_figures_computed_afresh(job, statements, why):
    db, want = job
    forge(db, *statements)
    for args in REPORTS:
        assert set_aside(report(db, *args), want[args]) == why
    # segmenting again keeps it anew, whatever was forged, and the reports restore it
    cli("segment", "--db", db, *JOB)
    for args in REPORTS:
        got = report(db, *args)
        assert got["notes"] == want[args]["notes"] and kept(got)


@pytest.mark.parametrize("table", ["s1_cats", "s1_assigned"])
def test_a_view_over_a_file_is_never_read(job, tmp_path, table):
    """A kept table replaced by a view of the same columns that reads a local file: a restore that read it would
    print the file (`report kernels` shows the kernel names of _cats); the view is never queried."""
    db, want = job
    con = duckdb.connect(db)
    try:
        cols = con.execute("SELECT list(column_name || ' ' || data_type ORDER BY column_index) FROM duckdb_columns() "
                           "WHERE schema_name = 'tracedb_cache' AND table_name = $t", {"t": table}).fetchone()[0]
        select = ", ".join(f"content::{c.split(' ', 1)[1]} AS {c.split(' ', 1)[0]}" if c.endswith("VARCHAR")
                           else f"NULL::{c.split(' ', 1)[1]} AS {c.split(' ', 1)[0]}" for c in cols)
        con.execute(f"DROP TABLE tracedb_cache.{table}")
        con.execute(f"CREATE VIEW tracedb_cache.{table} AS SELECT {select} FROM read_text('{secret_file(tmp_path)}')")
    finally:
        con.close()
    for args in REPORTS:
        out = cli("report", *args, "--db", db, "--format", "json")
        assert SECRET not in out.stdout + out.stderr
        assert set_aside(json.loads(out.stdout), want[args]) == \
            f"tracedb_cache.{table} is a view, not a table, so it was not read"
    # text output too
    out = cli("report", "kernels", "--pass", "1", *JOB, "--db", db)
    assert SECRET not in out.stdout + out.stderr
    cli("segment", "--db", db, *JOB)      # the view gives way to the kept table
    assert kept(report(db, *REPORTS[0]))


def test_an_index_that_is_a_view_is_never_read(job, tmp_path):
    db, want = job
    forge(db, "DROP TABLE tracedb_cache.segmentations",
          "CREATE VIEW tracedb_cache.segmentations AS SELECT 1 AS snap_id, [content] AS keys, [1, 2, 3] AS run_ids, "
          f"['_assigned'] AS tables, content AS state, now()::TIMESTAMP AS made_at, content AS tracedb_version, "
          f"content AS digests FROM read_text('{secret_file(tmp_path)}')")
    for args in REPORTS:
        out = cli("report", *args, "--db", db, "--format", "json")
        assert SECRET not in out.stdout + out.stderr
        assert set_aside(json.loads(out.stdout), want[args]) == \
            "tracedb_cache.segmentations is a view, not the index `tracedb segment` makes, so nothing in it was read"
    cli("runs", "rm", "job-rank2", "--db", db)      # forgetting a run's kept segmentations reads no such view
    cli("segment", "--db", db, *JOB)
    got = report(db, "ranks", *JOB)
    assert kept(got)


def test_an_index_kept_by_an_earlier_tracedb_is_passed_over(job):
    """An index without the digests column is an earlier tracedb's: its keys name other code, so nothing in it
    is for this one (computed afresh, nothing to say); `tracedb segment` adds the column and keeps anew."""
    db, want = job
    forge(db, "ALTER TABLE tracedb_cache.segmentations DROP COLUMN digests")
    assert report(db, *REPORTS[0]) == want[REPORTS[0]]
    cli("segment", "--db", db, *JOB)
    got = report(db, *REPORTS[0])
    assert got["notes"] == want[REPORTS[0]]["notes"] and kept(got)


def test_an_endless_view_does_not_hang_a_report(job):
    """A recursive view that never ends, in place of a kept table: a report would never return had it read it.
    Segmented and reported as processes of their own (the key names the code they read), the report stopped
    after 300 s should it hang (it takes ~2 s)."""
    db, want = job

    def run(*args):
        p = subprocess.run([tracedb_exe(), *args, "--db", db], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        return p.stdout
    run("segment", *JOB)
    con = duckdb.connect(db, read_only=True)
    try:
        snap_id = con.execute("SELECT snap_id FROM tracedb_cache.segmentations").fetchone()[0]
    finally:
        con.close()
    forge(db, f"DROP TABLE tracedb_cache.s{snap_id}_passes",
          f"CREATE VIEW tracedb_cache.s{snap_id}_passes AS WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 "
          "FROM r) SELECT 1::INTEGER AS run_id, i::BIGINT AS pass, 1::BIGINT AS anchors, 0::BIGINT AS first_start, "
          "0::BIGINT AS last_end, 2::BIGINT AS expected, false AS partial, 0::HUGEINT AS grp, 0::BIGINT AS block_base "
          "FROM r")
    args = REPORTS[0]
    assert set_aside(json.loads(run("report", *args, "--format", "json")), want[args]) == \
        f"tracedb_cache.s{snap_id}_passes is a view, not a table, so it was not read"


def test_rows_changed_after_segment_give_the_new_figures(job, tmp_path):
    """`tracedb sql --write` doubles a run's kernel durations after `tracedb segment`: the kept segmentation
    was made from the old rows, so the report computes afresh and shows the new durations."""
    db, want = job
    cli("sql", "--db", db, "--write", "UPDATE trace_events SET dur_ns = dur_ns * 2 "
        "WHERE kind IS NOT NULL AND run_id = (SELECT run_id FROM runs WHERE name = 'job-rank1')")
    for args in REPORTS:
        afresh = without_cache(db, tmp_path, *args)
        assert afresh["rows"] != want[args]["rows"]
        assert set_aside(report(db, *args), afresh) == \
            "run 'job-rank1' changed since it was kept: 21 kernels, 0.280 ms of device time then; " \
            "21 kernels, 0.559 ms now"


@pytest.mark.parametrize("change, why", [
    ("UPDATE trace_events SET name = 'gemm_kernel_v2' WHERE name = 'gemm_kernel' AND run_id = 3",
     "run 'job-rank2' changed since it was kept: its kernels are not the same rows"),
    ("UPDATE trace_events SET name = 'renamed' WHERE ph = 'M' AND run_id = 1",
     "run 'job-rank0' changed since it was kept: its trace events are not the same rows"),
    ("UPDATE runs SET tags = map_concat(tags, MAP {'kind': 'simulated'}) WHERE run_id = 2",
     "run 'job-rank1' changed since it was kept: its entry in runs"),
])
def test_other_changed_rows_set_it_aside_too(job, tmp_path, change, why):
    db, _ = job
    cli("sql", "--db", db, "--write", change)
    args = REPORTS[0]
    assert set_aside(report(db, *args), without_cache(db, tmp_path, *args)) == why


def test_a_phase_sideways_in_a_training_run(tmp_path):
    """A training run keeps a forward and a backward segmentation; its kernel phases forged to 'sideways'."""
    db = str(tmp_path / "t.duckdb")
    cli("ingest", tiny_steps.write(tmp_path / "t.json", "sequential_training", layers=3, steps=2), "--db", db,
        "--name", "train", "--no-segment")
    args = ("layers", "--run", "train", "--phase", "backward", "--pass", "all")
    want = report(db, *args)
    cli("segment", "--db", db, "--run", "train")
    forge(db, "UPDATE tracedb_cache.s2_phase SET phase = 'sideways' WHERE phase = 'optimizer'")
    assert set_aside(report(db, *args), want) == "6 kernel phase rows say sideways/NULL/name, sideways/NULL/order"


def test_each_kept_table_as_a_view_or_of_other_columns_is_never_read(job):
    """Every table a segmentation keeps, in turn a view, short of a column, or with a column of another
    type: the proof stops at the schema listing (no SELECT from it) and says which."""
    import tracedb
    from dataclasses import fields
    from tracedb.engine.segmentation import binding, snapshots
    db, _ = job
    opt = binding.Options(tags=["job=job"])
    state_fields = {f.name for f in fields(binding.Bound)} - set(binding._SESSION_FIELDS)
    con = tracedb.connect(db)
    try:
        tables = con.execute("SELECT tables FROM tracedb_cache.segmentations").fetchone()[0]
        assert snapshots.prove(con, opt, state_fields).tables == tables
        for t in tables:
            name = f"tracedb_cache.s1{t}"
            first = snapshots.SHAPES[t][0].split(" ")
            for damage, says in [
                (f"ALTER TABLE {name} RENAME TO s1_moved; CREATE VIEW {name} AS FROM tracedb_cache.s1_moved",
                 f"{name} is a view, not a table, so it was not read"),
                (f"CREATE TABLE tracedb_cache.s1_moved AS FROM {name}; ALTER TABLE {name} DROP COLUMN {first[0]}"
                 if len(snapshots.SHAPES[t]) > 1 else
                 f"CREATE TABLE tracedb_cache.s1_moved AS FROM {name}; ALTER TABLE {name} ADD COLUMN x INTEGER",
                 f"{name} has "),
                (f"CREATE TABLE tracedb_cache.s1_moved AS FROM {name}; "
                 f"ALTER TABLE {name} ALTER COLUMN {first[0]} TYPE {'VARCHAR' if first[1] != 'VARCHAR' else 'INTEGER'}"
                 f" USING NULL", f"{name} has '{first[0]} "),
            ]:
                con.execute(damage)
                with pytest.raises(snapshots.SetAside) as e:
                    snapshots.prove(con, opt, state_fields)
                assert str(e.value).startswith(says), (t, damage)
                con.execute(f"DROP VIEW IF EXISTS {name}" if "VIEW" in damage else f"DROP TABLE {name}")
                con.execute(f"ALTER TABLE tracedb_cache.s1_moved RENAME TO s1{t}")
        assert snapshots.prove(con, opt, state_fields).tables == tables
    finally:
        con.close()


def test_the_shapes_are_those_a_segmentation_makes(tmp_path):
    """snapshots.SHAPES lists the columns of every table `tracedb segment` keeps, as the stages make them: an
    inference job (the anchor proposed), the same with a given anchor, and a training run (both phases)."""
    from tracedb.engine.segmentation import snapshots
    import tracedb
    seen = {}
    cases = [("job", JOB), ("job", [*JOB, "--anchor", "attn_fwd", "--layers", "2"]), ("train", ["--run", "train"])]
    for i, (what, args) in enumerate(cases):
        db = str(tmp_path / f"s{i}.duckdb")
        if what == "job":
            con = tracedb.connect(db)
            try:
                tiny_job.ingest(con, tmp_path)
            finally:
                con.close()
        else:
            cli("ingest", tiny_steps.write(tmp_path / "t.json", "sequential_training", layers=3, steps=2), "--db", db,
                "--name", "train", "--no-segment")
        cli("segment", "--db", db, *args)
        con = duckdb.connect(db, read_only=True)
        try:
            for table, cols in con.execute(
                    "SELECT table_name, list(column_name || ' ' || data_type ORDER BY column_index) "
                    "FROM duckdb_columns() WHERE schema_name = 'tracedb_cache' AND table_name <> 'segmentations' "
                    "GROUP BY ALL").fetchall():
                seen.setdefault("_" + table.split("_", 1)[1], []).append(cols)
        finally:
            con.close()
    wrong = {}
    for t, shapes in seen.items():
        for cols in shapes:
            if t not in snapshots.SHAPES or snapshots._fits(cols, snapshots.SHAPES[t]):
                wrong[t] = tuple(cols)
    assert not wrong, "engine/segmentation/snapshots.py SHAPES differ from what the stages make; write:\n" + \
        "\n".join(f"    {t!r}: {cols!r}," for t, cols in sorted(wrong.items()))
    assert set(snapshots.SHAPES) - snapshots.OPTIONAL <= set(seen)
