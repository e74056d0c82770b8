"""Untrusted catalog text as Python: string literals, docstring text and JSON values as literals.

Catalog text reaches generated code only through these (as the templates' `literal`, `quoted` and
`docstring` filters, `codegen.generate.templating`), so escaping is decided in one place rather
than in each template, and no catalog can inject code.
"""

from __future__ import annotations

import math
from typing import Any

from codegen.unicode14 import escape_unassigned, printable

__all__ = ["MAX_DOCSTRING_TEXT", "docstring", "literal", "python_literal", "quoted"]


def literal(value: object) -> str:
    """A Python string literal for untrusted text: `repr` escapes quotes, backslashes and every unprintable.

    Where `repr` picks single quotes for text with no quote at all, the literal takes the double
    quotes black prefers, so black has nothing to change (and formats in one pass, not two).
    """
    text = quoted(value)
    body = text[1:-1]
    if text.startswith("'") and '"' not in body and "'" not in body:
        return f'"{body}"'
    return text


def quoted(value: object) -> str:
    """Untrusted text quoted for prose (a docstring's mention of a tool): its `repr` as Python 3.11
    writes it (`escape_unassigned`), single quotes and all."""
    if not isinstance(value, str):
        raise TypeError(f"only strings are written as literals, not {type(value).__name__}")
    return escape_unassigned(repr(value))


MAX_DOCSTRING_TEXT = 100_000
"""Longest text written into one docstring; the rest is cut with a note. black needs about a second
per megabyte of docstring, and a description of megabytes is an attack on its readers, not help."""


def docstring(value: object) -> str:
    """Text safe inside a triple-quoted docstring: quotes and backslashes escaped, unprintables (as
    Python 3.11 reads them: `printable`) as escapes, and a lone surrogate as the text of its escape."""
    text = str(value).replace("\r\n", "\n")
    if len(text) > MAX_DOCSTRING_TEXT:
        text = f"{text[:MAX_DOCSTRING_TEXT]} [cut: {len(text):,} characters in the snapshot]"
    if printable(text.replace("\n", "")):  # the usual case, without a loop over every character
        escaped = text.replace("\\", "\\\\").replace('"', '\\"')
        return _dedented([line.rstrip() for line in escaped.strip().split("\n")])
    out: list[str] = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n" or printable(char):
            out.append(char)
        elif 0xD800 <= ord(char) <= 0xDFFF:  # its escape as text: Python 3.13 cannot compile a surrogate in a docstring
            out.append(f"\\\\u{ord(char):04x}")
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return _dedented([line.rstrip() for line in "".join(out).strip().split("\n")])


def _dedented(lines: list[str]) -> str:
    """The lines joined, those after the first without the spaces they all start with, as
    `inspect.cleandoc` reads a docstring: a description a Python server took from its function's
    docstring keeps that function's indentation (Python 3.13 strips it, 3.11 does not), which left
    every line after the first one level deeper than the docstring around it, a code block to an
    editor's Markdown hover."""
    margin = min((len(line) - len(line.lstrip(" ")) for line in lines[1:] if line), default=0)
    return "\n".join([*lines[:1], *(line[margin:] for line in lines[1:])])


def python_literal(value: Any) -> str:
    """Python source for a JSON value; every string goes through `literal`, so no catalog text becomes code."""
    if isinstance(value, dict):
        items = ", ".join(f"{literal(key)}: {python_literal(value[key])}" for key in sorted(value))
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(item) for item in value) + "]"
    if isinstance(value, str):
        return literal(value)
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    raise TypeError(f"not a JSON value: {value!r}")
