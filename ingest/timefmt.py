"""Exact time conversion. Profilers print microseconds as decimal text; tracedb keeps integer ns.

Ascend writes absolute epoch µs with 3 decimals and a trailing TAB ("1718851234567890.123\t"): 19
significant digits, more than a float64 holds (at 1.7e15 µs its ulp is 0.25 µs), so the text is split,
never parsed as float. Digits below 1 ns are truncated, as torch_npu's convert_us2ns does."""

import decimal
import re

_PAD = "\t \"'"
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def us_text_to_ns(text) -> int | None:
    """'1718851234567890.123\\t' -> 1718851234567890123; None / '' / 'N/A' -> None. Scientific notation
    (TraCR prints '1.23457e+06') goes through Decimal, so it is exact too; truncation towards zero."""
    if text is None:
        return None
    s = str(text).strip(_PAD)
    if s in ("", "N/A"):
        return None
    if not _NUMBER.fullmatch(s):
        raise ValueError(f"not a number of microseconds: {text!r}")
    neg = s.startswith("-")
    mantissa, _, exponent = s.lstrip("+-").lower().partition("e")
    ns = _digits_to_ns(mantissa, int(exponent or 0), text)
    ns = -ns if neg else ns
    if not -2**63 <= ns < 2**63:
        raise ValueError(f"microseconds out of the BIGINT ns range: {text!r}")
    return ns


def _digits_to_ns(mantissa: str, exponent: int, text) -> int:
    """|mantissa| x 10^exponent µs in ns, truncated towards zero, by integer arithmetic on the digits alone:
    a Decimal would round at its 28-digit precision first (0.99...9e0 µs with 31 nines read as 1000 ns)
    and take seconds to build 10^999990. Only the at most 20 digits that can reach a BIGINT are turned
    into an int."""
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    if not digits:
        return 0
    shift = exponent + 3 - len(frac)          # ns = int(digits) * 10^shift
    if len(digits) + shift > 20:              # >= 10^20 ns: beyond any BIGINT
        raise ValueError(f"microseconds out of the BIGINT ns range: {text!r}")
    if shift >= 0:
        return int(digits) * 10 ** shift
    keep = len(digits) + shift                # the digits at or above 1 ns
    return int(digits[:keep]) if keep > 0 else 0


def ns_to_us_text(ns: int) -> str:
    """1718851234567890123 -> '1718851234567890.123' (exact, 3 decimals)."""
    sign = "-" if ns < 0 else ""
    q, r = divmod(abs(int(ns)), 1000)
    return f"{sign}{q}.{r:03d}"


# ------------------------------------------------------------------------------ Ascend CSV time cells
# The only spelling of a time that the Ascend CSV readers take, after the TAB/space padding is stripped:
# plain decimal digits with an optional fraction, as torch_npu and msprof print them ("1764246877073569.640",
# "1892.920", "0", "1695115378713661"; every time cell of the real traces in the test data is one of
# these). Other spellings a number parser takes are refused, because each one hides a problem: "1_000"
# (DuckDB's cast reads it as 1000), "1.76425E+15" (a spreadsheet's re-save, which has lost the
# microseconds), "+5", ".5", "inf". sql/ingest/ingest_ascend_csv.sql applies the same pattern; the two
# must agree (tests/test_input_hardening_ascend.py checks that on every case).
PLAIN_US = r"[0-9]+(\.[0-9]+)?"
SIGNED_PLAIN_US = r"-?[0-9]+(\.[0-9]+)?"
_PLAIN = re.compile(PLAIN_US)
_SIGNED = re.compile(SIGNED_PLAIN_US)
CSV_PAD = "\t "
# What DuckDB's CSV reader turns into NULL (its nullstr option): exactly these cells, before any trimming.
CSV_MISSING = ("", "N/A")
# 2^63 - 1 ns, the largest time the store's BIGINT ns hold, in µs.
MAX_US_TEXT = "9223372036854775.807"


class BadTime(ValueError):
    """A time cell that is not a plain non-negative (or, signed, any) decimal number of µs in BIGINT ns."""


def csv_us_to_ns(cell, signed: bool = False, required: bool = True) -> int | None:
    """A time cell of an Ascend CSV, exactly as the CSV reader hands it over, to integer ns: the strict
    rule above, digits below 1 ns truncated. `signed`: a leading '-' is allowed (Wait Time, a gap the
    profiler computes); `required`: an empty or 'N/A' cell is an error, else None. Raises BadTime with the
    reason as the end of an error message ("expected a number of microseconds ...")."""
    if cell is None or cell in CSV_MISSING:
        if required:
            raise BadTime("expected a number of microseconds")
        return None
    text = cell.strip(CSV_PAD)
    if not (_SIGNED if signed else _PLAIN).fullmatch(text):
        raise BadTime(_why_not_plain(text))
    neg = text.startswith("-")
    whole, _, frac = text.lstrip("-").partition(".")
    whole = whole.lstrip("0") or "0"
    # 16 integer digits hold 2^63 ns: longer is out of range without building a huge integer from it
    ns = int(whole) * 1000 + int((frac + "000")[:3]) if len(whole) <= 16 else 2**63
    if ns >= 2**63:      # -2^63 too: the SQL negates a BIGINT
        raise BadTime(f"expected a number of microseconds of at most {MAX_US_TEXT} (the BIGINT nanoseconds "
                      "the store keeps)")
    return -ns if neg else ns


def _why_not_plain(text: str) -> str:
    """Why a cell that fails the plain pattern is refused: a negative number, another spelling of a
    number, or no number at all ("expected a number of microseconds", the message for N/A and blanks)."""
    try:
        value = decimal.Decimal(text)
    except decimal.InvalidOperation:
        return "expected a number of microseconds"
    if value.is_finite() and value < 0 and _SIGNED.fullmatch(text):
        return "expected a number of microseconds of at least 0"
    return ("expected a number of microseconds in plain decimal digits like 1892.920 (no sign, exponent, "
            "digit separator or bare decimal point)")
