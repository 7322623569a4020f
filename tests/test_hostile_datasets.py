"""A dataset folder may be edited by anyone who can write it: its manifest is checked before any file it
names is read, written or deleted (engine/store/dataset.py check_manifest), so a hand-edited manifest cannot
make tracedb read another dataset's files, count a run twice, glob, or delete a file outside the folder."""
import json
import os
import shutil

import duckdb
import pytest

import tiny_trace
from helpers import cli
from tracedb.engine.store import dataset


@pytest.fixture
def ds(tmp_path):
    trace = tiny_trace.write(str(tmp_path / "kernel_details.csv"))
    folder = tmp_path / "ds"
    cli("ingest", trace, "--to", str(folder), "--name", "a")
    return folder, trace


# the table of the dataset's Ascend CSV rows (under the view kernels_raw)
RAW = "kernels_raw_ascend_csv"


def _edit(folder, change):
    path = folder / dataset.MANIFEST
    m = json.loads(path.read_text())
    change(m)
    path.write_text(json.dumps(m))


def _refused(folder, *args):
    r = cli("runs", "--db", f"{folder}/", *args, check=False)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and r.stderr.startswith("error: "), r.stderr
    return r.stderr


def _kernels_file(m):
    return m["runs"][0]["files"][RAW]


@pytest.mark.parametrize("case", ["absolute", "dotdot", "glob", "other-run", "twice", "format-99", "bool-id"])
def test_a_hand_edited_manifest_is_refused_in_one_line(ds, tmp_path, case):
    folder, _ = ds
    outside = tmp_path / "elsewhere.parquet"
    shutil.copy(folder / json.loads((folder / dataset.MANIFEST).read_text())["runs"][0]["files"][RAW],
                outside)
    edits = {
        "absolute": lambda m: m["runs"][0]["files"].update({RAW: str(outside)}),
        "dotdot": lambda m: m["runs"][0]["files"].update({RAW: "../elsewhere.parquet"}),
        "glob": lambda m: m["runs"][0]["files"].update({RAW: f"{RAW}/*.parquet"}),
        "other-run": lambda m: m["runs"][0]["files"].update({RAW: f"{RAW}/run_id=7/data.parquet"}),
        "twice": lambda m: m["runs"].append(dict(m["runs"][0])),
        "format-99": lambda m: m.update(format_version=99),
        "bool-id": lambda m: m["runs"][0].update(run_id=True),
    }
    _edit(folder, edits[case])
    _refused(folder)


def test_a_table_folder_symlinked_out_of_the_dataset_is_refused(ds, tmp_path):
    folder, _ = ds
    shutil.move(folder / RAW, tmp_path / "kr")
    os.symlink(tmp_path / "kr", folder / RAW)
    assert "outside the dataset" in _refused(folder)


def test_replace_deletes_nothing_outside_the_folder(ds, tmp_path):
    folder, trace = ds
    victim = tmp_path / "victim.parquet"
    victim.write_bytes(b"precious")
    _edit(folder, lambda m: m["runs"][0]["files"].update({RAW: "../victim.parquet"}))
    r = cli("ingest", trace, "--to", str(folder), "--name", "a", "--replace", check=False)
    assert r.returncode == 1 and RAW in r.stderr
    assert victim.read_bytes() == b"precious"


def test_negative_durations_in_a_datasets_files_are_refused(ds):
    folder, _ = ds
    rel = json.loads((folder / dataset.MANIFEST).read_text())["runs"][0]["files"][RAW]
    path = str(folder / rel)
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * REPLACE (-dur_ns AS dur_ns) FROM read_parquet('{path}')) "
                f"TO '{path}.new' (FORMAT parquet)")
    con.close()
    os.replace(path + ".new", path)
    assert "expected durations of 0 or more" in _refused(folder)


def test_a_symlink_at_the_lock_file_is_refused_and_its_target_untouched(ds, tmp_path):
    folder, trace = ds
    victim = tmp_path / "victim.txt"
    (folder / ".tracedb-dataset.lock").unlink()
    os.symlink(victim, folder / ".tracedb-dataset.lock")
    r = cli("ingest", trace, "--to", str(folder), "--name", "b", "--replace", check=False)
    assert r.returncode == 1 and ".tracedb-dataset.lock" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not victim.exists()
