"""Which rules run and at what level: selectors, the layers of defaults, file, command line and per-file
overrides, rules off by default, and ``--show-settings``."""

from __future__ import annotations

import dataclasses
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.cli import main
from capture_analysis.diagnose import selection
from capture_analysis.diagnose.selection import RuleChanges, levels, resolve, selectors
from capture_analysis.diagnose.shown import with_severities
from capture_analysis.rules import RULES, Rule, Severity

#: a BX101 (an info by default) on line 2, and a suppression comment that suppresses nothing (BX003, a warning)
#: on line 1.
BOXED = "// boxcheck-ignore-next-line BX102\nexport function f() { let n = 0; return () => n++; }\n"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--no-cache", *args])
    return code, out.getvalue(), err.getvalue()


def found(*args: str) -> tuple[int, dict[str, list[str]]]:
    """Exit code, and each file's findings as ``level[CODE]``."""
    code, out, err = run("--format", "json", *args)
    assert code in (0, 1), err
    return code, {f["path"]: [f"{d['severity']}[{d['code']}]" for d in f["diagnostics"]]
                  for f in json.loads(out)["files"]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("src/a.ts", "src/hot/b.ts", "tests/c.ts"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(BOXED, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def off_by_default(monkeypatch: pytest.MonkeyPatch) -> Rule:
    """BX107 as a rule that runs only when selected (as the catalogue may declare a rule)."""
    rule = dataclasses.replace(RULES["BX107"], enabled=False)
    monkeypatch.setitem(RULES, "BX107", rule)
    selection.levels.cache_clear()
    yield rule
    selection.levels.cache_clear()


def on(layers: list[RuleChanges]) -> dict[str, str]:
    return {code: setting.level.label for code, setting in resolve(layers).items() if setting.level is not None}


def layer(source: str = "file", select: tuple[str, ...] | None = None, ignore: tuple[str, ...] = (),
          **severity: Severity | None) -> RuleChanges:
    return RuleChanges(source, select, ignore, tuple(severity.items()))


# -- selectors -----------------------------------------------------------------------------------


def test_selectors_are_codes_names_prefixes_or_all_comma_separated_each_once():
    assert selectors(["BX1, heap-capture", "bx002", "BX1", "all", "BX"]) == ("BX1", "heap-capture", "BX002", "ALL",
                                                                               "BX")
    assert selection.codes("BX1") == [code for code in RULES if code.startswith("BX1")]
    assert selection.codes("heap-capture") == ["BX101"]


@pytest.mark.parametrize(("text", "message"), [
    ("BX9", "the prefix 'BX9' matches no rule"),
    ("BX1011", "'BX1011' is not a rule code (BX101), a code prefix (BX1), a rule name (heap-capture) or ALL"),
    ("BX999", "'BX999' is not a rule code"),
    ("heap", "'heap' is not a rule code"),
])
def test_a_selector_that_names_no_rule_is_an_error(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        selectors([text])


# -- layers --------------------------------------------------------------------------------------


def test_no_layer_means_every_rule_on_by_default_at_its_default_severity():
    assert on([]) == {code: rule.severity.label for code, rule in RULES.items() if rule.enabled}
    assert list(resolve([])) == sorted(RULES)


def test_select_starts_over_and_ignore_removes():
    assert set(on([layer(select=("BX1",))])) == {code for code in RULES if code.startswith("BX1")}
    assert set(on([layer(ignore=("BX1", "BX003"))])) == {"BX001", "BX002", "BX004"}


def test_the_more_specific_selector_wins_and_ignore_wins_at_the_same_specificity():
    assert set(on([layer(select=("BX1",), ignore=("BX101",))])) == set(on([layer(select=("BX1",))])) - {"BX101"}
    assert set(on([layer(select=("BX101",), ignore=("BX1",))])) == {"BX101"}
    assert set(on([layer(select=("heap-capture",), ignore=("ALL",))])) == {"BX101"}
    assert on([layer(select=("BX1",), ignore=("BX1",))]) == {}


def test_a_severity_sets_the_level_turns_the_rule_on_and_off_turns_it_off():
    assert on([layer(select=("BX002",), BX101=Severity.ERROR)]) == {"BX002": "warning", "BX101": "error"}
    assert "BX101" not in on([layer(select=("BX101",), BX101=None)])


def test_a_later_select_starts_over_but_keeps_the_levels_set_before():
    file = layer("file", ignore=("BX102",), BX101=Severity.INFO, BX103=None)
    command_line = layer("command line", select=("BX1",))
    assert on([file, command_line])["BX101"] == "info"
    assert {"BX102", "BX103"} <= set(on([file, command_line]))
    assert {"BX102", "BX103"}.isdisjoint(on([file]))


def test_each_rule_says_which_statement_decided_it():
    file = RuleChanges("/p/boxcheck.toml", None, ("BX102",), (("BX101", Severity.INFO),))
    command_line = RuleChanges("command line", ("BX1",), (), (), "--")
    settings = resolve([file, command_line])
    assert settings["BX101"].why() == "command line: --select BX1; level: /p/boxcheck.toml: severity BX101=info"
    assert settings["BX102"].why() == "command line: --select BX1"
    assert settings["BX001"].why() == "command line: --select (not named)"
    assert resolve([file])["BX102"].why() == "/p/boxcheck.toml: ignore BX102"
    assert resolve([])["BX001"].why() == "default"


def test_a_rule_off_by_default_runs_only_when_selected(off_by_default):
    assert "BX107" not in on([])
    assert "BX107" not in on([layer(ignore=("BX101",))])
    for selected in ("BX107", "BX1", "BX10", "context-retention", "ALL"):
        assert on([layer(select=(selected,))])["BX107"] == "hint", selected
    assert on([layer(BX107=Severity.WARNING)])["BX107"] == "warning"


def test_shown_drops_a_rule_off_by_default_that_the_map_does_not_name(off_by_default):
    from capture_analysis.analyze import analyze_text

    source = "export function make() { const big = [1]; const use = () => big; use(); return () => 1; }\n"
    diagnostics = [d for d in analyze_text("t.ts", source).diagnostics if d.rule.code == "BX107"]
    assert diagnostics and all(d.rule is not off_by_default for d in diagnostics)  # made before the patch
    made = [dataclasses.replace(d, rule=off_by_default) for d in diagnostics]
    assert with_severities(made, {}) == []
    assert with_severities(made, levels((layer(ignore=("BX101",)),))) == []
    assert [d.level for d in with_severities(made, levels((layer(select=("BX1",)),)))] == [Severity.HINT] * len(made)


def test_the_real_catalogue_has_a_rule_off_by_default_that_select_turns_on():
    off = [code for code, rule in RULES.items() if not rule.enabled]
    assert off, "BX108 is off by default"
    assert set(off).isdisjoint(on([])) and set(off) <= set(on([layer(select=("ALL",))]))
    assert set(off) <= set(levels((layer(select=tuple(off)),)))


WARNING_TIER = """
export function search(nodeCount: number) {
  const queue = new Uint32Array(nodeCount);
  const enqueue = (n: number) => { queue[0] = n; };
  enqueue(0);
  return { next() { return 1; } };
}
"""


def test_a_finding_keeps_the_severity_it_was_made_with_unless_a_level_is_set(tmp_path, monkeypatch):
    """BX107 makes some findings at `warning` though the rule's default is `hint`: selecting the rule, or
    leaving it alone, keeps that; a level set for it replaces it."""
    monkeypatch.chdir(tmp_path)
    Path("s.ts").write_text(WARNING_TIER)
    assert RULES["BX107"].severity is Severity.HINT
    assert found("s.ts") == (1, {"s.ts": ["warning[BX107]"]})
    assert found("s.ts", "--select", "BX1") == (1, {"s.ts": ["warning[BX107]"]})
    assert found("s.ts", "--severity", "BX107=info") == (0, {"s.ts": ["info[BX107]"]})
    assert levels(()) == {} and "BX107" not in levels((layer(select=("BX1",)),))


# -- the command line ----------------------------------------------------------------------------


def test_select_and_ignore_on_the_command_line(project):
    everything = {"src/a.ts": ["warning[BX003]", "info[BX101]"]}
    assert found("src/a.ts") == (1, everything)
    assert found("src/a.ts", "--select", "BX1") == (0, {"src/a.ts": ["info[BX101]"]})
    assert found("src/a.ts", "--select", "unused-suppression") == (1, {"src/a.ts": ["warning[BX003]"]})
    assert found("src/a.ts", "--ignore", "BX003", "--ignore", "heap-capture") == (0, {"src/a.ts": []})
    assert found("src/a.ts", "--select", "BX003", "--select", "BX101,BX102") == (1, everything)
    assert found("src/a.ts", "--select", "ALL", "--ignore", "BX0") == (0, {"src/a.ts": ["info[BX101]"]})


def test_rule_names_and_warn_wherever_a_code_and_a_level_are_taken(project):
    assert found("src/a.ts", "--severity", "heap-capture=error", "--severity", "BX003=off") == \
        (1, {"src/a.ts": ["error[BX101]"]})
    assert found("src/a.ts", "--severity", "BX101=WARN", "--ignore", "BX003") == (1, {"src/a.ts": ["warning[BX101]"]})
    (project / "boxcheck.toml").write_text('fail-on = "warn"\n[severity]\nheap-capture = "warn"\nBX003 = "info"\n')
    assert found("src/a.ts") == (1, {"src/a.ts": ["info[BX003]", "warning[BX101]"]})
    assert found("src/a.ts", "--fail-on", "error")[0] == 0
    assert found("src/a.ts", "--fail-on", "Warn", "--severity", "BX101=info")[0] == 0


@pytest.mark.parametrize(("args", "message"), [
    (("--select", "BX9"), "argument --select: the prefix 'BX9' matches no rule"),
    (("--ignore", "heap"), "argument --ignore: 'heap' is not a rule code (BX101)"),
    (("--severity", "heap=off"), "argument --severity: expected RULE=LEVEL"),
    (("--fail-on", "loud"), "argument --fail-on: invalid choice: 'loud'"),
    (("--select", " , "), "argument --select: expected rule codes, names or code prefixes, got nothing"),
])
def test_a_rule_option_that_names_no_rule_is_a_usage_error(project, args, message):
    with pytest.raises(SystemExit) as exit_info, redirect_stderr(io.StringIO()) as err:
        main([*args, "src/a.ts"])
    assert exit_info.value.code == 2
    assert message in err.getvalue()


def test_the_command_lines_select_replaces_the_files_and_severity_applies_last(project):
    (project / "boxcheck.toml").write_text('select = ["BX003"]\n[severity]\nBX101 = "info"\n')
    assert found("src/a.ts") == (1, {"src/a.ts": ["warning[BX003]", "info[BX101]"]})  # a level turns it on
    (project / "boxcheck.toml").write_text('ignore = ["BX1"]\n[severity]\nBX101 = "info"\n')
    assert found("src/a.ts") == (1, {"src/a.ts": ["warning[BX003]", "info[BX101]"]})
    assert found("src/a.ts", "--select", "BX1") == (0, {"src/a.ts": ["info[BX101]"]})  # the file's level stays
    assert found("src/a.ts", "--select", "BX1", "--severity", "BX101=off") == (0, {"src/a.ts": []})


# -- per-file overrides --------------------------------------------------------------------------

OVERRIDES = """
[[overrides]]
files = ["tests/**"]
ignore = ["heap-capture", "BX003"]

[[overrides]]
files = ["src/hot/"]
severity = { BX101 = "error" }
"""


def test_overrides_change_the_rules_of_the_files_they_match(project):
    (project / "boxcheck.toml").write_text(OVERRIDES)
    assert found("src", "tests") == (1, {
        "src/a.ts": ["warning[BX003]", "info[BX101]"],
        "src/hot/b.ts": ["warning[BX003]", "error[BX101]"],
        "tests/c.ts": [],
    })


def test_overrides_apply_after_the_command_line(project):
    (project / "boxcheck.toml").write_text(OVERRIDES)
    assert found("tests", "--severity", "BX101=warning", "--select", "BX1") == (0, {"tests/c.ts": []})
    assert found("src/hot", "--ignore", "BX101") == (1, {"src/hot/b.ts": ["warning[BX003]", "error[BX101]"]})


def test_overrides_in_pyproject_and_for_standard_input(project, monkeypatch):
    (project / "pyproject.toml").write_text(OVERRIDES.replace("[[overrides]]", "[[tool.boxcheck.overrides]]"))
    assert found("tests")[1] == {"tests/c.ts": []}
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BOXED.encode())))
    assert found("--stdin-filename", "tests/new.ts") == (0, {"tests/new.ts": []})


def test_overrides_reach_the_worker_processes(project):
    (project / "boxcheck.toml").write_text(OVERRIDES)
    assert found("--jobs", "2", "src", "tests") == found("--jobs", "1", "src", "tests")
    assert found("--jobs", "2", "src", "tests")[1]["tests/c.ts"] == []


def test_an_override_is_part_of_the_cache_key(project, monkeypatch):
    monkeypatch.delenv("BOXCHECK_NO_CACHE", raising=False)

    def cached(*args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["--format", "json", "--jobs", "1", *args])
        return code, out.getvalue(), err.getvalue()

    (project / "boxcheck.toml").write_text(OVERRIDES)
    first = cached("src", "tests")
    assert first == cached("src", "tests")  # a hit
    (project / "boxcheck.toml").write_text(OVERRIDES.replace('"tests/**"', '"src/a.ts"'))
    second = cached("src", "tests")
    assert second != first and second == run("--format", "json", "src", "tests")
    assert [f["diagnostics"] for f in json.loads(second[1])["files"] if f["path"] == "src/a.ts"] == [[]]


def test_the_language_server_applies_the_files_overrides(project):
    from capture_analysis.lsp.incremental import analyze_tree
    from capture_analysis.lsp.settings import ClientSettings, ConfigFiles, client_settings, resolve
    from capture_analysis.parsing import parse_source
    from capture_analysis.source import SourceFile

    (project / "boxcheck.toml").write_text(OVERRIDES)
    client, problems = client_settings({"severity": {"unused-suppression": "warn", "BX102": "off"}}, ClientSettings())
    assert problems == [] and client.severity == {"BX003": Severity.WARNING, "BX102": None}

    def codes(path: Path) -> list[str]:
        settings, _ = resolve(str(path), ConfigFiles(), client)
        parsed = parse_source(SourceFile(str(path), path.read_text()))
        return [d.rule.code for d in analyze_tree(parsed, settings).shown]

    assert codes(project / "src" / "a.ts") == ["BX003", "BX101"]
    assert codes(project / "tests" / "c.ts") == []


# -- --show-settings -----------------------------------------------------------------------------


def test_show_settings_names_the_source_of_each_value(project):
    (project / "boxcheck.toml").write_text('fail-on = "warn"\nexclude = ["gen/"]\n[severity]\nBX101 = "info"\n'
                                           + OVERRIDES)
    code, out, err = run("--show-settings", "--policy", "optimal", "--ignore", "BX003")
    assert (code, err) == (0, "")
    config = str(project / "boxcheck.toml")
    lines = out.splitlines()
    assert f"# configuration file: {config} (found above .)" in lines
    expected = [('policy = "optimal"', "command line (--policy)"), ('fail-on = "warning"', config),
                ("include = []", "default"), ('exclude = ["gen/"]', config),
                ('BX001 = "error"', "syntax-error: default"),
                ('BX003 = "off"', "unused-suppression: command line: --ignore BX003"),
                ('BX101 = "info"', f"heap-capture: {config}: severity BX101=info")]
    for setting, source in expected:
        assert f"{setting.ljust(35)} # {source}" in lines, setting
    assert '[[overrides]]                       # ' + config in lines
    assert 'severity = { BX101 = "error" }' in lines


def test_show_settings_prints_the_retention_entries(project):
    assert "# [retention]: no entries of the project's" in run("--show-settings")[1]
    (project / "boxcheck.toml").write_text('[retention]\nkeeps = [".register"]\n')
    _, out, _ = run("--show-settings")
    assert "[retention]" in out.splitlines()
    keeps = 'keeps = [".register"]'.ljust(35)
    assert f"{keeps} # {project / 'boxcheck.toml'}" in out.splitlines()


def test_show_settings_of_one_file_applies_its_overrides(project):
    (project / "boxcheck.toml").write_text(OVERRIDES)
    _, out, _ = run("--show-settings", "tests/c.ts")
    assert "# each rule's level in tests/c.ts (off: it does not run), and what decided it" in out
    config = project / "boxcheck.toml"
    assert f'BX101 = "off"                       # heap-capture: {config}: overrides[0].ignore heap-capture' in out
    assert f"# {config}: applied above, to tests/c.ts" in out


def test_show_settings_without_a_configuration_file_is_all_defaults(project, monkeypatch):
    code, out, _ = run("--show-settings", "src")
    assert code == 0
    assert "# configuration file: none found above src" in out
    assert "# cache: off (--no-cache, or BOXCHECK_NO_CACHE in the environment)" in out
    _, out, _ = run("--show-settings", "--cache-dir", "elsewhere")
    assert "# cache: off" in out  # --no-cache wins
    monkeypatch.delenv("BOXCHECK_NO_CACHE", raising=False)
    with redirect_stdout(io.StringIO()) as printed:
        main(["--show-settings"])
    assert f"# cache: {project / '.boxcheck_cache'} (default: in the working directory)" in printed.getvalue()
    rules = [line for line in out.splitlines() if line.startswith("BX")]
    assert len(rules) == len(RULES) and all(line.endswith(": default") for line in rules)


def test_the_printed_settings_configure_the_same_run(project):
    (project / "boxcheck.toml").write_text('select = ["BX1", "BX003"]\n' + OVERRIDES)
    options = ("--ignore", "BX101", "--severity", "BX003=info", "--fail-on", "info")
    expected = found(*options, "src", "tests")
    _, printed, _ = run("--show-settings", *options)
    (project / "boxcheck.toml").write_text(printed)
    assert found("src", "tests") == expected
    assert expected == (1, {"src/a.ts": ["info[BX003]"], "src/hot/b.ts": ["info[BX003]", "error[BX101]"],
                            "tests/c.ts": []})


def test_show_settings_says_what_the_sarif_output_links(project):
    """SARIF gets a ``helpUri`` only from a ``docs-url`` that is not a ``file:`` URL (``report/sarif``)."""
    (project / "src" / "a.ts").write_text("export function f() { let n = 0; return () => n++; }\n")

    def linked(*options: str) -> tuple[str, bool]:
        _, out, _ = run("--show-settings", *options)
        (said,) = [line for line in out.splitlines() if "docs-url" in line]
        _, sarif, _ = run("--format", "sarif", *options, "src/a.ts")
        return said, any("helpUri" in rule for rule in json.loads(sarif)["runs"][0]["tool"]["driver"]["rules"])

    said, has_link = linked()
    assert not has_link
    assert "sarif output links no page, with no helpUri" in said
    said, has_link = linked("--docs-url", "file:///opt/rules.html")
    assert not has_link
    assert said.endswith("lsp output links it, sarif output links no page (a file: URL), with no helpUri")
    said, has_link = linked("--docs-url", "https://example.org/rules.html")
    assert has_link
    assert said.endswith("# command line (--docs-url)")
