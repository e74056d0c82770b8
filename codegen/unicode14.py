"""Catalog text read as Python 3.11 reads it (Unicode 14.0), whatever Unicode the running Python knows.

`str.isidentifier`, `str.isprintable`, `repr` and `unicodedata` answer from the running Python's
Unicode database: 14.0 in Python 3.11, 15.0 in 3.12, 15.1 in 3.13. A name or a description holding
a character a later version assigned was spelled, escaped and measured differently, so a team on two
Pythons got two packages from one snapshot (and `generate --check` failed), and a method named in a
letter 3.11 does not know was a `SyntaxError` there. The generator asks these questions through this
module, which gives 3.11's answers on every Python: the oldest Python mcp-stubgen and its packages
run on must read every name it writes, and 3.11's answers are what every package so far was made of.
Naming (`as_named`) and the table of unassigned code points live in the runtime (`_unicode14`), which
names the tools a server adds to a connected hub by the same rule.
"""

from __future__ import annotations

import re
import unicodedata

from codegen.runtime._unicode14 import as_named, unassigned

__all__ = ["as_named", "escape_unassigned", "printable", "unassigned", "wide"]


def printable(text: str) -> bool:
    """`str.isprintable` as 3.11 answers it: never of a code point 14.0 leaves unassigned."""
    return text.isprintable() and (text.isascii() or not unassigned().search(text))


def _escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape_unassigned(written: str) -> str:
    """Text written with its unprintable characters escaped (by `repr` or `one_line`) as 3.11 writes
    it: with each code point 14.0 leaves unassigned escaped too, where a later Python, to which it is
    printable, writes the character itself."""
    return written if written.isascii() else unassigned().sub(_escape, written)


def wide(char: str) -> bool:
    """Whether a character is East Asian wide or fullwidth as 3.11 answers, which counts every
    code point 14.0 leaves unassigned as fullwidth (3.12 and later: narrow, or wide in the CJK planes)."""
    return unicodedata.east_asian_width(char) in "WF" or bool(unassigned().match(char))
