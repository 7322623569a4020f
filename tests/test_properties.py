"""Property-based tests (hypothesis) of the small pure pieces the fuzz cases lean on:

- ingest/timefmt.us_text_to_ns: µs text -> exact BIGINT ns, checked against Python's Decimal arithmetic at
  unbounded precision (truncation toward zero; out of the BIGINT range or not a number: ValueError, never
  another exception, and quickly), ns_to_us_text round trips, and the store's SQL macro us_text_to_ns (the
  trace_view path) agreeing with it on plain decimals of up to 9 decimals;
- ingest/timefmt.csv_us_to_ns (the Ascend CSV time cells): plain decimal digits (TAB/space padded, a '-'
  when signed) give the exact ns by Decimal, every other spelling and anything beyond BIGINT ns is BadTime;
- ingest/ascend_csv_header.normalise and Header: header cells in any case, spacing, BOM and order map to the
  canonical columns, the first spelling of a column wins, every other cell is an extra, a missing required
  column is an InputError naming it, and no header text raises anything else;
- engine/store/connect.resolve_runs (`--run NAME|GLOB`): an existing name is taken literally even when it holds GLOB
  characters; results are store order without duplicates; anything else raises only UsageError.

Deterministic (derandomize=True, no example database) and bounded: the fast tier runs 100 examples a
property (50 for run selection; ~5 s in all); the deep tier (`pytest -m fuzz tests/test_properties.py`) the same
properties with 3,000 examples each. Each example is checked with plain asserts; a failure shows
hypothesis' minimal example (`Falsifying example: ...`), which is the repro."""
import decimal
import functools
import json
import os
import re

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracedb import sql
from tracedb.engine.store.connect import resolve_runs
from tracedb.errors import InputError, UsageError
from tracedb.ingest import ascend_csv_header as ascend_csv
from tracedb.ingest import timefmt
from tracedb.ingest.timefmt import ns_to_us_text, us_text_to_ns

FAST = settings(max_examples=100, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
DEEP = settings(max_examples=3000, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
BIGINT = (-2**63, 2**63 - 1)
EXACT = decimal.Context(prec=100_000, Emax=10**9, Emin=-10**9, traps=[decimal.InvalidOperation])


def both_tiers(body, fast_examples=None, **strategies):
    """The property `body` as two tests: the fast tier's and the deep tier's (marked fuzz)."""
    @(FAST if fast_examples is None else settings(FAST, max_examples=fast_examples))
    @given(**strategies)
    @functools.wraps(body)
    def fast(**kw):
        body(**kw)

    @pytest.mark.fuzz
    @DEEP
    @given(**strategies)
    @functools.wraps(body)
    def deep(**kw):
        body(**kw)

    return fast, deep


def fuzz_fail(cls: str, what: str, repro: str):
    """Fail the example with a `FUZZ[<class>]` message and a Python repro line (and log it to
    $TRACEDB_FUZZ_LOG, as fuzz_promise does for the command-line cases)."""
    path = os.environ.get("TRACEDB_FUZZ_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"case": "property", "class": cls, "detail": what, "args": [repro], "exit": None,
                                "stderr": [], "stdout": []}) + "\n")
    pytest.fail(f"FUZZ[{cls}] {what}\n  repro: python -c {repro!r}", pytrace=False)


def call(fn, *args, **kw):
    """fn(*args, **kw) -> ("ok", value) or ("raised", exception)."""
    try:
        return "ok", fn(*args, **kw)
    except Exception as e:   # noqa: BLE001 - the property says which exceptions may come
        return "raised", e


def _repro(module, fn, *args, **kw):
    shown = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kw.items()])
    return f"from {module} import {fn}; print({fn}({shown}))"


# ============================================================================================== time text
DIGITS = "0123456789"
PAD = st.text(alphabet="\t \"'", max_size=3)


@st.composite
def number_texts(draw, exponent_digits=2, max_whole=22, max_frac=12):
    """Decimal µs text as producers write it: sign, digits, point, fraction, exponent, padding."""
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    whole = draw(st.text(alphabet=DIGITS, max_size=max_whole))
    point = draw(st.booleans())
    frac = draw(st.text(alphabet=DIGITS, max_size=max_frac)) if point else ""
    exp = ""
    if draw(st.integers(0, 3)) == 0:
        exp = draw(st.sampled_from("eE")) + draw(st.sampled_from(["", "+", "-"])) + \
            draw(st.text(alphabet=DIGITS, min_size=1, max_size=exponent_digits))
    core = sign + whole + ("." if point else "") + frac + exp
    return draw(PAD) + core + draw(PAD), core


