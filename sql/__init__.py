"""Every query of tracedb lives in a `.sql` file of this folder, loaded by name.

Values are always bound as `$name` parameters. A few files take identifiers that depend on the input
(CSV column positions, per-category output columns); those are substituted into `{name}` placeholders
(never written in a file's comments) only through `ident()`, the one quoting helper, never from raw user text.
"""
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def load(name: str) -> str:
    """Text of `sql/<name>.sql`."""
    return resources.files(__name__).joinpath(f"{name}.sql").read_text(encoding="utf-8")


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
            if any(l.strip() and not l.strip().startswith("--") for l in cur):
                out.append(stmt)
            cur = []
    rest = "\n".join(cur).strip()
    if rest and any(l.strip() and not l.strip().startswith("--") for l in cur):
        out.append(rest)
    return out


def run(con, name: str, params: dict | None = None, **placeholders):
    """Execute every statement of `sql/<name>.sql` in order; returns the cursor of the last one.

    Each statement gets only the parameters it mentions (DuckDB rejects unused named parameters)."""
    text = load(name)
    if placeholders:
        text = text.format(**placeholders)
    cur = None
    for stmt in statements(text):
        code = "\n".join(line for line in stmt.splitlines() if not line.lstrip().startswith("--"))
        p = {k: v for k, v in (params or {}).items() if f"${k}" in code}
        cur = con.execute(stmt, p) if p else con.execute(stmt)
    return cur
