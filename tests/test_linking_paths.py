"""Bare specifiers through the importer's ``tsconfig.json`` (DESIGN 2.2.1): ``paths`` and ``baseUrl`` name files of
the run as TypeScript resolves them; packages, files outside the run and broken configurations name none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from capture_analysis.linking.resolve import key, resolve
from capture_analysis.linking.tsconfig import Tsconfigs

from .test_cli import run


def project(root: Path, tsconfigs: dict[str, object], files: list[str]) -> dict[str, str]:
    """Writes the configurations (bytes and text as they are, else as JSON) and empty source files; the run's
    ``files`` mapping."""
    for name, config in tsconfigs.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        text = config if isinstance(config, (str, bytes)) else json.dumps(config)
        (root / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("export {};\n")
    return {key(str(root / name)): str(root / name) for name in files}


def found(root: Path, specifier: str, files: dict[str, str], importer: str = "src/main.ts") -> str | None:
    target = resolve(str(root / importer), specifier, files)
    return None if target is None else Path(target).relative_to(root).as_posix()


def paths(mapping: dict[str, list[str]], **options: str) -> dict[str, object]:
    return {"compilerOptions": {"paths": mapping, **options}}


def test_an_alias_names_the_file_its_substitution_does(tmp_path):
    files = project(tmp_path, {"tsconfig.json": paths({"@/*": ["src/*"]})},
                    ["src/main.ts", "src/util.ts", "src/lib/index.ts", "src/x.ts"])
    assert found(tmp_path, "@/util", files) == "src/util.ts"
    assert found(tmp_path, "@/util.js", files) == "src/util.ts"
    assert found(tmp_path, "@/lib", files) == "src/lib/index.ts"
    assert found(tmp_path, "@/nothing", files) is None


def test_an_exact_pattern_wins_over_a_wildcard_and_the_longest_prefix_over_a_shorter_one(tmp_path):
    files = project(tmp_path, {"tsconfig.json": paths({"*": ["any/*"], "@app/*": ["app/*"], "@app/core/*": ["core/*"],
                                                       "@app/config": ["settings/config"]})},
                    ["src/main.ts", "any/x.ts", "app/core/y.ts", "core/y.ts", "app/config.ts",
                     "settings/config.ts"])
    assert found(tmp_path, "@app/config", files) == "settings/config.ts"
    assert found(tmp_path, "@app/core/y", files) == "core/y.ts"
    assert found(tmp_path, "x", files) == "any/x.ts"


def test_each_substitution_is_tried_in_order(tmp_path):
    files = project(tmp_path, {"tsconfig.json": paths({"~/*": ["generated/*", "src/*", "lib/*"]})},
                    ["src/main.ts", "src/util.ts", "lib/util.ts"])
    assert found(tmp_path, "~/util", files) == "src/util.ts"


def test_base_url_alone_and_after_paths_fail(tmp_path):
    files = project(tmp_path, {"tsconfig.json": paths({"@/*": ["missing/*"]}, baseUrl="./src")},
                    ["src/main.ts", "src/util.ts", "src/@/deep.ts"])
    assert found(tmp_path, "util", files) == "src/util.ts"
    assert found(tmp_path, "@/deep", files) == "src/@/deep.ts"  # the pattern matched, named nothing: baseUrl


def test_substitutions_are_relative_to_base_url_if_set_else_to_the_tsconfig_that_sets_paths(tmp_path):
    files = project(tmp_path, {"tsconfig.json": {"extends": "./config/base", "compilerOptions": {}},
                               "config/base.json": paths({"@/*": ["../src/*"]}),
                               "other/tsconfig.json": paths({"@/*": ["src/*"]}, baseUrl=".."),
                               }, ["src/main.ts", "src/util.ts", "other/main.ts"])
    assert found(tmp_path, "@/util", files) == "src/util.ts"
    assert found(tmp_path, "@/util", files, "other/main.ts") == "src/util.ts"


def test_the_nearest_tsconfig_is_the_importers_and_extends_chains_override_in_order(tmp_path):
    files = project(tmp_path, {
        "tsconfig.json": paths({"@/*": ["root/*"]}),
        "pkg/tsconfig.json": '{"extends": ["./first.json", "./second"], "compilerOptions": {"baseUrl": "."}}',
        "pkg/first.json": json.dumps({"extends": "../tsconfig.json", **paths({"@/*": ["first/*"]}, baseUrl="nope")}),
        "pkg/second.json": json.dumps(paths({"@/*": ["second/*"]})),
    }, ["root/a.ts", "pkg/first/a.ts", "pkg/second/a.ts", "pkg/src/main.ts", "src/main.ts"])
    assert found(tmp_path, "@/a", files, "pkg/src/main.ts") == "pkg/second/a.ts"  # second's paths, own baseUrl
    assert found(tmp_path, "@/a", files) == "root/a.ts"


def test_a_loop_of_extends_ends(tmp_path):
    files = project(tmp_path, {"tsconfig.json": '{"extends": "./b.json"}',
                               "b.json": json.dumps({"extends": "./tsconfig.json", **paths({"@/*": ["src/*"]})})},
                    ["src/main.ts", "src/util.ts"])
    assert found(tmp_path, "@/util", files) == "src/util.ts"


def test_jsonc_comments_and_trailing_commas_but_not_what_a_string_holds(tmp_path):
    text = ('\ufeff{\n  // the aliases\n  "compilerOptions": { /* "paths": {"@/*": ["wrong/*"]}, */\n'
            '    "paths": { "//*": ["src/*",], "/*x": ["src/x",] , }, // after\n  },\n}\n')
    files = project(tmp_path, {"tsconfig.json": text}, ["src/main.ts", "src/util.ts", "src/x.ts", "wrong/util.ts"])
    assert found(tmp_path, "//util", files) == "src/util.ts"
    assert found(tmp_path, "/*x", files) == "src/x.ts"
    assert found(tmp_path, "@/util", files) is None


@pytest.mark.parametrize("text", ['{"compilerOptions": {"paths": {"@/*": ["src/*"]}', "[1, 2]", "",
                                  '{"compilerOptions": {"paths": ["src/*"], "baseUrl": 3}}', b"\xff\xfe{}"])
def test_a_malformed_tsconfig_maps_nothing_and_hides_the_one_above(tmp_path, text):
    """TypeScript takes the nearest ``tsconfig.json`` as the file's project, whatever it holds."""
    files = project(tmp_path, {"tsconfig.json": paths({"@/*": ["src/*"]}), "src/tsconfig.json": text},
                    ["src/main.ts", "src/util.ts", "main.ts"])
    assert found(tmp_path, "@/util", files) is None
    assert found(tmp_path, "@/util", files, "main.ts") == "src/util.ts"


