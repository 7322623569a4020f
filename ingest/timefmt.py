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
    if "e" in s or "E" in s:
        ns = int(decimal.Decimal(s).scaleb(3))   # int() truncates towards zero
    else:
        neg = s.startswith("-")
        whole, _, frac = s.lstrip("+-").partition(".")
        ns = int(whole or 0) * 1000 + int((frac + "000")[:3])
        ns = -ns if neg else ns
    if not -2**63 <= ns < 2**63:
        raise ValueError(f"microseconds out of the BIGINT ns range: {text!r}")
    return ns


def ns_to_us_text(ns: int) -> str:
    """1718851234567890123 -> '1718851234567890.123' (exact, 3 decimals)."""
    sign = "-" if ns < 0 else ""
    q, r = divmod(abs(int(ns)), 1000)
    return f"{sign}{q}.{r:03d}"
