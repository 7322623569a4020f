"""Files tracedb writes are created exclusively and renamed into place (tracedb/atomic.py): a symlink planted
in the target's folder is never written through, whatever name it has, and a symlink at the target itself is
replaced without touching its destination."""
import os

import pytest

from helpers import cli
from tracedb import atomic


def _victim(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    return victim


def test_report_output_never_writes_through_a_planted_symlink(tmp_path, db_path):
    import tiny_trace
    cli("ingest", tiny_trace.write(str(tmp_path / "kernel_details.csv")), "--db", db_path, "--name", "t")
    victim = _victim(tmp_path)
    out = tmp_path / "out.csv"
    os.symlink(victim, f"{out}.tmp-{os.getpid()}")   # the temporary name of earlier versions
    cli("runs", "--db", db_path, "--format", "csv", "-o", str(out))
    assert victim.read_text() == "precious\n"
    assert not os.path.islink(out) and out.read_text().splitlines()[1].startswith("t,")


def test_a_symlink_at_the_target_is_replaced_and_its_destination_kept(tmp_path):
    victim = _victim(tmp_path)
    link = tmp_path / "report.txt"
    os.symlink(victim, link)
    with atomic.replaced(str(link)) as f:
        f.write("new\n")
    assert victim.read_text() == "precious\n"
    assert not os.path.islink(link) and link.read_text() == "new\n"


def test_the_manifest_is_committed_without_following_a_planted_symlink(tmp_path):
    from tracedb.engine.store import dataset
    victim = _victim(tmp_path)
    folder = tmp_path / "ds"
    folder.mkdir()
    os.symlink(victim, folder / f".{dataset.MANIFEST}.{os.getpid()}.tmp")   # the old fixed temporary name
    dataset.write_manifest(str(folder), {"format_version": 1, "runs": []})
    assert victim.read_text() == "precious\n"
    assert '"format_version": 1' in (folder / dataset.MANIFEST).read_text()


def test_a_failed_write_leaves_the_target_and_no_temporary_file(tmp_path):
    target = tmp_path / "kept.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic.replaced(str(target)) as f:
            f.write("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old\n"
    assert sorted(os.listdir(tmp_path)) == ["kept.txt"]


def test_written_files_take_the_umask_mode(tmp_path):
    old = os.umask(0o027)
    try:
        with atomic.replaced(str(tmp_path / "f.txt")) as f:
            f.write("x")
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "f.txt").st_mode & 0o777 == 0o640


def test_probe_refuses_a_name_longer_than_the_folder_allows(tmp_path):
    with pytest.raises(OSError):
        atomic.probe(str(tmp_path / ("n" * 300)))
    atomic.probe(str(tmp_path / "fine.csv"))
    assert os.listdir(tmp_path) == []
