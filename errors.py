"""One error hierarchy for the whole package. The CLI prints `str(error)` as one line and exits with
`exit_code`: 2 for a wrong call (usage), 1 for a run that failed on its input or its store. Also how an error
line shows what it quotes: a long value cut (cut, quoted), a parser's own limit in words (parse_limit)."""


class TracedbError(Exception):
    exit_code = 1


class UsageError(TracedbError):
    """The call is wrong: unknown run or profile, contradictory options."""
    exit_code = 2


class NoAnchor(UsageError):
    """A run cannot be cut into passes with the options given: no kernel matches the anchor, or none can
    be proposed. Callers that go over many runs (`tracedb runs --passes`) note it and go on."""


class InputError(TracedbError):
    """A trace file cannot be read as what it claims to be. The message names the file and where."""


class StoreError(TracedbError):
    """The store cannot be opened or written: locked, from a newer tracedb, not a tracedb file."""


# A value the user gave (a pattern, a run name, an option) is echoed in an error line at most this long: a 1 MB
# --anchor would otherwise make a 2 MB line (the pattern, then DuckDB's message quoting it again).
SHOWN_MAX = 200


def cut(text: str, limit: int = SHOWN_MAX) -> str:
    """`text` as an error line shows it: whole up to `limit` characters, else its first `limit` with `…` and
    its length (`'aaaa…' (1,000,001 characters)`)."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def quoted(value) -> str:
    """A user's text value quoted for an error line (repr), cut to SHOWN_MAX characters."""
    if not isinstance(value, str) or len(value) <= SHOWN_MAX:
        return repr(value)
    return f"{value[:SHOWN_MAX]!r}… ({len(value):,} characters)"


def refusal(flag: str, value, why: str, wanted: str) -> str:
    """The one line that refuses `value` of option `flag`: `--layers 0: out of range; expected an integer from
    1 to 100000`."""
    said = quoted(value) if isinstance(value, str) else str(value)     # a long text cut to SHOWN_MAX characters
    return f"{flag} {said}: {why}; expected {wanted}"


def parse_limit(e: BaseException) -> str | None:
    """Why Python's JSON or TOML parser gave up on a text within the interpreter's own limits, in words for an
    error line: nesting deeper than its recursion allows (a few hundred levels for tomllib, about 1,000 for
    json), or an integer of more digits than int() converts (4,300 by default, a guard against quadratic
    conversion). None for any other error."""
    import sys
    if isinstance(e, RecursionError):
        return "nested too deeply to read (Python's reader stops after a few hundred levels)"
    if isinstance(e, ValueError) and "integer string conversion" in str(e):
        return f"a number of more than {sys.get_int_max_str_digits()} digits"
    return None