def test_a_target_outside_the_run_a_package_and_a_package_tsconfig_name_nothing(tmp_path):
    files = project(tmp_path, {"tsconfig.json": {"extends": "@tsconfig/strictest",
                                                 **paths({"@/*": ["src/*"], "lib": ["node_modules/lib/index"]})},
                               "node_modules/@tsconfig/strictest/tsconfig.json": paths({"*": ["src/*"]})},
                    ["src/main.ts", "src/util.ts", "src/types.d.ts"])
    (tmp_path / "src" / "outside.ts").write_text("export {};\n")
    (tmp_path / "node_modules" / "lib").mkdir()
    (tmp_path / "node_modules" / "lib" / "index.ts").write_text("export {};\n")
    assert found(tmp_path, "@/util", files) == "src/util.ts"
    assert found(tmp_path, "@/outside", files) is None
    assert found(tmp_path, "@/types", files) is None
    assert found(tmp_path, "lib", files) is None
    assert found(tmp_path, "util", files) is None  # the package configuration's "*" is not read
    assert found(tmp_path, "react", files) is None


def test_a_run_reads_each_tsconfig_once(tmp_path):
    files = project(tmp_path, {"tsconfig.json": {"extends": "./base", "compilerOptions": {}},
                               "base.json": paths({"@/*": ["src/*"]})},
                    [f"src/{folder}/f{index}.ts" for folder in "abc" for index in range(5)] + ["src/util.ts"])
    shared = Tsconfigs()
    first, *others = files.values()
    util = str(tmp_path / "src" / "util.ts")
    assert resolve(first, "@/util", files, shared) == util
    (tmp_path / "tsconfig.json").unlink()
    (tmp_path / "base.json").unlink()
    assert all(resolve(importer, "@/util", files, shared) == util for importer in others)
    assert resolve(first, "@/util", files, Tsconfigs()) is None


