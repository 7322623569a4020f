"""Fuzzing the `tracedb` command line: every command and option with wrong types and out-of-range values,
odd run names, odd --db and -o targets, ad-hoc SQL, unknown commands and options. Every call must keep the
promise of tests/fuzz_promise.py (exit 0/1/2; on failure one `error:` line and no traceback; a failed
command leaves the store as it was and no larger; bounded time), and besides:
- a value no option of its kind can take (`--layers abc`, `--pass-gap nan`, an int beyond 2^63) and the
  values options.py refuses by meaning (`--layers 0`, `--top -1`, `--anchor ''`, `--format nope`, ...) end
  with exit 2, a wrong call (class `wrong exit code` otherwise);
- a read-only command (the reports, `runs` listing, `sql` without --write, `profiles`, `check` without
  --update) leaves the store as it was even when it succeeds (class `store changed`); so does `-o` naming
  the store itself, which must not overwrite it;
- a --db naming a file that is not a tracedb store (a text file, a SQLite file) is never replaced or
  changed, by any command (class `store changed`).

The commands and their options are enumerated from the typer app (tracedb.cli.app.app, via
fuzz_corpus.enumerate_params), so a new command or option is fuzzed without editing this file. For each
parameter, the other arguments of the call are valid (a store with runs base, base2, gpu and cores), so only
the fuzzed one is wrong. Case ids: `report-layers/--layers=neg` (the value's key in fuzz_corpus.INT_VALUES,
FLOAT_VALUES or STR_VALUES).

`tracedb sql` and statements that change the store (decided here, and asserted by the sql cases):
- without --write the store is opened read-only: DDL and DML (DROP TABLE runs, CREATE TABLE, INSERT,
  DELETE, ALTER, CHECKPOINT ...) fail with exit 2 and one `error: sql: ...` line that points at --write, and
  the store is unchanged. Statements that only read the store succeed even when they write elsewhere, as
  the user asked: COPY (SELECT ...) TO a file, SET, PRAGMA, a TEMP table. ATTACH of a missing file fails
  (read-only); INSTALL tries a download (DuckDB's own statement; no network here: it fails, bounded in time).
- with --write the user explicitly asked to change the store: a statement that succeeds may change it
  (CREATE TABLE x adds a table and leaves the runs as they were; DROP TABLE runs succeeds and breaks the
  store, after which every command on it must still keep the promise: one error line, no traceback).
- a failed call leaves the store unchanged, --write or not, also when the text holds several statements
  and a later one fails after an earlier one changed something (`DELETE FROM kernels_raw_full; SELECT nope`):
  the call is all or nothing, as the promise says for every failed command.

Tiers: the fast tier (default; plain `pytest`) fuzzes each distinct option once (on one of the commands
that have it) with one value picked by a fixed seed and the values it must refuse, plus the explicit cases
below; the deep tier (`pytest -m fuzz tests/test_fuzz_cli.py`, marked `fuzz`,
deselected by default by pyproject's addopts `-m 'not fuzz'`, which a command-line `-m` replaces) every
parameter with every value, in both spellings (`--opt V` and `--opt=V`). With TRACEDB_FUZZ_LOG set,
every broken promise is appended there as one JSON line."""
import os
import shutil
import sqlite3

import duckdb
import pytest

import fuzz_corpus as fc
import tiny_kineto
import tiny_swimlane
import tiny_trace
from fuzz_promise import (describe, log_violations, promise_violations, run_inprocess, run_subprocess, store_state,
                          subprocess_env)
from helpers import cli, copy_store, slow_beyond

COMMANDS, PARAMS = fc.enumerate_params()
READ_ONLY = {("report",), ("runs",), ("profiles",), ("check",), ("sql",)}


# ---------------------------------------------------------------------------------------------- the store
@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A store with runs base (the tiny Ascend decode), base2 (the same, durations doubled), gpu (the tiny
    Kineto trace) and cores (the tiny swimlane), and a trace not in it (new.csv)."""
    folder = tmp_path_factory.mktemp("fuzz_cli")
    store = str(folder / "store.duckdb")
    cli("ingest", tiny_trace.write(folder / "base.csv"), "--db", store, "--name", "base")
    cli("ingest", tiny_trace.write(folder / "base2.csv", dur_factor=2), "--db", store, "--name", "base2")
    cli("ingest", tiny_kineto.write(folder / "gpu.json"), "--db", store, "--name", "gpu")
    cli("ingest", tiny_swimlane.write(folder / "cores.json"), "--db", store, "--name", "cores")
    tiny_trace.write(folder / "new.csv", dur_factor=3)
    odd = folder / "odd"
    odd.mkdir()
    return {"folder": str(folder), "store": store, "state": store_state(store), "sig": _signature(store),
            "new": str(folder / "new.csv"), "odd": _odd_files(str(odd), store)}


_signature = fc.signature   # sha1 of the file and its write-ahead log


def _env(folder):
    """The calls' environment: this one without TRACEDB_DB and TRACEDB_DEBUG, HOME in the case's folder."""
    return subprocess_env(str(folder))


class Ctx:
    """One case's folder: its own copy of the store, the files a call may name."""

    def __init__(self, world, tmp_path):
        self.tmp = str(tmp_path)
        self.store = copy_store(world["store"], os.path.join(self.tmp, "store.duckdb"))
        self.world = world
        self.new = world["new"]
        self.check_toml = os.path.join(self.tmp, "check.toml")
        with open(self.check_toml, "w") as f:
            f.write(f'[[check]]\nreport = "layers"\nargs = ["--db", {self.store!r}, "--run", "base", "--anchor", '
                    f'"FusedInfer", "--layers", "2"]\ngolden = "g.csv"\n'.replace("'", '"'))

    def path(self, *p):
        return os.path.join(self.tmp, *p)

    def state(self):
        """The store's state: the module's (known) when the bytes are the module store's, else read."""
        if _signature(self.store) == self.world["sig"]:
            return self.world["state"]
        return store_state(self.store)


