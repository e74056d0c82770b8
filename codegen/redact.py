"""Secrets of a server's `env`, `headers` and `auth` (with the OAuth tokens stored for it): kept out of
everything we print and every snapshot.

A secret is searched for in every spelling a program is likely to print it in (as is, JSON-escaped,
as a Python `repr`, URL-encoded), also when a line break or zero-width characters split it. Error
messages and log records are scrubbed of every value of at least `SCRUB_MIN_LENGTH` characters; a
catalog is refused only for a value that can really be a secret (`is_secret`), since `env` also
carries plain settings such as `1`, `true`, `production` or a port, which a catalog may well mention.
Such a value is also searched for encoded (`encodings`: base64, URL-safe base64, hex, reversed).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

from codegen.errors import StubgenError, one_line

SCRUB_MIN_LENGTH = 3
"""Shorter values are not scrubbed from messages: replacing every `1` would garble them."""
SECRET_MIN_LENGTH = 8
"""A catalog is refused only for a value (or a word of one) at least this long with a letter and a digit."""
MASK = "***"
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
"""Characters that show as nothing: a secret with them inside still reads as the secret."""
_WITHOUT_ZERO_WIDTH = str.maketrans("", "", _ZERO_WIDTH)
_LINE_BREAK = rf"(?:[ \t]*\r?\n[ \t]*)?[{_ZERO_WIDTH}]*"
"""Allowed between any two characters of a secret: a program that wraps long lines splits it, and
zero-width characters hide in it."""
_BASE64_CORE = 12
"""The shortest run of base64 characters searched for inside a longer base64 text."""


_SETTING_WORD = re.compile(r"[^\W\d_]+|\d{1,2}")
"""A word of a plain setting: letters alone, or a number of one or two digits."""
_WORD_SEPARATORS = re.compile(r"[\W_]+")


def is_secret(value: str) -> bool:
    """Whether a value is long and mixed enough to be a credential: numbers, flags and plain words
    (`8080`, `true`, `production`, `application/json`) are not, nor words joined with small numbers
    (a cloud region, `us-east-1`, which awslabs' servers echo in their catalogs), nor the absolute
    path of a file or folder that exists (excel-mcp-server names its `EXCEL_FILES_PATH` folder in its
    instructions, and a folder's name often holds a digit); API keys and tokens are."""
    return (
        len(value) >= SECRET_MIN_LENGTH
        and any(char.isalpha() for char in value)
        and any(char.isdigit() for char in value)
        and not all(_SETTING_WORD.fullmatch(word) for word in _WORD_SEPARATORS.split(value) if word)
        and not (os.path.isabs(value) and os.path.exists(value))
    )


def spellings(value: str) -> set[str]:
    """The ways a program may print `value`: as is, JSON-escaped, `repr`-escaped, URL-encoded."""
    return {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        repr(value)[1:-1],
        quote(value, safe=""),
        quote(value),
        quote_plus(value, safe=""),
    }


def encodings(value: str) -> set[str]:
    """The ways a server may echo a secret encoded: base64 and URL-safe base64 (with and without
    padding, and the part that does not depend on its position inside longer base64 text), hex in
    either case, and reversed."""
    data = value.encode()
    forms = {data.hex(), data.hex().upper(), value[::-1]}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(data).decode("ascii")
        forms |= {whole, whole.rstrip("=")}
        for offset in (1, 2):  # after 1 or 2 bytes of something else, the groups shift
            core = encode(b"\0" * offset + data).decode("ascii")[4:-4]
            if len(core) >= _BASE64_CORE:
                forms.add(core)
        if len(whole) - 4 >= _BASE64_CORE:
            forms.add(whole[:-4])  # followed by more: the last group changes
    return forms


class Secrets:
    """The expanded `env`, `headers` and `auth` values of one server, and the OAuth tokens stored for it."""

    def __init__(self, values: Iterable[str]) -> None:
        values = list(values)
        words = {word for value in values for word in value.split() if is_secret(word)}
        refused = {value for value in values if is_secret(value)} | words
        encoded = {form for value in refused for form in encodings(value)}
        self._refused_forms = frozenset({form for value in refused for form in spellings(value)} | encoded)
        scrubbed = {value for value in values if len(value) >= SCRUB_MIN_LENGTH} | words
        self.key = frozenset(scrubbed)
        forms = sorted({form for value in scrubbed for form in spellings(value)} | encoded, key=len, reverse=True)
        self._pattern = (
            re.compile("|".join(_LINE_BREAK.join(re.escape(char) for char in form) for form in forms))
            if forms
            else None
        )
        _log_scrubber.remember(self)

    def scrub(self, text: str) -> str:
        """`text` with every spelling of every secret replaced by `***`."""
        return text if self._pattern is None else self._pattern.sub(MASK, text)

    def refuse_in_catalog(self, server: str, document: Any) -> None:
        """Raise when a secret appears anywhere in a snapshot document (keys included), naming the
        field by its JSON pointer and never the value: a snapshot is committed and shared."""
        if not self._refused_forms:
            return
        text = json.dumps(document, ensure_ascii=False).translate(_WITHOUT_ZERO_WIDTH)  # one search finds most clean
        if not any(json.dumps(form, ensure_ascii=False)[1:-1] in text for form in self._refused_forms):
            return
        where = _first_pointer(document, self._refused_forms)
        if where is not None:
            raise StubgenError(
                f"server {server!r}: the catalog contains the value of one of its secrets (`env`, `headers`, `auth` "
                f"or an OAuth token) at {where or '/'}; the snapshot was not written. Have the server stop echoing it, "
                "and rotate the secret if it was shared"
            )


def _first_pointer(value: Any, forms: frozenset[str], path: str = "") -> str | None:
    """The JSON pointer of the first key or string that contains one of `forms`."""
    if isinstance(value, str):
        return path if any(form in value.translate(_WITHOUT_ZERO_WIDTH) for form in forms) else None
    if isinstance(value, dict):
        for key in sorted(value):
            here = f"{path}/{key.replace('~', '~0').replace('/', '~1')}"
            if any(form in key.translate(_WITHOUT_ZERO_WIDTH) for form in forms):
                return here
            found = _first_pointer(value[key], forms, here)
            if found is not None:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _first_pointer(item, forms, f"{path}/{index}")
            if found is not None:
                return found
    return None


class _LogScrubber(logging.Filter):
    """Scrubs every log record (the SDK's and httpx's too, tracebacks included) of every secret met
    so far, and escapes control characters in it, before a handler writes it."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: dict[frozenset[str], Secrets] = {}
        """By their values: `watch` meets the same server's secrets on every reconnection."""

    def remember(self, secrets: Secrets) -> None:
        self._secrets.setdefault(secrets.key, secrets)

    def _scrub(self, text: str) -> str:
        for secrets in list(self._secrets.values()):
            text = secrets.scrub(text)
        return text

    def _clean(self, text: str) -> str:
        """A traceback keeps its lines; each is scrubbed and escaped."""
        return "\n".join(one_line(line) for line in self._scrub(text).split("\n"))

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = one_line(self._scrub(record.getMessage()))
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._clean(record.exc_text)
        if record.stack_info:
            record.stack_info = self._clean(record.stack_info)
        return True


_log_scrubber = _LogScrubber()


def scrub_logs() -> None:
    """Put the scrubber on every handler of the root logger (the command line's stderr handler)."""
    for handler in logging.getLogger().handlers:
        if _log_scrubber not in handler.filters:
            handler.addFilter(_log_scrubber)
