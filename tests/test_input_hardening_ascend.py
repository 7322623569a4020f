"""The Ascend text / source-resolution input path under odd input: every failure of `tracedb ingest` is exit
1 with exactly one `error:` line naming the file (and line / byte offset where it applies) and what was
expected, no traceback, no hang, and the store unchanged; odd but valid input (mixed line ends, a 1 MiB
field, blank lines) loads with exact values. The decisions are in docs/formats.md ("What the Ascend CSV
readers refuse"); every test here failed before the change it covers."""
import bz2
import glob
import gzip
import json
import lzma
import os
import threading
import zlib

import pytest

import tracedb
from helpers import cli, copy_store, real_data_dir, real_trace, slow_beyond, write_csv
from helpers import store_snapshot as snapshot
from tracedb.errors import InputError
from tracedb.ingest import ascend_csv, ascend_csv_strict, sources
from tracedb.ingest.timefmt import BadTime, csv_us_to_ns

# The real torch_npu 2.7 header (Level1/2, PMU columns cut to the first one), as tests/test_bad_input.py.
FULL = ["Step Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State", "Accelerator Core",
        "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Mix Block Dim", "HF32 Eligible",
        "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "Output Data Types", "Output Formats",
        "Context ID", "aicore_time(us)"]
T = 1764246877073569
START, DUR, WAIT, NAME = (FULL.index(c) for c in ("Start Time(us)", "Duration(us)", "Wait Time(us)", "Name"))


def row(i, cells=None):
    """Row i of a real-looking Level1 trace (a MatMulV3 every µs from T); `cells`: {column index: text}."""
    r = ["2", "0", "4294967295", str(100 + i), "2", "aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", "dynamic",
         "AI_CORE", f"{T + i}.640\t", "1892.920", "0.500", "24", "0", "NO", '"""8192,2,640;8192,2,640"""',
         "DT_BF16;DT_BF16", "ND;ND", '"""8192,2"""', "DT_BF16", "ND", "N/A", "1883.842"]
    for k, v in (cells or {}).items():
        r[k] = v
    return r


def csv_bytes(rows, header=FULL, nl=b"\n") -> bytes:
    return nl.join([",".join(header).encode()] + [",".join(r).encode() for r in rows]) + nl


def line_start(data: bytes, line: int) -> int:
    """Byte offset of the start of physical line `line` (1-based)."""
    at = 0
    for _ in range(line - 1):
        at = data.index(b"\n", at) + 1
    return at


@pytest.fixture(scope="module")
def good_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("good")
    path = str(folder / "store.duckdb")
    cli("ingest", write_csv(folder / "good.csv", FULL, [row(i) for i in range(3)]), "--db", path, "--name", "good")
    return path


@pytest.fixture
def db(good_store, tmp_path):
    """A store already holding one run, 'good' (this test's own copy)."""
    return copy_store(good_store, str(tmp_path / "store.duckdb"))


def refused(db, path) -> str:
    """The one error line of a failed `tracedb ingest path` (after: exit 1, one line, no traceback, store
    unchanged, no scratch file left beside the store)."""
    before = snapshot(db)
    p = cli("ingest", path, "--db", db, check=False)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 1, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    assert p.stdout == ""
    assert snapshot(db) == before
    return lines[0]


def loaded(db, path, name="t", cols="k.* EXCLUDE (run_id)"):
    """kernels_raw rows (`cols`) of run `name` after a successful ingest of `path`."""
    cli("ingest", path, "--db", db, "--name", name)
    con = tracedb.connect(db, read_only=True)
    try:
        return con.execute(f"SELECT {cols} FROM kernels_raw k WHERE run_id = (SELECT run_id FROM runs "
                           "WHERE name = $n) ORDER BY seq", {"n": name}).fetchall()
    finally:
        con.close()


def write(path, data: bytes) -> str:
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


# ------------------------------------------------------------------------------------ 1. invalid UTF-8
def test_latin1_name_in_the_sampled_rows(db, tmp_path):
    data = csv_bytes([row(0), row(1), row(2, {NAME: "aclnnMatmul_Matmul\xe9"}), row(3)]).replace(
        "\xe9".encode(), b"\xe9")                      # the Latin-1 byte of é: not UTF-8
    f = write(tmp_path / "k.csv", data)
    at = data.index(b"\xe9")
    assert refused(db, f) == (f"error: {f}: line 4, byte offset {at}: invalid UTF-8 (0xE9: invalid continuation "
                              "byte); expected a UTF-8 text file")


