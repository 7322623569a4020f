"""The `--` header of every query file of tracedb/sql/<stage>/ is its interface, and these tests hold it to the
SQL: the `$parameters` it declares are the ones the file binds, and the tables, views and result rows it
documents have exactly the columns and DuckDB types that running the real pipeline on tiny traces gives
(`DESCRIBE _passes` against the header's list).

Header shape (in this order):

    -- what the file computes, any number of lines
    -- Inputs: tables and views read
    -- Parameters:                                 (or `-- Parameters: none.`)
    --   $run_ids INTEGER[]: meaning               (continuation lines indented two more spaces)
    -- Output: TEMP _passes, one row per (run, pass):
    --   run_id INTEGER: meaning
    -- Output: rows, one per ...:                  (a query's result)
    -- Output: TABLE runs, new columns:            (columns a migration adds: each must exist)
    -- Output: free text                           (no list: rows inserted, tables updated, ...)

A column name with `<...>` (or an optional `[...]` part) stands for columns built from a placeholder: one
per category, per run; it matches any number of columns of that type whose names fit.
"""
import os
import re

import duckdb
import pytest

import example_stores
import tracedb
from tracedb import sql

HERE = os.path.dirname(os.path.abspath(__file__))

STAGES = {"store", "ingest", "segment", "report", "compare", "migrate", "dataset", "export", "advise"}
# the stage interfaces that must be documented column by column
STAGE_TABLES = {"_anchors", "_anchor_pass", "_passes", "_windows", "_assigned", "_attr", "_cmp"}

TYPE = r'(?:"NULL"|[A-Z][A-Z0-9_]*(?:\([^()]*\))?(?:\[\])*)'
PARAM_ITEM = re.compile(rf"^--   \$(\w+) ({TYPE}): \S")
COLUMN_ITEM = re.compile(rf"^--   ([\w<>\[\]]+) ({TYPE}): \S")
PARAM_REF = re.compile(r"\$([A-Za-z_]\w*)")


# ------------------------------------------------------------------------------------------- parsing
class Header:
    def __init__(self, name, text):
        self.name = name
        self.lines = []
        for line in text.splitlines():
            if not line.startswith("--"):
                break
            self.lines.append(line)
        self.errors, self.description, self.inputs, self.params, self.outputs = [], [], None, {}, []
        self._parse()

    def _parse(self):
        section = None          # None (description), 'inputs', 'params', 'output', 'after'
        out = None
        for line in self.lines:
            if line.startswith("-- Inputs:"):
                if self.inputs is not None or self.params or self.outputs:
                    self.errors.append("Inputs: twice, or after Parameters/Output")
                self.inputs, section = line[len("-- Inputs:"):].strip(), "inputs"
            elif line.startswith("-- Parameters:"):
                if self.inputs is None or section not in ("inputs",):
                    self.errors.append("Parameters: must follow Inputs:")
                rest = line[len("-- Parameters:"):].strip()
                self.params_declared_none = rest.lower().startswith("none")
                section = "params"
            elif line.startswith("-- Output:"):
                if section not in ("params", "output"):
                    self.errors.append("Output: must follow Parameters:")
                out = {"head": line[len("-- Output:"):].strip(), "columns": [], "open": True}
                out["listing"] = out["head"].endswith(":")
                self.outputs.append(out)
                section = "output"
            elif line.startswith("--     ") and section in ("params", "output", "inputs"):
                continue        # continuation of the item above
            elif line.startswith("--   ") and section == "inputs":
                continue
            elif line.startswith("--   ") and section == "params":
                m = PARAM_ITEM.match(line)
                if not m:
                    self.errors.append(f"malformed parameter line: {line!r}")
                elif m.group(1) in self.params:
                    self.errors.append(f"parameter ${m.group(1)} declared twice")
                else:
                    self.params[m.group(1)] = m.group(2)
            elif line.startswith("--   ") and section == "output":
                if not out["listing"]:          # the head goes on; a line ending with ':' opens the list
                    out["listing"] = line.endswith(":")
                    out["head"] += " " + line[2:].strip()
                    continue
                m = COLUMN_ITEM.match(line)
                if not m:
                    self.errors.append(f"malformed column line: {line!r}")
                else:
                    out["columns"].append((m.group(1), m.group(2)))
            elif section is None:
                self.description.append(line)
            else:
                section = "after"       # free text after the sections (scratch tables, notes)
        if not self.description:
            self.errors.append("no description before Inputs:")
        if self.inputs is None:
            self.errors.append("no Inputs: line")
        if not hasattr(self, "params_declared_none"):
            self.errors.append("no Parameters: line")
        elif self.params_declared_none and self.params:
            self.errors.append("Parameters: none, yet parameters listed")
        if not self.outputs:
            self.errors.append("no Output: line")
        for o in self.outputs:
            if o["listing"] and not o["columns"]:
                self.errors.append(f"Output {o['head']!r} announces a list but lists no column")
            o["object"] = _object(o["head"])
            o["subset"] = "new columns" in o["head"]

    def typed_outputs(self):
        """(object, columns, subset) of every output with a column list: object is a table or view name,
        or 'rows' for the query's result."""
        return [(o["object"], o["columns"], o["subset"]) for o in self.outputs if o["columns"] and o["object"]]


