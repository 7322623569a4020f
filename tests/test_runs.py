"""Many runs in one store: --run NAME|GLOB and --tag selection in reports, `tracedb runs` (list with sizes
and pass counts, rm, rename, tag). Schema v3 itself (migration, views) is tested in test_store.py."""
import csv
import io
import os

import pytest

import tiny_kineto
import tiny_trace
import tracedb
from tracedb.engine.reports.registry import render_report
from helpers import cli, copy_store
from test_store import v2_store
from tracedb.engine.store.connect import resolve_runs
from tracedb.errors import UsageError

SEG = {"profile": "qwen3-npu", "layers": 2}


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope="module")
def four_runs(tmp_path_factory):
    """The folder of the traces and the store file behind `store`, ingested once for the module."""
    folder = tmp_path_factory.mktemp("four_runs")
    db = str(folder / "store.duckdb")
    con = tracedb.connect(db)
    runs = [("dsv3-a", {"hw": "910B", "batch": "16"}), ("dsv3-b", {"hw": "910C"}), ("qwen-a", {"hw": "910B"}),
            ("odd[1]", {})]
    for i, (name, tags) in enumerate(runs):
        tracedb.ingest_trace(con, tiny_trace.write(folder / f"{i}.csv", dur_factor=i + 1), name=name, tags=tags)
    con.close()
    return folder, db


@pytest.fixture
def store(four_runs, db_path):
    """Four runs of the tiny trace (durations x1, x2, x3, x4, so no two hold identical content), in this
    store order: dsv3-a (hw=910B, batch=16), dsv3-b (hw=910C), qwen-a (hw=910B), 'odd[1]' (no tags); a
    writable connection to this test's own copy of the store at db_path."""
    copy_store(four_runs[1], db_path)
    con = tracedb.connect(db_path)
    yield con
    con.close()


def names(con, ids):
    got = dict(con.execute("SELECT run_id, name FROM runs").fetchall())
    return [got[i] for i in ids]


# ---------------------------------------------------------------------------------------------- selection
@pytest.mark.parametrize("runs, tags, want", [
    (["dsv3-*"], [], ["dsv3-a", "dsv3-b"]),                          # a glob: matches in store order
    (["qwen-a", "dsv3-*"], [], ["qwen-a", "dsv3-a", "dsv3-b"]),       # names keep the order given
    (["dsv3-?", "dsv3-a"], [], ["dsv3-a", "dsv3-b"]),                # duplicates dropped, first place kept
    (["*-[!b]"], [], ["dsv3-a", "qwen-a"]),                           # DuckDB GLOB classes, negated
    (["odd[1]"], [], ["odd[1]"]),                                     # an existing name is literal
    (["odd[[]1]"], [], ["odd[1]"]),                                   # ... and reachable by GLOB too
    ([], ["hw=910B"], ["dsv3-a", "qwen-a"]),                          # --tag alone: among all runs
    ([], ["hw"], ["dsv3-a", "dsv3-b", "qwen-a"]),                     # KEY alone: has the key
    ([], ["hw=910B", "batch"], ["dsv3-a"]),                           # every filter must match
    (["qwen-a", "dsv3-*"], ["hw=910B"], ["qwen-a", "dsv3-a"]),        # tags filter the runs named
    ([], ["batch="], None),                                           # an empty value is a value
])
def test_resolve_runs(store, runs, tags, want):
    if want is None:
        with pytest.raises(UsageError):
            resolve_runs(store, runs, tags)
        return
    assert names(store, resolve_runs(store, runs, tags)) == want


def test_selection_errors_are_one_line_and_name_the_request(store):
    with pytest.raises(UsageError) as e:
        resolve_runs(store, ["glm5-*"])
    assert str(e.value) == ("run pattern 'glm5-*' matches no run name (DuckDB GLOB: * ? [abc] [!abc], case-sensitive); "
                            "runs in the store: dsv3-a, dsv3-b, qwen-a, odd[1]")
    with pytest.raises(UsageError) as e:
        resolve_runs(store, [], ["hw=b200"])
    assert str(e.value) == ("--tag hw=b200: no run matches; runs in the store: dsv3-a (hw=910B, batch=16), "
                            "dsv3-b (hw=910C), qwen-a (hw=910B), odd[1] (no tags)")
    with pytest.raises(UsageError, match=r"^--tag hw=910C among the runs of --run: no run matches"):
        resolve_runs(store, ["qwen-a"], ["hw=910C"])
    with pytest.raises(UsageError, match=r"^unknown run 'DSV3-A'; runs in the store"):
        resolve_runs(store, ["DSV3-A"])                             # case-sensitive
    with pytest.raises(UsageError, match="give at least one --run NAME|GLOB or --tag"):
        resolve_runs(store, [], [])
    with pytest.raises(UsageError, match="expected KEY=VALUE or KEY"):
        resolve_runs(store, [], ["=x"])