def test_invalid_utf8_past_the_sampled_rows_is_found_by_duckdb_and_named_the_same(db, tmp_path):
    # 2,000 rows are sampled in Python; line 2,203 is only read by DuckDB, whose multi-line error is
    # turned into the same one line
    rows = [row(i) for i in range(2300)]
    rows[2201][NAME] = "flip@"
    data = csv_bytes(rows).replace(b"flip@", b"flip\xff")
    f, at = write(tmp_path / "k.csv", data), data.index(b"\xff")
    assert refused(db, f) == (f"error: {f}: line 2203, byte offset {at}: invalid UTF-8 (0xFF: "
                              "invalid start byte); expected a UTF-8 text file")


def test_bit_flip_in_the_header(db, tmp_path):
    data = bytearray(csv_bytes([row(0)]))
    data[3] ^= 0x80                                    # 'p' of "Step" -> 0xF0, a 4-byte lead without followers
    f = write(tmp_path / "k.csv", bytes(data))
    line = refused(db, f)
    assert line.startswith(f"error: {f}: line 1, byte offset 3: invalid UTF-8 (0xF0")
    assert line.endswith("; expected a UTF-8 text file")


@pytest.mark.parametrize("n_rows, at_row", [(5, 2), (2300, 2250)])
def test_nul_ff_fe_inserted(db, tmp_path, n_rows, at_row):
    rows = [row(i) for i in range(n_rows)]
    data = csv_bytes(rows)
    cut = line_start(data, at_row + 2) + 40            # inside the row's name
    data = data[:cut] + b"\x00\xff\xfe" + data[cut:]
    f = write(tmp_path / "k.csv", data)
    assert refused(db, f) == (f"error: {f}: line {at_row + 2}, byte offset {cut}: NUL byte (binary data); "
                              "expected a CSV text file")


def test_a_character_across_the_64_kib_head_is_not_invalid(db, tmp_path):
    # the header check reads the first 64 KiB; a 2-byte character split by that cut is valid UTF-8
    rows, size = [], len(",".join(FULL)) + 1
    while size < 65536 - 400:
        rows.append(row(len(rows)))
        size += len(",".join(rows[-1])) + 1
    last = row(len(rows))
    pad = 65535 - size - len(",".join(last[:NAME])) - 1
    last[NAME] = "k" * pad + "é"                       # the é's first byte is byte 65535, its second 65536
    rows.append(last)
    f = write_csv(tmp_path / "k.csv", FULL, rows)
    assert open(f, "rb").read()[65535:65537] == "é".encode()
    assert loaded(db, f, cols="name")[-1] == ("k" * pad + "é",)


# ------------------------------------------------------------------------------------ 2. long fields
def test_a_1_mib_field_loads_whole(db, tmp_path):
    big = "x" * (1 << 20)
    f = write_csv(tmp_path / "k.csv", FULL, [row(0), row(1, {NAME: big}), row(2)])
    assert loaded(db, f, cols="length(name)") == [(35,), (1 << 20,), (35,)]


@pytest.mark.parametrize("at_row", [1, 2100])
def test_a_line_over_the_limit_is_refused_at_its_line(db, tmp_path, monkeypatch, at_row):
    # the limit (2 MiB) lowered to 1 MiB for the test: the sampled rows (Python) and DuckDB say the same
    monkeypatch.setattr(ascend_csv_strict, "LINE_LIMIT", 1 << 20)
    rows = [row(i) for i in range(2200)]
    rows[at_row][NAME] = "x" * (2 << 20)
    f = write_csv(tmp_path / "k.csv", FULL, rows)
    line = refused(db, f)
    assert line.startswith(f"error: {f}: line {at_row + 2}: ")
    assert line.endswith("expected CSV lines of at most 1 MiB (a real kernel_details.csv line is about 1 KB)")


def test_csv_module_errors_become_one_line(db, tmp_path):
    # a carriage return inside a row: Python's csv module raises "new-line character seen in unquoted field"
    data = csv_bytes([row(0), row(1, {NAME: "a\rb"}), row(2)])
    f, at = write(tmp_path / "k.csv", data), data.index(b"\r")
    assert refused(db, f) == (f"error: {f}: line 3, byte offset {at}: a carriage return (CR) that "
                              "does not end a line; expected LF or CRLF line ends")