def _object(head):
    m = re.match(r"(?:TEMP|TABLE|VIEW) (\w+)", head)
    if m:
        return m.group(1)
    if re.match(r"rows\b", head):
        return "rows"
    return None


def code_only(text):
    """The SQL without comments and string literals (so `$x` in either is not a use)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "'":
            j = i + 1
            while j < n and not (text[j] == "'" and (j + 1 >= n or text[j + 1] != "'")):
                j += 2 if text[j] == "'" else 1
            out.append("''")
            i = j + 1
        elif text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def comments_only(text):
    return "\n".join(line[line.index("--"):] for line in text.splitlines() if line.lstrip().startswith("--"))


NAMES = sorted(sql.files())
HEADERS = {n: Header(n, sql.load(n)) for n in NAMES}
TYPED = sorted((n, obj) for n, h in HEADERS.items() for obj, _, _ in h.typed_outputs())


# ------------------------------------------------------------------------------------------- the loader
def test_every_file_lives_in_a_stage_folder():
    assert {p.split("/")[0] for p in sql.files().values()} == STAGES
    root = os.path.dirname(sql.__file__)
    assert not [f for f in os.listdir(root) if f.endswith(".sql")], "query files belong in a stage folder"
    assert len(NAMES) > 60


def test_load_takes_the_bare_name_and_names_what_is_missing():
    assert sql.load("segment_passes") == open(os.path.join(os.path.dirname(sql.__file__), "segment",
                                                           "segment_passes.sql"), encoding="utf-8").read()
    with pytest.raises(sql.SqlFileError, match=r"no query file 'segment_pases'.*did you mean segment_passes"):
        sql.load("segment_pases")


def test_two_files_of_one_name_fail_loudly(tmp_path):
    for stage in ("report", "compare"):
        (tmp_path / stage).mkdir()
        (tmp_path / stage / "report_compare.sql").write_text("SELECT 1;\n")
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "schema.sql").write_text("SELECT 1;\n")
    with pytest.raises(sql.SqlFileError, match=r"'report_compare' in compare/report_compare.sql and report/"):
        sql.scan(tmp_path)
    (tmp_path / "compare" / "report_compare.sql").unlink()
    assert sql.scan(tmp_path) == {"report_compare": "report/report_compare.sql", "schema": "store/schema.sql"}
    (tmp_path / "stray.sql").write_text("SELECT 1;\n")
    with pytest.raises(sql.SqlFileError, match="outside the stage folders"):
        sql.scan(tmp_path)


# ------------------------------------------------------------------------------------------- (a) headers
@pytest.mark.parametrize("name", NAMES)
def test_header_shape(name):
    assert not HEADERS[name].errors, f"{sql.files()[name]}: " + "; ".join(HEADERS[name].errors)


@pytest.mark.parametrize("name", NAMES)
def test_parameters_used_are_declared_and_declared_are_used(name):
    text, h = sql.load(name), HEADERS[name]
    used = set(PARAM_REF.findall(code_only(text)))
    mentioned = set(PARAM_REF.findall(comments_only(text)))
    declared = set(h.params)
    assert used - declared == set(), f"{name}: used but not declared in Parameters: {sorted(used - declared)}"
    assert declared - used == set(), f"{name}: declared but never used: {sorted(declared - used)}"
    # a $name in a comment that the code does not bind would be bound all the same by callers that pick
    # parameters by text (DuckDB refuses an unused one)
    assert mentioned - declared == set(), f"{name}: comments mention undeclared {sorted(mentioned - declared)}"


@pytest.mark.parametrize("name", NAMES)
def test_comments_keep_statements_and_placeholders_intact(name):
    """Statements are split at lines ending with ';' (a comment line too), and some files are str.format-ed
    for their placeholders: so no comment line inside a statement ends with ';', and no comment has braces."""
    text = sql.load(name)
    assert not re.search(r"[{}]", comments_only(text)), f"{name}: braces in a comment"
    for stmt in sql.statements(text)[:-1]:
        code = [ln for ln in stmt.splitlines() if ln.strip() and not ln.lstrip().startswith("--")]
        assert code[-1].rstrip().endswith(";"), f"{name}: a comment line ending with ';' splits a statement:\n{stmt}"


def test_the_stage_interfaces_are_documented_column_by_column():
    documented = {obj for n, obj in TYPED if obj.startswith("_")}
    assert STAGE_TABLES <= documented


# ------------------------------------------------------------------------------------------- (b) types
def describe(con, obj):
    """Columns and types of a table or view, None when absent (checked first: a failing DESCRIBE inside
    a transaction would abort it)."""
    found = con.execute("SELECT count(*) FROM (SELECT table_name AS n FROM duckdb_tables() UNION ALL "
                        "SELECT view_name FROM duckdb_views()) WHERE n = $n", {"n": obj}).fetchone()[0]
    if not found:
        return None
    return [(r[0], r[1]) for r in con.execute(f"DESCRIBE {sql.ident(obj)}").fetchall()]


def result_columns(con, query, params):
    """Columns and types of a query's result, as a table made from it holds them."""
    con.execute("CREATE OR REPLACE TEMP TABLE _header_probe AS " + query, params)
    got = describe(con, "_header_probe")
    con.execute("DROP TABLE _header_probe")
    return got


