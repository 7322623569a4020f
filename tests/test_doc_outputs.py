"""The example outputs of README.md and docs/*.md are what their commands print.

A fenced block whose info string reads `text output: COMMAND`, or a Markdown table under the comment
`<!-- output: COMMAND -->`, is run here on the real traces of $TRACEDB_TEST_DATA, and each of its lines must
match a line of what the command prints, in order: `...` stands for any text, runs of blanks are one blank,
and a line that starts with blanks continues the note before it (a long note wrapped for the page); a table's
rows must be rows of the command's table, in order, whatever the column alignment. A block whose info string
reads `text output at N columns: COMMAND` is the command's output in a terminal N columns wide, exactly, whole
or its first lines and a last line `…` (`pytest --update-golden` writes it anew; read the diff). A block whose
info string reads `text output columns: COMMAND` shows some columns of the CSV the command prints: its first
line names them, each line after it is a row's values in those columns (blank-separated), and the rows must
be rows of the CSV, in order.

The commands run in one folder where the first part of each trace path the pages name is a link into the
real traces (LINKS), and where each store a page reads was made by that page's own `tracedb ingest` and
`tracedb segment` commands (STORES)."""
import os
import re
import shlex

import pytest

from helpers import ROOT, cli, in_pty, real_data_dir

PAGES = ["README.md"] + sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
                               if f.endswith(".md"))
FENCED = re.compile(r"^```\w+ output(?: at (\d+) columns|( columns))?: (.+?)\n(.*?)^```", re.S | re.M)
TABLE = re.compile(r"^<!-- output: (.+?) -->\n((?:\|.*\n)+)", re.M)
# the first part of a trace path in the pages -> where it lies under $TRACEDB_TEST_DATA
LINKS = {"h100": "amd-tracelens/h100", "mi300": "amd-tracelens/mi300", "inference": "amd-tracelens/inference",
         "level2": "ascend-msinsight/alexnet_level2_text", "ascend-megatron-job": "ascend-megatron-job"}
# the stores the pages' examples read, as a page names them -> the page whose commands make it (a command
# without --db makes the default store, tracedb.duckdb)
STORES = {"/tmp/g.duckdb": "README.md", "mj.duckdb": "docs/reports.md", "tracedb.duckdb": "docs/terminal.md"}


def examples():
    """(page, command, kind, columns, text) of every marked example output of the pages."""
    out = []
    for page in PAGES:
        text = open(os.path.join(ROOT, page), encoding="utf-8").read()
        out += [(page, m.group(3), "exact" if m.group(1) else "columns" if m.group(2) else "lines",
                 int(m.group(1) or 0), m.group(4)) for m in FENCED.finditer(text)]
        out += [(page, m.group(1), "table", 0, m.group(2)) for m in TABLE.finditer(text)]
    return out


def _sh_commands(page: str) -> list[list[str]]:
    """The `tracedb` commands of a page's sh blocks as argument lists (after `tracedb`): a command runs on
    over a backslash line end and over line ends inside quotes; comments are left out."""
    text = open(os.path.join(ROOT, page), encoding="utf-8").read()
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        pending = ""
        for line in re.sub(r"\\\n", " ", block).splitlines():
            pending += ("\n" if pending else "") + line
            try:
                args = shlex.split(pending, comments=True)
            except ValueError:      # a quote still open: the command goes on
                continue
            pending = ""
            if args[:1] == ["tracedb"]:
                commands.append(args[1:])
    return commands


def _db(args: list[str]) -> str:
    return args[args.index("--db") + 1] if "--db" in args else "tracedb.duckdb"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """The folder the examples run in: LINKS into the real traces, and each store of STORES made by its
    page's ingest and segment commands (a page's absolute store path made a file of this folder)."""
    data = real_data_dir()
    missing = [p for p in LINKS.values() if not os.path.exists(os.path.join(data, p))]
    if missing:
        pytest.skip(f"real traces not available: {', '.join(missing)} (real-trace folder: {data})")
    work = tmp_path_factory.mktemp("doc_outputs")
    for name, path in LINKS.items():
        os.symlink(os.path.join(data, path), work / name)
    for store, page in STORES.items():
        for args in _sh_commands(page):
            if args[0] in ("ingest", "segment") and _db(args) == store:
                cli(*_local(args), cwd=str(work))
    return work


def _local(args: list[str]) -> list[str]:
    """The arguments with a page's absolute store path as a file of the working folder."""
    return [os.path.basename(a) if a in STORES and os.path.isabs(a) else a for a in args]


def _printed(command: str, work) -> list[str]:
    """The lines `command` prints (its notes, then its table: both go to stdout), outside a terminal."""
    r = cli(*_local(shlex.split(command)[1:]), cwd=str(work))
    return r.stderr.splitlines() + r.stdout.splitlines()


