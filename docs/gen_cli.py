#!/usr/bin/env python3
"""Write the command-line reference (docs/cli.md) from the `tracedb` typer app itself.

    python docs/gen_cli.py > docs/cli.md

Every command and subcommand gets its usage line, its help text, and a table of its arguments and
options (name, type, default, help), in the order `tracedb --help` lists them. The output depends only
on the app, so tests/test_cli_docs.py regenerates it and fails when docs/cli.md differs.
Imports only tracedb and typer (whose click it uses through typer.main.get_command)."""
import inspect
import re
import sys

import typer.main

from tracedb.cli.app import app

REGENERATE = "python docs/gen_cli.py > docs/cli.md"
TYPE_NAMES = {"str": "TEXT", "text": "TEXT", "int": "INTEGER", "integer": "INTEGER", "float": "FLOAT",
              "bool": "BOOLEAN", "boolean": "BOOLEAN"}


def _escape(text: str) -> str:
    """`*` outside code spans escaped, so that Markdown does not read it as emphasis."""
    parts = text.split("`")
    return "`".join(p if i % 2 else p.replace("*", "\\*") for i, p in enumerate(parts))


def _text(help_text: str | None) -> str:
    """Help text as Markdown: rich markup escapes removed, lines of a paragraph joined."""
    if not help_text:
        return ""
    text = inspect.cleandoc(help_text).replace("\\[", "[")
    paragraphs = re.split(r"\n\s*\n", text)
    return _escape("\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs))


def _cell(text) -> str:
    """A Markdown table cell: pipes escaped, one line."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _type(param, ctx) -> str:
    if getattr(param, "is_flag", False) and not getattr(param, "secondary_opts", None):
        return "flag"
    if param.metavar:
        kind = param.metavar
    else:
        name = getattr(param.type, "name", "") or ""
        kind = TYPE_NAMES.get(name, name.upper() or "TEXT")
    if param.multiple or (param.param_type_name == "argument" and param.nargs == -1):
        kind += ", repeatable"
    return kind


def _default(param) -> str:
    if param.required:
        return "required"
    value = param.default
    if callable(value):
        return ""
    if getattr(param, "is_flag", False):    # a --x/--no-x flag without a default decides by itself
        return "auto" if value is None and param.secondary_opts else "on" if value else "off"
    if value is None or value == () or value == []:
        return ""
    return f"`{value}`"


def _names(param) -> str:
    if param.param_type_name == "argument":
        return f"`{param.human_readable_name}`"
    return ", ".join(f"`{o}`" for o in list(param.opts) + list(param.secondary_opts))


def _commands(cmd, ctx):
    """(command, context) for cmd and every subcommand below it, depth first, in --help order."""
    yield cmd, ctx
    if hasattr(cmd, "list_commands"):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            yield from _commands(sub, sub.make_context(name, [], parent=ctx, resilient_parsing=True))


def _anchor(path: str) -> str:
    """The anchor GitHub gives the heading `path`."""
    return re.sub(r"[^a-z0-9 _-]", "", path.lower()).replace(" ", "-")


def render() -> str:
    root = typer.main.get_command(app)
    root_ctx = root.make_context("tracedb", [], resilient_parsing=True)
    commands = list(_commands(root, root_ctx))
    out = ["# Command-line reference", "",
           "<!-- Generated from the tracedb command itself; do not edit. Regenerate with:",
           f"     {REGENERATE} -->", "",
           "Every command below also takes `--help`, which prints the same text. What the commands print "
           "(report columns, notes, exit codes) is in [commands.md](commands.md) and [reports.md](reports.md).", "",
           "| command | what it does |", "|---|---|"]
    for cmd, ctx in commands[1:]:
        summary = _text(cmd.get_short_help_str(limit=1000))
        out.append(f"| [`{ctx.command_path}`](#{_anchor(ctx.command_path)}) | {_cell(summary)} |")
    out.append("")
    for cmd, ctx in commands:
        path = ctx.command_path
        usage = cmd.get_usage(ctx).strip()
        usage = re.sub(r"^Usage:\s*", "", usage)
        out += [f"## {path}", "", "```", usage, "```", ""]
        if cmd.help:
            out += [_text(cmd.help), ""]
        params = [p for p in cmd.get_params(ctx) if not getattr(p, "hidden", False) and p.name != "help"]
        args = [p for p in params if p.param_type_name == "argument"]
        opts = [p for p in params if p.param_type_name == "option"]
        if args:
            out += ["| argument | type | default | help |", "|---|---|---|---|"]
            out += [f"| {_names(p)} | {_cell(_type(p, ctx))} | {_cell(_default(p))} | {_cell(_text(p.help))} |"
                    for p in args]
            out.append("")
        if opts:
            out += ["| option | type | default | help |", "|---|---|---|---|"]
            out += [f"| {_cell(_names(p))} | {_cell(_type(p, ctx))} | {_cell(_default(p))} | {_cell(_text(p.help))} |"
                    for p in opts]
            out.append("")
        if hasattr(cmd, "list_commands") and cmd is not root:
            subs = [(n, cmd.get_command(ctx, n)) for n in cmd.list_commands(ctx)]
            subs = [(n, s) for n, s in subs if s is not None and not s.hidden]
            if subs:
                out += ["| subcommand | what it does |", "|---|---|"]
                out += [f"| [`{path} {n}`](#{_anchor(f'{path} {n}')}) "
                        f"| {_cell(_text(s.get_short_help_str(limit=1000)))} |" for n, s in subs]
                out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
