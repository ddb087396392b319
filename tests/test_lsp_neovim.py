"""A real editor as the client: headless Neovim, set up with the README's `init.lua` snippet as written, opens a
`.ts` file and the snippet starts `boxcheck lsp` (the `boxcheck` on PATH, this checkout's).

Neovim keeps diagnostics in byte columns, converting from the server's UTF-16
itself; the expected columns here are computed from the text in bytes, so a
UTF-16/UTF-8 mix-up on either side fails the test.  `.ci/run` installs
Debian's `neovim` and sets ``BOXCHECK_REQUIRE_NVIM``, so there the test
cannot be skipped; elsewhere, without `nvim`, it is skipped, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .lsp.cli import cli_diagnostics
from .lsp.client import ROOT, TIMEOUT
from .lsp.text import index_of

NVIM = shutil.which("nvim")
SCRIPT = Path(__file__).parent / "lsp" / "neovim_client.lua"

TEXT = """\
export function make(start: number) {
  const tag = "😀🎉"; let count = start; let label = "名前😀";
  return { inc() { count++; return tag + label; } };
}
"""


def byte_column(text: str, line: int, character: int) -> int:
    """The byte column in its line of an LSP UTF-16 position."""
    index = index_of(text, line, character)
    return len(text[text.rfind("\n", 0, index) + 1:index].encode("utf-8"))


def expected_in_neovim(text: str, path: Path) -> list[dict]:
    out = []
    for d in cli_diagnostics(path):
        start, end = d["range"]["start"], d["range"]["end"]
        out.append({"code": d["code"], "message": d["message"], "source": "boxcheck", "severity": d["severity"],
                    "lnum": start["line"], "col": byte_column(text, start["line"], start["character"]),
                    "end_lnum": end["line"], "end_col": byte_column(text, end["line"], end["character"])})
    return sorted(out, key=lambda d: (d["lnum"], d["col"]))


def init_lua_snippet(document: Path) -> str:
    """The Neovim set-up of the README (and of docs/lsp.md): the `lua` block after "Neovim 0.7 or later"."""
    text = document.read_text(encoding="utf-8")
    after = text[text.index("Neovim 0.7 or later"):]
    return after.split("```lua\n", 1)[1].split("```", 1)[0]


def test_the_readme_and_the_lsp_page_give_the_same_neovim_set_up():
    assert init_lua_snippet(ROOT / "README.md") == init_lua_snippet(ROOT / "docs" / "lsp.md")


def run_neovim(tmp_path: Path, plan: dict) -> dict:
    setup = tmp_path / "init.lua"
    setup.write_text(init_lua_snippet(ROOT / "README.md"), encoding="utf-8")
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(json.dumps({**plan, "setup": str(setup)}), encoding="utf-8")
    home = tmp_path / "home"
    # `boxcheck` as the snippet names it: the console script beside this Python, importing this checkout
    env = {**os.environ, "BOXCHECK_PLAN": str(plan_path), "HOME": str(home),
           "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[name] = str(home / name.lower())
    done = subprocess.run([NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=4 * TIMEOUT)
    out = Path(plan["out"])
    assert out.exists(), f"Neovim wrote no result (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.skipif(NVIM is None and not os.environ.get("BOXCHECK_REQUIRE_NVIM"),
                    reason="nvim is not installed (Debian package `neovim`; .ci/run installs it)")
def test_neovim_receives_the_diagnostics_hovers_and_sends_incremental_changes(tmp_path):
    assert NVIM is not None, "BOXCHECK_REQUIRE_NVIM is set but nvim is not installed"
    path = tmp_path / "make.ts"
    path.write_text(TEXT, encoding="utf-8")
    count_line = TEXT.splitlines()[1]
    count_col = len(count_line[:count_line.index("count")].encode())
    inserted = "/*é😀*/ "
    after = TEXT.replace("let count", inserted + "let count")
    plan = {
        "file": str(path), "out": str(tmp_path / "result.json"), "wait_ms": int(TIMEOUT * 1000),
        "hover": {"row": 1, "col": len(count_line[:count_line.index("label")].encode())},
        "edit": {"row": 1, "col": len(count_line[:count_line.index("let count")].encode()), "text": inserted},
        "expect_col_after_edit": count_col + len(inserted.encode()),
    }
    result = run_neovim(tmp_path, plan)
    assert result["ok"], result.get("error")
    assert result["filetype"] == "typescript"
    assert result["attached"] and result["offset_encoding"] == "utf-16"

    assert result["received"]
    opened = sorted(result["opened"], key=lambda d: (d["lnum"], d["col"]))
    assert opened == expected_in_neovim(TEXT, path)
    assert opened[0]["col"] == count_col   # 7 bytes more than UTF-16 units: the two emoji

    # the cursor's byte column, after two emoji, became a UTF-16 character in Neovim's request
    assert result["hover_position"] == {"line": 1, "character": len(
        count_line[:count_line.index("label")].encode("utf-16-le")) // 2}
    assert "`label` (let) is **value**" in result["hover"]
    assert "Each call of `make` allocates **1** per call" in result["hover"]

    assert result["changed"], result["after_edit"]
    path.write_text(after, encoding="utf-8")
    assert sorted(result["after_edit"], key=lambda d: (d["lnum"], d["col"])) == expected_in_neovim(after, path)
    assert result["stopped"]
