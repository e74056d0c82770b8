"""What a regular (non-editable) install ships: every package of `codegen` and the data it reads.

An editable install finds modules on disk whether or not pyproject lists them, so a package left out
of `[tool.setuptools] packages` only breaks for users who `pip install mcp-stubgen`."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setuptools() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]  # type: ignore[no-any-return]


def test_every_codegen_package_is_listed_for_the_wheel() -> None:
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "codegen").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    listed = set(_setuptools()["packages"])  # type: ignore[call-overload]
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


def test_package_data_patterns_match_the_files_the_code_reads() -> None:
    data = _setuptools()["package-data"]["codegen"]  # type: ignore[index]
    for pattern in data:
        assert list((ROOT / "codegen").glob(pattern)), f"package-data pattern {pattern!r} matches nothing"
    assert (ROOT / "codegen" / "snapshot" / "snapshot.schema.json").exists()
