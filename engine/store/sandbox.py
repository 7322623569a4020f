"""The connection of `tracedb sql`, confined: the user's SQL text may read the store (or the dataset's own
Parquet files) and nothing else, unless they name more; without --write it writes no file. A report's
confined session (engine/store/connect.py, open_store(confined=True)) is confined the same way, the temporary
folder allowed, where the CSV rendering's COPY writes its file.

DuckDB can reach the file system from SQL (read_csv, read_blob, glob, COPY ... TO, EXPORT DATABASE, ATTACH,
INSTALL/LOAD) and change its own settings (SET autoinstall_known_extensions = true undoes the no-network
setting of every tracedb connection). Here, once the store is open:
- `enable_external_access = false`: no file but the open database and the paths allowed below, no extension;
- `allowed_paths` / `allowed_directories`: the dataset's own files, and each `--allow-read PATH`;
- `lock_configuration = true`: no SET or RESET can undo the above for the rest of the connection.
DuckDB grants a path for reading and writing alike (COPY ... TO into an allowed folder, or over an allowed
file with USE_TMP_FILE false, works), and a file can be written from places a statement's type does not show:
a COPY inside a CTE (`WITH c AS (COPY ... TO 'f') SELECT 1`, `CREATE TABLE t AS WITH ...`), EXPLAIN ANALYZE of
one, PREPARE/EXECUTE, ATTACH ... (READ_WRITE), COPY FROM DATABASE and IMPORT DATABASE (which DuckDB types as
PRAGMA; the latter runs the SQL of a folder's files) and json_execute_serialized_sql (a plan given as text). So
without --write each statement is checked twice:
- before any runs, by its type (check_statements): SELECT, EXPLAIN, CALL, PRAGMA, SET (settings are locked),
  the transaction statements and DDL/DML (which only TEMP objects accept: the store is open read-only) run;
  COPY, EXPORT, COPY FROM DATABASE, PREPARE, EXECUTE, IMPORT, ATTACH but read-only, and any other type do not;
- right before it runs, by its plan (Checked): DuckDB's own EXPLAIN of the statement, in the session as the
  statements before it left it, names every operator it would run, views and macros expanded; an operator
  that writes a file (COPY_TO_FILE and its batch variants) or runs a plan given as text refuses it."""
import json
import os

import duckdb

from tracedb import sql
from tracedb.errors import UsageError

FILE_WRITERS = {duckdb.StatementType.COPY: "COPY", duckdb.StatementType.EXPORT: "EXPORT DATABASE",
                duckdb.StatementType.COPY_DATABASE: "COPY FROM DATABASE"}
ST = duckdb.StatementType
# the statement types that run without --write; their plan is read first (EXPLAIN) unless NOT_PLANNED
RUNS = {ST.SELECT, ST.EXPLAIN, ST.CALL, ST.PRAGMA, ST.SET, ST.VARIABLE_SET, ST.TRANSACTION, ST.CREATE,
        ST.CREATE_FUNC, ST.INSERT, ST.UPDATE, ST.DELETE, ST.MERGE_INTO, ST.DROP, ST.ALTER, ST.ANALYZE, ST.VACUUM,
        ST.MULTI, ST.LOAD, ST.EXTENSION, ST.DETACH, ST.ATTACH}
# run without a plan read: DuckDB has none for them (PRAGMA, DETACH, USE) or they evaluate no expression (a
# macro's or view's body runs where it is used, and is read there); LOAD and INSTALL fail on the disabled
# external access with DuckDB's own message
NOT_PLANNED = {ST.TRANSACTION, ST.PRAGMA, ST.CREATE_FUNC, ST.DROP, ST.LOAD, ST.EXTENSION, ST.DETACH, ST.ATTACH}
# operators of a plan that write a file, or run a plan they are given as text
PLAN_WRITERS = ("COPY", "EXPORT", "JSON_EXECUTE_SERIALIZED_SQL")
NO_WRITE = "tracedb sql writes nothing without --write (to save a result, use --format csv|json -o FILE)"


def confine(con, allow_read=()) -> None:
    """Confine `con` to its database, the dataset files it reads and the paths in `allow_read` (files or
    folders, which must exist). A connection confined already (its configuration locked) is left as it is."""
    if sql.run(con, "sandbox_locked").fetchone()[0]:
        return
    files, folders = _dataset_files(con), []
    for path in allow_read:
        real = os.path.realpath(path)
        if os.path.isdir(real):
            folders.append(real.rstrip(os.sep) + os.sep)
        elif os.path.isfile(real):
            files.append(real)
        else:
            raise UsageError(f"--allow-read {path}: no such file or folder")
    if files:
        con.execute("SET allowed_paths = $p", {"p": files})
    if folders:
        con.execute("SET allowed_directories = $d", {"d": folders})
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def refuse_file_writers(con, query: str, write: bool) -> None:
    """Without --write, a text holding a statement that could write a file is refused before any of it runs
    (one line naming the statement); the plan of each is read again right before it runs (Checked)."""
    if write:
        return
    try:
        check_statements(con, _statements(con, query))
    except duckdb.Error:
        return      # not parsed: DuckDB itself reports the syntax error when the text runs


class Checked:
    """`con` as `tracedb sql` runs a text on it without --write: statement by statement, each after its type
    and its plan were checked (check_plan); what else the caller does with `con` (fetch the result, read its
    description, bind parameters of tracedb's own queries) goes to the connection itself."""

    def __init__(self, con):
        self._con = con

    def __getattr__(self, name):
        return getattr(self._con, name)

    def execute(self, query, parameters=None):
        if parameters is not None or not isinstance(query, str):
            return self._con.execute(query, parameters)
        statements = _statements(self._con, query)
        check_statements(self._con, statements)
        cur = None      # a text of no statement (blanks, comments) gives None, as DuckDB's execute does
        for s in statements:
            check_plan(self._con, s)
            cur = self._con.execute(s)
        return cur