# Valid arguments for each command (positionals, then option pairs); the fuzzed parameter replaces its own.
def base_call(cmd: tuple, ctx: Ctx) -> tuple[list, list]:
    s = ctx.store
    table = {
        ("ingest",): ([ctx.new], [("--db", s)]),
        ("segment",): ([], [("--db", s), ("--run", "base")]),
        ("sql",): (["SELECT count(*) FROM runs"], [("--db", s)]),
        ("check",): ([], [("--config", ctx.check_toml)]),
        ("demo",): ([], [("--db", ctx.path("demo.duckdb"))]),
        ("migrate",): ([], [("--db", s)]),
        ("report", "cores"): ([], [("--db", s), ("--run", "cores")]),
        ("report", "modules"): ([], [("--db", s), ("--run", "gpu")]),
        ("report", "compare"): ([], [("--db", s), ("--run", "base"), ("--run", "base2")]),
        ("runs",): ([], [("--db", s)]),
        ("runs", "rm"): (["base2"], [("--db", s)]),
        ("runs", "rename"): (["base2", "renamed"], [("--db", s)]),
        ("runs", "tag"): (["base2", "k=v"], [("--db", s)]),
        ("profiles", "list"): ([], []),
        ("profiles", "show"): (["generic"], []),
    }
    if cmd in table:
        return table[cmd]
    if cmd[0] == "report":
        return [], [("--db", s), ("--run", "base")]
    params = [p for p in PARAMS if p.command == cmd]
    return [], [("--db", s)] if any(p.name == "db" for p in params) else []


def call_with(p: fc.Param, value: str, ctx: Ctx, eq=False) -> list:
    """The command line of `p` given `value`, everything else as base_call has it."""
    positionals, options = base_call(p.command, ctx)
    if p.argument:
        args = [a for a in _arguments(p.command)]
        i = args.index(p.name)
        positionals = list(positionals)
        if i < len(positionals):
            positionals[i] = value
        else:
            positionals.append(value)
        opts = [x for o, v in options for x in (o, v)]
        # `--` so that a value starting with a dash is read as the argument, not as an option
        return [*p.command, *opts, "--", *positionals]
    options = [(o, v) for o, v in options if o not in p.opts]
    opts = [x for o, v in options for x in (o, v)]
    flag = p.opts[0]
    given = [f"{flag}={value}"] if eq else [flag, value]
    if p.group_callback:   # `tracedb runs --opt V` (a listing option)
        return [*p.command, *opts, *given, *positionals]
    return [*p.command, *positionals, *opts, *given]


def _arguments(cmd):
    return [p.name for p in PARAMS if p.command == cmd and p.argument]


# ---------------------------------------------------------------------------------------------- the check
def read_only(argv) -> bool:
    head = tuple(argv[:1])
    if head == ("sql",):
        return "--write" not in argv
    if head == ("check",):
        return "--update" not in argv
    if head == ("runs",):
        return not (len(argv) > 1 and argv[1] in ("rm", "rename", "tag"))
    return head in READ_ONLY


def check_call(case_id, ctx: Ctx, argv, *, must_fail_usage=False, expect=None, runner=run_inprocess, extra=(),
               protected=()):
    """Run `tracedb ARGV` and check the promise, plus: exit 2 when `must_fail_usage`; exit in `expect` when
    given; a read-only command leaves the store as it was; the files in `protected` keep their bytes."""
    before = ctx.state()
    guarded = {p: _signature(p) for p in protected}
    out = runner(*argv, env=_env(ctx.tmp), cwd=ctx.tmp)
    after = ctx.state()
    violations = promise_violations(out, before=before, after=after, names=())
    if not out.hung:
        if must_fail_usage and out.returncode != 2:
            violations.append(("wrong exit code", f"exit {out.returncode}; expected 2: the value is not valid "
                                                  "for this option"))
        elif expect is not None and out.returncode not in expect:
            violations.append(("wrong exit code", f"exit {out.returncode}; expected {sorted(expect)}"))
        if out.returncode == 0 and read_only(argv) and not before.same_rows(after):
            violations.append(("store changed", "a read-only command that exited 0 changed the store: "
                                                f"{after.error or 'rows differ'}"))
        for p, sig in guarded.items():
            if _signature(p) != sig:
                violations.append(("store changed", f"{os.path.basename(p)}, not a tracedb store, was "
                                                    "overwritten or changed"))
    violations += list(extra)
    log_violations(case_id, out, violations)
    assert not violations, describe(case_id, out, violations, ctx.tmp)
    return out


