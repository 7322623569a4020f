"""The Python blocks of docs/python-api.md run as written, in order, in one namespace."""
import os
import re

from conftest import ROOT


def test_python_api_page_runs(capsys):
    text = open(os.path.join(ROOT, "docs", "python-api.md"), encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    ns = {}
    for block in blocks:
        exec(compile(block, "docs/python-api.md", "exec"), ns)
    out = capsys.readouterr().out
    # the bundled decode: 28-layer steady-pass table, decimal µs in Arrow, the error naming run=
    assert "note: window: full" in out and "decimal128" in out and "unknown option 'runs'" in out
    assert ns["table"].num_rows == 29 and len(ns["slowest"]) == 3
