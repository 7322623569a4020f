"""RE2 patterns from the user (anchors, category rules, --match, --core-rule), checked before any query uses
them, so a bad pattern is a one-line usage error instead of a DuckDB error halfway through a report."""
import duckdb

from tracedb.errors import UsageError


def check_regex(con, pattern, what):
    """Raise a UsageError naming `what` when DuckDB's RE2 refuses `pattern`."""
    try:
        con.execute("SELECT regexp_matches('', $p)", {"p": pattern})
    except duckdb.Error as e:
        raise UsageError(f"{what} {pattern!r}: not a valid RE2 pattern ({str(e).splitlines()[0]})") from None