def test_reports_stack_the_selected_runs(store):
    # passes of every run tagged hw=910B: 4 passes each, the run column tells them apart
    got = rows(render_report(store, "passes", tags=["hw=910B"], fmt="csv", **SEG))
    assert [(r["run"], r["pass"]) for r in got] == [(run, str(p)) for run in ("dsv3-a", "qwen-a") for p in range(4)]
    # the same through a glob, for layers, kernels and timeline: a run column with both runs, in store order
    for report, extra in (("layers", {}), ("kernels", {"pass_spec": "3"}), ("timeline", {})):
        got = rows(render_report(store, report, runs=["dsv3-*"], fmt="csv", **SEG, **extra))
        assert list(dict.fromkeys(r["run"] for r in got)) == ["dsv3-a", "dsv3-b"], report


def test_compare_by_tag_keeps_the_first_run_as_reference(store):
    got = rows(render_report(store, "compare", tags=["hw"], runs=["qwen-a", "dsv3-*"], by="layer",
                              pass_spec="3", fmt="csv", **SEG))
    layer0 = [r for r in got if r["layer"] == "0"]
    # durations x3 (qwen-a, the reference), x1, x2: ratios 1/3 and 2/3
    assert [(r["run"], r["ratio"]) for r in layer0] == [("qwen-a", "1.000"), ("dsv3-a", "0.333"), ("dsv3-b", "0.667")]


def test_cli_selection(store, db_path):
    store.close()
    out = cli("report", "passes", "--db", db_path, "-t", "hw=910C", "-p", "qwen3-npu", "-l", "2", "-f", "csv").stdout
    assert {r["run"] for r in rows(out)} == {"dsv3-b"}
    out = cli("report", "modules", "--db", db_path, "--run", "qwen-*", "-f", "csv").stdout
    assert {r["run"] for r in rows(out)} == {"qwen-a"}
    for report in ("passes", "layers", "kernels", "timeline", "modules", "cores", "compare"):
        p = cli("report", report, "--db", db_path, "--run", "nope-*", check=False)
        assert (p.returncode, p.stdout) == (2, ""), report
        assert p.stderr.startswith("error: run pattern 'nope-*' matches no run name") and p.stderr.count("\n") == 1
    p = cli("report", "layers", "--db", db_path, check=False)
    assert p.returncode == 2 and "give at least one --run NAME|GLOB or --tag" in p.stderr


def test_cores_two_run_layout_through_a_glob(con, tmp_path):
    from test_cores import tracr
    for name, scale in (("cce", 1.0), ("gen", 2.3)):
        tracedb.ingest_trace(con, tracr(tmp_path / f"{name}.json", scale=scale), name=name,
                             core_rules=["^cube=AIC", "^vec=AIV"], tags={"kind": "attn"})
    out = render_report(con, "cores", tags=["kind=attn"], fmt="csv").splitlines()
    assert out[1] == "AIC,cce,2,10.000,gen,2,23.000,2.300"


# ---------------------------------------------------------------------------------------------- listing
def test_runs_listing_sizes_tags_and_selection(store, db_path, four_runs):
    store.close()
    got = rows(cli("runs", "--db", db_path, "--format", "csv").stdout)
    assert list(got[0]) == ["run", "source", "format", "rank", "device", "source_mb", "kernel_rows", "kernels",
                            "duplicates", "passes", "span_ms", "tags", "ingested_at"]
    size = os.path.getsize(four_runs[0] / "0.csv")
    assert (got[0]["run"], got[0]["source_mb"], got[0]["kernel_rows"], got[0]["kernels"], got[0]["passes"],
            got[0]["tags"]) == ("dsv3-a", f"{size / 1e6:.3f}", "68", "60", "", "hw=910B, batch=16")
    con = tracedb.connect(db_path, read_only=True)
    assert con.execute("SELECT source_bytes FROM runs WHERE name = 'dsv3-a'").fetchone() == (size,)
    con.close()
    picked = rows(cli("runs", "--db", db_path, "-f", "csv", "-r", "*-a", "-t", "hw=910B").stdout)
    assert [r["run"] for r in picked] == ["dsv3-a", "qwen-a"]


