"""Byte- and token-level mutations of real sources, for the robustness fuzzer.

Byte mutations make what editors and pipes hand boxcheck when things go
wrong: flipped bits, NUL bytes, invalid UTF-8, files cut short.  Token
mutations keep the text mostly lexable but break the syntax in the ways a
person typing does: a token lost, doubled or moved, a stray brace or keyword.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
#: at most this many files of tests/fixtures/ (spread over the sorted list) join the corpus.
FIXTURE_SAMPLE = 40

INVALID_UTF8 = (b"\xff", b"\xc3\x28", b"\x80", b"\xed\xa0\x80", b"\xf0\x28\x8c\x28", b"\xc0\xaf", b"\xe2\x82")
INSERTED_TOKENS = (
    "{", "}", "(", ")", "[", "]", "=>", "=", ";", ",", ".", "?.", "...", "`", "'", '"', "/*", "//", "\n",
    "function", "let", "const", "var", "for", "of", "in", "return", "async", "await", "yield", "class",
    "eval(", "with", "new", "<", ">", "as", "!", "++", "??=", "x", "0",
)
TOKEN = re.compile(
    r"\s+|//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`"
    r"|[A-Za-z_$][\w$]*|\d[\w.]*|=>|===|!==|\?\?=|\|\|=|&&=|\?\.|\.\.\.|\+\+|--|[-+*/%&|^<>!=]=|."
    , re.DOTALL,
)


def corpus() -> list[Path]:
    """examples/*.ts, a spread sample of tests/fixtures/**/*.ts (which may be small or empty), the regressions."""
    examples = sorted((ROOT / "examples").glob("*.ts"))
    fixtures = sorted((ROOT / "tests" / "fixtures").glob("**/*.ts"))
    if len(fixtures) > FIXTURE_SAMPLE:
        step = len(fixtures) / FIXTURE_SAMPLE
        fixtures = [fixtures[int(i * step)] for i in range(FIXTURE_SAMPLE)]
    regressions = sorted((ROOT / "tests" / "fuzz" / "regressions").glob("*.ts"))
    return examples + fixtures + regressions


class Op(enum.Enum):
    FLIP = "flip"
    INSERT_BYTE = "insert-byte"
    DELETE_BYTES = "delete-bytes"
    INSERT_NUL = "insert-nul"
    INSERT_INVALID_UTF8 = "insert-invalid-utf8"
    TRUNCATE = "truncate"
    DELETE_TOKEN = "delete-token"
    DUPLICATE_TOKEN = "duplicate-token"
    SWAP_TOKENS = "swap-tokens"
    INSERT_TOKEN = "insert-token"


@dataclass(frozen=True, slots=True)
class Mutation:
    op: Op
    #: where, as a fraction of the length in 1/65536ths, so one draw fits any file.
    at: int
    #: a second position (swap), a length (delete) or a choice of payload.
    arg: int

    def apply(self, data: bytes) -> bytes:
        if self.op.value.endswith(("token", "tokens")):
            return self.apply_tokens(data)
        i = self.at * len(data) // 65536
        if self.op is Op.FLIP:
            if not data:
                return data
            i = min(i, len(data) - 1)
            return data[:i] + bytes([data[i] ^ (1 << (self.arg % 8))]) + data[i + 1:]
        if self.op is Op.INSERT_BYTE:
            return data[:i] + bytes([self.arg % 256]) + data[i:]
        if self.op is Op.DELETE_BYTES:
            return data[:i] + data[i + 1 + self.arg % 16:]
        if self.op is Op.INSERT_NUL:
            return data[:i] + b"\x00" + data[i:]
        if self.op is Op.INSERT_INVALID_UTF8:
            return data[:i] + INVALID_UTF8[self.arg % len(INVALID_UTF8)] + data[i:]
        return data[:i]  # TRUNCATE

    def apply_tokens(self, data: bytes) -> bytes:
        text = data.decode("utf-8", errors="surrogateescape")
        tokens = TOKEN.findall(text)
        i = self.at * len(tokens) // 65536
        if self.op is Op.INSERT_TOKEN:
            tokens.insert(i, INSERTED_TOKENS[self.arg % len(INSERTED_TOKENS)])
        elif tokens:
            i = min(i, len(tokens) - 1)
            if self.op is Op.DELETE_TOKEN:
                del tokens[i]
            elif self.op is Op.DUPLICATE_TOKEN:
                tokens.insert(i, tokens[i])
            else:
                j = self.arg * len(tokens) // 65536
                tokens[i], tokens[j] = tokens[j], tokens[i]
        return "".join(tokens).encode("utf-8", errors="surrogateescape")


mutations = st.builds(Mutation, st.sampled_from(Op), st.integers(0, 65535), st.integers(0, 65535))


def mutate(data: bytes, steps: list[Mutation]) -> bytes:
    for step in steps:
        data = step.apply(data)
    return data
