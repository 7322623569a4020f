"""One error hierarchy for the whole package. The CLI prints `str(error)` as one line and exits with
`exit_code`: 2 for a wrong call (usage), 1 for a run that failed on its input or its store."""


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
