"""The Python blocks of docs/python-api.md run as written, in order, in one namespace; the links of README.md,
CHANGELOG.md and docs/*.md point at files (and headings) that exist."""
import os
import re

from helpers import ROOT


def test_python_api_page_runs(capsys):
    text = open(os.path.join(ROOT, "docs", "python-api.md"), encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    ns = {}
    for block in blocks:
        exec(compile(block, "docs/python-api.md", "exec"), ns)
    out = capsys.readouterr().out
    # the bundled decode: 28-layer steady-pass table with its prologue and epilogue, decimal µs in Arrow, the error
    # naming run=
    assert "note: window: full" in out and "decimal128" in out and "unknown option 'runs'" in out
    assert ns["table"].num_rows == 30 and len(ns["slowest"]) == 3


DOC_FILES = ["README.md", "CHANGELOG.md"] + sorted(
    os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _outside_fences(text):
    """The text outside fenced code blocks."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _prose(text):
    """The text outside code blocks and inline code, where Markdown links are links."""
    return re.sub(r"`[^`\n]*`", "", _outside_fences(text))


def _anchors(text):
    """The anchors GitHub gives the headings of a Markdown text."""
    headings = re.findall(r"^#{1,6}\s+(.*?)\s*$", _outside_fences(text), re.M)
    return {re.sub(r"[^\w\- ]", "", h.replace("`", "").strip().lower()).replace(" ", "-") for h in headings}


def test_relative_links_point_at_files_that_exist():
    broken = []
    for doc in DOC_FILES:
        path = os.path.join(ROOT, doc)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for target in LINK.findall(_prose(text)):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):      # https:, mailto: ...
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                broken.append(f"{doc}: {target} (no such file)")
            elif anchor and dest.endswith(".md"):
                with open(dest, encoding="utf-8") as f:
                    if anchor not in _anchors(f.read()):
                        broken.append(f"{doc}: {target} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_docs_point_at_no_file_the_repository_lacks():
    gone = ("DESIGN.md", "PERFORMANCE.md", "FORMATS.md", "contract_check", "seeds/", "../shared")
    found = []
    for doc in DOC_FILES:
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            text = f.read()
        found += [f"{doc}: {word}" for word in gone if word in text]
    assert not found, found


def _gen_modules():
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_modules", os.path.join(ROOT, "docs", "gen_modules.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_module_map_is_current():
    """docs/architecture.md's module map is the package's docstrings today: a module added, moved or
    re-described without regenerating fails here."""
    gen = _gen_modules()
    with open(gen.DOC, encoding="utf-8") as f:
        text = f.read()
    assert text == gen.updated(text), f"the module map of docs/architecture.md is stale: run `{gen.REGENERATE}`"
    assert "`engine/segmentation/segment.py`" in text and "`ingest/chrome_json/loader.py`" in text


def test_sql_docstring_names_every_stage_folder():
    import tracedb.sql
    folders = sorted(e.name for e in os.scandir(os.path.join(ROOT, "sql")) if e.is_dir() and e.name != "__pycache__")
    missing = [f for f in folders if f"    {f}/ " not in tracedb.sql.__doc__]
    assert len(folders) >= 8 and not missing, f"tracedb/sql/__init__.py's docstring lacks the folders {missing}"