def _squeeze(line: str) -> str:
    return re.sub(r"\s+", " ", line).strip()


def _doc_lines(text: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        if line[:1].isspace() and lines and lines[-1].startswith("note:"):
            lines[-1] += " " + line.strip()
        elif line.strip():
            lines.append(line)
    return [_squeeze(x) for x in lines]


def _cells(row: str) -> list[str] | None:
    """A Markdown table row's cells, stripped; None for the separator row and for a line of no table."""
    if not row.lstrip().startswith("|"):
        return None
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    return None if all(re.fullmatch(r":?-+:?", c) for c in cells) else cells


def _in_order(wanted: list, got: list, same) -> list:
    """The wanted items no item of `got` matches, in order (each match after the one before)."""
    missing, at = [], 0
    for w in wanted:
        hit = next((i for i in range(at, len(got)) if same(w, got[i])), None)
        if hit is None:
            missing.append(w)
        else:
            at = hit + 1
    return missing


def test_pages_have_examples_to_check():
    kinds = {(page, kind) for page, _, kind, _, _ in examples()}
    assert {("README.md", "lines"), ("README.md", "table"), ("docs/reports.md", "lines"),
            ("docs/reports.md", "columns"), ("docs/terminal.md", "exact")} <= kinds


@pytest.mark.real_data
@pytest.mark.parametrize("page, command, kind, columns, text", examples(),
                         ids=lambda v: v if isinstance(v, str) and len(v) < 60 else None)
def test_example_output_is_what_the_command_prints(page, command, kind, columns, text, workdir, update_golden):
    if kind == "exact":
        got = in_pty(_local(shlex.split(command)[1:]), columns, cwd=str(workdir))
        while got and not got[-1].strip():
            got.pop()
        got = [line.rstrip() for line in got]
        cut = text.endswith("\n…\n")      # the page shows the output's first lines, then `…`
        if cut:
            got = got[:text.count("\n") - 1] + ["…"]
        shown = "\n".join(got) + "\n"
        if update_golden and shown != text:
            path = os.path.join(ROOT, page)
            doc = open(path, encoding="utf-8").read()
            head = f"```text output at {columns} columns: {command}\n"
            with open(path, "w", encoding="utf-8") as f:
                f.write(doc.replace(head + text, head + shown, 1))
            return
        assert shown == text, f"{page}: `{command}` at {columns} columns now prints:\n{shown}"
        return
    if kind == "columns":
        import csv
        import io
        head, *rows = [line.split() for line in text.splitlines() if line.strip()]
        printed = list(csv.DictReader(io.StringIO(cli(*_local(shlex.split(command)[1:]), cwd=str(workdir)).stdout)))
        unknown = [c for c in head if printed and c not in printed[0]]
        assert not unknown, f"{page}: `{command}` prints no column {', '.join(unknown)}"
        got = [[r[c] for c in head] for r in printed]
        missing = _in_order(rows, got, lambda w, g: w == g)
        assert not missing, f"{page}: `{command}` no longer prints these {head}:\n" + \
            "\n".join(map(str, missing)) + "\n--- it prints:\n" + "\n".join(map(str, got))
        return
    got = _printed(command, workdir)
    if kind == "table":
        rows = [c for c in map(_cells, text.splitlines()) if c is not None]
        missing = _in_order(rows, [c for c in map(_cells, got) if c], lambda w, g: w == g)
    else:
        pattern = {w: re.compile(".*".join(map(re.escape, w.split("...")))) for w in _doc_lines(text)}
        missing = _in_order(list(pattern), [_squeeze(g) for g in got], lambda w, g: pattern[w].fullmatch(g))
    assert not missing, f"{page}: `{command}` no longer prints:\n" + "\n".join(map(str, missing)) + \
        "\n--- it prints:\n" + "\n".join(got)


@pytest.mark.real_data
def test_readme_prose_figures_are_its_querys(workdir):
    """The figures the README gives in prose under its kernel_layers query (µs a layer per category and run)
    are the query's."""
    cmd = next(c for c in _sh_commands("README.md") if c[:3] == ["sql", "--db", "/tmp/g.duckdb"])
    got = [_squeeze(line) for line in cli(*_local(cmd), cwd=str(workdir)).stdout.splitlines()]
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    said = re.search(r"\(h100: (.*?); mi300: (.*?)\.\)", text)
    assert said, "README.md: the query's figures in prose, (h100: ...; mi300: ...), not found"
    for run, part in zip(("h100", "mi300"), said.groups()):
        for category, us in re.findall(r"(\w+) ([0-9.]+)", part):
            assert f"{run} {category} {us}" in got, f"README.md: {run} {category} {us} µs; the query prints:\n" \
                + "\n".join(got)
