"""The reader registry (ingest/formats.py): every format recognises a small sample of its own and no reader
asked before it claims one; a folder search finds each sample by exactly one reader; the readers' SQL
files and the formats table of docs/formats.md follow the declarations; a planned folder is sniffed once
per file."""
import importlib.util
import os
import sqlite3

import pytest

import fuzz_corpus
import nsys_synth
import rocprof_synth
import tiny_kineto
import tiny_swimlane
import tiny_trace
from helpers import ROOT
from test_rocprof import document as rocprof_document, write as rocprof_write
from tracedb.engine.loading import folder
from tracedb.errors import InputError
from tracedb.ingest import formats, sources

# readers that take what no reader before them claimed: any JSON object or array, any text
CATCH_ALLS = {"chrome-json", "ascend-csv"}


def _ascend_db(path):
    con = sqlite3.connect(path)
    for table in ("STRING_IDS", "TASK", "COMPUTE_TASK_INFO"):
        con.execute(f"CREATE TABLE {table} (id INTEGER)")
    con.commit()
    con.close()
    return str(path)


def _op_summary(path):
    path.write_bytes(fuzz_corpus.seed_bytes("opsum"))
    return str(path)


# (reader, sample name, how to write it, runs.format once read or None when only the reader is checked)
SAMPLES = [
    ("rocprof-json", "908_results.json", lambda p: str(rocprof_write(p, rocprof_document()))),
    ("rocprof-json", "908_results.json.gz", lambda p: str(rocprof_write(p, rocprof_document(), gz=True))),
    ("chrome-json", "worker0.pt.trace.json", tiny_kineto.write),
    ("chrome-json", "worker0.pt.trace.json.gz", lambda p: tiny_kineto.write(p, gz=True)),
    ("chrome-json", "events.json", lambda p: tiny_kineto.write(p, form="array")),
    ("chrome-json", "swimlane.json", tiny_swimlane.write),
    ("nsys", "report1.sqlite", lambda p: nsys_synth.profile(p, devices=(0, 3))),
    ("ascend-db", "ascend_pytorch_profiler_0.db", _ascend_db),
    ("rocpd", "908_results.db", lambda p: rocprof_synth.write_rocpd(str(p), rocprof_synth.capture())),
    ("rocprof-csv", "908_kernel_trace.csv",
     lambda p: rocprof_synth.write_csv(os.path.dirname(p), rocprof_synth.capture())),
    ("ascend-csv", "kernel_details.csv", tiny_trace.write),
    ("ascend-csv", "op_summary_0_1.csv", _op_summary),
]


def _sample(tmp_path, name, write) -> str:
    folder_of_one = tmp_path / "in"
    folder_of_one.mkdir()
    return str(write(folder_of_one / name))


@pytest.mark.parametrize("reader,name,write", SAMPLES, ids=[s[1] for s in SAMPLES])
def test_each_format_recognises_its_sample_and_no_reader_before_it_claims_it(tmp_path, reader, name, write):
    path = _sample(tmp_path, name, write)
    claims = [r.name for r in formats.readers() if r.recognise(formats.Probe(path))]
    assert claims[0] == reader
    assert set(claims[1:]) <= CATCH_ALLS - {reader}, f"{path} is claimed by {claims}"
    assert formats.identify(path).name == reader


@pytest.mark.parametrize("reader,name,write", SAMPLES, ids=[s[1] for s in SAMPLES])
def test_a_folder_search_finds_each_sample_by_one_reader(tmp_path, reader, name, write):
    path = _sample(tmp_path, name, write)
    probe = lambda: formats.Probe(path)     # noqa: E731 - a fresh probe per reader, as if asked alone
    found = [r.name for r in formats.readers()
             if probe().name.endswith(r.suffixes) and (r.found or r.recognise)(probe())]
    assert found == [reader]
    assert formats.in_folder(path).name == reader


def test_files_of_several_devices_are_split_per_device(tmp_path):
    assert {r.name for r in formats.readers() if r.several} == {"rocprof-json", "rocprof-csv", "nsys", "ascend-db",
                                                                 "rocpd"}
    nsys = nsys_synth.profile(tmp_path / "report1.sqlite", devices=(0, 3))
    csv = rocprof_synth.write_csv(tmp_path / "csv", rocprof_synth.capture(busy=(0, 2)))
    assert [(p.name, p.agent, p.reader) for p in folder.plan([nsys])] == [
        ("report1-gpu0", 0, "nsys"), ("report1-gpu3", 3, "nsys")]
    assert [(p.name, p.agent) for p in folder.plan([csv], name="c")] == [("c-gpu0", 0), ("c-gpu2", 2)]


def test_other_files_are_refused_or_passed_over(tmp_path):
    other_db = tmp_path / "other.db"
    con = sqlite3.connect(other_db)
    con.execute("CREATE TABLE t (x INTEGER)")
    con.close()
    with pytest.raises(InputError, match="an SQLite database that is no profiler export tracedb reads"):
        formats.identify(str(other_db))
    config = tmp_path / "config.json"
    config.write_text('{"lr": 0.1}')
    assert formats.in_folder(str(other_db)) is None and formats.in_folder(str(config)) is None
    assert formats.identify(str(config)).name == "chrome-json"   # named alone, it is read (and refused) as a trace


def test_a_planned_folder_is_sniffed_once_per_file(tmp_path, monkeypatch):
    job = tmp_path / "job"
    job.mkdir()
    files = [tiny_kineto.write(job / "rank0.pt.trace.json"), tiny_trace.write(job / "kernel_details_1.csv"),
             str(rocprof_write(job / "908_results.json", rocprof_document())),
             nsys_synth.profile(job / "report1.sqlite", devices=(0, 3))]
    probed = []
    real = formats.Probe.__init__
    monkeypatch.setattr(formats.Probe, "__init__", lambda self, path: probed.append(path) or real(self, path))
    monkeypatch.setattr(formats, "_SEEN", {})
    planned = folder.plan([str(job)])
    for item in planned:
        sources.resolve(item.path, item.reader)
    assert sorted(probed) == sorted(files)
    assert {item.reader for item in planned} == {"chrome-json", "ascend-csv", "rocprof-json", "nsys"}


def test_every_ingest_sql_file_belongs_to_one_reader_or_to_every_run():
    owners = {}
    for r in formats.readers():
        for name in r.sql:
            owners.setdefault(name, []).append(r.name)
    on_disk = {f[:-4] for f in os.listdir(os.path.join(ROOT, "sql", "ingest")) if f.endswith(".sql")}
    assert {n: o for n, o in owners.items() if len(o) > 1} == {}
    assert set(owners) - on_disk == set(), "a reader names SQL files that do not exist"
    assert on_disk - set(owners) == set(formats.SHARED_SQL), "SQL files of no reader (or SHARED_SQL is stale)"


def test_every_reader_is_described():
    names = [r.name for r in formats.readers()]
    assert len(names) == len(set(names))
    assert [r.name for r in formats.readers() if not (r.docs and r.recognised)] == []


def test_the_formats_table_of_the_docs_is_generated_from_the_registry():
    spec = importlib.util.spec_from_file_location("gen_formats", os.path.join(ROOT, "docs", "gen_formats.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(gen.DOC, encoding="utf-8") as f:
        written = f.read()
    assert gen.render() in written, f"the formats table of docs/formats.md is stale: run `{gen.REGENERATE}`"