def _statements(con, query: str) -> list:
    statements = con.extract_statements(query)
    for s in statements:
        try:
            s.type
        except ValueError:   # a statement type the Python client has no name for (UPDATE EXTENSIONS in 2.0)
            raise UsageError("sql: a statement of a kind tracedb sql cannot check; " + NO_WRITE) from None
    return statements


def check_statements(con, statements) -> None:
    """Each statement's type runs without --write, or the text is refused naming it."""
    for s in statements:
        kind = s.type
        if kind in FILE_WRITERS:
            raise UsageError(f"sql: {FILE_WRITERS[kind]} writes files; {NO_WRITE}")
        if kind in (ST.PREPARE, ST.EXECUTE):
            raise UsageError(f"sql: {kind.name} runs a statement prepared apart, unchecked; {NO_WRITE}")
        if kind == ST.PRAGMA and _pragma_refused(s.query):
            raise UsageError(f"sql: {_pragma_refused(s.query)}; {NO_WRITE}")
        if kind == ST.ATTACH and not _read_only_attach(s.query):
            raise UsageError("sql: ATTACH with options other than (READ_ONLY) may create or change a DuckDB file; "
                             + NO_WRITE)
        if kind not in RUNS:
            raise UsageError(f"sql: a {kind.name} statement; {NO_WRITE}")
        if kind == ST.EXPLAIN:
            inner = _analyzed(s.query)
            if inner is not None:
                check_statements(con, _statements(con, inner))


def check_plan(con, statement) -> None:
    """The statement's plan (DuckDB's EXPLAIN, in the session as it is now) has no operator that writes a file
    or runs a plan given as text. EXPLAIN ANALYZE runs its statement: that statement's plan is read."""
    kind = statement.type
    if kind == ST.EXPLAIN:
        inner = _analyzed(statement.query)
        for s in _statements(con, inner) if inner is not None else ():
            check_plan(con, s)
        return
    if kind in NOT_PLANNED:
        return
    try:
        plan = con.execute("EXPLAIN (FORMAT json) " + statement.query).fetchall()
    except duckdb.ParserException:
        if kind in (ST.SET, ST.ALTER):
            return      # USE and COMMENT ON, which DuckDB does not explain: they evaluate no query
        raise
    found = sorted({n for _, text in plan for n in _operators(json.loads(text)) if n.startswith(PLAN_WRITERS)})
    if found:
        raise UsageError(f"sql: the statement would run {', '.join(found)} (it writes a file, or runs a plan "
                         f"given as text); {NO_WRITE}")


def _operators(node):
    """Every operator name of an EXPLAIN (FORMAT json) plan."""
    if isinstance(node, dict):
        if isinstance(node.get("name"), str):
            yield node["name"].strip().upper()
        for v in node.values():
            yield from _operators(v)
    elif isinstance(node, list):
        for v in node:
            yield from _operators(v)


def _tokens(text: str) -> list[tuple[int, str, object]]:
    """(offset, text, type) of the statement's tokens as DuckDB's lexer reads them, comments left out."""
    raw = duckdb.tokenize(text)
    out = []
    for i, (start, kind) in enumerate(raw):
        end = raw[i + 1][0] if i + 1 < len(raw) else len(text)
        if kind != duckdb.token_type.comment:
            out.append((start, text[start:end].strip(), kind))
    return out


def _analyzed(text: str) -> str | None:
    """The statement an EXPLAIN runs (EXPLAIN ANALYZE, or EXPLAIN (ANALYZE ...)), as text; None for a plain
    EXPLAIN, which runs nothing."""
    toks = _tokens(text)
    if len(toks) < 2:
        return None
    i = 1
    if toks[1][1] == "(":
        depth, j = 0, 1
        for j in range(1, len(toks)):
            depth += {"(": 1, ")": -1}.get(toks[j][1], 0)
            if depth == 0:
                break
        options = {t[1].upper() for t in toks[2:j]}
        if not options & {"ANALYZE", "ANALYSE"}:
            return None
        i = j + 1
    elif toks[1][1].upper() in ("ANALYZE", "ANALYSE"):
        i = 2
    else:
        return None
    return text[toks[i][0]:] if i < len(toks) else ""


def _pragma_refused(text: str) -> str | None:
    """Why a PRAGMA statement does not run without --write, or None: DuckDB gives that type to COPY FROM DATABASE
    and IMPORT DATABASE too (pragmas copy_database and import_database)."""
    words = [t[1].lower() for t in _tokens(text)[:2]]
    if not words:
        return None
    if words[0] == "import" or "import_database" in words:
        return "IMPORT DATABASE runs the SQL of a folder's files"
    if words[0] == "copy" or "copy_database" in words:
        return "COPY FROM DATABASE writes into another database"
    return None


def _read_only_attach(text: str) -> bool:
    """An ATTACH with no options, or with (READ_ONLY) alone: read-only on the read-only store's connection."""
    toks = [t[1].upper() for t in _tokens(text)]
    if "(" not in toks:
        return True
    opened = toks.index("(")
    return toks[opened + 1:] in (["READ_ONLY", ")"], ["READ_ONLY", ")", ";"])


def _dataset_files(con) -> list[str]:
    """The Parquet files a dataset connection's views read (the variable tracedb_files), else none."""
    try:
        value = sql.run(con, "sandbox_dataset_files").fetchone()[0]
    except duckdb.Error:
        return []
    if not isinstance(value, dict):
        return []
    return sorted({os.path.realpath(f) for fs in value.values() for f in (fs or [])})
