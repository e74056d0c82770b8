"""The code's layout holds what docs/development.md promises: each stage's `command.py` is its CLI
alone, so no other stage reaches into it; what two commands share lives in a module of its own
(`generate/pipeline.py`, `generate/hub_build.py`, `options.py`)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

CODEGEN = REPO / "codegen"
STAGES = sorted(path.name for path in CODEGEN.iterdir() if (path / "command.py").is_file())


def _imported_modules(path: Path) -> set[str]:
    """Every absolute module a file imports, at its top or inside a function."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return modules


def _cross_stage_command_imports() -> set[tuple[str, str]]:
    """(importing stage, stage whose `command` module it imports), over every module of `codegen/`."""
    found: set[tuple[str, str]] = set()
    for path in CODEGEN.rglob("*.py"):
        parts = path.relative_to(CODEGEN).parts
        stage = parts[0] if len(parts) > 1 and parts[0] in STAGES else None
        if stage is None:
            continue
        for module in _imported_modules(path):
            for other in STAGES:
                if other != stage and module == f"codegen.{other}.command":
                    found.add((stage, other))
    return found


def test_the_layout_has_the_stages_the_docs_name() -> None:
    assert {"auth", "drift", "generate", "snapshot", "sync", "view", "watch"} <= set(STAGES)


def test_no_stage_imports_another_stages_command_module() -> None:
    found = sorted(_cross_stage_command_imports())
    assert not found, (
        f"{found}: a stage imports another stage's CLI module; move what they share into a module of its own"
    )
