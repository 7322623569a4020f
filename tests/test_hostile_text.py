"""Text from a trace is shown, never obeyed: in the terminal table and Markdown, escape sequences, CR/LF and
bidirectional overrides are shown as escapes, and Markdown cells hold no live HTML; CSV and JSON keep the
exact text; a run name made from a file name obeys the rules of --name."""
import json
import os

import tiny_kineto
from helpers import cli

EVIL = {
    "ansi": "gemm\x1b[2J\x1b]0;owned\x07\x1b]52;c;ZWNobyBvd25lZA==\x07_kernel",
    "html": 'flash"><img src=x onerror=alert(1)>_kernel',
    "crlf": "norm\r\n| injected | row |\r_kernel",
    "bidi": "rope\u202eenrek_\u2066x\u2069",
}


def _store(tmp_path, db_path):
    doc = tiny_kineto.document()
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and "flash" not in e["name"]]
    for e, name in zip(kernels, EVIL.values()):
        e["name"] = name
    path = tmp_path / "evil\x1b[31m.pt.trace.json"
    path.write_text(json.dumps(doc))
    cli("ingest", str(path), "--db", db_path)
    return path


def _names(db_path, fmt):
    return cli("sql", "--db", db_path, "--format", fmt, "SELECT DISTINCT name FROM kernels ORDER BY name").stdout


def test_terminal_and_markdown_show_escapes_instead_of_obeying_them(tmp_path, db_path):
    _store(tmp_path, db_path)
    for fmt in ("table", "md"):
        out = _names(db_path, fmt) + cli("runs", "--db", db_path, "--format", fmt).stdout
        assert not any(c in out for c in "\x1b\x07\r\u202e\u2066"), fmt
        assert "\\x1b]52;c;" in out and "\\u202e" in out
    md = _names(db_path, "md")
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)&gt;" in md
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert all(line.count(" | ") == 0 for line in rows[2:]), "a cell's text split or added a table column"


def test_csv_and_json_keep_the_exact_text(tmp_path, db_path):
    _store(tmp_path, db_path)
    got = {row["name"] for row in json.loads(_names(db_path, "json"))["rows"]}
    assert set(EVIL.values()) <= got
    csv_text = _names(db_path, "csv")
    assert EVIL["ansi"] in csv_text and EVIL["bidi"] in csv_text


def test_a_run_named_from_a_file_obeys_the_rules_of_name(tmp_path, db_path):
    _store(tmp_path, db_path)
    runs = json.loads(cli("runs", "--db", db_path, "--format", "json").stdout)["rows"]
    assert [r["run"] for r in runs] == ["evil_[31m"]   # the stem without .pt.trace.json, ESC as _
    assert os.path.exists(tmp_path / "evil\x1b[31m.pt.trace.json")


def test_spreadsheet_csv_never_starts_a_formula_and_csv_stays_exact(db_path, tmp_path):
    _store(tmp_path, db_path)
    query = "SELECT -1.5 AS n, '=HYPERLINK(\"http://x\",\"y\")' AS a, '+1' AS b, '@SUM(A1)' AS c, 'plain' AS d"
    sheet = cli("sql", "--db", db_path, "--format", "spreadsheet", query).stdout.splitlines()
    assert sheet[1] == '-1.5,"\'=HYPERLINK(""http://x"",""y"")",\'+1,\'@SUM(A1),plain'
    exact = cli("sql", "--db", db_path, "--format", "csv", query).stdout.splitlines()
    assert exact[1] == '-1.5,"=HYPERLINK(""http://x"",""y"")",+1,@SUM(A1),plain'
