"""UTF-16 source files: told from binary ones, and decoded.

Windows editors and PowerShell's ``>`` write UTF-16, whose ASCII characters
each carry a NUL byte, so the NUL probe that skips binary files would skip
them too.  A file is taken for UTF-16 by its byte order mark, or, without
one, by its NUL pattern: an even number of bytes and, in the first ones
read, every NUL at an odd offset (little-endian) or at an even one
(big-endian), at least half of those NUL, as ASCII-heavy source code makes
it, and the byte beside each NUL ASCII text (``\x00\x01\x02`` is binary);
and at least ``UNMARKED_LEAST`` bytes: in a few bytes one NUL is that
pattern by chance (``\x00/\x00/``, a NUL in a cut file, which TypeScript
and Node, reading it as UTF-8, reject as an invalid character), so such a
file stays binary and is reported as not analyzed rather than read as a
comment.  Decoding costs one pass
over the bytes, so such a file is analyzed as any other: its positions are
UTF-16 code units, the same for the decoded text as for the bytes.
"""

from __future__ import annotations

LITTLE = "utf-16-le"
BIG = "utf-16-be"
#: the byte order marks, and UTF-32's, whose little-endian one begins as UTF-16's does.
MARKS = {b"\xff\xfe": LITTLE, b"\xfe\xff": BIG}
UTF32_MARKS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
#: the share of a half's bytes that must be NUL for a file without a mark to be taken for UTF-16 (a half).
NUL_SHARE = 2
#: the fewest bytes a file without a mark is taken for UTF-16 in: eight code units, at least four NUL bytes.
UNMARKED_LEAST = 16
#: what the other byte of a code unit whose high byte is NUL must be: ASCII text (tab, line breaks, printable).
TEXT = frozenset(b"\t\n\r\f" + bytes(range(0x20, 0x7F)))


def encoding(raw: bytes, probe: int) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` when ``raw`` looks like UTF-16 text, judged from its first ``probe`` bytes."""
    if raw.startswith(UTF32_MARKS):
        return None
    marked = MARKS.get(raw[:2])
    if marked is not None:
        return marked
    head = raw[:probe - probe % 2]
    if len(raw) % 2 or len(raw) < UNMARKED_LEAST or b"\x00" not in head:
        return None
    even, odd = head[0::2], head[1::2]
    for high, low, name in ((odd, even, LITTLE), (even, odd, BIG)):
        if (b"\x00" not in low and high.count(0) * NUL_SHARE >= len(high) > 0
                and all(byte in TEXT for top, byte in zip(high, low, strict=True) if top == 0)):
            return name
    return None


def named(name: str) -> str:
    return "UTF-16 (little-endian)" if name == LITTLE else "UTF-16 (big-endian)"


def refusal(raw: bytes, name: str) -> str | None:
    """Why UTF-16 ``raw`` is not analyzed, if it is not: it does not decode, or it holds NUL characters."""
    try:
        text = raw.decode(name)
    except UnicodeDecodeError as error:
        return f"skipped: {named(name)} text that does not decode at byte {error.start} ({error.reason})"
    if "\x00" in text:
        return f"skipped: binary file ({named(name)} with NUL characters)"
    return None