# ---------------------------------------------------------------------------------------------- option values
def param_cases(deep: bool):
    """(id, param, value key, value, `=` spelling): in the deep tier every parameter of every command with
    every value, in both spellings; in the fast tier each distinct option (or argument) once, on one of the
    commands that have it, with one value picked by a fixed seed plus the values it must refuse by meaning."""
    out = []
    chosen = {}
    for p in PARAMS:   # fast tier: the command that fuzzes a shared option (--run, --layers, ...)
        key = (p.opts[0] if p.opts else "-".join(p.command) + ":" + p.name, p.kind)
        chosen.setdefault(key, []).append(p)
    fast_params = {id(fc.rng_for("fast-command", *k).choice(ps)) for k, ps in chosen.items()}
    for p in PARAMS:
        if not deep and id(p) not in fast_params:
            continue
        name = "-".join(p.command) + "/" + (p.opts[0] if p.opts else p.name.upper())
        if p.kind == "flag":   # a flag given a value: `--replace=yes`
            if p.opts and p.opts[0].startswith("--"):
                out.append((f"{name}=yes", p, "flag-value", "yes", True))
            continue
        values = fc.values_for(p)
        keys = list(values)
        if not deep:
            keys = fc.rng_for("fast", name).sample(keys, 1)
            keys += [k for k in values if k not in keys and fc.must_refuse(p, k) and k in ("zero", "neg", "empty")]
        for k in keys:
            for eq in ((False, True) if deep and p.opts else (False,)):
                out.append((f"{name}{'=' if eq else ' '}{k}".replace(" ", ":"), p, k, values[k], eq))
    fast_ids = {c[0] for c in param_cases(False)} if deep else set()
    return [c for c in out if c[0] not in fast_ids]


def _run_param(c, world, tmp_path):
    case_id, p, key, value, eq = c
    ctx = Ctx(world, tmp_path)
    if p.command == ("demo",) and key in ("long",):
        pytest.skip("a 5000-character file name: the file system refuses it before tracedb sees it")
    argv = call_with(p, value, ctx, eq=eq)
    must = key == "flag-value" or fc.must_refuse(p, key)
    if p.command == ("ingest",) and not p.argument:
        out = check_call(case_id, ctx, argv, must_fail_usage=must)
        if out.returncode == 0:   # the run landed: consistent, and the reports on it keep the promise
            after = store_state(ctx.store)
            for name in fc.new_run_names(world["state"], after):
                for o, violations in fc.report_failures(ctx.store, name, after):
                    log_violations(case_id, o, violations)
                    assert not violations, describe(case_id, o, violations, ctx.tmp)
        return
    check_call(case_id, ctx, argv, must_fail_usage=must)


FAST_PARAMS = param_cases(False)


@pytest.mark.parametrize("c", FAST_PARAMS, ids=lambda c: c[0])
def test_option_value(c, world, tmp_path):
    _run_param(c, world, tmp_path)


@pytest.mark.fuzz
@pytest.mark.parametrize("c", param_cases(True), ids=lambda c: c[0])
def test_option_value_deep(c, world, tmp_path):
    _run_param(c, world, tmp_path)


