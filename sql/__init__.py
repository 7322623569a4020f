"""Every query of tracedb lives in a `.sql` file of a stage folder here, loaded by its bare name.

    store/    schema (tables; the views in views.sql), runs (insert, list, select, tag, delete), session macros,
              the catalog check of an opened store and its tracedb_meta
    ingest/   trace files into kernels_raw / trace_events / tracks, and the run's summary
    segment/  anchors -> passes -> windows -> layers, categories, module attribution, stored segmentations
    report/   one query per report (and the TEMP tables of report cores)
    compare/  report compare: alignment of runs, its notes and its layouts
    export/   a run as a Perfetto trace (Chrome JSON)
    dataset/  Parquet datasets: runs written as files, and a dataset folder opened as a read-only store
    advise/   the rules of `tracedb advise` over what the reports compute, and their ranked findings
    migrate/  an older store's tables brought up to date, one file per version step (views: store/views.sql)

A name is unique across the folders (`load("segment_passes")` finds `segment/segment_passes.sql`); two files
of one name make the first `load` fail, naming both. Each file opens with a `--` header: what it computes,
`Inputs:`, `Parameters:` (each `$name` with its type) and `Output:` (each column with its type).

No query is written in a Python string (tests/test_sql_in_files.py reads every module's strings to hold it):
what stays in Python is connection management, which is no query (BEGIN, COMMIT, ROLLBACK, CHECKPOINT, SET,
RESET, PRAGMA, ATTACH, DETACH), and the few statements that test lists with why.

Values are always bound as `$name` parameters. A few files take identifiers that depend on the input
(CSV column positions, per-category output columns); those are substituted into `{name}` placeholders
(never written in a file's comments) only through `ident()`, the one quoting helper, never from raw user text.
Two rendering files take a report query of these files whole (render_report, render_copy_csv).
"""
import re
from functools import lru_cache
from importlib import resources


class SqlFileError(LookupError):
    """No query file of that name, or two of one name, or one outside the stage folders."""


def scan(root) -> dict[str, str]:
    """Name -> `stage/name.sql` of every query file in the folders of `root` (a Traversable or Path).
    Raises SqlFileError when two folders hold one name or a `.sql` file lies in `root` itself."""
    found: dict[str, list[str]] = {}
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            for f in sorted(entry.iterdir(), key=lambda e: e.name):
                if f.name.endswith(".sql") and f.is_file():
                    found.setdefault(f.name[:-4], []).append(f"{entry.name}/{f.name}")
        elif entry.name.endswith(".sql"):
            raise SqlFileError(f"tracedb/sql/{entry.name}: a query file outside the stage folders; move it into "
                               "one of them (the package ships sql/*/*.sql only)")
    dups = {n: where for n, where in found.items() if len(where) > 1}
    if dups:
        raise SqlFileError("query file names must be unique across the stage folders of tracedb/sql: "
                           + "; ".join(f"{n!r} in {' and '.join(where)}" for n, where in sorted(dups.items())))
    return {n: where[0] for n, where in found.items()}


@lru_cache(maxsize=1)
def files() -> dict[str, str]:
    """Name -> `stage/name.sql` of every query file of the package (scanned once)."""
    return scan(resources.files(__name__))


@lru_cache(maxsize=None)
def load(name: str) -> str:
    """Text of the query file `name` (bare name, no folder, no `.sql`), from whichever stage folder holds it."""
    index = files()
    if name not in index:
        import difflib
        close = difflib.get_close_matches(str(name), list(index), n=3)
        raise SqlFileError(f"no query file {name!r} in tracedb/sql/*/ (stages: "
                           f"{', '.join(sorted({p.split('/')[0] for p in index.values()}))})"
                           + (f"; did you mean {', '.join(close)}?" if close else ""))
    stage, fname = index[name].split("/")
    return resources.files(__name__).joinpath(stage).joinpath(fname).read_text(encoding="utf-8")


def ident(name: str) -> str:
    """Quote an identifier for DuckDB: wrap in double quotes, double any quote inside."""
    return '"' + str(name).replace('"', '""') + '"'


def statements(text: str) -> list[str]:
    """Split a file into statements on lines that end with `;` (our files keep `;` at line ends only)."""
    out, cur = [], []
    for line in text.splitlines():
        cur.append(line)
        if line.rstrip().endswith(";"):
            stmt = "\n".join(cur).strip()
            if any(ln.strip() and not ln.strip().startswith("--") for ln in cur):
                out.append(stmt)
            cur = []
    rest = "\n".join(cur).strip()
    if rest and any(ln.strip() and not ln.strip().startswith("--") for ln in cur):
        out.append(rest)
    return out


def used_params(stmt: str, params: dict | None) -> dict:
    """The parameters statement `stmt` names outside its comment lines (DuckDB rejects unused named
    parameters); `$run` is not taken for `$run_ids`."""
    code = "\n".join(line for line in stmt.splitlines() if not line.lstrip().startswith("--"))
    return {k: v for k, v in (params or {}).items() if re.search(rf"\${re.escape(k)}\b", code)}


def file_statements(name: str, **placeholders) -> list[str]:
    """The statements of query file `name`, `{placeholders}` filled in."""
    text = load(name)
    return statements(text.format(**placeholders) if placeholders else text)


def run(con, name: str, params: dict | None = None, **placeholders):
    """Execute every statement of the query file `name` in order, each with the parameters it names;
    returns the cursor of the last one."""
    cur = None
    for stmt in file_statements(name, **placeholders):
        p = used_params(stmt, params)
        cur = con.execute(stmt, p) if p else con.execute(stmt)
    return cur
