"""tracedb.ingest.timefmt: exact µs text <-> integer ns, and the store's CSV conversion agreeing with it.

Ascend writes absolute epoch µs with 3 decimals and a trailing TAB: 16 integer digits + 3 decimals = 19
significant digits, more than a float64 holds, so every expected value below is written out digit by digit.
"""
import pytest

from helpers import write_csv
from tracedb.ingest.timefmt import ns_to_us_text, us_text_to_ns


# ---------------------------------------------------------------------------------------------- parsing
@pytest.mark.parametrize("text, ns", [
    # 19 digits exact: 1764246877073569 µs * 1000 + 640 ns
    ("1764246877073569.640\t", 1764246877073569640),
    ("1764246877073569.640", 1764246877073569640),
    # ...and values a float64 would merge: .532 and .533 differ by exactly 1 ns
    ("1718851234567420.532", 1718851234567420532),
    ("1718851234567420.533", 1718851234567420533),
    # the quoted form msprof writes in some files: the quotes and the TAB are padding
    ('"1736413971558972.912\t"', 1736413971558972912),
    ("'1736413971558972.912'", 1736413971558972912),
    (" 400.250 ", 400250),
    ("400.250\t ", 400250),
    # fewer than 3 decimals: .2 µs = 200 ns, .25 µs = 250 ns; no decimals: 400 µs = 400000 ns
    ("1764246877073400.2", 1764246877073400200),
    ("400.25", 400250),
    ("400", 400000),
    ("400.", 400000),
    (".5", 500),
    ("0", 0),
    # more than 3 decimals are truncated, not rounded: .1239 -> 123 ns (rounding would give 124)
    ("400.1239", 400123),
    ("400.9999999", 400999),
    ("1764246877073569.6409\t", 1764246877073569640),
    # negative values: the sign applies to the whole value, truncation goes toward zero
    ("-1.5", -1500),
    ("-0.005", -5),
    ("-1.2349", -1234),
    ("+2.5", 2500),
])
def test_us_text_to_ns_exact(text, ns):
    assert us_text_to_ns(text) == ns


@pytest.mark.parametrize("text", ["N/A", "", "N/A\t", '"N/A"', "\t", "  "])
def test_missing_values_are_none(text):
    assert us_text_to_ns(text) is None


@pytest.mark.parametrize("text, ns", [
    # what TraCR-like producers print: 1.23457e+06 µs = 1234570 µs = 1234570000 ns
    ("1.23457e+06", 1234570000),
    ("1E3", 1000000),            # 1000 µs
    ("2.25e-1", 225),            # 0.225 µs = 225 ns
    ("-1.5e+00", -1500),
    ("1.23457e+06\t", 1234570000),
])
def test_scientific_notation(text, ns):
    assert us_text_to_ns(text) == ns


@pytest.mark.parametrize("text", ["abc", "1.2.3", "1,5", "12a", ".", "-", "1 2", "0x10", "1e", "e5", "nan",
                                  "inf", "Infinity", "1_000", "1.5us"])
def test_garbage_raises_value_error(text):
    with pytest.raises(ValueError):
        us_text_to_ns(text)


@pytest.mark.parametrize("text", ["--1", "+-1", "-+1.5"])
def test_double_sign_raises_value_error(text):
    with pytest.raises(ValueError):
        us_text_to_ns(text)


@pytest.mark.parametrize("text", ["1e400", "-1e400", "1e308"])
def test_infinite_raises_value_error(text):
    with pytest.raises(ValueError):
        us_text_to_ns(text)


# ---------------------------------------------------------------------------------------------- formatting
@pytest.mark.parametrize("ns, text", [
    (1764246877073569640, "1764246877073569.640"),
    (1736413971558972912, "1736413971558972.912"),
    (400200, "400.200"),
    (5, "0.005"),
    (0, "0.000"),
    (-1500, "-1.500"),
    (-5, "-0.005"),
])
def test_ns_to_us_text(ns, text):
    assert ns_to_us_text(ns) == text


@pytest.mark.parametrize("ns", [1764246877073569640, 1764246877073569641, 1, 999, 1000, 1001, -1, -999_999,
                                2**63 - 1, -2**63])
def test_round_trip(ns):
    assert us_text_to_ns(ns_to_us_text(ns)) == ns
    assert us_text_to_ns(ns_to_us_text(ns) + "\t") == ns


# ---------------------------------------------------------------------------------------------- the store
HEADER = ["Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)", "Wait Time(us)"]
# (start cell, duration cell) exactly as written into the CSV. The load converts the digits themselves
# (sql/ingest/ingest_ascend_csv.sql), truncating below 1 ns at any number of decimals, as us_text_to_ns does.
# Negative and scientific spellings are refused there (tests/test_input_hardening_ascend.py).
CASES = [
    ("1764246877073569.640\t", "1892.920"),           # unquoted, trailing TAB, 19 digits
    ('"1736413971558972.912\t"', "48.680"),           # quoted with TAB inside the quotes
    ("1764246877073400.2", "0.1"),                    # 1 decimal
    ("1764246877073401", "3"),                        # no decimals
    ("1764246877073402.123456", "0.123456"),          # 6 decimals: truncated to .123
    ("1764246877073403.999999", "1.999999"),          # truncated, not rounded, to .999
    ("1764246877073404.9999999999", "0.0009999999995"),  # 10 and 13 decimals: still truncated
    ("400.250\t", "0"),
]


def test_store_conversion_agrees_with_us_text_to_ns(con, tmp_path):
    import tracedb
    rows = [[f"k{i}", "T", "AI_CORE", start, dur, "0"] for i, (start, dur) in enumerate(CASES)]
    path = write_csv(tmp_path / "times.csv", HEADER, rows)
    tracedb.ingest_trace(con, path, name="times")
    got = con.execute("SELECT seq, start_ns, dur_ns FROM kernels_raw ORDER BY seq").fetchall()
    want = [(i, us_text_to_ns(s), us_text_to_ns(d)) for i, (s, d) in enumerate(CASES)]
    assert got == want
    # the expected values spelled out, so a bug shared by both conversions cannot hide:
    assert [r[1] for r in got] == [1764246877073569640, 1736413971558972912, 1764246877073400200,
                                   1764246877073401000, 1764246877073402123, 1764246877073403999,
                                   1764246877073404999, 400250]
    assert [r[2] for r in got] == [1892920, 48680, 100, 3000, 123, 1999, 0, 0]


def test_store_refuses_scientific_notation(con, tmp_path):
    import tracedb
    from tracedb.errors import InputError
    # us_text_to_ns reads 9.9999e-1 (Chrome traces); an Ascend CSV cell must be plain decimal digits
    path = write_csv(tmp_path / "sci.csv", HEADER, [["k0", "T", "AI_CORE", "100", "9.9999e-1", "0"]])
    with pytest.raises(InputError, match=r"line 2: column 'Duration\(us\)' is '9.9999e-1'; expected a number of "
                                         r"microseconds in plain decimal digits"):
        tracedb.ingest_trace(con, path, name="sci")
    assert us_text_to_ns("9.9999e-1") == us_text_to_ns("0.99999") == 999


def test_beyond_bigint_ns_is_rejected():
    # the store keeps BIGINT ns: 2^63 ns (9223372036854775.808 µs) does not fit
    with pytest.raises(ValueError, match="BIGINT"):
        us_text_to_ns("9223372036854775.808")
    assert us_text_to_ns("9223372036854775.807") == 2**63 - 1