def expected_ns(core: str):
    """ns from the µs text by Decimal at unbounded precision, truncated toward zero; None for no text;
    ValueError when it is not a number or beyond BIGINT."""
    if core == "":
        return None   # a missing value (as '' or N/A)
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", core):
        raise ValueError(core)
    value = EXACT.multiply(decimal.Decimal(core), 1000)
    if value and value.adjusted() > 19:   # beyond BIGINT: said without building a huge integer
        raise ValueError(core)
    ns = int(value)   # toward zero
    if not BIGINT[0] <= ns <= BIGINT[1]:
        raise ValueError(core)
    return ns


def check_us_text(text, core):
    try:
        want = expected_ns(core)
    except ValueError:
        want = ValueError
    how, got = call(us_text_to_ns, text)
    repro = _repro("tracedb.ingest.timefmt", "us_text_to_ns", text)
    if how == "raised" and not isinstance(got, ValueError):
        fuzz_fail("wrong exception", f"us_text_to_ns({text!r}) raised {type(got).__name__}: {got}; expected "
                                     f"{'ValueError' if want is ValueError else want}", repro)
    if want is ValueError and how == "ok":
        fuzz_fail("wrong value", f"us_text_to_ns({text!r}) = {got!r}; expected a ValueError (not a number of "
                                 "µs in BIGINT ns)", repro)
    if want is not ValueError and (how == "raised" or got != want):
        shown = f"raised ValueError: {got}" if how == "raised" else f"= {got!r}"
        fuzz_fail("inexact ns", f"us_text_to_ns({text!r}) {shown}; Decimal at full precision gives {want!r}",
                  repro)


def _us_text_matches_decimal(sample):
    check_us_text(*sample)


def _us_text_wide_matches_decimal(sample):
    """Long mantissas (more than 28 significant digits: the default Decimal context would round them) and
    exponents up to 9,999 (larger ones: test_us_text_exact_examples, test_us_text_huge_exponent_is_quick)."""
    check_us_text(*sample)


def _us_text_any_text_value_error_only(text):
    how, got = call(us_text_to_ns, text)
    if how == "raised" and not isinstance(got, ValueError):
        fuzz_fail("wrong exception", f"us_text_to_ns({text!r}) raised {type(got).__name__}: {got}",
                  _repro("tracedb.ingest.timefmt", "us_text_to_ns", text))
    if how == "ok" and not (got is None or isinstance(got, int)):
        fuzz_fail("wrong value", f"us_text_to_ns({text!r}) = {got!r}", _repro("tracedb.ingest.timefmt",
                                                                              "us_text_to_ns", text))


def _ns_text_round_trip(ns, pad):
    text = ns_to_us_text(ns)
    how, got = call(us_text_to_ns, pad + text + pad)
    if not re.fullmatch(r"-?\d+\.\d{3}", text) or how != "ok" or got != ns:
        fuzz_fail("round trip", f"ns_to_us_text({ns}) = {text!r}; us_text_to_ns of it padded {pad!r} gives "
                                f"{got!r}", _repro("tracedb.ingest.timefmt", "us_text_to_ns", pad + text + pad))


@functools.cache
def _macro_con():
    con = duckdb.connect()
    sql.run(con, "macros")
    return con


def _sql_macro_agrees(sign, whole, frac, pad):
    """The store's us_text_to_ns macro (DECIMAL(38,9): exact up to 9 decimals) and the Python one agree,
    up to 15 integer digits (|µs| < 10^15: the ns fit a BIGINT)."""
    text = pad + sign + whole + ("." + frac if frac else "") + pad
    how, got = call(lambda t: _macro_con().execute("SELECT us_text_to_ns($s)", {"s": t}).fetchone()[0], text)
    want = us_text_to_ns(text)
    if how != "ok" or got != want:
        fuzz_fail("sql macro disagrees", f"SQL us_text_to_ns({text!r}) = {got!r}; Python gives {want!r}",
                  f"import duckdb; from tracedb import sql; c = duckdb.connect(); sql.run(c, 'macros'); "
                  f"print(c.execute('SELECT us_text_to_ns($s)', {{'s': {text!r}}}).fetchone())")


test_us_text_matches_decimal, test_us_text_matches_decimal_deep = both_tiers(
    _us_text_matches_decimal, sample=number_texts())