def last_code(text):
    stmt = sql.statements(text)[-1]
    return "\n".join(ln for ln in stmt.splitlines() if not ln.lstrip().startswith("--")).rstrip().rstrip(";")


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    """Runs ingest, segmentation, every report and `tracedb segment` on tiny traces, recording after each
    query file the columns of what its header documents: (file, object) -> list of column lists."""
    from tracedb.engine.exports import perfetto
    from tracedb.engine.rendering import render
    from tracedb.engine.admin import runs
    from tracedb.engine.segmentation import binding
    from tracedb.engine.segmentation import persist as segment_store
    from tracedb.engine.reports.registry import render_report
    seen = {}
    real_run, real_fetch = sql.run, render.fetch
    lines = {n: set(sql.load(n).splitlines()) for n in NAMES}

    def checked_run(con, name, params=None, **placeholders):
        cur = real_run(con, name, params, **placeholders)
        for obj, _, _ in HEADERS[name].typed_outputs():
            if obj == "rows":
                text = sql.load(name).format(**placeholders) if placeholders else sql.load(name)
                code = last_code(text)
                p = {k: v for k, v in (params or {}).items() if f"${k}" in code}
                seen.setdefault((name, obj), []).append(result_columns(con, code, p))
                # the caller reads the result of the file's last statement
                cur = con.execute(code, p) if p else con.execute(code)
            else:
                got = describe(con, obj)
                if got is not None:
                    seen.setdefault((name, obj), []).append(got)
        return cur

    def checked_fetch(con, query, query_params, *args, **kw):
        first = query.lstrip().splitlines()[0]      # a header line (not always the first: see sql.statements)
        names = [n for n in NAMES if first in lines[n]]
        if len(names) == 1:
            seen.setdefault((names[0], "rows"), []).append(result_columns(con, last_code(query), query_params))
        return real_fetch(con, query, query_params, *args, **kw)

    d = tmp_path_factory.mktemp("headers")
    from tracedb.engine.store import connect
    connect._new_store_bytes.cache_clear()   # a new store copies one built per process: build it here, observed
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sql, "run", checked_run)
        mp.setattr(render, "fetch", checked_fetch)
        stores = {}
        for name in example_stores.BASE:                 # schema.sql, every migration and views.sql; the ingests
            (d / name).mkdir()
            stores[name] = tracedb.connect(str(d / f"{name}.duckdb"))
            example_stores.build(stores[name], name, d / name)
        con = stores["tiny"]
        sql.run(con, "job_windows", {"names": ["tiny", "gpu", "graph_cap"],   # what a folder ingest's jobs read
                                     "epoch_clocks": ["unix-epoch", "unix-epoch-local"]})
        # every report's examples: its csv golden cases (the other formats render the same queries' rows, and
        # the golden tests run them), then its checks in csv (compare in md too: its layouts differ)
        for report, store, fmt, options in example_stores.cases().values():
            if fmt == "csv":
                render_report(stores[store], report, fmt=fmt, **options)
        for report, store, options in example_stores.checks():
            for fmt in ("csv", "md") if report == "compare" else ("csv",):
                render_report(stores[store], report, fmt=fmt, **options)
        stores["gen_job"].close()
        perfetto.export(con, str(d / "p.json"), runs=["tiny"], profile="qwen3-npu", layers=2)
        perfetto.export(con, str(d / "g.json"), runs=["gpu"], profile="dsv3-gpu", anchor="flash_fwd", layers=2)
        segment_store.segment_runs(con, binding.Options(runs=["tiny"], profile="qwen3-npu", layers=2))
        runs.listing(con, passes=True, profile="qwen3-npu")
        # again: what the first one kept is forgotten (snapshot_stale) and kept anew
        segment_store.segment_runs(con, binding.Options(runs=["tiny"], profile="qwen3-npu", layers=2))
        # a report restores it, once proved against the store (snapshot_check_*)
        render_report(con, "layers", fmt="csv", runs=["tiny"], profile="qwen3-npu", layers=2)
        from tracedb.engine.segmentation import at_ingest
        at_ingest.groups(con, ["tiny", "gpu"])      # what an ingest keeps, and together
        sql.run(con, "top_names", {"run_id": 1})
        sql.run(con, "short_names", {"names": ["gemm"]})  # report modules' table asks only for mangled names
        from tracedb.engine.reports import run_wide
        from tracedb.errors import NoAnchor
        run_wide.build(con, "kernels", "csv", NoAnchor("no anchor"), {"runs": ["tiny"]}, 5, False)
        from tracedb.engine.advise import advise
        # every rule's query: the x2 run is a slow rank beside its twin, the GPU runs have shapes for the roofline
        advise.build(con, "csv", runs=["tiny", "tiny_x2"], profile="qwen3-npu")
        advise.build(con, "csv", runs=["gpu", "gpu_x2"], profile="dsv3-gpu")
        advise.build(con, "csv", runs=["tiny_x2"], baseline=["tiny"], profile="qwen3-npu")    # rule regression
        advise.build(con, "csv", tags=["job=pp"])          # a pipeline: its stage rows
        from tracedb.engine.store import parquet
        from tracedb.engine.store.connect import open_store, resolve_runs
        from tracedb.errors import UsageError
        parquet.export_store(con, str(d / "dataset"))    # a whole store as a dataset: run_ids, run_facts
        for named in ((), ["no_such_run"]):                # no --run in a store of many runs; a name it lacks
            with pytest.raises(UsageError):
                resolve_runs(con, named)
        con.close()
        import zoo       # a training run's backward anchor candidates: two names with gaps alike in time
        path = str(d / f"zoo_444{zoo.suffix(zoo.draw(444))}")
        zoo.write(path, 444)
        zcon = tracedb.connect(str(d / "zoo.duckdb"))
        tracedb.ingest_trace(zcon, path, name="zoo")
        segment_store.segment_runs(zcon, binding.Options(runs=["zoo"], phase="backward"))
        zcon.close()
        for read_only in (False, True):                    # a store file opened again: its catalog checked
            open_store(str(d / "tiny.duckdb"), read_only=read_only).close()
    return seen


