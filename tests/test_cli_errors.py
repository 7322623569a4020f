"""Wrong calls end in one `error:` line and exit 2, checked while the command line is parsed: usage errors
(which typer would box in a five-line panel), option values out of range, empty texts, output paths that
cannot be written, stores that are not DuckDB files, and SQL text without a statement."""
import os
import re
import sqlite3

import pytest

from helpers import cli


def one_line(r, code=2):
    assert r.returncode == code, r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("cli") / "demo.duckdb")
    cli("demo", "--db", path)
    return path


@pytest.mark.parametrize("args, says", [
    (["nosuch"], "No such command 'nosuch'"),
    (["report", "layers", "--nope"], "No such option: --nope"),
    (["report", "layers", "--layers", "abc"], "'abc' is not a valid int"),
    (["report", "layers", "--pass-gap", "abc"], "'abc' is not a valid float"),
    (["ingest"], "Missing argument"),
    (["sql"], "Missing argument"),
])
def test_usage_errors_are_one_line_naming_the_help(args, says):
    line = one_line(cli(*args, check=False))
    assert says in line and "--help`" in line


def test_no_command_prints_the_help_and_one_error_line():
    r = cli("report", check=False)
    assert "layers" in r.stdout
    assert one_line(r) == "error: missing command; see `tracedb report --help`"


@pytest.mark.parametrize("args, says", [
    (["report", "layers", "--layers", "0"], "-l/--layers 0: out of range; expected an integer from 1 to 100000"),
    (["report", "layers", "--layers", "99999999999999999999"], "out of range"),
    (["report", "layers", "--blocks-per-layer", "0"], "--blocks-per-layer 0: out of range"),
    (["report", "layers", "--layer-offset", "-1"], "--layer-offset -1: out of range"),
    (["report", "layers", "--pass-gap", "nan"], "--pass-gap nan: not a finite number"),
    (["report", "layers", "--pass-gap", "inf"], "--pass-gap inf: not a finite number"),
    (["report", "layers", "--pass-gap", "0"], "--pass-gap 0.0: out of range; expected a number > 0"),
    (["report", "layers", "--anchor", ""], "-a/--anchor '': empty"),
    (["report", "layers", "--window", "wide"], "--window 'wide': unknown; expected one of full, strict"),
    (["report", "layers", "--pass", "first"], "--pass 'first': unknown"),
    (["report", "layers", "--pass", "99999999999"], "--pass '99999999999': out of range"),
    (["report", "kernels", "--top", "-1"], "--top -1: out of range"),
    (["report", "kernels", "--layer", "-3"], "--layer -3: out of range"),
    (["report", "compare", "--layer", "x"], "--layer 'x': not a layer"),
    (["report", "compare", "--by", "rank"], "--by 'rank': unknown; expected one of layer, category, module, kernel"),
    (["report", "cores", "--from", "-1"], "--from -1.0: out of range"),
    (["report", "layers", "--run", ""], "-r/--run '': empty"),
    (["report", "layers", "--db", ""], "--db '': empty"),
    (["ingest", "x.json", "--name", "a\nb"], "holds a control character"),
    (["ingest", "x.json", "--name", " padded"], "leading/trailing blanks"),
])
def test_option_values_are_checked_before_anything_runs(args, says, tmp_path):
    line = one_line(cli(*args, check=False, cwd=str(tmp_path)))
    assert says in line, line
    assert "\n" not in line
    assert not os.listdir(tmp_path), "a refused call created a file"


def test_output_paths_are_checked_before_the_report_is_computed(db, tmp_path):
    missing = one_line(cli("report", "passes", "--db", db, "-o", str(tmp_path / "no" / "x.csv"), check=False))
    assert "does not exist" in missing
    folder = one_line(cli("report", "passes", "--db", db, "-o", str(tmp_path), check=False))
    assert "is a folder" in folder
    out = tmp_path / "p.csv"
    cli("report", "passes", "--db", db, "--run", "*", "-o", str(out), "--format", "csv")
    assert out.read_text().startswith("run,") and os.listdir(tmp_path) == ["p.csv"]   # no temp file left


@pytest.mark.parametrize("text", ["", "   ", ";", "-- only a comment\n"])
def test_sql_without_a_statement_is_one_line(db, text):
    line = one_line(cli("sql", "--db", db, "--", text, check=False))
    assert "no statement" in line


def test_stores_that_are_not_duckdb_files_are_named_as_what_they_are(tmp_path):
    lite = tmp_path / "x.sqlite"
    sqlite3.connect(lite).execute("CREATE TABLE t(a)").connection.commit()
    assert "a SQLite database" in one_line(cli("runs", "--db", str(lite), check=False), 1)
    text = tmp_path / "x.txt"
    text.write_text("hello\n")
    assert "not a DuckDB file" in one_line(cli("runs", "--db", str(text), check=False), 1)
    assert "a folder" in one_line(cli("runs", "--db", str(tmp_path), check=False))
    assert not os.path.exists(os.path.expanduser("~/.duckdb/extensions/v0")), "no extension download"


