"""Every query of tracedb lives in a `.sql` file of tracedb/sql/<stage>/ (with its documented header), not in a
Python string: a string of the package that opens with an SQL keyword is a query that belongs there, unless it
is connection management (ALLOWED) or one of the few statements that cannot be a query file (EXCEPTIONS, each
with why). The scan reads every module's string literals and f-strings, so a query built in a variable is
found as well as one written in the call."""
import ast
import os
import re

from helpers import ROOT

# connection management, not queries: transaction control, session settings, attaching a database file
ALLOWED = {"BEGIN", "COMMIT", "ROLLBACK", "CHECKPOINT", "SET", "RESET", "PRAGMA", "ATTACH", "DETACH"}
SQL_START = re.compile(r"^\s*(SELECT|WITH|CREATE|INSERT|UPDATE|DELETE|DROP|COPY|DESCRIBE|EXPLAIN|ALTER|SET|RESET|"
                       r"PRAGMA|BEGIN|COMMIT|ROLLBACK|CHECKPOINT|ATTACH|DETACH|SUMMARIZE|INSTALL|LOAD|USE|"
                       r"TRUNCATE|VACUUM|EXPORT|IMPORT|MERGE|CALL)\b")
# (module, the statement's first words) -> why it is not a query file
EXCEPTIONS = {
    ("engine/store/connect.py", "CREATE OR REPLACE TEMP VIEW"):
        "the head own_views puts on each statement of views.sql (the store's views, TEMP for the session)",
    ("engine/store/sandbox.py", "EXPLAIN (FORMAT json)"):
        "put before the user's own statement of `tracedb sql`, whose plan the sandbox checks",
    ("engine/store/sandbox.py", "EXPORT DATABASE"): "a statement type's name in the sandbox's refusals",
    ("engine/store/sandbox.py", "COPY FROM DATABASE"): "a statement type's name in the sandbox's refusals",
    ("engine/store/sandbox.py", "IMPORT DATABASE runs"): "the sandbox's refusal of a statement",
    ("ingest/chrome_json/schema.py", "SELECT \\*, CAST"):
        "a regular expression that finds one file's read in ingest_chrome_part.sql",
}
SKIP = {".venv", "tests", "docs", "bench", "__pycache__", ".git", "tracedb.egg-info", "golden"}


def statements_in_python() -> list[tuple[str, int, str, str]]:
    """(module, line, keyword, text) of every string literal of the package that opens an SQL statement."""
    found = []
    for dirpath, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in SKIP)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    text = node.value
                elif isinstance(node, ast.JoinedStr):
                    text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
                else:
                    continue
                m = SQL_START.match(text)
                # one word alone is a keyword named in prose or a message, not a statement (COMMIT is both)
                if m and (len(text.split()) > 1 or m.group(1) in ALLOWED):
                    found.append((os.path.relpath(path, ROOT), node.lineno, m.group(1), " ".join(text.split())))
    return found


def _excepted(module: str, text: str) -> bool:
    return any(module == m and text.startswith(words) for m, words in EXCEPTIONS)


def test_every_query_lives_in_a_query_file():
    inline = [f"{module}:{line}: {text[:100]}" for module, line, keyword, text in statements_in_python()
              if keyword not in ALLOWED and not _excepted(module, text)]
    assert not inline, (f"{len(inline)} queries in Python strings; move each into a query file of sql/<stage>/ "
                        "(sql.run or sql.load) or, if it cannot be one, into EXCEPTIONS with why:\n"
                        + "\n".join(inline))


def test_the_scan_finds_statements():
    """The scan sees the package's connection management (an empty scan would pass the test above)."""
    keywords = {keyword for _, _, keyword, _ in statements_in_python()}
    assert {"BEGIN", "COMMIT"} <= keywords


def test_every_exception_is_still_there():
    """An exception whose statement has gone (moved into a query file) is dropped from the list."""
    texts = [(module, text) for module, _, _, text in statements_in_python()]
    for (module, words), why in EXCEPTIONS.items():
        assert why and any(m == module and t.startswith(words) for m, t in texts), (module, words)
