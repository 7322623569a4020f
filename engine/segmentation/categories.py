"""Categories of kernels under a profile's ordered rules (sql/segment/categories.sql): of given (name, op
type) pairs, or of every distinct kernel of the bound runs (TEMP _cats)."""
from tracedb import sql
from tracedb.engine.segmentation import profiles


def categorize(con, prof: profiles.Profile, pairs: list[tuple[str, str | None]]) -> list[str]:
    """Category of each (name, op_type) under a profile's rules: the SQL every report uses."""
    load_rules(con, prof)
    con.execute("CREATE OR REPLACE TEMP TABLE _names AS SELECT unnest($n) AS name, unnest($o) AS op_type",
                {"n": [n for n, _ in pairs], "o": [o for _, o in pairs]})
    sql.run(con, "categories")
    got = {(n, o): c for n, o, c in con.execute("SELECT name, op_type, category FROM _cats").fetchall()}
    return [got[(n, o)] for n, o in pairs]


def load_rules(con, prof):
    """TEMP _rules: the profile's category rules in order, `other` last."""
    order = {c: i for i, c in enumerate(prof.categories)}
    rules = prof.rules + [("other", None)]   # NULL pattern: never matches, only names the column
    con.execute("CREATE OR REPLACE TEMP TABLE _rules AS SELECT unnest(range(len($c)))::INTEGER AS ord, "
                "unnest($c) AS category, unnest($p) AS pattern, unnest($o)::INTEGER AS cat_ord",
                {"c": [c for c, _ in rules], "p": [p for _, p in rules], "o": [order[c] for c, _ in rules]})


def categorize_kernels(con, b):
    """_cats (categories.sql): the category of every distinct (name, op type) of the bound runs' kernels
    under the bound profile's rules."""
    load_rules(con, b.profile)
    con.execute("CREATE OR REPLACE TEMP TABLE _names AS SELECT DISTINCT name, op_type FROM kernels "
                "WHERE run_id IN (SELECT unnest($r))", {"r": b.run_ids})
    sql.run(con, "categories")