def test_lone_cr_past_the_sampled_rows(db, tmp_path):
    rows = [row(i) for i in range(2100)]
    rows[2050][NAME] = "a\rb"
    data = csv_bytes(rows)
    f, at = write(tmp_path / "k.csv", data), data.index(b"\r")
    assert refused(db, f) == (f"error: {f}: line 2052, byte offset {at}: a carriage return (CR) "
                              "that does not end a line; expected LF or CRLF line ends")


# ------------------------------------------------------------------------------------ 3. line ends
@pytest.mark.parametrize("first", [b"\r\n", b"\n"])
def test_mixed_lf_crlf_loads_exactly(db, tmp_path, first):
    rows = [row(i) for i in range(2100)]          # past the sampled rows too
    lf = csv_bytes(rows)
    other = b"\n" if first == b"\r\n" else b"\r\n"
    lines = lf.split(b"\n")[:-1]
    mixed = first.join(lines[:1000]) + first + other.join(lines[1000:]) + other
    assert mixed.count(b"\r\n") not in (0, mixed.count(b"\n"))
    want = loaded(db, write(tmp_path / "lf.csv", lf), "lf")
    got = loaded(db, write(tmp_path / "mixed.csv", mixed), "mixed")
    assert got == want and len(got) == 2100


def test_mixed_line_ends_keep_line_numbers_in_errors(db, tmp_path):
    rows = [row(i) for i in range(2100)]
    rows[2080][START] = "12x.5"
    lines = csv_bytes(rows).split(b"\n")[:-1]
    mixed = b"\r\n".join(lines[:500]) + b"\r\n" + b"\n".join(lines[500:]) + b"\n"
    f = write(tmp_path / "k.csv", mixed)
    assert refused(db, f) == (f"error: {f}: line 2082: column 'Start Time(us)' is '12x.5'; "
                              "expected a number of microseconds")


def test_mixed_line_ends_in_one_op_summary_slice(tmp_path, db):
    header = ["Op Name", "OP Type", "Task Type", "Task Start Time(us)", "Task Duration(us)"]
    out = tmp_path / "PROF_1" / "mindstudio_profiler_output"
    out.mkdir(parents=True)
    r = lambda i: [f"op{i}", "Add", "AI_CORE", f"{T + i}.000\t", "1.500"]      # noqa: E731
    write(out / "op_summary_slice_0_1.csv", csv_bytes([r(0), r(1)], header))
    lines = csv_bytes([r(2), r(3), r(4)], header).split(b"\n")[:-1]
    write(out / "op_summary_slice_1_1.csv", b"\r\n".join(lines[:2]) + b"\r\n" + lines[2] + b"\n" + lines[3] + b"\n")
    assert loaded(db, str(tmp_path), cols="name, start_ns, dur_ns") == [(f"op{i}", (T + i) * 1000, 1500)
                                                                        for i in range(5)]


# ------------------------------------------------------------------------------------ 4. time cells
@pytest.mark.parametrize("col, value, why", slow_beyond([
    (DUR, "-5.0", "expected a number of microseconds of at least 0"),
    (START, "-1764246877073569.640\t", "expected a number of microseconds of at least 0"),
    (DUR, "1_000", "expected a number of microseconds in plain decimal digits like 1892.920 (no sign, exponent, "
                   "digit separator or bare decimal point)"),
    (START, "1_764_246_877_073_569", "expected a number of microseconds in plain decimal digits like 1892.920 (no "
                                     "sign, exponent, digit separator or bare decimal point)"),
    (START, "1.76425E+15", "expected a number of microseconds in plain decimal digits like 1892.920 (no sign, "
                           "exponent, digit separator or bare decimal point)"),
    (DUR, "+5", "expected a number of microseconds in plain decimal digits like 1892.920 (no sign, exponent, "
                "digit separator or bare decimal point)"),
    (DUR, ".5", "expected a number of microseconds in plain decimal digits like 1892.920 (no sign, exponent, "
                "digit separator or bare decimal point)"),
    (DUR, "inf", "expected a number of microseconds in plain decimal digits like 1892.920 (no sign, exponent, "
                 "digit separator or bare decimal point)"),
    (DUR, "N/A", "expected a number of microseconds"),
    (START, "9223372036854775.808", "expected a number of microseconds of at most 9223372036854775.807 (the "
                                    "BIGINT nanoseconds the store keeps)"),
    (START, "99999999999999999999999", "expected a number of microseconds of at most 9223372036854775.807 (the "
                                       "BIGINT nanoseconds the store keeps)"),
    (WAIT, "1e3", "expected a number of microseconds in plain decimal digits like 1892.920 (no sign, exponent, "
                  "digit separator or bare decimal point)"),
    (WAIT, "--1", "expected a number of microseconds"),
], range(0, 99, 2)))
def test_bad_time_cell_is_refused_naming_line_and_column(db, tmp_path, col, value, why):
    # the times are checked by the load's SQL on every row, then found again in Python for the message
    rows = [row(i) for i in range(5)]
    rows[3] = row(3, {col: value})                   # line 5
    f = write_csv(tmp_path / "k.csv", FULL, rows)
    assert refused(db, f) == f"error: {f}: line 5: column '{FULL[col]}' is {value!r}; {why}"


