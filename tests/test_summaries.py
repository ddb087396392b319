"""``boxcheck summaries``: each function's parameter tags, as a call of the function reads them (DESIGN 2.2.1)."""

from __future__ import annotations

import json

from capture_analysis.cli import main

SOURCE = """\
function each(xs: number[], f: (x: number) => void) { for (const x of xs) f(x); }
function keep(f: () => void) { kept.push(f); }
const kept: Array<() => void> = [];
const relay = (/* 🎉 */ g: () => void) => each([1], () => g());
function hold(h: () => void) { keep(h); }
async function later(f: () => void) { await 0; f(); }
function rest(...fs: Array<() => void>) { fs[0](); }
let swapped = (f: () => void) => f();
swapped = keep;
"""


def run(capsys, tmp_path, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "helpers.ts"
    path.write_text(SOURCE, encoding="utf-8")
    code = main(["summaries", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out.replace(str(path), "helpers.ts"), err


def test_text_gives_each_parameter_its_tag_and_the_way_out(capsys, tmp_path):
    code, out, err = run(capsys, tmp_path)
    assert code == 0 and err == ""
    assert out.splitlines() == [
        "helpers.ts:1:15: `each`: parameter `xs` escapes: iterated at 1:71",
        "helpers.ts:1:29: `each`: parameter `f` does not escape",
        "helpers.ts:2:15: `keep`: parameter `f` escapes: passed as an argument at 2:42",
        # the astral character of the comment is two UTF-16 code units
        "helpers.ts:4:25: `relay`: parameter `g` does not escape",
        # handed on to `keep`, whose parameter escapes: the way out is inside `keep`
        "helpers.ts:5:15: `hold`: parameter `h` escapes: passed as an argument at 2:42",
        "helpers.ts:6:22: `later`: parameter `f` escapes: an async function, whose call may resume after the "
        "caller returned",
        "helpers.ts:7:1: `rest`: parameter `#1` escapes: a pattern or rest parameter, whose argument is taken apart "
        "or gathered into an array",
    ]  # `swapped` is assigned again: no call of it is followed, so it is not listed


def test_json_holds_the_same_tags(capsys, tmp_path):
    code, out, _ = run(capsys, tmp_path, "--format", "json")
    assert code == 0
    (file,) = json.loads(out)["files"]
    tags = {(f["function"], p["name"]): (p["escapes"], p["why"]) for f in file["functions"] for p in f["parameters"]}
    assert tags[("each", "f")] == (False, "")
    assert tags[("hold", "h")] == (True, "passed as an argument at 2:42")
    assert ("swapped", "f") not in tags
    each = next(f for f in file["functions"] if f["function"] == "each")
    assert (each["line"], each["column"]) == (1, 1)


def test_a_path_that_does_not_exist_is_an_error_and_prints_nothing(capsys, tmp_path):
    code = main(["summaries", str(tmp_path / "missing.ts")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "missing.ts: no such file or directory" in err


def test_a_parameter_handed_to_another_files_function_takes_that_functions_tag(capsys, tmp_path):
    (tmp_path / "util.ts").write_text("export function each(f: () => void) { f(); }\nconst kept: unknown[] = [];\n"
                                      "export function keep(f: () => void) { kept.push(f); }\n")
    (tmp_path / "main.ts").write_text('import { each, keep } from "./util";\n'
                                      "export function calls(g: () => void) { each(g); }\n"
                                      "export function keeps(g: () => void) { keep(g); }\n")
    assert main(["summaries", str(tmp_path / "main.ts"), str(tmp_path / "util.ts")]) == 0
    lines = [line.split(": ", 1)[1] for line in capsys.readouterr().out.splitlines() if "main.ts" in line]
    assert lines == ["`calls`: parameter `g` does not escape",
                     '`keeps`: parameter `g` escapes: passed to `keep`, imported from "./util" at 3:45']
    assert main(["summaries", str(tmp_path / "main.ts")]) == 0  # util.ts is not given: its functions are unknown
    assert "`calls`: parameter `g` escapes" in capsys.readouterr().out
