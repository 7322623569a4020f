"""A job ingested on a Dask cluster (`tracedb ingest DIR --to OUT --scheduler ADDRESS`) gives the dataset a
single-process ingest gives: the same runs, names, tags and rows. A local cluster of 2 worker processes
stands in for a real one (the workers see the same files). Skipped when dask.distributed is not installed
(the optional extra tracedb[dask])."""
import json
import os

import pytest

import tiny_kineto
from helpers import cli

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (the dask extra: pip install 'tracedb[dask]')")

PER_RUN = ("SELECT r.name, r.tags, r.content_hash, count(k.dur_ns) AS n, sum(k.dur_ns) AS dur "
           "FROM runs r LEFT JOIN kernels k USING (run_id) GROUP BY ALL ORDER BY r.name")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as c:
        yield c


def _job(tmp_path, n=3):
    job = tmp_path / "job"
    job.mkdir()
    for i in range(n):
        tiny_kineto.write(job / f"rank{i}.pt.trace.json", dur_factor=i + 1)
    return job


def _state(folder):
    return json.loads(cli("sql", "--db", str(folder) + os.sep, "--format", "json", PER_RUN).stdout)["rows"]


def test_cluster_ingest_equals_single_process(cluster, tmp_path):
    job = _job(tmp_path)
    one, many = tmp_path / "one", tmp_path / "many"
    cli("ingest", str(job), "--name", "j", "--to", str(one))
    r = cli("ingest", str(job), "--name", "j", "--to", str(many), "--scheduler", cluster.scheduler_address)
    assert r.stdout.count("ingested run") == 3
    got, want = _state(many), _state(one)
    assert [row["name"] for row in got] == ["j-rank0", "j-rank1", "j-rank2"]
    assert got == want
    assert all(row["n"] > 0 for row in got)
    leftovers = [n for n in os.listdir(many) if n.startswith(".tracedb-job-")]
    assert leftovers == []


def test_cluster_ingest_skips_identical_content_and_reports_a_bad_trace(cluster, tmp_path):
    job = _job(tmp_path, n=2)
    out = tmp_path / "out"
    cli("ingest", str(job), "--name", "j", "--to", str(out), "--scheduler", cluster.scheduler_address)
    (job / "rank2.pt.trace.json").write_text('{"traceEvents": [{"ph": "X", "name": "k", "ts": "x"}]}')
    r = cli("ingest", str(job), "--name", "j", "--to", str(out), "--scheduler", cluster.scheduler_address,
            check=False)
    assert r.returncode == 1
    assert r.stdout.count("skipped run") == 2
    assert "rank2.pt.trace.json" in r.stderr and "Traceback" not in r.stderr
    assert [row["name"] for row in _state(out)] == ["j-rank0", "j-rank1"]


def test_scheduler_needs_a_dataset(tmp_path):
    r = cli("ingest", str(_job(tmp_path, n=1)), "--scheduler", "tcp://127.0.0.1:1", check=False)
    assert r.returncode == 2
    assert r.stderr.strip() == "error: --scheduler: give --to DIR, the dataset on storage the workers share"


@pytest.mark.parametrize("address", ["nonsense", "tcp://host:99999", "tcp://:8786", "http://host:8786", ""])
def test_a_wrong_scheduler_address_is_refused_before_any_work(tmp_path, address):
    out = tmp_path / "out"
    r = cli("ingest", str(_job(tmp_path, n=1)), "--to", str(out), "--scheduler", address, check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--scheduler" in r.stderr, r.stderr
    assert not out.exists()