def test_a_kernel_that_ends_beyond_bigint_ns_is_refused(db, tmp_path):
    # each cell fits, their sum (the kernel's end, which every report computes) does not
    f = write_csv(tmp_path / "k.csv", FULL, [row(0), row(1, {START: "9223372036854775.000", DUR: "1.000"})])
    assert refused(db, f) == (f"error: {f}: line 3: the kernel ends (Start Time(us) + Duration(us)) beyond "
                              "9223372036854775.807 µs; expected it to end within the BIGINT nanoseconds the store "
                              "keeps")


def test_real_spellings_and_their_edges_load_exactly(db, tmp_path):
    rows = [row(0, {START: f"{T}.640\t", DUR: "0", WAIT: "N/A"}),               # zero duration, no wait
            row(1, {START: f'"{T + 1}.912\t"', DUR: "1881.080000", WAIT: ""}),  # quoted, 6 decimals, empty
            row(2, {START: f"{T + 2}", DUR: "0.0009999999", WAIT: "-3.5"}),     # 10 decimals: truncated
            row(3, {START: "9223372036854763.307", DUR: "00012.5", WAIT: "0"})]  # ends at BIGINT max; zeros
    got = loaded(db, write_csv(tmp_path / "k.csv", FULL, rows), cols="start_ns, dur_ns, wait_ns")
    assert got == [
        (T * 1000 + 640, 0, None), ((T + 1) * 1000 + 912, 1881080, None), ((T + 2) * 1000, 0, -3500),
        (2**63 - 1 - 12500, 12500, 0)]


# The SQL (sql/ingest/ingest_ascend_csv.sql) and Python (timefmt.csv_us_to_ns) spell the rule twice: they
# must agree on every cell, accepted or refused.
CELLS = ["0", "1", "1892.920", "1881.080000", "400.1239", "0.0009999999995", "7.", ".7", "07", "1_0", "1e3",
         "1E3", "+1", "-1", "-0", "--1", "1.2.3", "12x.5", " 5 ", "\t5\t", "5\t\t", "inf", "NaN", "N/A", "",
         "\t", "N/A\t", "٣", "9223372036854775.807", "9223372036854775.808", "-9223372036854775.807",
         "0000000000000000000000000000001.5", "12345678901234567", "1.5 x", "0x10", "1,5"]


# the default tier checks one cell of each kind (plain, tiny, trailing dot, negative, exponent, blank, N/A,
# padded, inf, beyond the BIGINT range, a non-ASCII digit, a comma); every cell runs with `-m slow`
DEFAULT_CELLS = {"1892.920", "0.0009999999995", "7.", "-1", "1e3", "", "N/A", " 5 ", "inf",
                 "9223372036854775.808", "\u0663", "1,5"}


@pytest.mark.parametrize("cell", slow_beyond(CELLS, DEFAULT_CELLS))
@pytest.mark.parametrize("col, signed, required", [(DUR, False, True), (WAIT, True, False)])
def test_sql_and_python_time_rules_agree(con, tmp_path, cell, col, signed, required):
    # quoted: the reader keeps the blanks; start 0: a duration up to the BIGINT maximum still ends within it
    f = write_csv(tmp_path / "k.csv", FULL, [row(0, {START: "0", col: f'"{cell}"'})])
    try:
        want = csv_us_to_ns(cell, signed=signed, required=required)
    except BadTime as e:
        with pytest.raises(InputError) as got:
            tracedb.ingest_trace(con, f, name="t")
        assert str(got.value) == f"{f}: line 2: column '{FULL[col]}' is {cell!r}; {e}"
        return
    tracedb.ingest_trace(con, f, name="t")
    column = "dur_ns" if col == DUR else "wait_ns"
    assert con.execute(f"SELECT {column} FROM kernels_raw").fetchall() == [(want,)]


