"""Configuration files: discovery, validation with errors that name the file and key, and precedence."""

from __future__ import annotations

import json

import pytest

from capture_analysis.policies import POLICIES
from capture_analysis.rules import Severity

from .golden_outputs import run_cli

BOXED = "export function f() { let n = 0; return () => n++; }\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder with ``src/a.ts`` (one BX101, an info by default) and ``src/gen/b.ts`` (one BX101), as the
    working directory."""
    (tmp_path / "src" / "gen").mkdir(parents=True)
    (tmp_path / "src" / "a.ts").write_text(BOXED, encoding="utf-8")
    (tmp_path / "src" / "gen" / "b.ts").write_text(BOXED, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def report(*args: str) -> tuple[int, dict[str, list[str]]]:
    """Exit code and path -> severities of its diagnostics."""
    code, out = run_cli("--format", "json", *args)
    return code, {f["path"]: [d["severity"] for d in f["diagnostics"]] for f in json.loads(out)["files"]}


def test_no_configuration_means_defaults(project):
    assert report("src") == (0, {"src/a.ts": ["info"], "src/gen/b.ts": ["info"]})


def test_boxcheck_toml_found_above_the_paths(project):
    (project / "boxcheck.toml").write_text('fail-on = "error"\n[severity]\nBX101 = "info"\n', encoding="utf-8")
    assert report("src/gen") == (0, {"src/gen/b.ts": ["info"]})


def test_pyproject_tool_table_is_read_and_one_without_it_is_passed_over(project):
    (project / "pyproject.toml").write_text('[tool.boxcheck.severity]\nBX101 = "error"\n', encoding="utf-8")
    (project / "src" / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert report("src/a.ts") == (1, {"src/a.ts": ["error"]})


def test_boxcheck_toml_wins_over_pyproject_in_the_same_folder(project):
    (project / "pyproject.toml").write_text('[tool.boxcheck.severity]\nBX101 = "error"\n', encoding="utf-8")
    (project / "boxcheck.toml").write_text('[severity]\nBX101 = "hint"\n', encoding="utf-8")
    assert report("src/a.ts")[1] == {"src/a.ts": ["hint"]}


def test_nearest_file_wins(project):
    (project / "boxcheck.toml").write_text('[severity]\nBX101 = "error"\n', encoding="utf-8")
    (project / "src" / "gen" / "boxcheck.toml").write_text('[severity]\nBX101 = "hint"\n', encoding="utf-8")
    assert report("src/gen/b.ts")[1] == {"src/gen/b.ts": ["hint"]}


def test_paths_under_different_files_are_an_error(project, capsys):
    (project / "boxcheck.toml").write_text("", encoding="utf-8")
    (project / "src" / "gen" / "boxcheck.toml").write_text("", encoding="utf-8")
    assert run_cli("src/a.ts", "src/gen/b.ts") == (2, "")
    assert "different configuration files" in capsys.readouterr().err


def test_include_and_exclude_filter_the_walk(project, capsys):
    (project / "boxcheck.toml").write_text('include = ["src/**/*.ts"]\nexclude = ["gen/"]\n', encoding="utf-8")
    assert report(".")[1] == {"./src/a.ts": ["info"]}
    assert report("src/gen/b.ts") == (0, {})
    assert "src/gen/b.ts: skipped: excluded by" in capsys.readouterr().err


def test_glob_arguments_start_the_search_at_their_fixed_prefix(project):
    (project / "src" / "boxcheck.toml").write_text('[severity]\nBX101 = "off"\n', encoding="utf-8")
    assert report("src/**/*.ts") == (0, {"src/a.ts": [], "src/gen/b.ts": []})


def test_command_line_overrides_the_file(project):
    (project / "boxcheck.toml").write_text('fail-on = "none"\n[severity]\nBX101 = "off"\n', encoding="utf-8")
    assert report("src/a.ts") == (0, {"src/a.ts": []})
    assert report("src/a.ts", "--severity", "BX101=error") == (0, {"src/a.ts": ["error"]})
    assert report("src/a.ts", "--severity", "BX101=error", "--fail-on", "error") == (1, {"src/a.ts": ["error"]})


def test_policy_from_the_file_and_from_the_command_line(project):
    other = next((name for name in POLICIES if name != "optimal"), None)
    if other is None:
        pytest.skip("only one policy is registered")
    (project / "boxcheck.toml").write_text(f'policy = "{other}"\n', encoding="utf-8")
    assert json.loads(run_cli("--format", "json", "src/a.ts")[1])["policy"] == other
    assert json.loads(run_cli("--format", "json", "--policy", "optimal", "src/a.ts")[1])["policy"] == "optimal"


def test_explicit_config_file(project, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("conf") / "strict.toml"
    elsewhere.write_text('[severity]\nBX101 = "error"\n', encoding="utf-8")
    assert report("--config", str(elsewhere), "src/a.ts")[1] == {"src/a.ts": ["error"]}


@pytest.mark.parametrize(("name", "text", "message"), [
    ("boxcheck.toml", 'exculde = ["x"]\n', "boxcheck.toml: exculde: unknown key; known keys: policy, fail-on"),
    ("pyproject.toml", '[tool.boxcheck]\nfail_on = "error"\n', "pyproject.toml: tool.boxcheck.fail_on: unknown key"),
    ("boxcheck.toml", 'include = "src"\n', "boxcheck.toml: include: expected a list of glob strings, got 'src'"),
    ("boxcheck.toml", 'fail-on = "loud"\n', "boxcheck.toml: fail-on: 'loud' is not one of error, warning, info, hint"),
    ("boxcheck.toml", 'policy = "fastest"\n', "boxcheck.toml: policy: 'fastest' is not one of optimal"),
    ("boxcheck.toml", '[severity]\nBX998 = "off"\n', "boxcheck.toml: severity: unknown rule 'BX998'; the rules: BX001"),
    ("boxcheck.toml", '[severity]\nheap-captures = "off"\n', "boxcheck.toml: severity: unknown rule 'heap-captures'"),
    ("boxcheck.toml", 'select = ["BX9"]\n', "boxcheck.toml: select: the prefix 'BX9' matches no rule"),
    ("boxcheck.toml", 'ignore = ["heap"]\n', "boxcheck.toml: ignore: 'heap' is not a rule code (BX101), a code prefix"),
    ("boxcheck.toml", 'select = "BX1"\n', "boxcheck.toml: select: expected a list of rule codes, names or prefixes"),
    ("boxcheck.toml", '[[overrides]]\nignore = ["BX101"]\n', "boxcheck.toml: overrides[0].files: expected a non-empty"),
    ("boxcheck.toml", '[[overrides]]\nfiles = ["t/**"]\n', "boxcheck.toml: overrides[0]: says nothing: give ignore"),
    ("boxcheck.toml", '[[overrides]]\nfiles = ["t/**"]\npolicy = "v8"\n',
     "boxcheck.toml: overrides[0].policy: unknown key; known keys: files, ignore, severity"),
    ("pyproject.toml", '[[tool.boxcheck.overrides]]\nfiles = ["t/**"]\nseverity = { BX101 = "x" }\n',
     "pyproject.toml: tool.boxcheck.overrides[0].severity.BX101: 'x' is not one of error"),
    ("boxcheck.toml", 'overrides = { files = ["x"] }\n', "boxcheck.toml: overrides: expected an array of tables"),
    ("boxcheck.toml", '[severity]\nBX101 = "loud"\n', "boxcheck.toml: severity.BX101: 'loud' is not one of error"),
    ("boxcheck.toml", 'severity = "off"\n', "boxcheck.toml: severity: expected a table"),
    ("boxcheck.toml", "include = [\n", "boxcheck.toml: not valid TOML"),
    ("pyproject.toml", '[tool]\nboxcheck = 1\n', "pyproject.toml: tool.boxcheck: expected a table"),
])
def test_mistakes_are_clear_errors(project, capsys, name, text, message):
    (project / name).write_text(text, encoding="utf-8")
    assert run_cli("src/a.ts") == (2, "")
    err = capsys.readouterr().err
    assert message in err, err
    assert str(project / name) in err
    assert "Traceback" not in err


def test_missing_explicit_config_and_bad_severity_option(project, capsys):
    assert run_cli("--config", "nope.toml", "src/a.ts") == (2, "")
    assert "nope.toml: no such configuration file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        run_cli("--severity", "BX101", "src/a.ts")
    assert exit_info.value.code == 2
    assert "expected RULE=LEVEL with RULE a code or name" in capsys.readouterr().err


def test_apply_changes_severity_and_drops_rules_turned_off():
    from capture_analysis.analyze import analyze_text
    from capture_analysis.diagnose.shown import with_severities

    analysis = analyze_text("t.ts", BOXED)
    (diagnostic,) = with_severities(analysis.diagnostics, {"BX101": Severity.ERROR})
    assert diagnostic.level is Severity.ERROR
    assert analysis.diagnostics[0].level is Severity.INFO  # the analysis itself is not changed
    assert with_severities(analysis.diagnostics, {"BX101": None}) == []