# ---------------------------------------------------------------------------------------------- explicit calls
# (id, argv with {store} {new} {tmp} placeholders, expected exits or None, protected files). The cases:
# --layers 0/-1/abc/huge, --blocks-per-layer 0, --pass-gap nan/inf/-1/abc, --anchor '', --top -1,
# --pass garbage, --format nope, -o into a missing folder / onto a folder / onto the store, --db oddities,
# SQL-like and odd run names, unknown commands and options, no arguments.
U = {2}
EXPLICIT = [
    ("no-args", [], U),
    ("unknown-command", ["nope"], U),
    ("unknown-option", ["--nope"], U),
    ("version", ["--version"], {0}),
    ("help", ["--help"], {0}),
    ("report-no-subcommand", ["report"], U),
    ("report-unknown", ["report", "nope"], U),
    ("profiles-no-subcommand", ["profiles"], U),
    ("runs-rm-no-pattern", ["runs", "rm", "--db", "{store}"], U),
    ("ingest-no-path", ["ingest", "--db", "{store}"], U),
    ("sql-no-query", ["sql", "--db", "{store}"], U),
    ("layers-unknown-option", ["report", "layers", "--db", "{store}", "--run", "base", "--nope"], U),
    ("layers-extra-argument", ["report", "layers", "--db", "{store}", "--run", "base", "extra"], U),
    ("layers-option-without-value", ["report", "layers", "--db", "{store}", "--run"], U),
    ("layers-repeated-option", ["report", "layers", "--db", "{store}", "--run", "base", "--layers", "2",
                                "--layers", "3", "--anchor", "FusedInfer"], {0, 2}),
    ("layers-0", ["report", "layers", "--db", "{store}", "--run", "base", "--layers", "0"], U),
    ("layers--1", ["report", "layers", "--db", "{store}", "--run", "base", "--layers", "-1"], U),
    ("layers-abc", ["report", "layers", "--db", "{store}", "--run", "base", "--layers", "abc"], U),
    ("layers-huge", ["report", "layers", "--db", "{store}", "--run", "base", "--layers", "99999999999999999999"], U),
    ("blocks-per-layer-0", ["report", "layers", "--db", "{store}", "--run", "base", "--blocks-per-layer", "0"], U),
    ("pass-gap-nan", ["report", "passes", "--db", "{store}", "--run", "base", "--pass-gap", "nan"], U),
    ("pass-gap-inf", ["report", "passes", "--db", "{store}", "--run", "base", "--pass-gap", "inf"], U),
    ("pass-gap--1", ["report", "passes", "--db", "{store}", "--run", "base", "--pass-gap", "-1"], U),
    ("pass-gap-abc", ["report", "passes", "--db", "{store}", "--run", "base", "--pass-gap", "abc"], U),
    ("anchor-empty", ["report", "passes", "--db", "{store}", "--run", "base", "--anchor", ""], U),
    ("anchor-bad-regex", ["report", "passes", "--db", "{store}", "--run", "base", "--anchor", "(("], U),
    ("anchor-regex-bomb", ["report", "passes", "--db", "{store}", "--run", "base", "--anchor", "(a*)*b"], None),
    ("top--1", ["report", "kernels", "--db", "{store}", "--run", "base", "--top", "-1"], U),
    ("pass-garbage", ["report", "layers", "--db", "{store}", "--run", "base", "--pass", "garbage"], U),
    ("pass-huge", ["report", "layers", "--db", "{store}", "--run", "base", "--pass", "99999999999999999999"], U),
    ("format-nope", ["report", "passes", "--db", "{store}", "--run", "base", "--format", "nope"], U),
    ("output-missing-folder", ["report", "passes", "--db", "{store}", "--run", "base", "-o", "{tmp}/no/such/x.txt"], U),
    ("output-onto-folder", ["report", "passes", "--db", "{store}", "--run", "base", "-o", "{tmp}"], U),
    ("output-empty", ["report", "passes", "--db", "{store}", "--run", "base", "-o", ""], U),
    ("output-onto-store", ["report", "passes", "--db", "{store}", "--run", "base", "-o", "{store}"], None),
    ("output-onto-store-relative", ["report", "passes", "--db", "store.duckdb", "--run", "base", "-o",
                                    "./store.duckdb"], None),
    ("sql-output-onto-store", ["sql", "SELECT 1", "--db", "{store}", "-o", "{store}"], None),
    ("runs-output-onto-store", ["runs", "--db", "{store}", "-o", "{store}"], None),
    ("output-dev-full", ["report", "passes", "--db", "{store}", "--run", "base", "-o", "/dev/full"], {1}),
    ("output-dev-stdout", ["report", "passes", "--db", "{store}", "--run", "base", "-o", "/dev/stdout"], {0}),
    ("output-newline-name", ["report", "passes", "--db", "{store}", "--run", "base", "-o", "{tmp}/a\nb.txt"], {0}),
    ("db-empty", ["report", "passes", "--db", "", "--run", "base"], U),
    ("db-folder", ["report", "passes", "--db", "{tmp}", "--run", "base"], {1, 2}),
    ("db-missing", ["report", "passes", "--db", "{tmp}/missing.duckdb", "--run", "base"], {1, 2}),
    ("db-text-file", ["report", "passes", "--db", "{tmp}/notes.txt", "--run", "base"], {1, 2}),
    ("db-sqlite", ["report", "passes", "--db", "{tmp}/profile.sqlite", "--run", "base"], {1, 2}),
    ("db-empty-file", ["report", "passes", "--db", "{tmp}/empty.duckdb", "--run", "base"], {1, 2}),
    ("db-plain-duckdb", ["report", "passes", "--db", "{tmp}/plain.duckdb", "--run", "base"], {1, 2}),
    ("db-newer-schema", ["report", "passes", "--db", "{tmp}/newer.duckdb", "--run", "base"], {1}),
    ("db-truncated-store", ["report", "passes", "--db", "{tmp}/cut.duckdb", "--run", "base"], {1}),
    ("db-dev-null", ["report", "passes", "--db", "/dev/null", "--run", "base"], {1, 2}),
    ("ingest-db-text-file", ["ingest", "{new}", "--db", "{tmp}/notes.txt"], {1, 2}),
    ("ingest-db-sqlite", ["ingest", "{new}", "--db", "{tmp}/profile.sqlite"], {1, 2}),
    ("ingest-db-folder", ["ingest", "{new}", "--db", "{tmp}"], {1, 2}),
    ("ingest-db-plain-duckdb", ["ingest", "{new}", "--db", "{tmp}/plain.duckdb"], {1, 2}),
    ("ingest-db-empty-file", ["ingest", "{new}", "--db", "{tmp}/empty.duckdb"], None),
    ("ingest-db-truncated-store", ["ingest", "{new}", "--db", "{tmp}/cut.duckdb"], {1}),
    ("ingest-db-newer-schema", ["ingest", "{new}", "--db", "{tmp}/newer.duckdb"], {1}),
    ("migrate-db-text-file", ["migrate", "--db", "{tmp}/notes.txt"], {1, 2}),
    ("migrate-db-sqlite", ["migrate", "--db", "{tmp}/profile.sqlite"], {1, 2}),
    ("demo-db-text-file", ["demo", "--db", "{tmp}/notes.txt"], {1, 2}),
    ("runs-rm-db-text-file", ["runs", "rm", "x", "--db", "{tmp}/notes.txt"], {1, 2}),
    ("sql-write-db-text-file", ["sql", "SELECT 1", "--write", "--db", "{tmp}/notes.txt"], {1, 2}),
    ("run-sql-injection", ["report", "passes", "--db", "{store}", "--run", "x' OR 1=1 --"], U),
    ("run-star", ["report", "passes", "--db", "{store}", "--run", "*"], {0, 2}),
    ("run-bracket", ["report", "passes", "--db", "{store}", "--run", "["], U),
    ("run-newline", ["report", "passes", "--db", "{store}", "--run", "base\n"], U),
    ("run-name-newline-inside", ["report", "passes", "--db", "{store}", "--run", "ba\nse"], U),
    ("run-percent", ["report", "passes", "--db", "{store}", "--run", "%"], U),
    ("run-underscore-like", ["report", "passes", "--db", "{store}", "--run", "bas_"], U),
    ("run-escape-seq", ["report", "passes", "--db", "{store}", "--run", "\x1b[31mred"], U),
    ("tag-sql-injection", ["report", "passes", "--db", "{store}", "--tag", "x' OR 1=1 --"], U),
    ("tag-empty-key", ["report", "passes", "--db", "{store}", "--tag", "=v"], U),
    ("runs-rm-sql", ["runs", "rm", "x' OR 1=1 --", "--db", "{store}"], U),
    ("runs-rm-star", ["runs", "rm", "*", "--db", "{store}"], {0}),
    ("runs-rm-listing-option", ["runs", "--tag", "x", "rm", "*", "--db", "{store}"], U),
    ("runs-rename-empty", ["runs", "rename", "base", "", "--db", "{store}"], U),
    ("runs-rename-taken", ["runs", "rename", "base", "gpu", "--db", "{store}"], U),
    ("runs-rename-newline", ["runs", "rename", "base", "a\nb", "--db", "{store}"], {0, 2}),
    ("runs-rename-sql", ["runs", "rename", "base", "x' OR 1=1 --", "--db", "{store}"], {0}),
    ("runs-tag-no-equals", ["runs", "tag", "base", "--db", "{store}"], U),
    ("runs-tag-set-and-unset", ["runs", "tag", "base", "k=v", "--untag", "k", "--db", "{store}"], U),
    ("profiles-show-missing", ["profiles", "show", "nope"], U),
    ("profiles-show-path-traversal", ["profiles", "show", "../../../etc/passwd"], {1, 2}),
    ("profiles-show-folder", ["profiles", "show", "{tmp}"], {1, 2}),
    ("profiles-show-bad-toml", ["profiles", "show", "{tmp}/bad.toml"], {1, 2}),
    ("profile-bad-toml", ["report", "layers", "--db", "{store}", "--run", "base", "--profile", "{tmp}/bad.toml"],
     {1, 2}),
    ("config-missing", ["report", "layers", "--db", "{store}", "--run", "base", "--config", "{tmp}/nope.json"],
     {1, 2}),
    ("config-bad-json", ["report", "layers", "--db", "{store}", "--run", "base", "--config", "{tmp}/notes.txt"],
     {1, 2}),
    ("config-wrong-types", ["report", "layers", "--db", "{store}", "--run", "base", "--config",
                            "{tmp}/wrong.json"], {1, 2}),
    ("check-config-missing", ["check", "--config", "{tmp}/nope.toml"], {1, 2}),
    ("check-config-bad-toml", ["check", "--config", "{tmp}/bad.toml"], {1, 2}),
    ("check-config-wrong-types", ["check", "--config", "{tmp}/check_wrong.toml"], {1, 2}),
    ("check-config-folder", ["check", "--config", "{tmp}"], {1, 2}),
    ("cores-from-after-to", ["report", "cores", "--db", "{store}", "--run", "cores", "--from", "30", "--to",
                             "10"], {0, 2}),
    ("cores-on-a-gpu-run", ["report", "cores", "--db", "{store}", "--run", "gpu"], {0, 1, 2}),
    ("modules-on-an-ascend-run", ["report", "modules", "--db", "{store}", "--run", "base"], {0, 1, 2}),
    ("compare-one-run", ["report", "compare", "--db", "{store}", "--run", "base"], {0, 2}),
    ("compare-npu-and-cores", ["report", "compare", "--db", "{store}", "--run", "base", "--run", "cores"],
     {0, 1, 2}),
    ("segment-all-runs", ["segment", "--db", "{store}", "--run", "*"], {0, 2}),
    ("core-rule-bad-regex", ["ingest", "{new}", "--db", "{store}", "--core-rule", "((=AIC"], U),
    ("core-rule-no-equals", ["ingest", "{new}", "--db", "{store}", "--core-rule", "AIC"], U),
    ("tag-no-equals-ingest", ["ingest", "{new}", "--db", "{store}", "--tag", "k"], U),
    ("ingest-same-path-twice", ["ingest", "{new}", "{new}", "--db", "{store}"], {0}),
]
# deep tier only (each ~1 s)
EXPLICIT_DEEP = [
    ("demo-db-sqlite", ["demo", "--db", "{tmp}/profile.sqlite"], {1, 2}),
    ("demo-db-folder", ["demo", "--db", "{tmp}"], {1, 2}),
    ("demo-db-store", ["demo", "--db", "{store}"], {0, 1, 2}),
    ("segment-then-report", ["segment", "--db", "{store}", "--run", "base", "--anchor", "FusedInfer", "--layers",
                             "2"], {0}),
    ("runs-passes-every-run", ["runs", "--db", "{store}", "--passes"], {0}),
    ("compare-all-runs", ["report", "compare", "--db", "{store}", "--run", "*"], {0, 1, 2}),
    ("kernels-flow-layer-huge", ["report", "kernels", "--db", "{store}", "--run", "base", "--layer", "99999",
                                 "--flow"], {2}),
    ("timeline-many-layers", ["report", "timeline", "--db", "{store}", "--run", "base", *(["--layer", "1"] * 200)],
     {0, 2}),
    ("many-runs-options", ["report", "passes", "--db", "{store}", *(["--run", "base"] * 500)], {0}),
]

