"""RE2 patterns from the user (anchors, category rules, --match, --core-rule), checked before any query uses
them, so a bad pattern is a one-line usage error instead of a DuckDB error halfway through a report."""
import duckdb

from tracedb import sql
from tracedb.errors import UsageError, cut, quoted


def check_regex(con, pattern, what):
    """Raise a UsageError naming `what` when DuckDB's RE2 refuses `pattern`. The pattern and DuckDB's reason
    (which quotes it again) are cut to 200 characters each: a 1 MB pattern gives a line of ~0.5 KB, not 2 MB."""
    try:
        sql.run(con, "patterns_check_regex", {"p": pattern}).fetchall()
    except duckdb.Error as e:
        reason = cut(str(e).splitlines()[0])
        raise UsageError(f"{what} {quoted(pattern)}: not a valid RE2 pattern ({reason})") from None
