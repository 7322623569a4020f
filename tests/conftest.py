"""Shared test helpers: temporary stores, the CLI as a subprocess, the real-trace folder, golden files."""
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED_DATA = os.path.abspath(os.path.join(ROOT, "..", "shared", "data"))
GOLDEN = os.path.join(ROOT, "golden")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="Rewrite golden/ files from the current output (review every diff before committing).")


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")


def shared(*parts):
    """Path of a real trace under ../shared/data; skips the test when it is absent."""
    path = os.path.join(SHARED_DATA, *parts)
    if not os.path.exists(path):
        pytest.skip(f"real trace not available: {path}")
    return path


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "store.duckdb")


@pytest.fixture
def con(db_path):
    import tracedb
    c = tracedb.connect(db_path)
    yield c
    c.close()


def tracedb_exe():
    exe = os.path.join(os.path.dirname(sys.executable), "tracedb")
    return exe if os.path.exists(exe) else shutil.which("tracedb")


def cli(*args, check=True, env=None, cwd=None):
    """Run the installed `tracedb` console script; returns CompletedProcess (text)."""
    exe = tracedb_exe()
    assert exe, "the tracedb console script is not installed"
    p = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd)
    if check and p.returncode != 0:
        raise AssertionError(f"tracedb {' '.join(map(str, args))} exited {p.returncode}:\n{p.stderr}")
    return p


def write_csv(path, header, rows, bom=False):
    """Write a kernel_details-like CSV from lists of cells (cells written verbatim: quote them yourself)."""
    text = ",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)
    with open(path, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        f.write(text)
    return str(path)
