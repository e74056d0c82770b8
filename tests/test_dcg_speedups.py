"""Each faster datamodel-code-generator function (`codegen.generate.dcg_speedups`) answers exactly as the
pinned release's own does, on random text and on real modules, and is put in place only for that release."""

from __future__ import annotations

import functools
import importlib.util
import random
from collections.abc import Callable
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.generate import dcg_speedups
from tests.conftest import REPO

BREAKS = "\r\n\f\v\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character `str.splitlines` breaks at, only two of which (and their pair) end a Python line."""


def _pristine_formatter() -> ModuleType:
    """A fresh copy of the installed `_builtin_formatter`, untouched by `dcg_speedups.install`."""
    import datamodel_code_generator._builtin_formatter as installed

    spec = importlib.util.spec_from_file_location("pristine_builtin_formatter", installed.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _original_splitlines() -> Callable[[str], list[str]]:
    function: Callable[[str], list[str]] = _pristine_formatter()._splitlines_no_ff
    assert function is not dcg_speedups.splitlines_no_ff
    return function


@pytest.fixture
def original_splitlines() -> Callable[[str], list[str]]:
    return _original_splitlines()


@settings(max_examples=500)
@given(text=st.lists(st.sampled_from(["a", " ", "'", "#", "é", *BREAKS, "\r\n"]), max_size=60).map("".join))
def test_splitlines_matches_on_random_text(text: str) -> None:
    assert dcg_speedups.splitlines_no_ff(text) == _original_splitlines()(text)


def test_splitlines_matches_on_long_random_text(original_splitlines: Callable[[str], list[str]]) -> None:
    rng = random.Random(29)
    alphabet = ["x", "def f():", "    ", '"', *BREAKS, "\r\n", "\n\n"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
        assert dcg_speedups.splitlines_no_ff(text) == original_splitlines(text)


def test_splitlines_matches_on_real_modules(original_splitlines: Callable[[str], list[str]]) -> None:
    """Every golden Python file (the generated packages and their models), as written, with Windows line
    endings, and without the final newline."""
    sources = [path.read_text() for path in sorted((REPO / "golden").rglob("*.py"))]
    assert len(sources) > 50
    for source in sources:
        for variant in (source, source.replace("\n", "\r\n"), source.rstrip("\n")):
            assert dcg_speedups.splitlines_no_ff(variant) == original_splitlines(variant)


def test_installed_only_for_the_pinned_release(monkeypatch: pytest.MonkeyPatch) -> None:
    import datamodel_code_generator._builtin_formatter as installed

    before = installed._splitlines_no_ff
    try:
        monkeypatch.setattr(dcg_speedups, "tool_versions", lambda: ("0", "0.90.0", "0"))
        dcg_speedups.proven_release.cache_clear()
        assert dcg_speedups.install.__wrapped__() is False
        assert installed._splitlines_no_ff is before
        monkeypatch.setattr(dcg_speedups, "tool_versions", lambda: ("0", dcg_speedups.PINNED, "0"))
        dcg_speedups.proven_release.cache_clear()
        monkeypatch.setattr(installed, "_splitlines_no_ff", before)
        assert dcg_speedups.install.__wrapped__() is True
        assert installed._splitlines_no_ff is dcg_speedups.splitlines_no_ff
    finally:
        monkeypatch.undo()
        dcg_speedups.proven_release.cache_clear()
