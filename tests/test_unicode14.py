"""One snapshot gives one package on every Python: names and text are read as Python 3.11 (Unicode
14.0) reads them, not by the running Python's Unicode database (15.0 in 3.12, 15.1 in 3.13).

The expectations below are 3.11's answers, recorded; on 3.12 and 3.13 the code before
`codegen.unicode14` gave others (and named methods 3.11 cannot import). `golden/later_unicode`
holds a whole package of such names and text.
"""

from __future__ import annotations

import unicodedata

import pytest

from codegen.generate.escaping import docstring, literal, quoted
from codegen.generate.modelgen import _may_be_too_wide
from codegen.identifiers import escape, pascal_case, plain_identifier, qualified_tools, snake_case, usable_name
from codegen.runtime._unicode14 import UNASSIGNED_TABLE
from codegen.unicode14 import unassigned

KAWI_A = "\U00011f04"
"""A letter Unicode 15.0 assigned (Kawi): an identifier character from Python 3.12 on."""


def unassigned_now() -> list[tuple[int, int]]:
    """The running Python's unassigned code points (General_Category Cn), as ranges."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x110000):
        if unicodedata.category(chr(code)) == "Cn":
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return ranges


def test_the_table_holds_what_unicode_14_leaves_unassigned() -> None:
    """On 3.11 the table is its database's unassigned code points exactly; on a later Python every
    code point still unassigned is in it (Unicode never unassigns one)."""
    pattern = unassigned()
    if unicodedata.unidata_version == "14.0.0":
        lines = [line for line in UNASSIGNED_TABLE.read_text(encoding="ascii").splitlines() if not line.startswith("#")]
        written = [f"{first:04X}..{last:04X}" if first != last else f"{first:04X}" for first, last in unassigned_now()]
        assert lines == written, f"{UNASSIGNED_TABLE.name} is not Unicode 14.0's unassigned code points"
    else:
        missing = [hex(first) for first, last in unassigned_now() if not pattern.match(chr(first))]
        assert not missing, f"unassigned here, not in {UNASSIGNED_TABLE.name}: {missing[:10]}"
    assert pattern.match("\u0378") and pattern.match(KAWI_A) and not pattern.match("a") and not pattern.match("天")


@pytest.mark.parametrize(
    ("wire", "snake", "pascal"),
    [
        ("\U00031350\U00031351", "tool", "Tool"),  # CJK Extension H (15.0): no letters 3.11 knows
        ("get天气\U0002ebf0", "get_天气", "Get天气"),  # CJK Extension I (15.1) dropped, CJK kept
        (f"read_{KAWI_A}", "read", "Read"),
        ("weather\U0001e030", "weather", "Weather"),  # a 15.0 modifier letter, NFKC U+0430: not read as Cyrillic
        ("データ・取得", "データ取得", "データ取得"),  # the katakana middle dot continues an identifier from 3.13 on
    ],
)
def test_names_with_characters_3_11_does_not_know_are_spelled_as_3_11_spells_them(
    wire: str, snake: str, pascal: str
) -> None:
    assert snake_case(wire, "tool") == snake
    assert pascal_case(wire, "Tool", 12) == pascal


def test_a_name_3_11_cannot_import_is_not_a_usable_name() -> None:
    for name in (f"get_{KAWI_A}", "データ・取得", "データ･取得"):
        assert not plain_identifier(name)
        assert not usable_name(name)
    assert plain_identifier("データ取得")


def test_the_builtins_3_12_and_3_13_added_are_reserved_on_every_python() -> None:
    assert not usable_name("PythonFinalizationError")
    assert escape("PythonFinalizationError") == "PythonFinalizationError_"


def test_a_hub_name_reads_a_mark_3_11_does_not_know_as_unassigned() -> None:
    """U+10EFD, an Arabic mark from Unicode 15.0: combining (so dropped) from 3.12 on, `_` in 3.11."""
    [named] = qualified_tools({"maps": ["find\U00010efdplace"]})
    assert named.qualified_name == "maps__find_place"


def test_text_3_11_does_not_know_is_written_as_an_escape() -> None:
    assert literal(f"City {KAWI_A}") == '"City \\U00011f04"'
    assert quoted("\U0002ebf0") == "'\\U0002ebf0'"
    assert docstring(f"Looks up {KAWI_A} and 天气.") == "Looks up \\U00011f04 and 天气."
    assert literal("天气 ・") == '"天气 ・"'


def test_a_line_of_characters_3_11_does_not_know_is_measured_as_3_11_measures_it() -> None:
    """3.11 gives an unassigned code point East Asian width F (two columns), 3.12 and later N."""
    assert _may_be_too_wide(KAWI_A * 70)
    assert not _may_be_too_wide("a" * 70 + "天")