UTIL = """const kept: Array<() => void> = [];

export function each<T>(xs: T[], f: (x: T) => void) {
  for (const x of xs) f(x);
}

export function keep(f: () => void) {
  kept.push(f);
}
"""
MAIN = """import { each, keep } from "@/util";

export function counts(xs: number[]) {
  let n = 0;
  each(xs, () => n++);
  return n;
}

export function keeps() {
  let m = 0;
  keep(() => m++);
  return m;
}
"""


def test_a_run_follows_a_call_through_a_paths_alias_and_passes_over_a_broken_tsconfig(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "broken").mkdir()
    (tmp_path / "tsconfig.json").write_text('{\n  "compilerOptions": {\n    // as Vite sets it up\n'
                                            '    "paths": { "@/*": ["./src/*"], },\n  },\n}\n')
    (tmp_path / "broken" / "tsconfig.json").write_text('{"compilerOptions": {"paths": {"@/*": ["../src/*"]}')
    (tmp_path / "src" / "util.ts").write_text(UTIL)
    (tmp_path / "src" / "main.ts").write_text(MAIN)
    (tmp_path / "broken" / "main.ts").write_text(MAIN)
    code, out, err = run(str(tmp_path), "--format", "json", "--no-cache", "--jobs", "1")
    assert code in (0, 1) and err == "", err
    bindings = {(Path(f["path"]).parent.name, b["name"]): b for f in json.loads(out)["files"] for b in f["bindings"]}
    assert bindings["src", "n"]["storage"] == "stack" and "util.ts" in bindings["src", "n"]["reason"], bindings
    assert bindings["src", "m"]["storage"] in ("box", "context"), bindings["src", "m"]
    assert bindings["broken", "n"]["storage"] == "box", bindings["broken", "n"]


def test_editing_the_tsconfig_re_decides_through_the_cache(tmp_path, monkeypatch):
    """A file analyzed again is cached under what its slots resolved to (``batch.linked``), the callee's path
    included: a ``tsconfig.json`` that sends an alias to another file changes that key."""
    monkeypatch.delenv("BOXCHECK_NO_CACHE")  # conftest turns the cache off
    for folder, text in (("src", UTIL), ("copy", UTIL), ("kept", UTIL.replace("for (const x of xs) f(x);",
                                                                              "kept.push(f);"))):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "util.ts").write_text(text)
    (tmp_path / "main.ts").write_text(MAIN)
    cache = str(tmp_path / "cache")

    def decided(folder: str, *args: str) -> tuple[str, str]:
        (tmp_path / "tsconfig.json").write_text(json.dumps(paths({"@/*": [f"{folder}/*"]})))
        _, out, _ = run(str(tmp_path), "--format", "json", *args)
        [n] = [b for f in json.loads(out)["files"] if f["path"].endswith("main.ts") for b in f["bindings"]
               if b["name"] == "n"]
        return n["storage"], n["reason"]

    for folder in ("src", "copy", "kept", "src"):
        assert decided(folder, "--cache-dir", cache) == decided(folder, "--no-cache")
    assert any((tmp_path / "cache").rglob("*.entry"))
    assert decided("copy", "--cache-dir", cache)[0] == "stack" and "copy/util.ts" in decided("copy", "--no-cache")[1]
    assert decided("kept", "--cache-dir", cache)[0] == "box"