@pytest.mark.real_data
@pytest.mark.slow
def test_real_ascend_times_are_the_digits_of_every_cell(tmp_path):
    """Every real Ascend CSV loads (but the msprof fixture with a cut row), and each stored start, duration
    and wait is the Python rule applied to its cell: nothing of what the profilers write is refused."""
    real_trace("ascend-mstt", "kernel_details.csv")
    files = [f for f in sorted(glob.glob(os.path.join(real_data_dir(), "**", "*.csv"), recursive=True))
             if os.path.basename(f).startswith(("kernel_details", "op_summary"))]
    assert len(files) >= 6
    for i, f in enumerate(files):
        con = tracedb.connect(str(tmp_path / f"r{i}.duckdb"))
        try:
            if f.endswith(os.path.join("test_kernel_parse", "op_summary_1.csv")):
                with pytest.raises(InputError, match="line 17: expected 32 columns, found 31"):
                    tracedb.ingest_trace(con, f, name="r")
                continue
            tracedb.ingest_trace(con, f, name="r")
            got = con.execute("SELECT start_ns, dur_ns, wait_ns FROM kernels_raw ORDER BY seq").fetchall()
        finally:
            con.close()
        h = ascend_csv.read_header(f)
        rows = [cells for _, cells in ascend_csv_strict.records(f)][1:]
        want = [(csv_us_to_ns(r[h.position["start_us"]]), csv_us_to_ns(r[h.position["dur_us"]]),
                 csv_us_to_ns(r[h.position["wait_us"]], signed=True, required=False) if "wait_us" in h.position
                 else None) for r in rows if r]
        assert got == want, f