def column_match(documented, actual, subset):
    """None when `actual` (name, type) columns fit the documented list, else what differs."""
    if subset:
        missing = [c for c in documented if c not in actual]
        return f"missing {missing}" if missing else None

    def pattern(name):
        return re.compile("^" + re.sub(r"<[^>]*>", ".+", re.sub(r"\[([^\]]*)\]", r"(?:\1)?", name)) + "$")

    def wild(name):
        return "<" in name or "[" in name

    i, j = 0, 0
    while i < len(documented):
        name, typ = documented[i]
        if not wild(name):
            if j >= len(actual) or actual[j] != (name, typ):
                return f"expected {name} {typ} at column {j + 1}, found {actual[j] if j < len(actual) else 'nothing'}"
            i, j = i + 1, j + 1
            continue
        group = []
        while i < len(documented) and wild(documented[i][0]):
            group.append((pattern(documented[i][0]), documented[i][1]))
            i += 1
        nxt = documented[i] if i < len(documented) else None
        while j < len(actual) and actual[j] != nxt and any(p.match(actual[j][0]) and t == actual[j][1]
                                                           for p, t in group):
            j += 1
    if j < len(actual):
        return f"undocumented columns {actual[j:]}"
    return None


@pytest.mark.slow   # `observed` runs every report's csv golden case and checks under capture: ~60 s on two cores
@pytest.mark.parametrize("name,obj", TYPED)
def test_documented_columns_and_types_are_what_duckdb_gives(observed, name, obj):
    from tracedb.engine.store import catalog
    if name == "store_triggers" and not catalog._has_triggers():
        pytest.skip(f"DuckDB {duckdb.__version__} has no triggers (asked of DuckDB 2.0 or later only)")
    assert (name, obj) in observed, f"{name}: the pipeline never produced {obj}; add a call that does"
    documented, subset = next((c, s) for o, c, s in HEADERS[name].typed_outputs() if o == obj)
    for actual in observed[(name, obj)]:
        diff = column_match(documented, actual, subset)
        assert diff is None, (f"{sql.files()[name]}: header of {obj} differs from DuckDB's columns: {diff}\n"
                              "DuckDB: " + ", ".join(f"{c} {t}" for c, t in actual))