test_us_text_wide_matches_decimal, test_us_text_wide_matches_decimal_deep = both_tiers(
    _us_text_wide_matches_decimal, sample=number_texts(exponent_digits=4, max_whole=40, max_frac=40))
test_us_text_any_text_value_error_only, test_us_text_any_text_value_error_only_deep = both_tiers(
    _us_text_any_text_value_error_only,
    text=st.one_of(st.text(max_size=40), st.text(alphabet=DIGITS + ".eE+-\t \"'N/Aa_x,", max_size=30)))
test_ns_text_round_trip, test_ns_text_round_trip_deep = both_tiers(_ns_text_round_trip, ns=st.integers(*BIGINT),
                                                                   pad=PAD)
test_sql_macro_agrees, test_sql_macro_agrees_deep = both_tiers(
    _sql_macro_agrees, sign=st.sampled_from(["", "-", "+"]), whole=st.text(alphabet=DIGITS, min_size=1, max_size=15),
    frac=st.text(alphabet=DIGITS, max_size=9), pad=st.text(alphabet="\t \"", max_size=2))


@pytest.mark.parametrize("text", [
    "0.9999999999999999999999999999999e0",     # 31 significant digits: rounds up to 1000 ns at 28 digits
    "1.99999999999999999999999999999999e3",
    "-0.99999999999999999999999999999e0",
    "9223372036854775.807999999999999999999e0",
    "1e1000000",                               # beyond the default context's Emax: decimal.Overflow
    "-1e1000000",
    "1e-1000000000",                           # below Emin: 0 ns
    "0e99999999",
])
def test_us_text_exact_examples(text):
    """Spellings the random texts above rarely reach: ns exact by Decimal at unbounded precision, or a
    ValueError (never decimal.Overflow or another exception)."""
    check_us_text(text, text)


def test_us_text_huge_exponent_is_quick():
    """An exponent of ~1,000,000 (within Decimal's default Emax) must be refused as out of range at once,
    not after building a million-digit integer (minutes). Run in a process of its own: a conversion in C
    cannot be interrupted."""
    import subprocess
    import sys
    try:
        subprocess.run([sys.executable, "-c", "from tracedb.ingest.timefmt import us_text_to_ns\n"
                        "try:\n    us_text_to_ns('1e999990')\nexcept ValueError:\n    pass"], timeout=5, check=True)
    except subprocess.TimeoutExpired:
        fuzz_fail("hang", "us_text_to_ns('1e999990'): no answer within 5 s",
                  _repro("tracedb.ingest.timefmt", "us_text_to_ns", "1e999990"))


# ---------------------------------------------------------------------------------------------- CSV time cells
@st.composite
def csv_cells(draw):
    """Time cells as the CSV reader hands them over: plain decimals (the only spelling taken), signed or
    padded ones, and other spellings of numbers."""
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    whole = draw(st.text(alphabet=DIGITS, max_size=20))
    frac = draw(st.one_of(st.just(None), st.text(alphabet=DIGITS, max_size=9)))
    exp = draw(st.sampled_from(["", "", "", "e3", "E-2"]))
    under = draw(st.sampled_from(["", "", "", "_"]))
    body = sign + whole[:1] + under + whole[1:] + ("" if frac is None else "." + frac) + exp
    pad = draw(st.sampled_from(["", "\t", " ", " \t", "\t\t"]))
    return draw(st.sampled_from(["", pad])) + body + pad


def _csv_us_strict(cell, signed):
    how, got = call(timefmt.csv_us_to_ns, cell, signed=signed, required=True)
    repro = _repro("tracedb.ingest.timefmt", "csv_us_to_ns", cell, signed=signed)
    if how == "raised" and not isinstance(got, timefmt.BadTime):
        fuzz_fail("wrong exception", f"csv_us_to_ns({cell!r}, signed={signed}) raised {type(got).__name__}: {got}",
                  repro)
    text = cell.strip("\t ")
    plain = re.fullmatch(r"-?[0-9]+(\.[0-9]+)?" if signed else r"[0-9]+(\.[0-9]+)?", text)
    want = "BadTime"
    if cell not in ("", "N/A") and plain:
        value = int(EXACT.multiply(decimal.Decimal(text), 1000))
        want = value if -2**63 < value < 2**63 else "BadTime"
    shown = "BadTime" if how == "raised" else got
    if shown != want:
        fuzz_fail("csv time", f"csv_us_to_ns({cell!r}, signed={signed}) -> {shown!r}; expected {want!r}", repro)


