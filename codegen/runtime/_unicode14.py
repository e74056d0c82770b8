"""Names read as Python 3.11 reads them (Unicode 14.0), whatever Unicode the running Python knows.

`unicodedata` answers from the running Python's Unicode database: 14.0 in Python 3.11, 15.1 in 3.13.
`mcp-stubgen` names a snapshot's tools as 3.11 reads them, so a connected hub names the tools a server
adds while it runs the same way (a 15.0 combining mark was dropped from a hub name on 3.13 and kept as
`_` by `generate`). mcp-stubgen's own `codegen.unicode14` asks this module too.

This file is copied verbatim into the generated hub's runtime beside `_hub_catalog.py`, with the table
it reads (`_unicode14_unassigned.txt`), which is read once, and only for a name that is not ASCII.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

UNASSIGNED_TABLE = Path(__file__).with_name("_unicode14_unassigned.txt")
"""The code points Unicode 14.0 leaves unassigned, one range a line (`0378..0379`); Unicode never
unassigns one, so what a later version assigned is here, and every Python's unassigned ones too."""

IDENTIFIER_ADDITIONS = "\u30fb\uff65"
"""The characters assigned in 14.0 that a later version lets continue an identifier (the katakana
middle dots, from 15.1: `データ・取得` is a name in Python 3.13 and a `SyntaxError` in 3.11). ZWJ and
ZWNJ (U+200C, U+200D), added with them, are never kept in a name (`identifiers._INVISIBLE`)."""

STAND_IN = "\ufdd0"
"""A noncharacter: unassigned in every Unicode version, so every Python reads it as 3.11 reads a
code point 14.0 leaves unassigned (not a letter, not printable, no decomposition)."""


def _range(line: str) -> str:
    first, _, last = line.partition("..")
    return f"{chr(int(first, 16))}-{chr(int(last or first, 16))}"


@functools.cache
def unassigned() -> re.Pattern[str]:
    """Matches one code point Unicode 14.0 leaves unassigned (read once, on first use: most names are
    ASCII). The Basic Multilingual Plane's ranges are a class of their own, which `re` looks a
    character up in at once, where a class that also holds the other planes' is tried range by
    range (17 times slower over Chinese text); no range crosses U+FFFF."""
    lines = [
        line
        for line in UNASSIGNED_TABLE.read_text(encoding="ascii").splitlines()
        if not line.startswith("#")
    ]
    basic = "".join(_range(line) for line in lines if int(line.split("..")[0], 16) <= 0xFFFF)
    astral = "".join(_range(line) for line in lines if int(line.split("..")[0], 16) > 0xFFFF)
    return re.compile(f"[{basic}]|(?=[\U00010000-\U0010ffff])[{astral}]")


@functools.cache
def _for_names() -> re.Pattern[str]:
    return re.compile(f"[{IDENTIFIER_ADDITIONS}]|{unassigned().pattern}")


def as_named(text: str) -> str:
    """The text as 3.11 reads it for naming: each code point 14.0 leaves unassigned, and each of
    `IDENTIFIER_ADDITIONS`, replaced by `STAND_IN`, so `isidentifier`, normalization and
    `unicodedata` give 3.11's answers of it (a later version's compatibility letters decompose to
    letters 3.11 would keep). Only for deciding a name: never written out."""
    return text if text.isascii() else _for_names().sub(STAND_IN, text)