def check_headers_over(monkeypatch, names, calls):
    """Hold the query files `names` to their headers over the calls `calls()` makes: every documented
    output is produced and has the documented columns and types (for test files that build stores of
    their own, e.g. a job of several ranks)."""
    from tracedb.engine.rendering import render
    seen, real_run, real_fetch = {}, sql.run, render.fetch

    def checked_run(con, name, params=None, **placeholders):
        cur = real_run(con, name, params, **placeholders)
        for obj, _, _ in HEADERS[name].typed_outputs() if name in names else []:
            if obj == "rows":
                code = last_code(sql.load(name))
                p = {k: v for k, v in (params or {}).items() if f"${k}" in code}
                seen.setdefault((name, obj), []).append(result_columns(con, code, p))
                cur = con.execute(code, p) if p else con.execute(code)
            else:
                seen.setdefault((name, obj), []).append(describe(con, obj))
        return cur

    def checked_fetch(con, query, query_params, *args, **kw):
        for name in names:
            if last_code(sql.load(name)) == last_code(query):
                seen.setdefault((name, "rows"), []).append(result_columns(con, query, query_params))
        return real_fetch(con, query, query_params, *args, **kw)

    monkeypatch.setattr(sql, "run", checked_run)
    monkeypatch.setattr(render, "fetch", checked_fetch)
    calls()
    monkeypatch.undo()
    for name in names:
        h = HEADERS[name]
        assert not h.errors, f"{name}: {h.errors}"
        for obj, documented, subset in h.typed_outputs():
            assert (name, obj) in seen, f"{name}: {obj} never produced"
            for actual in seen[(name, obj)]:
                assert column_match(documented, actual, subset) is None, (name, obj, actual)
