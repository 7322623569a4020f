"""The Python API: tracedb.report(...) with the command line's option names, a typed Arrow table equal to
the CSV's values, notes, text in every format, and one-line typed errors."""
import csv
import decimal
import io

import pytest

import tiny_trace
import tracedb
from tracedb.cli import report_cmd
from tracedb.engine import api
from tracedb.errors import UsageError


@pytest.fixture
def store(tmp_path):
    path = str(tmp_path / "a.duckdb")
    con = tracedb.connect(path)
    tracedb.ingest_trace(con, tiny_trace.write(tmp_path / "k.csv"), name="tiny")
    tracedb.ingest_trace(con, tiny_trace.write(tmp_path / "k2.csv", dur_factor=2), name="slow")
    con.close()
    return path


def test_arrow_holds_the_csv_values_typed(store):
    r = tracedb.report(store, "layers", run="tiny", profile="qwen3-npu", layers=2, pass_="3")
    t = r.arrow()
    rows = list(csv.DictReader(io.StringIO(r.text("csv"))))
    assert t.column_names == r.columns == list(rows[0])
    assert str(t.schema.field("sum_us").type).startswith("decimal") and str(t.schema.field("kernels").type) == "int64"
    # the full window of pass 3 (tests/tiny_trace.py): prologue 16 us, layer 0 27 us, layer 1 15 us, then
    # the epilogue after the last layer's own work (lm_head 8 us, top-k 1 us)
    assert t.column("sum_us").to_pylist() == [decimal.Decimal(r["sum_us"]) for r in rows] == \
        [decimal.Decimal("16.000"), decimal.Decimal("27.000"), decimal.Decimal("15.000"), decimal.Decimal("9.000")]
    assert t.column("layer").to_pylist() == [None, 0, 1, None]
    assert t.column("unit").to_pylist() == ["prologue", "layer", "layer", "epilogue"]
    assert [r["layer"] for r in rows] == ["prologue", "0", "1", "epilogue"]
    assert r.notes[0].startswith("window: full") and str(r) == r.text("table")


def test_compare_takes_run_lists_and_its_own_options(store):
    r = tracedb.report(store, "compare", run=["tiny", "slow"], profile="qwen3-npu", layers=2, pass_="3",
                       by="category")
    t = r.arrow()
    assert set(t.column("run").to_pylist()) == {"tiny", "slow"}
    assert {str(x) for x in t.column("ratio").to_pylist()} == {"1.000", "2.000"}


def test_unknown_options_are_a_typed_error_naming_the_valid_ones(store):
    with pytest.raises(UsageError, match=r"report layers: unknown option 'runs'; it takes .*pass_.*run"):
        tracedb.report(store, "layers", runs=["tiny"])
    with pytest.raises(UsageError, match=r"unknown report 'layer'"):
        tracedb.report(store, "layer", run="tiny")


def test_df_gives_pandas_or_says_what_is_missing(store):
    r = tracedb.report(store, "passes", run="tiny", profile="qwen3-npu", layers=2)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(UsageError, match="needs pandas"):
            r.df()
        return
    assert list(r.df()["anchors"]) == [2, 2, 2, 2]


@pytest.mark.parametrize("name", sorted(api.OPTIONS))
def test_api_options_are_the_command_line_options(name):
    """Every option of `tracedb report NAME` is a keyword of tracedb.report(con, NAME) and the reverse."""
    command = report_cmd.COMMANDS[name]
    assert api.cli_options(command) == set(api.OPTIONS[name])