# ad-hoc SQL: (id, query, extra options, expected exits, protected-store check)
SQL = [
    ("empty", "", [], U),
    ("blank", "   ", [], U),
    ("only-comment", "-- only a comment", [], U),
    ("only-semicolons", ";;;", [], U),
    ("drop-runs", "DROP TABLE runs", [], U),
    ("create-table", "CREATE TABLE x(a int)", [], U),
    ("insert-runs", "INSERT INTO runs (run_id, name) VALUES (99, 'x')", [], U),
    ("delete-kernels", "DELETE FROM kernels_raw_full", [], U),
    ("update-runs", "UPDATE runs SET name = 'x'", [], U),
    ("alter-runs", "ALTER TABLE runs ADD COLUMN z INTEGER", [], U),
    ("checkpoint", "CHECKPOINT", [], {0, 2}),
    ("vacuum", "VACUUM", [], {0, 2}),
    ("attach-new-file", "ATTACH 'attached.duckdb' AS a", [], U),
    ("attach-store-again", "ATTACH '{store}' AS again", [], {0, 2}),
    ("detach-main", "DETACH store", [], U),
    ("copy-to-file", "COPY (SELECT * FROM runs) TO 'out.csv'", [], U),     # no file written without --write
    ("write-copy-to-file", "COPY (SELECT * FROM runs) TO 'out.csv'", ["--write"], U),   # nor outside the store
    ("read-other-file", "SELECT * FROM read_csv('/etc/passwd')", [], U),
    ("read-blob", "SELECT * FROM read_blob('/etc/hostname')", [], U),
    ("glob", "SELECT * FROM glob('/etc/*')", [], U),
    ("export-database", "EXPORT DATABASE 'dump'", [], U),
    ("write-export-database", "EXPORT DATABASE 'dump'", ["--write"], U),
    ("autoinstall-on", "SET autoinstall_known_extensions = true; LOAD httpfs", [], U),
    ("external-access-on", "SET enable_external_access = true", [], U),
    ("copy-to-missing-folder", "COPY runs TO '{tmp}/no/such/out.csv'", [], {1, 2}),
    ("copy-from", "COPY runs FROM 'in.csv'", [], U),
    ("load-httpfs", "LOAD httpfs", [], U),
    ("set-memory", "SET memory_limit = '1GB'", [], U),                   # settings are locked
    ("temp-table", "CREATE TEMP TABLE t AS SELECT 1 AS a; SELECT * FROM t", [], {0}),
    ("two-statements", "SELECT 1; SELECT 2", [], {0}),
    ("syntax-error", "SELEC 1", [], U),
    ("unknown-table", "SELECT * FROM nope", [], U),
    ("division-by-zero", "SELECT 1 // 0", [], {0, 2}),
    ("cast-error", "SELECT 'x'::INTEGER", [], U),
    ("odd-types-table", "SELECT 'nan'::DOUBLE AS d, '\\x00\\xff'::BLOB AS b, {'a': [1, NULL]} AS s, "
                        "map([1], [NULL]) AS m, NULL AS n, (1::HUGEINT << 100) AS h, INTERVAL 1 DAY AS i, "
                        "'2020-01-01'::DATE AS dt, 'a\nb' AS nl, chr(0) AS nul, 'é🚀' AS u, [] AS e", [], {0}),
    ("odd-types-json", "SELECT 'nan'::DOUBLE AS d, 'inf'::DOUBLE AS i, '\\x00\\xff'::BLOB AS b, "
                       "{'a': [1, NULL]} AS s, (1::HUGEINT << 100) AS h", ["--format", "json"], {0}),
    ("odd-types-csv", "SELECT 'a,b\"c' AS q, 'x\ny' AS nl, NULL AS n", ["--format", "csv"], {0}),
    ("odd-types-md", "SELECT 'a|b' AS pipe, 'x\ny' AS nl", ["--format", "md"], {0}),
    ("duplicate-column-names", "SELECT 1 AS a, 2 AS a", ["--format", "json"], {0}),
    ("no-columns-result", "SELECT * FROM runs WHERE false", [], {0}),
    ("many-rows", "SELECT * FROM range(200000)", ["--format", "csv"], {0}),
    ("write-create-table", "CREATE TABLE x(a int)", ["--write"], {0}),
    ("write-failing-ddl", "DROP TABLE nope", ["--write"], U),
    ("write-delete-then-fail", "DELETE FROM kernels_raw_full; SELECT nope", ["--write"], U),
    ("write-insert-then-fail", "INSERT INTO runs (run_id, name) VALUES (99, 'x'); SELECT 1 // 'a'", ["--write"], U),
    ("write-begin-no-commit", "BEGIN; DELETE FROM runs", ["--write"], {0, 2}),
    ("write-attach-new-file", "ATTACH 'attached.duckdb' AS a", ["--write"], U),
]