test_csv_us_to_ns_strict, test_csv_us_to_ns_strict_deep = both_tiers(_csv_us_strict, cell=csv_cells(),
                                                                     signed=st.booleans())


# ============================================================================================== CSV header
SPELLINGS = {}
for _text, _canon in ascend_csv.COLUMNS.items():
    SPELLINGS.setdefault(_canon, []).append(_text)
REQUIRED = ascend_csv.REQUIRED


@st.composite
def decorated(draw, text):
    """`text` as a producer might write it: any case per character, blanks around and inside, a BOM."""
    chars = [c.upper() if draw(st.booleans()) else c for c in text]
    out = "".join(draw(st.sampled_from([" ", "  ", "\t", " \t "])) if c == " " else c for c in chars)
    lead = draw(st.sampled_from(["", " ", "\t", "\ufeff", "\ufeff "]))
    trail = draw(st.sampled_from(["", " ", "\t", "  "]))
    return lead + out + trail


@st.composite
def headers(draw):
    """(cells, {canonical: index of its first spelling}, required canonicals left out). A column may come
    twice, in one spelling (refused) or two (`Start Time(us)` and `Task Start Time(us)`: the first wins)."""
    canon = draw(st.lists(st.sampled_from(sorted(SPELLINGS)), unique=True, min_size=0, max_size=len(SPELLINGS)))
    cells = []
    for c in canon:
        for _ in range(draw(st.integers(1, 2))):   # a column twice: the first wins, the second is an extra
            cells.append(draw(decorated(draw(st.sampled_from(SPELLINGS[c])))))
    extras = draw(st.lists(st.text(alphabet="abcxyz_()%/ 0123456789", min_size=1, max_size=12), max_size=5))
    extras = [e for e in extras if ascend_csv.normalise(e) not in ascend_csv.COLUMNS]
    cells += extras
    order = draw(st.permutations(range(len(cells))))
    cells = [cells[i] for i in order]
    first = {}
    for i, cell in enumerate(cells):
        c = ascend_csv.COLUMNS.get(ascend_csv.normalise(cell))
        if c is not None:
            first.setdefault(c, i)
    return cells, first, [c for c in REQUIRED if c not in canon]


def _normalise_idempotent(cell):
    n = ascend_csv.normalise(cell)
    ok = (ascend_csv.normalise(n) == n and n == n.strip() and "  " not in n and "\ufeff" not in n
          and (not cell.isascii() or ascend_csv.normalise(cell.upper()) == ascend_csv.normalise(cell.lower())))
    if not ok:
        fuzz_fail("header mapping", f"normalise({cell!r}) = {n!r}: not idempotent, not case-free or not blank-free",
                  _repro("tracedb.ingest.ascend_csv", "normalise", cell))


def _header_repro(cells):
    return f"from tracedb.ingest.ascend_csv import Header; h = Header('k.csv', {cells!r}); print(h.position, h.extras)"


def _header_maps_every_spelling(sample):
    cells, first, missing = sample
    normalised = [ascend_csv.normalise(c) for c in cells]
    repeated = [n for i, n in enumerate(normalised) if n and n in normalised[:i]]
    how, got = call(ascend_csv.Header, "k.csv", cells)
    if how == "raised" and not isinstance(got, InputError):
        fuzz_fail("wrong exception", f"Header({cells!r}) raised {type(got).__name__}: {got}", _header_repro(cells))
    if repeated or missing:
        # a column named twice (after normalising) is refused, whatever else is missing; else each missing
        # required column is named
        why = "appears twice" if repeated else "missing"
        if how == "ok" or why not in str(got) or (not repeated and any(REQUIRED[c] not in str(got) for c in missing)):
            fuzz_fail("header mapping", f"Header({cells!r}) -> {got!r}; expected an InputError saying "
                                        f"{why} {repeated or [REQUIRED[c] for c in missing]}", _header_repro(cells))
        return
    used = set(first.values())
    extras = [i for i in range(len(cells)) if i not in used]
    if how == "raised" or got.position != first or [i for _, i in got.extras] != extras:
        fuzz_fail("header mapping", f"Header({cells!r}) -> {getattr(got, 'position', got)!r}; expected positions "
                                    f"{first} and extras at {extras}", _header_repro(cells))


