"""Many runs in one store: --run NAME|GLOB and --tag selection in reports. Schema v3 itself (migration,
views) is tested in test_store.py."""
import csv
import io

import pytest

import tiny_trace
import tracedb
from conftest import cli
from tracedb.engine.store import resolve_runs
from tracedb.errors import UsageError

SEG = {"profile": "qwen3-npu", "layers": 2}


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def store(con, tmp_path):
    """Four runs of the tiny trace (durations x1, x2, x3, x4, so no two hold identical content), in this
    store order: dsv3-a (hw=910B, batch=16), dsv3-b (hw=910C), qwen-a (hw=910B), 'odd[1]' (no tags)."""
    runs = [("dsv3-a", {"hw": "910B", "batch": "16"}), ("dsv3-b", {"hw": "910C"}), ("qwen-a", {"hw": "910B"}),
            ("odd[1]", {})]
    for i, (name, tags) in enumerate(runs):
        tracedb.ingest_trace(con, tiny_trace.write(tmp_path / f"{i}.csv", dur_factor=i + 1), name=name, tags=tags)
    return con


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
    got = rows(tracedb.report(store, "passes", tags=["hw=910B"], fmt="csv", **SEG))
    assert [(r["run"], r["pass"]) for r in got] == [(run, str(p)) for run in ("dsv3-a", "qwen-a") for p in range(4)]
    # the same through a glob, for layers, kernels and timeline: a run column with both runs, in store order
    for report, extra in (("layers", {}), ("kernels", {"pass_spec": "3"}), ("timeline", {})):
        got = rows(tracedb.report(store, report, runs=["dsv3-*"], fmt="csv", **SEG, **extra))
        assert list(dict.fromkeys(r["run"] for r in got)) == ["dsv3-a", "dsv3-b"], report


def test_compare_by_tag_keeps_the_first_run_as_reference(store):
    got = rows(tracedb.report(store, "compare", tags=["hw"], runs=["qwen-a", "dsv3-*"], by="layer",
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
    out = tracedb.report(con, "cores", tags=["kind=attn"], fmt="csv").splitlines()
    assert out[1] == "AIC,cce,2,10.000,gen,2,23.000,2.300"