def _odd_files(folder, store):
    """The odd files the explicit calls name, made once per module (each case copies them)."""
    j = lambda n: os.path.join(folder, n)   # noqa: E731
    with open(j("notes.txt"), "w") as f:
        f.write("my notes: not a store\n")
    con = sqlite3.connect(j("profile.sqlite"))
    con.execute("CREATE TABLE t(a)")
    con.commit()
    con.close()
    open(j("empty.duckdb"), "wb").close()
    duckdb.connect(j("plain.duckdb")).execute("CREATE TABLE t AS SELECT 1 AS a").close()
    newer = copy_store(store, j("newer.duckdb"))
    c = duckdb.connect(newer)
    c.execute("UPDATE tracedb_meta SET value = '99' WHERE key = 'schema_version'")
    c.close()
    with open(store, "rb") as f, open(j("cut.duckdb"), "wb") as g:
        g.write(f.read()[:300_000])
    with open(j("bad.toml"), "w") as f:
        f.write('[[check]\nreport = "layers\n')
    with open(j("wrong.json"), "w") as f:
        f.write('{"num_hidden_layers": "many", "layer_types": 5}')
    with open(j("check_wrong.toml"), "w") as f:
        f.write('[[check]]\nreport = 5\nargs = "x"\ngolden = ["g.csv"]\nrel_tol = "big"\n')
    with open(j("in.csv"), "w") as f:
        f.write("run_id,name\n99,x\n")
    return {n: j(n) for n in os.listdir(folder)}


