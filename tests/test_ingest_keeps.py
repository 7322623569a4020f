"""`tracedb ingest` keeps the segmentation of what it landed, as `tracedb segment` would with the default
options: each run alone, a job's runs together; the reports that follow restore it (the same rows as computed
afresh), `kernel_layers` answers at once, and a run with no layers, `--no-segment` or a big ingest keep none."""
import json

import tiny_job
import tiny_steps
from helpers import cli

KEPT = "kept in the store, restored"     # the parameter `segmentation` of a report that restored one


def report(db, *args) -> dict:
    return json.loads(cli("report", *args, "--db", db, "--format", "json").stdout)


def kept(doc: dict) -> bool:
    return doc["params"].get("segmentation") == KEPT


def without_kept(doc: dict) -> dict:
    return {**doc, "params": {k: v for k, v in doc["params"].items() if k != "segmentation"}}


def kept_count(db) -> int:
    r = cli("sql", "--db", db, "--format", "json", "SELECT count(*) AS n FROM duckdb_tables() "
            "WHERE schema_name = 'tracedb_cache' AND table_name = 'segmentations'")
    if not json.loads(r.stdout)["rows"][0]["n"]:
        return 0
    r = cli("sql", "--db", db, "--format", "json", "SELECT count(*) AS n FROM tracedb_cache.segmentations")
    return json.loads(r.stdout)["rows"][0]["n"]


def test_a_run_is_kept_and_its_reports_restore_what_they_would_compute(tmp_path):
    trace = tiny_steps.write(tmp_path / "t.json", "sequential_training", layers=3, steps=2)
    store, fresh = str(tmp_path / "k.duckdb"), str(tmp_path / "f.duckdb")
    assert cli("ingest", trace, "--db", store, "--name", "train").stderr == ""
    assert cli("ingest", trace, "--db", fresh, "--name", "train", "--no-segment").stderr == ""
    assert kept_count(fresh) == 0
    assert kept_count(store) == 2          # a training run: its forward and its backward segmentation
    for args in [("passes", "--run", "train"), ("layers", "--run", "train", "--pass", "all"),
                 ("layers", "--run", "train", "--phase", "backward", "--pass", "all"),
                 ("kernels", "--run", "train", "--pass", "1")]:
        got, want = report(store, *args), report(fresh, *args)
        assert kept(got) and not kept(want), args
        assert without_kept(got) == want, args
    # kernel_layers answers in SQL right after the ingest
    rows = json.loads(cli("sql", "--db", store, "--format", "json",
                          "SELECT count(*) AS n, count(layer) AS layered FROM kernel_layers").stdout)["rows"][0]
    assert rows["n"] > 0 and rows["layered"] > 0


def test_a_job_is_kept_as_the_job_reports_select_it(tmp_path):
    folder = tmp_path / "job"
    folder.mkdir()
    tiny_job.write(folder)
    db = str(tmp_path / "j.duckdb")
    r = cli("ingest", str(folder), "--db", db, "--name", "job")
    assert r.stderr == "" and "job 'job': 3 runs" in r.stdout
    assert kept_count(db) == 1
    assert kept(report(db, "blame", "--tag", "job=job")) and kept(report(db, "ranks", "--tag", "job=job"))
    # one rank alone is another selection: segmented afresh, as before
    assert not kept(report(db, "layers", "--run", "job-rank0"))


def test_a_run_without_layers_keeps_none_and_says_nothing_of_it(tmp_path):
    events, t = [], 0
    for _ in range(6):
        for name, dur in [("conv_fprop_kernel", 30), ("bn_fw_kernel", 5), ("relu_kernel", 2)]:
            events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t, "dur": dur,
                           "args": {"device": 0, "stream": 7}})
            t += dur + 2
    cnn = tmp_path / "cnn.json"
    cnn.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    db = str(tmp_path / "c.duckdb")
    r = cli("ingest", str(cnn), "--db", db, "--name", "cnn")
    assert r.returncode == 0 and r.stderr == ""
    assert kept_count(db) == 0


def test_past_the_bound_an_ingest_says_how_to_keep_it(tmp_path, monkeypatch):
    import tracedb
    from tracedb.engine.segmentation import at_ingest
    db = str(tmp_path / "b.duckdb")
    trace = tiny_steps.write(tmp_path / "t.json", "sequential_training", layers=3, steps=2)
    con = tracedb.connect(db)
    try:
        tracedb.ingest_trace(con, trace, name="train")
        monkeypatch.setattr(at_ingest, "AUTO_MAX_KERNELS", 10)
        done, lines = at_ingest.keep(con, ["train"])
        assert done == 0 and len(lines) == 1 and "segmentation not kept" in lines[0] and "over 10" in lines[0]
        assert "tracedb segment" in lines[0]
        assert at_ingest.keep(con, ["train"], "never") == (0, [])
        assert at_ingest.keep(con, ["train"], "always") == (1, [])
        assert con.execute("SELECT count(*) FROM tracedb_cache.segmentations").fetchone()[0] == 2
    finally:
        con.close()


def test_runs_of_one_folder_that_are_no_job_are_each_kept_alone(tmp_path):
    """Two unrelated traces in one folder: each is segmented in a session of its own and kept for itself."""
    folder = tmp_path / "traces"
    folder.mkdir()
    for name, layers in (("a.json", 3), ("b.json", 4)):
        doc = json.loads(open(tiny_steps.write(folder / name, "sequential_training", layers=layers, steps=2)).read())
        doc.pop("distributedInfo", None)      # no rank stated: no job, each run alone
        (folder / name).write_text(json.dumps(doc))
    store, fresh = str(tmp_path / "k.duckdb"), str(tmp_path / "f.duckdb")
    cli("ingest", str(folder), "--db", store, "--name", "t")
    cli("ingest", str(folder), "--db", fresh, "--name", "t", "--no-segment")
    names = [r["run"] for r in json.loads(cli("runs", "--db", store, "--format", "json").stdout)["rows"]]
    assert len(names) == 2 and kept_count(store) == 4       # two training runs, each forward and backward
    for name in names:
        for args in [("layers", "--run", name, "--pass", "all"),
                     ("layers", "--run", name, "--phase", "backward", "--pass", "all")]:
            got, want = report(store, *args), report(fresh, *args)
            assert kept(got) and without_kept(got) == want, args