def test_an_error_naming_a_newline_stays_on_one_line(db):
    line = one_line(cli("report", "passes", "--db", db, "--run", "two\nlines", check=False))
    assert "two\\nlines" in line


@pytest.mark.parametrize("cmd", [["report", "passes", "--run", "*"], ["runs"], ["sql", "SELECT 1"]])
def test_output_onto_the_store_is_refused(db, cmd, tmp_path):
    size = os.path.getsize(db)
    for target in (db, os.path.relpath(db, tmp_path), db + ".wal"):
        line = one_line(cli(*cmd, "--db", db, "-o", target, check=False, cwd=str(tmp_path)))
        assert "that is the store" in line
    assert os.path.getsize(db) == size and "qwen3" in cli("runs", "--db", db).stdout


def test_demo_replaces_only_a_tracedb_store(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    line = one_line(cli("demo", "--db", str(notes), check=False))
    assert "only replaces a tracedb store" in line and notes.read_text() == "my notes\n"


def test_sql_write_is_one_transaction(tmp_path):
    db = str(tmp_path / "w.duckdb")
    cli("demo", "--db", db)
    count = "SELECT count(*) AS n FROM kernels_raw"
    before = cli("sql", "--db", db, "--format", "csv", count).stdout
    assert before.split() == ["n", "3640"]     # the demo's Ascend CSV rows, all in kernels_raw_ascend_csv
    one_line(cli("sql", "--write", "--db", db, "DELETE FROM kernels_raw_ascend_csv; SELECT nope", check=False))
    assert cli("sql", "--db", db, "--format", "csv", count).stdout == before
    cli("sql", "--write", "--db", db, "CREATE TABLE notes(a INT); INSERT INTO notes VALUES (7)")
    assert cli("sql", "--db", db, "--format", "csv", "SELECT a FROM notes").stdout.split() == ["a", "7"]


def test_a_store_missing_a_core_table_is_named_by_every_command(tmp_path):
    db = str(tmp_path / "w.duckdb")
    cli("demo", "--db", db)
    cli("sql", "--write", "--db", db, "DROP TABLE runs CASCADE")
    for cmd in (["migrate"], ["runs"], ["report", "passes", "--run", "*"]):
        line = one_line(cli(*cmd, "--db", db, check=False), 1)
        assert "without its table(s) runs" in line


def test_output_to_dev_stdout_writes_in_place_even_when_stdout_is_a_file(db, tmp_path):
    """/dev/stdout links to /proc/self/fd/1: with stdout redirected to a file it stats as a regular file,
    and writing through a renamed temporary file would replace the link itself."""
    import subprocess
    from helpers import tracedb_exe
    log = tmp_path / "out.txt"
    with open(log, "w") as f:
        p = subprocess.run([tracedb_exe(), "report", "passes", "--db", db, "--run", "*", "--format", "csv",
                            "-o", "/dev/stdout"], stdout=f, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    assert os.path.islink("/dev/stdout") and log.read_text().startswith("run,")


def test_once_sigterm_arrived_the_exit_is_143_whatever_the_unwinding_raised(monkeypatch):
    """A worker thread's KeyboardInterrupt, a DuckDB query interrupted on the way out, or a reader's error
    after the signal: the command still exits 143, as a job scheduler expects of a SIGTERM."""
    from tracedb.cli import common
    from tracedb.errors import InputError
    monkeypatch.setattr(common, "SIGTERM_SEEN", [15])
    for e in (KeyboardInterrupt(), RuntimeError(common.QUERY_INTERRUPTED), InputError("x.csv: cut short")):
        assert common.describe(e) == ("terminated (SIGTERM)", common.TERMINATED)
    monkeypatch.setattr(common, "SIGTERM_SEEN", [])
    assert common.describe(KeyboardInterrupt()) == ("interrupted", common.INTERRUPTED)
    import sqlite3      # a foreign export's query its progress handler stopped on Ctrl-C
    assert common.describe(sqlite3.OperationalError("interrupted")) == ("interrupted", common.INTERRUPTED)


def test_a_signal_while_the_interpreter_ends_kills_the_process_without_a_traceback(tmp_path):
    """Ctrl-C after the command has ended, while the interpreter joins the threads it used: the process
    ends at once, silently, with what the command printed already out (before, the interpreter printed
    "Exception ignored in threading._shutdown" and a KeyboardInterrupt traceback)."""
    import signal
    import subprocess
    import sys
    import time
    script = tmp_path / "ends.py"
    script.write_text(
        "import sys, threading, time\n"
        "threading.Thread(target=time.sleep, args=(30,)).start()   # joined at the interpreter's end\n"
        "sys.argv = ['tracedb', '--version']\n"
        "from tracedb.cli.app import main\n"
        "print('started', flush=True)\n"
        "main()\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "started\n"
    time.sleep(1.0)                    # main() has printed the version and raised SystemExit(0) by now
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGINT and err == "" and out.startswith("tracedb "), (proc.returncode, err)


@pytest.mark.parametrize("report, option, value", [
    ("critical-path", "by", "lane"), ("blame", "by", "rank"), ("compare", "by", "op"), ("breakdown", "by", "stage"),
    ("kernels", "order", "name"), ("layers", "window", "wide"), ("passes", "phase", "optimizer")])
def test_a_value_outside_the_declared_ones_is_said_before_the_store_is_opened(tmp_path, report, option, value):
    """An option's declared values (--by, --order, --window, --phase) are checked once, from the declaration,
    before a store is opened: the command line and tracedb.report say the same of a value outside them."""
    import tracedb
    from tracedb.engine.reports import declared
    from tracedb.errors import UsageError
    missing = str(tmp_path / "none.duckdb")
    choices = ", ".join(next(o for o in declared.get(report).options + declared.SEGMENTATION
                             if o.key == option).choices)
    said = f"--{option} '{value}': unknown; expected one of {choices}"
    line = one_line(cli("report", report, "--db", missing, "--run", "x", f"--{option}", value, check=False))
    assert line.startswith("error: ") and said in line
    with pytest.raises(UsageError, match=re.escape(said)):
        tracedb.report(missing, report, run="x", **{option: value})
    assert not os.path.exists(missing)


@pytest.mark.parametrize("report", ["breakdown", "roofline", "launches", "ranks", "kernels"])
def test_a_pass_the_report_refuses_is_said_before_the_store_is_opened(tmp_path, report):
    """`--pass mean` on a report that shows single passes is refused from the options alone: with no store at the
    path, the command line and tracedb.report name the option, not the missing store."""
    import tracedb
    from tracedb.errors import UsageError
    missing = str(tmp_path / "none.duckdb")
    line = one_line(cli("report", report, "--db", missing, "--run", "x", "--pass", "mean", check=False))
    assert line.startswith(f"error: --pass mean: report {report} shows single passes")
    with pytest.raises(UsageError, match=f"--pass mean: report {report} shows single passes"):
        tracedb.report(missing, report, run="x", pass_="mean")
    assert not os.path.exists(missing)
    # a report that averages the steady passes takes it: the missing store is what is said
    assert "no store here" in one_line(cli("report", "layers", "--db", missing, "--run", "x", "--pass", "mean",
                                           check=False))


# a value each check refuses, as the command line types it and as Python gives it
_REFUSED = {"count": ("-1", -1), "layer": ("-2", -2), "layers": ("0", 0), "blocks": ("1001", 1001),
            "us": ("-5", -5.0), "gap": ("0", 0.0), "peak_tflops": ("0", 0.0), "peak_tbs": ("1e5", 1e5),
            "pattern": ("", ""), "anchor": ("", ""), "pass": ("last", "last"), "layer_or_mean": ("x", "x"),
            "profile": ("", ""), "config": ("", "")}


def _checked_options():
    from tracedb.engine.reports import declared
    for decl in declared.REPORTS:
        own = [(o, decl.name) for o in decl.options if o.check]
        seg = [(o, decl.name) for o in declared.SEGMENTATION if o.check] if decl.selection == "segmented" else []
        yield from own + seg


def test_every_check_has_a_refused_value():
    from tracedb.engine.reports import values
    assert set(_REFUSED) == set(values.CHECKS)


@pytest.mark.parametrize("option, report", list(_checked_options()),
                         ids=lambda x: getattr(x, "key", x))
def test_a_checked_value_is_refused_alike_before_the_store_is_opened(tmp_path, option, report):
    """Every value check a report's option names (engine/reports/values.py) runs as the command line parses and,
    for Python callers, in registry.check_options: both say the same line, and no store is opened."""
    import tracedb
    from tracedb.errors import UsageError
    typed, given = _REFUSED[option.check]
    missing = str(tmp_path / "none.duckdb")
    line = one_line(cli("report", report, "--db", missing, "--run", "x", option.flags[0], typed, check=False))
    flags = "/".join(sorted(option.flags, key=len))
    assert line.startswith(f"error: {flags} ") and line.endswith(f"(see `tracedb report {report} --help`)"), line
    what = line.removeprefix(f"error: {flags} ").removesuffix(f" (see `tracedb report {report} --help`)")
    with pytest.raises(UsageError) as e:
        tracedb.report(missing, report, run="x", **{option.key: [given] if option.repeatable else given})
    assert str(e.value) == f"{option.flags[0]} {what}".replace(repr(typed), repr(given) if isinstance(given, str)
                                                                else str(given))
    assert not os.path.exists(missing)