# ------------------------------------------------------------------------------------ 5. profiler_info
def profiler_folder(tmp_path, info, name="profiler_info_0.json", raw=None) -> str:
    d = tmp_path / "rank_0_ascend_pt"
    (d / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    write_csv(d / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv", FULL, [row(i) for i in range(3)])
    write(d / name, raw if raw is not None else json.dumps(info).encode())
    return str(d)


@pytest.mark.parametrize("info, why", [
    ({"config": "Level1"}, 'field config is "Level1" (a JSON string); expected a JSON object'),
    ({"config": 5}, "field config is 5 (a JSON number); expected a JSON object"),
    ({"config": {"experimental_config": [1]}}, "field config.experimental_config is [1] (a JSON array); expected a "
                                               "JSON object"),
    ({"config": {"experimental_config": {"_profiler_level": 2}}},
     "field config.experimental_config._profiler_level is 2 (a JSON number); expected a string of at most 256 "
     "characters"),
    ({"rank_id": 1e20}, "field rank_id is 1e+20; expected a rank from 0 to 2147483647 (an integer or a string of "
                        "digits)"),
    ({"rank_id": 10**20}, "field rank_id is 100000000000000000000; expected a rank from 0 to 2147483647 (an integer "
                          "or a string of digits)"),
    ({"rank_id": -1}, "field rank_id is -1; expected a rank from 0 to 2147483647 (an integer or a string of digits)"),
    ({"rank_id": True}, "field rank_id is true; expected a rank from 0 to 2147483647 (an integer or a string of "
                        "digits)"),
    ({"rank_id": "zero"}, "field rank_id is 'zero'; expected a rank from 0 to 2147483647 (an integer or a string of "
                          "digits)"),
    ({"rank_id": 1}, "field rank_id is 1 but the file name says rank 0; expected them to agree (torch_npu writes "
                     "both from one rank)"),
    ({"cann_version": 8.0}, "field cann_version is 8.0 (a JSON number); expected a string of at most 256 characters"),
    ([{"rank_id": 0}], "a JSON array; expected torch_npu's profiler_info JSON object"),
])
def test_profiler_info_field_of_wrong_type_or_range(db, tmp_path, info, why):
    d = profiler_folder(tmp_path, info)
    assert refused(db, d) == f"error: {d}/profiler_info_0.json: {why}"


@pytest.mark.parametrize("raw, why", [
    (b"[" * 100_000 + b"]" * 100_000, "character offset 32: nested more than 32 levels deep; expected torch_npu's "
                                       "profiler_info JSON (3 levels)"),
    (b'{"config": {"experimental', "line 1 column 13: not valid JSON (Unterminated string starting at); expected "
                                   "torch_npu's profiler_info JSON"),
    (b'{"x": "' + b"a" * (2 << 20) + b'"}',
     "larger than 1 MiB; expected torch_npu's profiler_info JSON (about 1.5 KB)"),
    (b'{"rank_id": 1' + b"0" * 5000 + b"}", "a number of more than 4300 digits; expected torch_npu's profiler_info "
                                            "JSON"),
    (b'{"cann_version": "8.0\xff"}', "byte offset 21: invalid UTF-8; expected a JSON text file"),
])
def test_profiler_info_malformed(db, tmp_path, raw, why):
    d = profiler_folder(tmp_path, None, raw=raw)
    assert refused(db, d) == f"error: {d}/profiler_info_0.json: {why}"


def test_profiler_info_rank_in_the_file_name_out_of_range(db, tmp_path):
    d = profiler_folder(tmp_path, {}, name="profiler_info_99999999999999999999.json")
    assert refused(db, d) == (f"error: {d}/profiler_info_99999999999999999999.json: the rank in the file name is "
                              "'99999999999999999999'; expected a rank from 0 to 2147483647 (an integer or a string "
                              "of digits)")


def test_profiler_info_what_torch_npu_writes_is_read(con, tmp_path):
    # RANK from the environment is written as a string; null fields are absent
    d = profiler_folder(tmp_path, {"rank_id": "3", "cann_version": None, "torch_npu_version": "2.7.1",
                                   "config": {"experimental_config": {"_profiler_level": "Level1"}}},
                        name="profiler_info_3.json")
    tracedb.ingest_trace(con, d, name="t")
    rank, meta = con.execute("SELECT rank, metadata FROM runs").fetchone()
    assert rank == 3
    assert json.loads(meta)["profiler_info"] == {"rank_id": 3, "torch_npu_version": "2.7.1",
                                                 "profiler_level": "Level1"}


@pytest.mark.real_data
def test_real_profiler_info_with_a_string_rank(con):
    d = real_trace("ascend-megatron-job", "rank_0_ascend_pt")         # "rank_id": "0"
    tracedb.ingest_trace(con, d, name="t")
    rank, meta = con.execute("SELECT rank, metadata FROM runs").fetchone()
    assert rank == 0
    assert json.loads(meta)["profiler_info"] == {"rank_id": 0, "torch_npu_version": "2.7.1",
                                                 "cann_version": "8.3.RC1", "profiler_level": "Level2"}


# ------------------------------------------------------------------------------------ 6. not regular files
@pytest.fixture
def fifos():
    """make(path) creates a named pipe with no writer. Should a reader open one (a regression), a watchdog
    opens it for writing after 20 s so that the reader sees end of file: the test fails instead of hanging."""
    made, done = [], threading.Event()

    def make(path) -> str:
        os.mkfifo(path)
        made.append(str(path))
        return str(path)

    def unblock():
        while not done.wait(0.2 if watchdog.fired else 20):
            watchdog.fired = True
            for path in made:
                try:
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass                   # no reader blocked in open: nothing to release
    watchdog = threading.Thread(target=unblock, daemon=True)
    watchdog.fired = False
    watchdog.start()
    yield make
    done.set()
    assert not watchdog.fired, "a reader opened a named pipe"


@pytest.fixture
def fifo(fifos, tmp_path):
    return fifos(tmp_path / "trace.json")


def test_named_pipe_is_refused_before_it_is_opened(db, fifo):
    assert refused(db, fifo) == (f"error: {fifo}: not a regular file (a named pipe); expected a trace file — save "
                                 "the stream to a file first")


def test_a_pipe_of_process_substitution_is_refused(db):
    # `tracedb ingest <(cat trace.json)` passes /dev/fd/N: a pipe the reader would empty on its first read
    r, w = os.pipe()
    os.write(w, b'{"traceEvents": []}')
    os.close(w)                                        # a reader gets end of file after the bytes: no hang
    try:
        path = f"/proc/self/fd/{r}" if os.path.exists(f"/proc/self/fd/{r}") else f"/dev/fd/{r}"
        assert refused(db, path) == (f"error: {path}: not a regular file (a named pipe); expected a trace file — "
                                     "save the stream to a file first")
        assert os.read(r, 100) == b'{"traceEvents": []}'          # not read
    finally:
        os.close(r)


def test_character_device(db):
    assert refused(db, os.devnull) == (f"error: {os.devnull}: not a regular file (a character device); expected a "
                                       "trace file — save the stream to a file first")


def test_named_pipe_as_the_kernel_details_of_a_profiler_folder(db, tmp_path, fifos):
    d = tmp_path / "rank_0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    d.mkdir(parents=True)
    f = fifos(d / "kernel_details.csv")
    assert refused(db, str(d.parent)) == (f"error: {f}: not a regular file (a named pipe); expected a trace file — "
                                          "save the stream to a file first")


def test_named_pipe_in_a_folder_of_traces(db, tmp_path, fifos):
    folder = tmp_path / "traces"
    (folder / "a").mkdir(parents=True)
    write_csv(folder / "a" / "k.csv", FULL, [row(0)])
    f = fifos(folder / "b.json")
    p = cli("ingest", str(folder), "--db", db, check=False)
    # the pipe is skipped unopened (opening it would block) and named; the folder's other traces land
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert f"not loaded: {os.path.basename(f)} — not a regular file (a named pipe), never opened" in p.stdout + p.stderr
    assert "k.csv" in p.stdout


def test_dangling_symbolic_link(db, tmp_path):
    link = tmp_path / "k.csv"
    os.symlink(tmp_path / "gone.csv", link)
    assert refused(db, str(link)) == f"error: {link}: a symbolic link to a missing file"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_unreadable_sub_folder_is_named(db, tmp_path):
    folder = tmp_path / "traces"
    (folder / "a").mkdir(parents=True)
    (folder / "locked").mkdir()
    write_csv(folder / "a" / "k.csv", FULL, [row(0)])
    os.chmod(folder / "locked", 0)
    try:
        assert refused(db, str(folder)).startswith(f"error: {folder / 'locked'}: cannot read the folder: ")
    finally:
        os.chmod(folder / "locked", 0o755)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_trace_in_a_folder_is_named_not_passed_over(db, tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    write_csv(folder / "a.csv", FULL, [row(0)])
    f = write_csv(folder / "b.csv", FULL, [row(1)])
    os.chmod(f, 0)
    try:
        assert refused(db, str(folder)) == f"error: {f}: cannot read: Permission denied"
    finally:
        os.chmod(f, 0o644)


# ------------------------------------------------------------------------------------ 7. sniffing content
JSON = b'{"traceEvents": []}'
UNPACK = "tracedb reads plain or gzip-compressed traces: decompress it first with"


@pytest.mark.parametrize("name, data, why", [
    ("t.json.gz", lzma.compress(JSON), f"xz-compressed data; {UNPACK} `xz -d`"),
    ("t.json.gz", bz2.compress(JSON), f"bzip2-compressed data; {UNPACK} `bzip2 -d`"),
    ("t.json.gz", b"\x28\xb5\x2f\xfd\x20\x13\x99\x00\x00" + JSON, f"zstd-compressed data; {UNPACK} `zstd -d`"),
    ("t.json.gz", zlib.compress(JSON), "zlib-compressed data (deflate without a gzip header); tracedb reads plain or "
                                       "gzip-compressed traces: recompress it with gzip"),
    ("t.json", b"PK\x03\x04" + bytes(26) + JSON, "a zip archive; extract it first with `unzip`"),
    ("kernel_details.csv", b"SQLite format 3\x00" + bytes(84),
     "cannot read the SQLite database (file is not a database); expected a profiler's SQLite export"),
    ("t.json", b"", "empty file; expected a trace (a Chrome trace JSON object or event array)"),
    ("t.json.gz", b"", "empty file; expected a trace (a Chrome trace JSON object or event array)"),
    ("t.json.gz", gzip.compress(b"", mtime=0),
     "gzip-compressed empty file; expected a gzip-compressed Chrome trace JSON"),
    ("k.csv.gz", gzip.compress(b"Step Id,Name,Start Time(us),Duration(us)\n", mtime=0),
     "gzip-compressed data that is not a JSON trace (it starts with 'Step Id,Name,Start Time(us),Duration(us)'); "
     "tracedb reads gzip only for Chrome trace JSON: decompress it first with `gzip -d`"),
    ("k.csv", "Name,Start Time(us),Duration(us)\n".encode("utf-16"),
     "UTF-16 text; expected UTF-8: convert it with `iconv -f UTF-16 -t UTF-8`"),
    ("k.csv", "Name,Start Time(us),Duration(us)\n".encode("utf-16-le"),
     "UTF-16 text without a byte order mark; expected UTF-8: convert it with `iconv -f UTF-16LE -t UTF-8`"),
])
def test_content_is_sniffed_not_the_name(db, tmp_path, name, data, why):
    f = write(tmp_path / name, data)
    assert refused(db, f) == f"error: {f}: {why}"


def test_corrupt_gzip_head_names_the_inflated_offset(db, tmp_path):
    packed = bytearray(gzip.compress(JSON[:1] + b" " * 5000 + JSON[1:], mtime=0))
    packed[12] ^= 0xFF                                  # inside the first deflate block
    f = write(tmp_path / "t.json.gz", bytes(packed))
    line = refused(db, f)
    assert line.startswith(f"error: {f}: byte offset ~{len(packed)}: corrupt gzip data (Error -3 while "
                           "decompressing data: ")
    assert line.endswith(" inflated bytes; expected a gzip-compressed trace")


def test_a_folder_with_an_xz_trace_is_refused_not_passed_over(db, tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    write_csv(folder / "k.csv", FULL, [row(0)])
    f = write(folder / "rank1.json.gz", lzma.compress(JSON))
    p = cli("ingest", str(folder), "--db", db, check=False)
    assert p.returncode == 1 and p.stderr.splitlines() == [f"error: {f}: xz-compressed data; {UNPACK} `xz -d`"]


# ------------------------------------------------------------------------------------ 8. other odd input
def test_duplicate_header_column(db, tmp_path):
    header = FULL[:6] + ["Name"] + FULL[7:]
    f = write_csv(tmp_path / "k.csv", header, [row(0)])
    assert refused(db, f) == (f"error: {f}: line 1: column 'Name' appears twice (columns 6 and 7); expected each "
                              "column name once")


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_files_joined_with_cat(db, tmp_path, bom):
    one = csv_bytes([row(0), row(1)])
    f = write(tmp_path / "k.csv", one + bom + one)
    assert refused(db, f) == (f"error: {f}: line 4: the header again (files joined with `cat`?); expected one header "
                              "line, then rows (ingest the files of one run as a profiler folder instead)")


def test_blank_lines_between_rows_are_skipped(db, tmp_path):
    data = csv_bytes([row(i) for i in range(4)])
    lines = data.split(b"\n")
    gappy = b"\n".join(lines[:3] + [b""] + lines[3:])
    want = loaded(db, write(tmp_path / "a.csv", data), "a")
    assert loaded(db, write(tmp_path / "b.csv", gappy), "b") == want


def test_double_bom_header(db, tmp_path):
    f = write(tmp_path / "k.csv", b"\xef\xbb\xbf\xef\xbb\xbf" + csv_bytes([row(0)]))
    assert len(loaded(db, f)) == 1


def test_folder_names_with_glob_characters(con, tmp_path):
    # `run[1]` is a folder name, not a pattern: its op_summary and profiler_info files are found
    d = tmp_path / "run[1]_ascend_pt"
    out = d / "PROF_1" / "mindstudio_profiler_output"
    out.mkdir(parents=True)
    header = ["Op Name", "OP Type", "Task Type", "Task Start Time(us)", "Task Duration(us)"]
    write(out / "op_summary_1.csv", csv_bytes([["op", "Add", "AI_CORE", f"{T}.000", "1.0"]], header))
    write(d / "profiler_info_5.json", b'{"rank_id": 5}')
    tracedb.ingest_trace(con, str(d), name="t")
    assert con.execute("SELECT rank FROM runs").fetchall() == [(5,)]


def test_resolve_and_expand_never_open_a_pipe(fifo):
    with pytest.raises(InputError, match="not a regular file"):
        sources.resolve(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        sources.expand(os.path.dirname(fifo))