def _prepare(ctx: Ctx):
    for name, src in ctx.world["odd"].items():
        shutil.copyfile(src, ctx.path(name))


def _fill(a, ctx):
    return a.replace("{store}", ctx.store).replace("{new}", ctx.new).replace("{tmp}", ctx.tmp)


NOT_STORES = ("notes.txt", "profile.sqlite", "plain.duckdb")


# the default tier runs every other explicit call and SQL case (but those tests/slow_tests.txt lists); all of
# them run with `-m slow`
@pytest.mark.parametrize("case_id, argv, expect", slow_beyond(EXPLICIT, range(0, len(EXPLICIT), 2)),
                         ids=[c[0] for c in EXPLICIT])
def test_call(case_id, argv, expect, world, tmp_path):
    run_call(case_id, argv, expect, world, tmp_path)


@pytest.mark.fuzz
@pytest.mark.parametrize("case_id, argv, expect", EXPLICIT_DEEP, ids=[c[0] for c in EXPLICIT_DEEP])
def test_call_deep(case_id, argv, expect, world, tmp_path):
    run_call(case_id, argv, expect, world, tmp_path)


def run_call(case_id, argv, expect, world, tmp_path):
    ctx = Ctx(world, tmp_path)
    _prepare(ctx)
    argv = [_fill(a, ctx) for a in argv]
    check_call(f"call/{case_id}", ctx, argv, expect=expect, protected=[ctx.path(n) for n in NOT_STORES])