def _header_any_cells_input_error_only(cells):
    how, got = call(ascend_csv.Header, "k.csv", cells)
    if how == "raised":
        if not isinstance(got, InputError) or not str(got).startswith("k.csv: line 1: "):
            fuzz_fail("wrong exception", f"Header({cells!r}) raised {type(got).__name__}: {got}", _header_repro(cells))
    elif not set(REQUIRED) <= set(got.position):
        fuzz_fail("header mapping", f"Header({cells!r}) accepted without {set(REQUIRED) - set(got.position)}",
                  _header_repro(cells))


test_normalise_idempotent, test_normalise_idempotent_deep = both_tiers(_normalise_idempotent, cell=st.text(max_size=30))
test_header_maps_every_spelling, test_header_maps_every_spelling_deep = both_tiers(_header_maps_every_spelling,
                                                                                   sample=headers())
test_header_any_cells_input_error_only, test_header_any_cells_input_error_only_deep = both_tiers(
    _header_any_cells_input_error_only, cells=st.lists(st.text(max_size=15), max_size=12))


# ============================================================================================== run selection
NAME_CHARS = "ab*?[]!^-\\ %_'"


@functools.cache
def _selection_con():
    return duckdb.connect()


def runs_con(names):
    """The shared in-memory connection with a `runs` table of these names (run_id 1, 2, ... in order)."""
    con = _selection_con()
    con.execute("CREATE OR REPLACE TABLE runs (run_id INTEGER PRIMARY KEY, name VARCHAR NOT NULL UNIQUE, "
                "tags MAP(VARCHAR, VARCHAR))")
    con.executemany("INSERT INTO runs VALUES (?, ?, MAP {'k': ?})",
                    [(i, n, str(i % 2)) for i, n in enumerate(names, start=1)])
    return con


NAMES = st.lists(st.text(alphabet=NAME_CHARS, min_size=1, max_size=6), min_size=1, max_size=8, unique=True)


def _selection_repro(names, runs, tags=()):
    return ("import duckdb; from tracedb.engine.store.connect import resolve_runs; c = duckdb.connect(); "
            "c.execute('CREATE TABLE runs (run_id INTEGER, name VARCHAR, tags MAP(VARCHAR, VARCHAR))'); "
            f"c.executemany('INSERT INTO runs VALUES (?, ?, MAP {{\\'k\\': ?}})', "
            f"{[(i, n, str(i % 2)) for i, n in enumerate(names, start=1)]!r}); "
            f"print(resolve_runs(c, {list(runs)!r}, {list(tags)!r}))")


def _existing_name_taken_literally(names, data):
    con = runs_con(names)
    i = data.draw(st.integers(0, len(names) - 1))
    how, got = call(resolve_runs, con, [names[i]])
    if how == "raised" or got != [i + 1]:
        fuzz_fail("run selection", f"--run {names[i]!r} among runs {names!r} -> {got!r}; expected the run of that "
                                   f"name alone ([{i + 1}]), taken literally", _selection_repro(names, [names[i]]))


def _selection_store_order_no_duplicates(names, patterns, tags):
    con = runs_con(names)
    how, got = call(resolve_runs, con, patterns, tags)
    repro = _selection_repro(names, patterns, tags)
    if how == "raised":
        if not isinstance(got, UsageError):
            fuzz_fail("wrong exception", f"--run {patterns!r} --tag {tags!r} among {names!r} raised "
                                         f"{type(got).__name__}: {got}", repro)
        return
    literal = [names.index(p) + 1 for p in patterns if p in names and not tags]
    if len(got) != len(set(got)) or not set(got) <= set(range(1, len(names) + 1)) or not set(literal) <= set(got):
        fuzz_fail("run selection", f"--run {patterns!r} --tag {tags!r} among {names!r} -> {got!r}: duplicates, "
                                   f"unknown ids, or an existing name {literal} not selected", repro)


# ~15 ms an example (a table made anew): 50 in the fast tier
test_existing_name_taken_literally, test_existing_name_taken_literally_deep = both_tiers(
    _existing_name_taken_literally, fast_examples=50, names=NAMES, data=st.data())
test_selection_store_order_no_duplicates, test_selection_store_order_no_duplicates_deep = both_tiers(
    _selection_store_order_no_duplicates, fast_examples=50, names=NAMES,
    patterns=st.lists(st.text(alphabet=NAME_CHARS, min_size=0, max_size=6), min_size=1, max_size=4),
    tags=st.lists(st.sampled_from(["k", "k=0", "k=1", "x", "=v", "k="]), max_size=2))
