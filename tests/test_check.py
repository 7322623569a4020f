"""`tracedb check`: a regression gate over golden CSV files; a golden that must fail, and one that passes."""
import os

import pytest

import tiny_trace
from helpers import cli

CONFIG = """[[check]]
name = "tiny layers"
report = "layers"
args = ["--db", "{db}", "--run", "tiny", "--profile", "qwen3-npu", "--layers", "2", "--pass", "all",
        "--window", "strict"]
golden = "ci/tiny-layers.csv"
rel_tol = 0.05
abs_tol_us = 1.0
"""


@pytest.fixture
def gate(tmp_path):
    db = str(tmp_path / "r.duckdb")
    cli("ingest", tiny_trace.write(tmp_path / "k.csv"), "--db", db, "--name", "tiny")
    cfg = tmp_path / "conf" / "check.toml"
    cfg.parent.mkdir()
    cfg.write_text(CONFIG.format(db=db))
    return cfg


def edit_golden(cfg, line, old, new):
    path = cfg.parent / "ci" / "tiny-layers.csv"
    rows = path.read_text().splitlines(True)
    assert old in rows[line]
    rows[line] = rows[line].replace(old, new, 1)
    path.write_text("".join(rows))


def test_missing_golden_fails_with_a_hint(gate):
    p = cli("check", "--config", gate, check=False)
    assert p.returncode == 1
    assert f"create it with `tracedb check --config {gate} --update`" in p.stdout


def test_update_then_unchanged_data_passes(gate, tmp_path):
    # run from another folder: the golden path is relative to the config file
    out = cli("check", "--config", gate, "--update", cwd=tmp_path).stdout
    assert out.strip().endswith(str(gate.parent / "ci" / "tiny-layers.csv"))
    assert cli("check", "--config", gate, cwd=tmp_path).stdout == "PASS  tiny layers (8 rows)\n"


def test_a_golden_moved_beyond_tolerance_fails_naming_the_cell(gate):
    cli("check", "--config", gate, "--update")
    # pass 0 layer 0: sum_us 40.500 now; a golden of 20.000 is +102.5 % away, beyond 5 % and 1 µs
    edit_golden(gate, 1, ",40.500,", ",20.000,")
    p = cli("check", "--config", gate, check=False)
    assert p.returncode == 1
    assert p.stdout.splitlines() == ["FAIL  tiny layers (8 rows)",
                                     "      run tiny, pass 0, layer 0, sum_us: 20.000 -> 40.500 (+102.5%)"]


def test_within_either_tolerance_passes(gate):
    cli("check", "--config", gate, "--update")
    edit_golden(gate, 1, ",40.500,", ",40.000,")        # 1.25 % away: within rel_tol 5 %
    edit_golden(gate, 3, ",32.400,", ",31.600,")        # 0.8 µs away: within abs_tol_us 1
    assert cli("check", "--config", gate).returncode == 0


def test_counts_and_rows_are_exact(gate):
    cli("check", "--config", gate, "--update")
    edit_golden(gate, 1, "tiny,0,0,6,", "tiny,0,0,7,")   # kernels: not a *_us column, no tolerance
    path = gate.parent / "ci" / "tiny-layers.csv"
    rows = path.read_text().splitlines(True)
    path.write_text("".join(rows[:-1]))                 # the last layer row removed from the golden
    p = cli("check", "--config", gate, check=False)
    assert p.returncode == 1
    assert sorted(p.stdout.splitlines()[1:]) == ["      run tiny, pass 0, layer 0, kernels: 7 -> 6 (-14.3%)",
                                                 "      run tiny, pass 3, layer 1: new row"]


@pytest.mark.parametrize("text, message", [
    ('[[check]]\nreport = "layers"\nargs = [\n', "not valid TOML"),
    ('[[check]]\nreport = "layers"\ngolden = "g.csv"\ntolerance = 1\n', "unknown keys tolerance"),
    ('title = "x"\n', "expected one or more [[check]] tables"),
    ('check = [1, 2]\n', "[[check]] #1: expected a table"),
    ('[[check]]\nreport = "layers"\ngolden = "g.csv"\nrel_tol = nan\n', "rel_tol is nan; expected a finite number"),
    ('[[check]]\nreport = "layers"\ngolden = "g.csv"\nabs_tol_us = -1\n', "abs_tol_us is -1"),
    ('[[check]]\nreport = "layers"\ngolden = "g.csv"\nrel_tol = inf\n', "rel_tol is inf"),
    ('[[check]]\nreport = "layers"\ngolden = "g.csv"\nrel_tol = true\n', "rel_tol is True"),
    ('[[check]]\nreport = "layers"\ngolden = "g.csv"\nkeys = "run"\n', "keys must be a list"),
])
def test_malformed_config_is_a_usage_error(tmp_path, text, message):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text)
    p = cli("check", "--config", cfg, check=False)
    assert p.returncode == 2 and p.stderr.startswith(f"error: {cfg}") and message in p.stderr


def test_a_failing_report_is_reported(gate):
    gate.write_text(CONFIG.format(db=os.path.join(os.path.dirname(gate), "none.duckdb")))
    p = cli("check", "--config", gate, check=False)
    assert p.returncode == 1 and p.stderr.startswith("error: check 'tiny layers': ") and "no store here" in p.stderr
    assert p.stderr.count("error:") == 1


def test_relative_paths_in_args_are_relative_to_the_config_file(tmp_path):
    # the store next to the config, named relatively; the check runs from another folder
    conf = tmp_path / "gate"
    conf.mkdir()
    cli("ingest", tiny_trace.write(tmp_path / "k.csv"), "--db", conf / "r.duckdb", "--name", "tiny")
    (conf / "check.toml").write_text(CONFIG.replace('"{db}"', '"r.duckdb"'))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert cli("check", "--config", conf / "check.toml", "--update", cwd=elsewhere).returncode == 0
    assert cli("check", "--config", conf / "check.toml", cwd=elsewhere).stdout == "PASS  tiny layers (8 rows)\n"


def test_help_shows_the_table_name():
    assert "[[check]]" in cli("check", "--help").stdout