@pytest.mark.parametrize("case_id, query, extra, expect", slow_beyond(SQL, range(0, len(SQL), 2)),
                         ids=[c[0] for c in SQL])
def test_sql(case_id, query, extra, expect, world, tmp_path):
    ctx = Ctx(world, tmp_path)
    _prepare(ctx)
    argv = ["sql", "--db", ctx.store, *extra, "--", _fill(query, ctx)]
    out = check_call(f"sql/{case_id}", ctx, argv, expect=expect)
    if "--write" not in extra and out.returncode == 2 and case_id in ("drop-runs", "create-table", "insert-runs",
                                                                       "delete-kernels", "update-runs", "alter-runs"):
        violations = [] if "--write" in out.stderr else [
            ("wrong exit code", "a statement refused on the read-only store: the error line should point at --write")]
        log_violations(f"sql/{case_id}", out, violations)
        assert not violations, describe(f"sql/{case_id}", out, violations, ctx.tmp)


def test_sql_write_create_keeps_runs(world, tmp_path):
    """`sql --write 'CREATE TABLE x(a int)'`: done as asked (exit 0), the runs as they were."""
    ctx = Ctx(world, tmp_path)
    check_call("sql/write-create-keeps-runs", ctx, ["sql", "--write", "--db", ctx.store, "CREATE TABLE x(a int)"],
               expect={0})
    assert world["state"].same_rows(store_state(ctx.store)), "CREATE TABLE changed the runs"


def test_sql_write_drop_runs_then_every_command(world, tmp_path):
    """`sql --write 'DROP TABLE runs'` succeeds (the user asked); the store is broken after it, and every
    later command on it keeps the promise (one error line, exit 1 or 2, no traceback)."""
    ctx = Ctx(world, tmp_path)
    check_call("sql/write-drop-runs", ctx, ["sql", "--write", "--db", ctx.store, "DROP TABLE runs"], expect={0})
    broken_state = store_state(ctx.store)
    ctx.state = lambda: broken_state if _signature(ctx.store) == broken_sig else store_state(ctx.store)
    broken_sig = _signature(ctx.store)
    calls = [["runs", "--db", ctx.store], ["report", "passes", "--db", ctx.store, "--run", "base"],
             ["report", "cores", "--db", ctx.store, "--run", "cores"], ["segment", "--db", ctx.store, "--run", "base"],
             ["runs", "rm", "base", "--db", ctx.store], ["migrate", "--db", ctx.store],
             ["ingest", ctx.new, "--db", ctx.store], ["sql", "SELECT * FROM runs", "--db", ctx.store]]
    failures = []
    for argv in calls:
        try:
            check_call("sql/after-drop-runs/" + "-".join(a for a in argv[:2] if not a.startswith("/")), ctx, argv,
                       expect={1, 2})
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures)


def test_sql_install_subprocess(world, tmp_path):
    """INSTALL httpfs: DuckDB's own statement tries a download (no network here): bounded in time, one line,
    the store unchanged. Run as its own process with HOME in the test's folder."""
    ctx = Ctx(world, tmp_path)
    check_call("sql/install-httpfs", ctx, ["sql", "--db", ctx.store, "INSTALL httpfs"], runner=run_subprocess)


# ---------------------------------------------------------------------------------------------- subprocess
def test_fifo_as_db(world, tmp_path):
    """--db naming a FIFO: refused at once (opening it would block)."""
    ctx = Ctx(world, tmp_path)
    os.mkfifo(ctx.path("store.fifo"))
    check_call("call/db-fifo", ctx, ["report", "passes", "--db", ctx.path("store.fifo"), "--run", "base"],
               runner=run_subprocess, expect={1, 2})


def test_store_locked_by_another_process(world, tmp_path):
    """A store held open for writing by another process: a write command waits TRACEDB_WAIT (1 s here),
    then fails with one line; the store is unchanged."""
    import subprocess
    import sys
    ctx = Ctx(world, tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('ready', flush=True); time.sleep(30)", ctx.store], stdout=subprocess.PIPE)
    try:
        holder.stdout.readline()
        check_call("call/store-locked", ctx, ["runs", "rm", "base", "--db", ctx.store],
                   runner=lambda *a, env, cwd: run_subprocess(*a, env={**env, "TRACEDB_WAIT": "1"}, cwd=cwd),
                   expect={1, 2})
    finally:
        holder.kill()
        holder.wait()
