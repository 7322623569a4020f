"""docs/cli.md is generated from the typer app by docs/gen_cli.py: it must match what the app says today."""
import importlib.util
import os
import subprocess
import sys

import typer.main

from helpers import ROOT

GEN = os.path.join(ROOT, "docs", "gen_cli.py")
CLI_MD = os.path.join(ROOT, "docs", "cli.md")


def _gen():
    spec = importlib.util.spec_from_file_location("gen_cli", GEN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_current():
    gen = _gen()
    with open(CLI_MD, encoding="utf-8") as f:
        written = f.read()
    assert written == gen.render(), f"docs/cli.md is stale: regenerate it with `{gen.REGENERATE}`"


def test_cli_reference_lists_every_command_and_option():
    from tracedb.cli.app import app
    with open(CLI_MD, encoding="utf-8") as f:
        text = f.read()

    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            if not sub.hidden:
                yield from walk(sub, f"{path} {name}")

    missing = []
    for path, cmd in walk(typer.main.get_command(app), "tracedb"):
        section = text.split(f"\n## {path}\n", 1)
        if len(section) < 2:
            missing.append(path)
            continue
        body = section[1].split("\n## ", 1)[0]
        missing += [f"{path} {o}" for p in cmd.params if p.param_type_name == "option" and p.name != "help"
                    and not p.hidden for o in p.opts if f"`{o}`" not in body]
    assert not missing, f"docs/cli.md lacks: {missing}; regenerate it with `{_gen().REGENERATE}`"


def test_generator_runs_as_documented():
    out = subprocess.run([sys.executable, GEN], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out == _gen().render()
