"""Megabyte kernel names through every ingest path: the short names derived at ingest (ingest/kernel_names.py)
take linear time on any text, so a hostile name cannot stall an ingest, and the full name is stored as given.

Each name below once cost minutes: a lazy `\\w+?Functor` rescanned a long identifier from every start (40 KB:
30-45 s), trailing hcom counters were stripped with a backtracking `_*(_\\d+)+$`, and a length prefix of
thousands of digits overflowed int(). Every ingest runs in its own process, killed after CASE_TIMEOUT_S: a
pattern that went quadratic again shows up as a hang, not as a slow suite."""
import json
import os
import subprocess
from pathlib import Path

import pytest

import nsys_synth
import rocprof_synth
import tiny_kineto
import tiny_trace
from fuzz_promise import CASE_TIMEOUT_S, subprocess_env, tracedb_exe
from helpers import slow_beyond

MB = 1 << 20
HOSTILE = {
    "functor": "void at::native::elementwise_kernel<128, 4, " + "a_" * (MB // 2) + ">(int)",
    "reduce": "void at::native::reduce_kernel<512, 1, " + "ReduceOp<" * (MB // 9) + ">(int)",
    "hcom": "hcom_allReduce_" + "_1" * (MB // 2) + "x",
    "mangled": "_Z" + "9" * MB,
    "templates": "void f<" + "<" * MB + ">(int)",
}


def _kineto(folder, names):
    doc = tiny_kineto.document()
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    for e, name in zip(kernels, names):
        e["name"] = name
    path = os.path.join(folder, "hostile.pt.trace.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def _ascend(folder, names):
    rows = tiny_trace.rows()
    for row, name in zip(rows, names):
        row[5] = '"' + name.replace('"', '""') + '"'     # write_csv writes cells verbatim
    from helpers import write_csv
    return write_csv(os.path.join(folder, "kernel_details.csv"), tiny_trace.HEADER, rows)


def _rocprof(cap, names):
    for d, name in zip(cap["dispatches"], names):
        d["name"] = name
    return cap


def _rocprof_csv(folder, names):
    out = os.path.join(folder, "rocprof")
    os.mkdir(out)
    rocprof_synth.write_csv(out, _rocprof(rocprof_synth.capture(), names))
    return out


def _rocprof_json(folder, names):
    import test_rocprof
    doc = test_rocprof.document()
    symbols = [s for s in doc["rocprofiler-sdk-tool"][0]["kernel_symbols"] if s["kernel_id"]]
    for sym, name in zip(symbols, names):
        sym["formatted_kernel_name"] = sym["kernel_name"] = sym["demangled_kernel_name"] = name
    return str(test_rocprof.write(Path(folder) / "results.json", doc))


def _ascend_db(folder, names, monkeypatch):
    import test_ascend_db
    layer = [(name, op, core, dur) for name, (_, op, core, dur) in zip(names, test_ascend_db.LAYER)]
    monkeypatch.setattr(test_ascend_db, "LAYER", layer)
    return test_ascend_db.pt_folder(Path(folder))


def _rocpd(folder, names):
    path = os.path.join(folder, "results.db")
    rocprof_synth.write_rocpd(path, _rocprof(rocprof_synth.capture(), names))
    return path


def _nsys(folder, names, monkeypatch):
    for const, name in zip(("GEMM", "ATTN", "NORM"), names):
        monkeypatch.setattr(nsys_synth, const, name)
    return nsys_synth.profile(os.path.join(folder, "hostile.sqlite"), devices=(0,))


WRITERS = {"kineto": _kineto, "ascend-csv": _ascend, "rocprof-csv": _rocprof_csv, "rocprof-json": _rocprof_json,
           "rocpd": _rocpd, "nsys": _nsys, "ascend-db": _ascend_db}


@pytest.mark.parametrize("fmt", slow_beyond(sorted(WRITERS), {"kineto"}))   # every reader with -m slow
def test_megabyte_names_ingest_in_bounded_time_and_are_kept_whole(tmp_path, fmt, monkeypatch):
    names = list(HOSTILE.values())
    writer = WRITERS[fmt]
    patched = fmt in ("nsys", "ascend-db")      # writers of module-level names, set for this test only
    target = writer(str(tmp_path), names, monkeypatch) if patched else writer(str(tmp_path), names)
    store = str(tmp_path / "s.duckdb")
    # no address-space limit here (fuzz_promise.run_subprocess sets one): this test is about time only
    try:
        out = subprocess.run([tracedb_exe(), "ingest", target, "--db", store, "--name", "hostile"], capture_output=True,
                             text=True, env=subprocess_env(str(tmp_path)), timeout=CASE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{fmt}: the ingest ran past {CASE_TIMEOUT_S} s")
    assert out.returncode == 0, out.stderr
    import duckdb
    con = duckdb.connect(store, read_only=True)
    try:
        stored = {n for (n,) in con.execute("SELECT DISTINCT name FROM kernels").fetchall()}
        shorts = dict(con.execute("SELECT name, short_name FROM kernel_names").fetchall())
    finally:
        con.close()
    kept = [n for n in names if n in stored]
    assert kept, f"{fmt}: no hostile name reached the store"
    assert all(len(shorts[n]) <= 4096 for n in kept)


def test_short_names_of_hostile_text_are_what_the_patterns_mean():
    from tracedb.ingest.kernel_names import short_name
    assert short_name(HOSTILE["functor"]) == "elementwise_kernel"
    assert short_name("hcom_allReduce__123_4_1") == "hcom_allReduce"
    assert short_name(HOSTILE["hcom"]).startswith("hcom_allReduce_")
    assert short_name(HOSTILE["mangled"]).startswith("_Z999")
    assert short_name(HOSTILE["templates"]) == "f"