def test_runs_pass_counts_are_opt_in(store, db_path):
    store.close()
    # 4 passes with the profile's anchor and 2 layers; without options the generic profile proposes the
    # attention kernel (seen twice in each of the 4 gap-separated passes) and says so
    got = rows(cli("runs", "--db", db_path, "-f", "csv", "--passes", "-p", "qwen3-npu", "-l", "2").stdout)
    assert [r["passes"] for r in got] == ["4"] * 4
    p = cli("runs", "--db", db_path, "-f", "csv", "--passes", "-r", "qwen-a")
    assert [r["passes"] for r in rows(p.stdout)] == ["4"]
    assert p.stderr.startswith("note: run 'qwen-a': anchor chosen: FusedInferAttentionScore — ")
    p = cli("runs", "--db", db_path, "-f", "csv", "--passes", "-r", "qwen-a", "--anchor", "NoSuchKernel")
    assert [r["passes"] for r in rows(p.stdout)] == [""]
    assert p.stderr.startswith("note: no pass count: run 'qwen-a': no kernel name or op type matches anchor")
    # a wrong option is an error, not a note per run
    p = cli("runs", "--db", db_path, "--passes", "--profile", "no-such-profile", check=False)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "no-such-profile" in p.stderr


# ---------------------------------------------------------------------------------------------- rm / rename / tag
def run_names(db_path):
    con = tracedb.connect(db_path, read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT name FROM runs ORDER BY run_id").fetchall()]
    finally:
        con.close()


def test_rm_prints_what_it_removed_and_refuses_a_pattern_matching_nothing(store, db_path):
    store.close()
    p = cli("runs", "rm", "dsv3-*", "nothing-*", "--db", db_path, check=False)
    assert (p.returncode, p.stdout) == (2, "") and "'nothing-*' matches no run name" in p.stderr
    assert run_names(db_path) == ["dsv3-a", "dsv3-b", "qwen-a", "odd[1]"]          # nothing removed
    p = cli("runs", "rm", "dsv3-*", "odd[1]", "--db", db_path)
    assert p.stdout.splitlines() == ["removed run 'dsv3-a' (68 kernel rows)", "removed run 'dsv3-b' (68 kernel rows)",
                                     "removed run 'odd[1]' (68 kernel rows)"]
    assert run_names(db_path) == ["qwen-a"]
    con = tracedb.connect(db_path, read_only=True)
    assert con.execute("SELECT DISTINCT run_id FROM kernels_raw").fetchall() == [(3,)]
    con.close()


def test_rm_takes_host_events_and_tracks_too(con, tmp_path, db_path):
    tracedb.ingest_trace(con, tiny_kineto.write(tmp_path / "t.json"), name="gpu")
    con.close()
    cli("runs", "--db", db_path, "rm", "gpu")     # --db before the subcommand is honoured
    con = tracedb.connect(db_path, read_only=True)
    assert [con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("runs", "kernels_raw", "host_events", "tracks")] == [0, 0, 0, 0]
    con.close()


def test_listing_options_before_a_subcommand_are_refused(store, db_path):
    store.close()
    p = cli("runs", "--tag", "hw=910C", "rm", "*", "--db", db_path, check=False)
    assert (p.returncode, p.stderr) == (2, "error: --tag: options of the listing (`tracedb runs`), not of "
                                           "`tracedb runs rm`\n")
    assert len(run_names(db_path)) == 4


def test_rename(store, db_path):
    store.close()
    p = cli("runs", "rename", "dsv3-a", "qwen-a", "--db", db_path, check=False)
    assert (p.returncode, p.stderr.count("\n")) == (2, 1) and "run 'qwen-a' already exists" in p.stderr
    p = cli("runs", "rename", "dsv3-*", "x", "--db", db_path, check=False)     # never a pattern
    assert p.returncode == 2 and "unknown run 'dsv3-*'" in p.stderr
    assert run_names(db_path) == ["dsv3-a", "dsv3-b", "qwen-a", "odd[1]"]
    assert cli("runs", "rename", "dsv3-a", "dsv3-a-old", "--db", db_path).stdout == \
        "renamed run 'dsv3-a' to 'dsv3-a-old'\n"
    assert run_names(db_path) == ["dsv3-a-old", "dsv3-b", "qwen-a", "odd[1]"]   # same run_id, same place


def test_tag_sets_replaces_and_removes(store, db_path):
    store.close()
    out = cli("runs", "tag", "dsv3-*", "hw=b200", "note=x=y", "--untag", "batch", "--db", db_path).stdout
    assert out.splitlines() == ["run 'dsv3-a': tags hw=b200, note=x=y", "run 'dsv3-b': tags hw=b200, note=x=y"]
    assert cli("runs", "tag", "odd[1]", "k=v", "--db", db_path).stdout == "run 'odd[1]': tags k=v\n"
    assert cli("runs", "tag", "odd[1]", "-u", "k", "--db", db_path).stdout == "run 'odd[1]': tags (none)\n"
    con = tracedb.connect(db_path, read_only=True)
    assert [r[0] for r in con.execute("SELECT name FROM runs WHERE tags['hw'] = 'b200' ORDER BY run_id").fetchall()] \
        == ["dsv3-a", "dsv3-b"]
    con.close()


@pytest.mark.parametrize("args, message", [
    (["dsv3-a"], "nothing to do"),
    (["hw=1"], "no run named"),
    (["dsv3-a", "hw=1", "qwen-a"], "runs must come before the tags"),
    (["dsv3-a", "hw=1", "--untag", "hw"], "tag 'hw' is both set and removed"),
    (["nope*", "hw=1"], "'nope*' matches no run name"),
    (["dsv3-a", "=1"], "expected KEY=VALUE"),
])
def test_tag_refusals_change_nothing(store, db_path, args, message):
    store.close()
    before = cli("sql", "--db", db_path, "-f", "csv", "select name, tags from runs order by run_id").stdout
    p = cli("runs", "tag", *args, "--db", db_path, check=False)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and message in p.stderr, p.stderr
    assert cli("sql", "--db", db_path, "-f", "csv", "select name, tags from runs order by run_id").stdout == before


def test_a_failed_change_rolls_back(store):
    from tracedb.engine.admin import runs as mgmt
    with pytest.raises(UsageError):
        mgmt.remove(store, ["dsv3-a", "missing"])
    with pytest.raises(UsageError):
        mgmt.tag(store, ["dsv3-a", "missing"], ["hw=x"])
    assert store.execute("SELECT count(*), count(*) FILTER (WHERE tags['hw'] = 'x') FROM runs").fetchone() == (4, 0)
    # the connection is usable afterwards (no transaction left open)
    assert mgmt.remove(store, ["odd[1]"]) == [("odd[1]", 68)]


def test_listing_a_migrated_store(db_path):
    v2_store(db_path)
    cli("migrate", "--db", db_path)
    got = rows(cli("runs", "--db", db_path, "-f", "csv").stdout)
    assert (got[0]["run"], got[0]["source_mb"], got[0]["kernel_rows"]) == ("old", "", "2")   # size unknown


def test_a_store_of_one_run_needs_no_run_option(tmp_path):
    sample = os.path.join(os.path.dirname(tracedb.__file__), "engine", "samples", "qwen3_decode_kernel_details.csv")
    db = str(tmp_path / "one.duckdb")
    cli("ingest", sample, "--db", db, "--name", "only")
    got = cli("report", "kernels", "--db", db, "-f", "csv").stdout
    assert got == cli("report", "kernels", "--db", db, "--run", "only", "-f", "csv").stdout and got.count("\n") > 1


def test_runs_lists_the_passes_of_a_stored_segmentation(tmp_path):
    sample = os.path.join(os.path.dirname(tracedb.__file__), "engine", "samples", "qwen3_decode_kernel_details.csv")
    db = str(tmp_path / "one.duckdb")
    cli("ingest", sample, "--db", db, "--name", "only", "--no-segment")
    before = rows(cli("runs", "--db", db, "-f", "csv").stdout)
    assert before[0]["passes"] == ""
    cli("segment", "--db", db)
    after = cli("runs", "--db", db, "-f", "csv")
    found = rows(cli("runs", "--db", db, "--passes", "-f", "csv").stdout)
    assert rows(after.stdout)[0]["passes"] == found[0]["passes"] != ""


def test_removing_or_tagging_runs_always_names_them(tmp_path):
    sample = os.path.join(os.path.dirname(tracedb.__file__), "engine", "samples", "qwen3_decode_kernel_details.csv")
    db = str(tmp_path / "one.duckdb")
    cli("ingest", sample, "--db", db, "--name", "only")
    from tracedb.engine.admin import runs as mgmt
    con = tracedb.connect(db)
    try:
        with pytest.raises(UsageError, match="name the runs to remove"):
            mgmt.remove(con, [])
        with pytest.raises(UsageError, match="name the runs to tag"):
            mgmt.tag(con, [], ["a=b"], [])
        assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    finally:
        con.close()
