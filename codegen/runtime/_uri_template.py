"""RFC 6570 URI templates, expanded as a client does: the reader of a resource template.

This file is copied verbatim into each generated package, and imports only the standard library.
Do not edit the copy: run `mcp-stubgen sync` to refresh it.

A client only expands, so every template RFC 6570 defines is read (all four levels), where the MCP
SDK's own `UriTemplate` refuses what its server side could not match back: an explode modifier on
a path variable (FastMCP's `{path*}`), a prefix (`{id:8}`), two variables with no literal between
them. Literal text is sent as the server wrote it, as the SDK sends it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

__all__ = ["InvalidUriTemplate", "UriTemplate"]

_UNRESERVED = "-._~"
_RESERVED = ":/?#[]@!$&'()*+,;="
_ENCODED = re.compile(r"(%[0-9A-Fa-f]{2})")
_VARIABLE = re.compile(r"(?:[\w$-]|%[0-9A-Fa-f]{2})+(?:\.(?:[\w$-]|%[0-9A-Fa-f]{2})+)*")
"""A variable's name: RFC 6570's letters, digits, `_`, `.` and triplets, and the `-` and `$` servers
use (FastMCP's `{$top}` from OpenAPI, `{default-graph-uri}`), but nothing that structures an
expression or a URI."""
_MAX_PREFIX = 9999
_MAX_LENGTH = 8192
_MAX_VARIABLES = 256
"""The MCP SDK's bounds on a template: past them a method would be a hostile catalog's, not a reader."""


@dataclass(frozen=True)
class _Operator:
    """One row of RFC 6570's table (appendix A): what an expression of this operator starts with,
    puts between its values, and whether it names them."""

    first: str
    separator: str
    named: bool
    if_empty: str
    reserved: bool
    """Whether reserved characters and percent-encoded triplets pass unencoded (`+` and `#`)."""


_OPERATORS = {
    "": _Operator("", ",", False, "", False),
    "+": _Operator("", ",", False, "", True),
    ".": _Operator(".", ".", False, "", False),
    "/": _Operator("/", "/", False, "", False),
    ";": _Operator(";", ";", True, "", False),
    "?": _Operator("?", "&", True, "=", False),
    "&": _Operator("&", "&", True, "=", False),
    "#": _Operator("#", ",", False, "", True),
}
_QUERY_OPERATORS = ("?", "&")
_FUTURE_OPERATORS = ("=", ",", "!", "@", "|")


class InvalidUriTemplate(ValueError):
    """A template that cannot be expanded: an unclosed or empty expression, a bad variable name or
    prefix, an operator RFC 6570 reserves. A `}` outside an expression is literal text, as the SDK
    reads it."""


@dataclass(frozen=True)
class _Variable:
    name: str
    explode: bool
    prefix: int | None


@dataclass(frozen=True)
class _Expression:
    operator: str
    variables: tuple[_Variable, ...]


@dataclass(frozen=True)
class UriTemplate:
    """A parsed template: its literal text and expressions, in order."""

    parts: tuple[str | _Expression, ...]

    @classmethod
    def parse(cls, template: str) -> UriTemplate:
        if len(template) > _MAX_LENGTH:
            raise InvalidUriTemplate(f"template exceeds maximum length of {_MAX_LENGTH}")
        parts: list[str | _Expression] = []
        position = 0
        while position < len(template):
            opening = template.find("{", position)
            if opening < 0:
                parts.append(template[position:])
                break
            if opening > position:
                parts.append(template[position:opening])
            end = template.find("}", opening)
            if end < 0:
                raise InvalidUriTemplate(f"unclosed expression at position {opening}")
            parts.append(_expression(template[opening + 1 : end], opening))
            position = end + 1
        if (
            sum(len(part.variables) for part in parts if isinstance(part, _Expression))
            > _MAX_VARIABLES
        ):
            raise InvalidUriTemplate(f"template exceeds maximum of {_MAX_VARIABLES} variables")
        return cls(tuple(parts))

    @property
    def variable_names(self) -> list[str]:
        """Each variable once, in the order the template first names it."""
        names = (
            variable.name for expression in self._expressions() for variable in expression.variables
        )
        return list(dict.fromkeys(names))

    @property
    def query_variable_names(self) -> set[str]:
        """The variables a method may leave out: those of the query the template ends with, a run of
        `{?...}` and `{&...}` expressions that starts with `{?` after a path with no `?` or `#` of its
        own, and nowhere else in it; the MCP SDK's reading, so a template it reads keeps its method."""
        start = len(self.parts)
        while start and _is_query(self.parts[start - 1]):
            start -= 1
        tail, path = self.parts[start:], self.parts[:start]
        if not tail or _operator(tail[0]) != "?" or any(_opens_query(part) for part in path):
            return set()
        return _names(tail) - _names(path)

    @property
    def exploded_names(self) -> set[str]:
        """The variables a list of segments suits: exploded where that puts the operator's separator
        between items (`{/path*}`, `{?tag*}`). In `{rest*}`, `{+rest*}` and `{#rest*}` a list comes out
        as the commas it would without the `*`, so there the variable is text, FastMCP's wildcard."""
        return {
            variable.name
            for expression in self._expressions()
            for variable in expression.variables
            if variable.explode and _OPERATORS[expression.operator].separator != ","
        }

    def expand(self, values: Mapping[str, str | Sequence[str]]) -> str:
        """The URI, with each value encoded as its expression's operator says; a variable that is
        missing, or an empty list, is left out with its separator (RFC 6570's undefined)."""
        return "".join(
            part if isinstance(part, str) else _expanded(part, values) for part in self.parts
        )

    def _expressions(self) -> list[_Expression]:
        return [part for part in self.parts if isinstance(part, _Expression)]


def _is_query(part: str | _Expression) -> bool:
    return _operator(part) in _QUERY_OPERATORS


def _operator(part: str | _Expression) -> str | None:
    return part.operator if isinstance(part, _Expression) else None


def _opens_query(part: str | _Expression) -> bool:
    """Whether a part before the query starts a query or fragment itself."""
    if isinstance(part, str):
        return "?" in part or "#" in part
    return part.operator in ("?", "#")


def _names(parts: Sequence[str | _Expression]) -> set[str]:
    return {
        variable.name
        for part in parts
        if isinstance(part, _Expression)
        for variable in part.variables
    }


def _expression(text: str, position: int) -> _Expression:
    if not text:
        raise InvalidUriTemplate(f"empty expression at position {position}")
    operator = text[0] if text[0] in _OPERATORS or text[0] in _FUTURE_OPERATORS else ""
    if operator in _FUTURE_OPERATORS:
        raise InvalidUriTemplate(f"operator {operator!r} is reserved at position {position}")
    variables = []
    for spec in text[len(operator) :].split(","):
        name, explode, prefix = spec, False, None
        if spec.endswith("*"):
            name, explode = spec[:-1], True
        elif ":" in spec:
            name, length = spec.split(":", 1)
            if (
                not length.isascii()
                or not length.isdigit()
                or length.startswith("0")
                or int(length) > _MAX_PREFIX
            ):
                raise InvalidUriTemplate(
                    f"prefix {length!r} of {name!r} is not 1 to 9999 at position {position}"
                )
            prefix = int(length)
        if not _VARIABLE.fullmatch(name):
            raise InvalidUriTemplate(f"invalid variable name {name!r} at position {position}")
        variables.append(_Variable(name, explode, prefix))
    return _Expression(operator, tuple(variables))


def _expanded(expression: _Expression, values: Mapping[str, str | Sequence[str]]) -> str:
    operator = _OPERATORS[expression.operator]
    pieces = []
    for variable in expression.variables:
        value = values.get(variable.name)
        if value is None or (not isinstance(value, str) and not value):
            continue
        if isinstance(value, str):
            text = value if variable.prefix is None else value[: variable.prefix]
            pieces.append(_named(operator, variable.name, _encoded(text, operator.reserved)))
        elif variable.explode:
            items = [_encoded(item, operator.reserved) for item in value]
            pieces.append(
                operator.separator.join(_named(operator, variable.name, item) for item in items)
            )
        else:
            joined = ",".join(_encoded(item, operator.reserved) for item in value)
            pieces.append(_named(operator, variable.name, joined))
    return operator.first + operator.separator.join(pieces) if pieces else ""


def _named(operator: _Operator, name: str, encoded: str) -> str:
    if not operator.named:
        return encoded
    return f"{name}={encoded}" if encoded else name + operator.if_empty


def _encoded(text: str, reserved: bool) -> str:
    """`text` percent-encoded as UTF-8 but for the unreserved characters, and for `+` and `#` the
    reserved characters and the triplets already encoded."""
    if not reserved:
        return quote(text, safe=_UNRESERVED)
    return "".join(
        piece if _ENCODED.fullmatch(piece) else quote(piece, safe=_UNRESERVED + _RESERVED)
        for piece in _ENCODED.split(text)
    )
