"""Reports that need no layers answer on a trace that has none to find (no attention kernel repeats: a CNN, a
collective benchmark): roofline by kernel, category or run, and blame, over the whole run with a note."""
import csv
import io

from helpers import cli, real_trace


def test_roofline_by_run_takes_the_whole_run_of_a_cnn(tmp_path):
    db = str(tmp_path / "a.duckdb")
    cli("ingest", real_trace("ascend-msinsight", "alexnet_level2_text", "rank0_ascend_pt"), "--db", db, "--name", "an")
    r = cli("report", "roofline", "--db", db, "--run", "an", "--by", "run", "--format", "csv")
    row = next(csv.DictReader(io.StringIO(r.stdout)))
    total = cli("sql", "--db", db, "SELECT count(*) AS n FROM kernels", "--format", "csv")
    assert row["count"] == next(csv.DictReader(io.StringIO(total.stdout)))["n"]
    assert "no layers to find" in r.stderr and "as with --phase all" in r.stderr
    # a layer view still needs layers: the same refusal as before
    bad = cli("report", "roofline", "--db", db, "--run", "an", "--by", "layer", check=False)
    assert bad.returncode != 0 and "no attention kernel repeats" in bad.stderr


def test_blame_answers_on_a_job_without_layers(tmp_path):
    db = str(tmp_path / "h.duckdb")
    cli("ingest", real_trace("hta-multirank", "trace_filter"), "--db", db, "--name", "hm", "--tag", "job=hm")
    r = cli("report", "blame", "--db", db, "--tag", "job=hm", "--format", "csv")
    assert r.stdout.splitlines()[0].startswith("run,rank,pass,layer,kernel")
    assert "no layers to find" in r.stderr
